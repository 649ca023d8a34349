package lisp

// Freeze makes v safe to share between evaluations running at once, and
// returns it.
//
// Values are immutable, but a vector, map or set that is the longest
// version of its lineage extends its backing array (and, for maps and
// sets, its index) in place on conj or assoc. Two goroutines doing that to
// the same value would write the same slots. Freeze ends every lineage
// inside v: a later conj or assoc on any of its collections copies first,
// and the copy starts a lineage of its own, private to whoever made it.
// Reading a frozen value writes nothing but the memo of a map's printed
// source (atomically; see appendSource), so any number of goroutines may
// read it.
//
// Freeze also measures how many levels each of v's vectors and maps
// nests when it holds nothing but collections and plain scalars (all a
// value read from text holds), so that checking a definition or result
// against the nesting bound does not walk frozen data again (nests).
//
// v must not be in use by another goroutine while it is frozen. Freeze
// walks every element, so it is for trees as the reader builds them (no
// shared substructure), such as values decoded from the wire and kept for
// later requests.
func Freeze(v Value) Value {
	freeze(v)
	return v
}

// freeze freezes v and returns how many levels it nests, and whether it
// holds only collections and plain scalars (plain).
func freeze(v Value) (levels int, plain bool) {
	switch c := v.(type) {
	case *Vector:
		c.tail = nil
		levels, plain = freezeAll(c.elems)
		if plain {
			c.nests = int32(levels)
		}
		return levels, plain
	case *Map:
		c.tail = nil
		c.source.CompareAndSwap(nil, &unprinted)
		levels, plain = 0, true
		for _, e := range c.entries {
			kl, kp := freeze(e.Key)
			vl, vp := freeze(e.Val)
			levels, plain = max(levels, kl, vl), plain && kp && vp
		}
		levels++
		if plain {
			c.nests = int32(levels)
		}
		return levels, plain
	case *Set:
		c.tail = nil
		return freezeAll(c.elems)
	case NilType, Bool, Int, Float, String, Keyword, symbol:
		return 0, true
	}
	return 0, false
}

// freezeAll freezes the elements of a sequence and returns the levels the
// sequence nests and whether they are all plain.
func freezeAll(elems []Value) (levels int, plain bool) {
	plain = true
	for _, e := range elems {
		l, p := freeze(e)
		levels, plain = max(levels, l), plain && p
	}
	return levels + 1, plain
}
