package lisp

import "math"

// Footprint estimates the heap bytes v holds, for a host that keeps values
// between requests and must count what it keeps (the server's memo): the
// headers and items of collections, the bytes of strings, and for a
// function its code and what it holds. A closure keeps its compiled fn
// form, codeBytesPerTextByte bytes per byte of its source text; a value or
// code shared by several parts of v is counted once.
func Footprint(v Value) int64 {
	n, _ := FootprintUpTo(v, math.MaxInt64)
	return n
}

// FootprintUpTo is Footprint, counted only up to limit: ok is false, and
// n passes limit, when v holds more. A host that keeps values up to a size
// learns that a larger one will not be kept without walking all of it, and
// without the walk's record of what it has seen growing with it.
func FootprintUpTo(v Value, limit int64) (n int64, ok bool) {
	var code map[*lambda]bool // counted once, however many closures share it
	w := newWalk(nil, v, math.MaxInt)
	w.visitOnce()
	for ev, at := w.next(); ev != walkDone; ev, at = w.next() {
		if n > limit {
			return n, false
		}
		if ev == walkLeave || (!w.entered() && w.height > 0) {
			continue // left, or seen before
		}
		switch x := at.(type) {
		case *Vector:
			n += 56 + 16*int64(x.Len())
		case *Map:
			n += 64 + 32*int64(x.Len())
			if x.index != nil {
				n += 48 * int64(x.Len())
			}
		case *Set:
			n += 56 + 64*int64(x.Len())
		case String:
			n += 16 + int64(len(x))
		case Keyword:
			n += 16 + int64(len(x))
		case symbol:
			n += 16 + int64(len(x))
		case Int, Float:
			n += 8
		case *closure:
			n += costClosure + 16*int64(len(x.free))
			if !code[x.lam] {
				if code == nil {
					code = map[*lambda]bool{}
				}
				code[x.lam] = true
				n += codeBytesPerTextByte * x.lam.textSize
			}
		case *regex:
			n += 256 + regexBytesPerInst*int64(x.insts)
		case holder: // functions built by combinators, where predicates
			n += costClosure + 16*int64(len(x.heldValues()))
		case *varRef:
			n += 32 + int64(len(x.Name))
		case *toolFunc:
			n += 32 + int64(len(x.Name))
		}
	}
	return n, n <= limit
}

// codeBytesPerTextByte is about how many bytes the forms and compiled
// nodes of a fn take per byte of its source text (2.7 KB for a 244-byte
// program).
const codeBytesPerTextByte = 11

// regexBytesPerInst is about how many bytes a compiled regex takes per
// instruction of its program, counting the copy anchored for re-matches.
const regexBytesPerInst = 80
