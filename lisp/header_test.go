package lisp

import (
	"reflect"
	"testing"
)

// TestCollectionHeadersFitTheirSizeClass: a request of many small maps or
// vectors decodes to a header each, so a header one word over a Go size
// class (48 and 64 bytes) costs a whole class more per value. What a
// collection rarely has (metadata, a record type, a list or entry mark)
// lives behind one pointer so that it does not grow the header.
func TestCollectionHeadersFitTheirSizeClass(t *testing.T) {
	for _, h := range []struct {
		what          string
		size, charged uintptr
	}{
		{"a vector", reflect.TypeFor[Vector]().Size(), heapVectorHead},
		{"a list form", reflect.TypeFor[list]().Size(), heapVectorHead},
		{"a map form", reflect.TypeFor[mapForm]().Size(), heapVectorHead},
		{"a set form", reflect.TypeFor[setForm]().Size(), heapVectorHead},
		{"a map", reflect.TypeFor[Map]().Size(), heapMapHead},
		{"a set", reflect.TypeFor[Set]().Size(), heapSetHead},
	} {
		if h.size > h.charged {
			t.Errorf("%s's header is %d bytes, over the %d-byte size class it is charged", h.what, h.size, h.charged)
		}
	}
	// A drop is two allocations, the sequence and its walk, each in the
	// 32-byte class: what a walk by rest that keeps its steps holds.
	if seq, walk := reflect.TypeFor[infiniteSeq]().Size(), reflect.TypeFor[seqWalk]().Size(); seq > 32 || walk > 32 || seq+walk > heapDrop {
		t.Errorf("a drop is %d+%d bytes, over heapDrop (%d), what it is charged", seq, walk, heapDrop)
	}
	if size := reflect.TypeFor[seqPlace]().Size(); size > heapPlace {
		t.Errorf("a place in a walk is %d bytes, over heapPlace (%d), what it is charged", size, heapPlace)
	}
	// Any other sequence is its header and its origin, two allocations
	// within 128 bytes: heapLazySeq charges the rest to the closure that
	// starts its readers.
	if seq, origin := reflect.TypeFor[infiniteSeq]().Size(), reflect.TypeFor[seqOrigin]().Size(); seq+origin > 128 {
		t.Errorf("a lazy sequence is %d+%d bytes, over the 128 of heapLazySeq (%d) its header takes", seq, origin, heapLazySeq)
	}
	if size := reflect.TypeFor[atom]().Size(); size > heapAtom {
		t.Errorf("an atom is %d bytes, over heapAtom (%d), what it is charged", size, heapAtom)
	}
	// A record without metadata shares its type's traits: building one
	// allocates none.
	c := readRecordClass("user.R", []MapEntry{{Keyword("a"), Int(1)}})
	b := NewMapBuilder(1)
	b.Set(Keyword("a"), Int(1))
	b.m.setClass(c)
	r := b.Map()
	if r.traits != c.traits || r.class() != c || r.metadata() != nil {
		t.Errorf("a record without metadata does not share its type's traits")
	}
	m := mapWithMeta(r, r)
	if m.class() != c || m.metadata() != r || r.metadata() != nil {
		t.Errorf("with-meta of a record lost its type or changed the record")
	}
	if plain := mapWithMeta(m, nil); plain.traits != c.traits {
		t.Errorf("a record's metadata taken away leaves traits of its own")
	}
}
