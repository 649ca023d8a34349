package lisp

import "testing"

// TestBuiltChargeIsTheHeapShape: what a builtin is charged before it
// builds a collection of n parts (collHeap.built) is the heap shape the
// collection then has, hash index included, for every size around the
// point where maps and sets start to keep an index. When charges had a
// size model of their own, a map's header was charged 48 bytes for its
// 64 and a large map's index nothing.
func TestBuiltChargeIsTheHeapShape(t *testing.T) {
	for n := 0; n <= 4*smallMap; n++ {
		elems := make([]Value, n)
		b := NewMapBuilder(n)
		for i := range n {
			elems[i] = Int(i)
			b.Set(Int(i), Keyword("v"))
		}
		for _, c := range []struct {
			what    string
			charged int64
			built   Value
		}{
			{"vector", vectorHeap.built(n), NewVector(elems)},
			{"set", setHeap.built(n), NewSet(elems)},
			{"map", mapHeap.built(n), b.Map()},
		} {
			if shape := heapShapeOf(c.built); shape != c.charged {
				t.Errorf("a %s of %d is charged %d before it is built, and its heap shape is %d", c.what, n, c.charged, shape)
			}
		}
	}
}
