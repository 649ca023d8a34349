package lisp

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSubVectorWeight checks that a sub-vector's weight, derived from its
// parent's, equals the weight of the same items built afresh.
func TestSubVectorWeight(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 500 {
		n := r.IntN(20)
		elems := randomValues(r, n)
		v := NewVector(elems)
		i := r.IntN(n + 1)
		j := i + r.IntN(n-i+1)
		got := subVector(v, i, j).valueWeight()
		want := NewVector(slices.Clone(elems[i:j])).valueWeight()
		if got != want {
			t.Fatalf("weight of %s[%d:%d] = %d, want %d", Repr(v), i, j, got, want)
		}
	}
}

// TestSetViewWeight checks the same for the views of a set (rest, drop,
// butlast, take-last), whose weights come from the set's: in the set's
// order, every slice of it weighs what the same items built afresh do.
func TestSetViewWeight(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	th := newTestThread()
	for range 500 {
		n := r.IntN(20)
		elems := randomValues(r, n)
		s := NewSet(elems)
		ordered, err := s.seqElems(nil)
		if err != nil {
			t.Fatal(err)
		}
		i := r.IntN(len(ordered) + 1)
		j := i + r.IntN(len(ordered)-i+1)
		got, err := sub(th, s, ordered, i, j)
		if err != nil {
			t.Fatal(err)
		}
		want := NewVector(slices.Clone(ordered[i:j])).valueWeight()
		if w := got.(*Vector).valueWeight(); w != want {
			t.Fatalf("weight of %s[%d:%d] = %d, want %d", Repr(s), i, j, w, want)
		}
	}
}

// randomValues gives n values of the kinds the fuzz targets build.
func randomValues(r *rand.Rand, n int) []Value {
	elems := make([]Value, n)
	for k := range elems {
		elems[k], _ = fuzzValue([]byte{byte(r.IntN(256)), byte(r.IntN(256)), byte(r.IntN(256)), byte(r.IntN(256)), 'x', 'y'}, 0)
	}
	return elems
}
