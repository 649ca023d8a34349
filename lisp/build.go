package lisp

// Building a map or set part by part, charged for what it allocates.
//
// A builder that cannot know how many parts it will hold (frequencies,
// group-by, distinct, set, into, conj and assoc in a loop) grows as it
// fills. Go grows a full slice by a quarter past 256 parts, so that the
// arrays it outgrows add up to four times the last, and a Go map doubles
// its table besides; the charge of the finished collection (its heap
// shape) counted none of that: (frequencies (range 200000)) allocated 3.4
// times its charge, (distinct ...) 7.8 times. Every such builder now grows
// its array by doubling it (appendRoom) and is charged, before each
// growth, the new array and its hash index's share of it (chargeGrowth):
// what it allocates, whatever the share of duplicates in its input.

// grownCap is the room a full map's or set's array of n parts grows to.
func grownCap(n int) int { return max(2*n, smallMap) }

// chargeGrowth charges a collection of kind's array of n parts of part bytes
// each growing to grownCap(n): the new array and, for an indexed one, the
// index's room for as many parts (its table doubles as the array does).
// The first growth pays for the collection's header too.
func chargeGrowth(th *Thread, kind collHeap, n int, part int64, indexed bool) error {
	c := int64(grownCap(n))
	b := part * c
	if indexed {
		b += heapIndexPart * c
	}
	if n == 0 {
		b += kind.head()
		if indexed {
			b += heapIndexHead
		}
	}
	return th.alloc(b)
}

// appendRoom is append that doubles a full array to grownCap, as
// chargeGrowth charges it.
func appendRoom[T any](s []T, x T) []T {
	if len(s) == cap(s) {
		grown := make([]T, len(s), grownCap(len(s)))
		copy(grown, s)
		s = grown
	}
	return append(s, x)
}

// setBuilder builds a set part by part, each part hashed once and each
// growth charged.
type setBuilder struct{ s *Set }

func newSetBuilder() setBuilder { return setBuilder{s: &Set{weight: 1}} }

// add adds e unless an equal part is there, and reports whether it did.
// The caller has charged hashing e (chargeKey).
func (b setBuilder) add(th *Thread, e Value) (bool, error) {
	s := b.s
	n := len(s.elems)
	indexed := s.index != nil || n+1 > smallMap || !cheapKey(e)
	var hk any
	if indexed {
		hk = hashKey(e)
		if s.index != nil {
			if _, ok := s.index[hk]; ok {
				return false, nil
			}
		} else if s.contains(e) {
			return false, nil
		}
	} else if s.contains(e) {
		return false, nil
	}
	if n == cap(s.elems) {
		if err := chargeGrowth(th, setHeap, n, heapSlot, true); err != nil {
			return false, err
		}
	}
	s.elems = appendRoom(s.elems, e)
	if indexed {
		if s.index == nil { // the set outgrows a scan
			s.index = make(map[any]int, cap(s.elems))
			for i, x := range s.elems[:n] {
				s.index[hashKey(x)] = i
			}
		}
		s.index[hk] = n
	}
	s.weight = addWeight(s.weight, weightOf(e))
	return true, nil
}

// set returns the built set, starting its lineage; the builder must not
// be used afterwards.
func (b setBuilder) set() *Set {
	b.s.tail = &lineageTail{used: len(b.s.elems)}
	return b.s
}

// slot returns where k's entry is in the map being built, adding it with
// the value nil when k is new (added true), hashing k once and charging
// the growth of the map's array and index, each part of part bytes (an
// entry, with what the caller keeps beside it). The caller has charged
// hashing k (chargeKey), and gives a new entry its value with put.
func (b *MapBuilder) slot(th *Thread, k Value, part int64) (i int, added bool, err error) {
	m := b.m
	n := len(m.entries)
	var hk any
	if m.index != nil {
		hk = hashKey(k)
		if i, ok := m.index[hk]; ok {
			return i, false, nil
		}
	} else if i, ok := m.find(k); ok {
		return i, false, nil
	}
	switch {
	case n == cap(m.entries):
		if err := chargeGrowth(th, mapHeap, n, part, true); err != nil {
			return 0, false, err
		}
	case n == 0:
		// The room a builder starts with (newBuilderMap: two to eight
		// entries in the map's own allocation) is charged with its first
		// entry: (array-map :a 1) kept 144 bytes and was charged none.
		if err := th.alloc(heapMapHead + part*int64(cap(m.entries))); err != nil {
			return 0, false, err
		}
	}
	if n >= smallMap && m.order.Load() == nil {
		m.order.Store(unorderedHashMap) // a key added past 8 makes a hash map, as in Clojure
	}
	m.entries = appendRoom(m.entries, MapEntry{k, Nil})
	m.weight = addWeight(m.weight, weightOf(k))
	if m.index != nil {
		m.index[hk] = n
		return n, true, nil
	}
	m.indexKey(k, n)
	if m.index != nil && n < smallMap {
		// A key that is not a plain scalar (a function, a collection)
		// indexes a small map at once, in room the builder did not charge
		// for: (hash-map + 1) allocated 480 bytes for a step.
		if err := th.alloc(heapIndexHead + heapIndexPart*int64(cap(m.entries))); err != nil {
			return 0, false, err
		}
	}
	return n, true, nil
}

// put gives the entry slot added at i its value, once.
func (b *MapBuilder) put(i int, v Value) {
	b.m.entries[i].Val = v
	b.m.weight = addWeight(b.m.weight, weightOf(v))
}

// add is Set, charged for the growth of the map's array and index: a key
// already there keeps its place and takes the new value.
func (b *MapBuilder) add(th *Thread, k, v Value) error {
	i, added, err := b.slot(th, k, heapEntry)
	if err != nil {
		return err
	}
	if !added {
		b.m.weight -= weightOf(b.m.entries[i].Val)
	}
	b.put(i, v)
	return nil
}
