package lisp

import "math"

// Freeze makes v safe to share between evaluations running at once, and
// returns it.
//
// Values are immutable, but a vector, map or set that is the longest
// version of its lineage extends its backing array (and, for maps and
// sets, its index) in place on conj or assoc. Two goroutines doing that to
// the same value would write the same slots. Freeze ends every lineage
// inside v, including inside the functions it holds (what a closure
// captured, the arguments of a function built by comp or partial): a later
// conj or assoc on any of its collections copies first, and the copy
// starts a lineage of its own, private to whoever made it. Reading a value
// writes nothing but the order a hash map or set caches (hashorder.go), an
// atomic store of an order every reader computes alike, so any number of
// goroutines may read a frozen value.
//
// A sorted map or set keeps its tail, which holds its ordering and is
// never written; its comparator was frozen when it was made (sorted.go).
//
// Freeze also measures how many levels each of v's vectors and maps
// nests when it holds nothing but collections and plain scalars (all a
// value read from text holds), so that checking a definition or result
// against the nesting bound does not walk frozen data again (nests).
//
// v must not be in use by another goroutine while it is frozen; freezing
// a frozen value writes nothing, so frozen parts may be shared. Shared
// structure is walked once.
func Freeze(v Value) Value {
	// No depth limit: every part must be frozen, and the walk keeps its
	// own stack.
	w := newWalk(nil, v, math.MaxInt)
	w.visitOnce()
	w.measured = true // frozen already, and plain
	w.withMeta = true // metadata is frozen with its value
	var plain []bool  // whether each value being entered holds only plain data
	for ev, at := w.next(); ev != walkDone; ev, at = w.next() {
		if ev == walkLeave {
			p := plain[len(plain)-1]
			plain = plain[:len(plain)-1]
			if p {
				setNests(at, w.height)
			}
			if !p && len(plain) > 0 {
				plain[len(plain)-1] = false
			}
			continue
		}
		switch c := at.(type) {
		case *Vector:
			if c.tail != nil {
				c.tail = nil
			}
		case *Map:
			if c.tail != nil && c.tail.order == nil {
				c.tail = nil
			}
		case *Set:
			if c.tail != nil && c.tail.order == nil {
				c.tail = nil
			}
		}
		switch {
		case w.entered():
			_, isHolder := at.(holder)
			// A value with metadata is not plain: its nesting stays
			// unmeasured, so that a later Freeze walks into its metadata.
			plain = append(plain, !isHolder && metaOf(at) == nil)
		case len(plain) > 0 && !isPlain(at):
			plain[len(plain)-1] = false
		}
	}
	return v
}

// isPlain reports whether v is a plain scalar or a collection whose
// nesting Freeze measured.
func isPlain(v Value) bool {
	switch v.(type) {
	case NilType, Bool, Int, Float, Float32, String, Keyword, symbol, *BigInt, *BigDec:
		return true
	}
	_, ok := nestsMeasured(v)
	return ok
}

// setNests records the levels a frozen plain vector or map nests (see
// nestsMeasured), writing nothing when they are recorded already: frozen
// values, and the empty collections every program shares, may be frozen
// again while others read them.
func setNests(v Value, n int) {
	if n > maxNests {
		return
	}
	switch c := v.(type) {
	case *Vector:
		if w := c.weight&weightMask | int64(n)<<nestsShift; c.weight != w {
			c.weight = w
		}
	case *Map:
		if w := c.weight&weightMask | int64(n)<<nestsShift; c.weight != w {
			c.weight = w
		}
	}
}
