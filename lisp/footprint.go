package lisp

import "math"

// Footprint estimates the heap bytes v holds, for a host that keeps values
// between requests and must count what it keeps (the server's memo): the
// heap shape of each value it holds (heap.go), the one the allocation
// charge and the read cost use, and for a closure its code besides. A closure keeps its compiled fn
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
	var code map[*lambda]bool         // counted once, however many closures share it
	var classes map[*recordClass]bool // a record type's field list, likewise
	// A sorted collection's comparator is kept with it but is no part of
	// it: each is counted once, walked after the value, with those it
	// holds in turn.
	var orders map[*keyOrder]bool
	for roots := []Value{v}; len(roots) > 0; {
		w := newWalk(nil, roots[len(roots)-1], math.MaxInt)
		roots = roots[:len(roots)-1]
		w.visitOnce()
		w.withMeta = true // what a kept value holds includes its metadata
		for ev, at := w.next(); ev != walkDone; ev, at = w.next() {
			if n > limit {
				return n, false
			}
			if ev == walkLeave || (!w.entered() && w.height > 0) {
				continue // left, or seen before
			}
			if o := orderOf(at); o != nil && o.by != nil && !orders[o] {
				if orders == nil {
					orders = map[*keyOrder]bool{}
				}
				orders[o] = true
				roots = append(roots, o.by)
			}
			n += footprintOf(at, &code, &classes)
		}
	}
	return n, n <= limit
}

// footprintOf is what at takes itself: its heap shape, and, the first
// time each is met, a closure's code and a record type's field list.
func footprintOf(at Value, code *map[*lambda]bool, classes *map[*recordClass]bool) int64 {
	n := heapShapeOf(at)
	if c, ok := at.(*closure); ok && !(*code)[c.lam] {
		if *code == nil {
			*code = map[*lambda]bool{}
		}
		(*code)[c.lam] = true
		n += codeBytesPerTextByte*c.lam.textSize + c.lam.analysisBytes
	}
	if m, ok := at.(*Map); ok && m.class() != nil && !(*classes)[m.class()] {
		if *classes == nil {
			*classes = map[*recordClass]bool{}
		}
		(*classes)[m.class()] = true
		n += heapClass + heapSlot*int64(len(m.class().fields))
	}
	return n
}

// codeBytesPerTextByte is the most the forms and compiled nodes of a fn
// take per byte of its source text: a form and its node take at most
// heldBytesPerForm, and each form prints as at least two bytes (a
// bracket and its match, a name and a space). An ordinary fn takes 30-60;
// one of nested literals up to 153, where eleven were counted.
const codeBytesPerTextByte = heldBytesPerForm / 2
