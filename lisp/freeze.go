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
// v must not be in use by another goroutine while it is frozen. Freeze
// walks every element, so it is for trees as the reader builds them (no
// shared substructure), such as values decoded from the wire and kept for
// later requests.
func Freeze(v Value) Value {
	switch c := v.(type) {
	case *Vector:
		c.tail = nil
		for _, e := range c.elems {
			Freeze(e)
		}
	case *Map:
		c.tail = nil
		c.source.CompareAndSwap(nil, &unprinted)
		for _, e := range c.entries {
			Freeze(e.Key)
			Freeze(e.Val)
		}
	case *Set:
		c.tail = nil
		for _, e := range c.elems {
			Freeze(e)
		}
	}
	return v
}
