package lisp

import (
	"fmt"
	"slices"
	"testing"
)

// collShapes are the collection arguments TestCostGrowsWithBigCollections
// gives every argument position: flat collections of every kind of n
// elements, strings read as sequences, lazy sequences, and nested values
// (n/8 deep, or n/8 rows of n/8), beside small fixed values the
// collection functions take with them. A shape marked number is read
// whole by a comparison or a hash even when nothing is allocated.
var collShapes = []numShape{
	{"vector", true, true, func(n int) string { return fmt.Sprintf("(vec (range %d))", n) }},
	{"list", true, true, func(n int) string { return fmt.Sprintf("(apply list (range %d))", n) }},
	{"map", true, true, func(n int) string { return fmt.Sprintf("(zipmap (range %d) (range %d))", n, n) }},
	{"map of vector keys", true, true, func(n int) string {
		return fmt.Sprintf("(zipmap (map (fn [i] [i :k]) (range %d)) (range %d))", n, n)
	}},
	{"set", true, true, func(n int) string { return fmt.Sprintf("(set (range %d))", n) }},
	{"set of vectors", true, true, func(n int) string { return fmt.Sprintf("(set (map (fn [i] [i (str i)]) (range %d)))", n) }},
	{"sorted map", true, true, func(n int) string { return fmt.Sprintf("(into (sorted-map) (zipmap (range %d) (range %d)))", n, n) }},
	{"sorted set", true, true, func(n int) string { return fmt.Sprintf("(apply sorted-set (range %d))", n) }},
	{"lazy seq", true, true, func(n int) string { return fmt.Sprintf("(map inc (range %d))", n) }},
	{"text", true, true, func(n int) string { return fmt.Sprintf(`(apply str (repeat %d "a"))`, n) }},
	{"vector of texts", true, true, func(n int) string { return fmt.Sprintf("(mapv str (range %d))", n) }},
	{"records", true, true, func(n int) string { return fmt.Sprintf("(mapv (fn [i] {:a i :b [i]}) (range %d))", n) }},
	{"nested vector", true, true, func(n int) string { return fmt.Sprintf("(reduce (fn [a i] [i a]) [] (range %d))", n/8) }},
	{"nested map", true, true, func(n int) string { return fmt.Sprintf("(reduce (fn [a i] {:a a :i i}) {} (range %d))", n/8) }},
	{"path", true, true, func(n int) string { return fmt.Sprintf("(vec (repeat %d :a))", n/8) }},
	{"rows", true, true, func(n int) string {
		return fmt.Sprintf("(mapv (fn [i] (vec (range i (+ i %d)))) (range %d))", n/8, n/8)
	}},
	{"2", false, false, func(int) string { return "2" }},
	{"keyword", false, false, func(int) string { return ":a" }},
	{"text b", false, false, func(int) string { return `"b"` }},
	{"nil", false, false, func(int) string { return "nil" }},
	{"identity", false, false, func(int) string { return "identity" }},
	{"vector fn", false, false, func(int) string { return "vector" }},
	{"+", false, false, func(int) string { return "+" }},
}

// freshShapes are built anew for every call: a lazy sequence realised by
// one call would be a finished one for the next.
var freshShapes = map[string]bool{"lazy seq": true}

// collCalls are the calls of b's smallest arities (up to three
// arguments) with one collection shape or more in any position, every
// growing position of one call the same shape (two big sets for
// set/union, two nested values for =), the others small fixed values.
func collCalls(b *Builtin) []bigCall {
	var growing, fixed []numShape
	for _, s := range collShapes {
		if s.grows {
			growing = append(growing, s)
		} else {
			fixed = append(fixed, s)
		}
	}
	var out []bigCall
	for _, arity := range smallArities(b) {
		for mask := 1; mask < 1<<arity; mask++ {
			free := 0
			for i := range arity {
				if mask&(1<<i) == 0 {
					free++
				}
			}
			for _, g := range growing {
				eachCombination(free, len(fixed), func(idx []int) {
					call := make(bigCall, arity)
					k := 0
					for i := range arity {
						if mask&(1<<i) != 0 {
							call[i] = g
						} else {
							call[i] = fixed[idx[k]]
							k++
						}
					}
					if accepts(b, call.args(4)) {
						out = append(out, call)
					}
				})
			}
		}
	}
	return out
}

// readsWholeValue are the builtins that read every part of a collection
// argument (comparing, hashing or ordering it) without necessarily
// allocating: on collections 8 times larger they must charge more.
var readsWholeValue = map[string]bool{
	"=": true, "not=": true, "compare": true, "hash": true, ".equals": true, ".hashCode": true,
	".compareTo": true, "distinct?": true,
}

// allGrow reports whether every argument of c grows (then the whole of
// each is read by =, which stops early on a small one).
func (c bigCall) allGrow() bool {
	return !slices.ContainsFunc(c, func(s numShape) bool { return !s.grows })
}

// TestCostGrowsWithBigCollections is TestCostGrowsWithBigArguments for
// the other dimension of an argument, its size as a collection: every
// row a program can call, Java methods included, on vectors, lists,
// maps, sets, sorted collections, lazy sequences and strings of n and 8n
// elements and on nested values n/8 and n deep (collShapes). A call
// whose work grows (Go allocates more for it, or it compares or hashes
// the whole value) must be charged at least twice as much, or at least
// an eighth of the bytes more allocated; any call at least a third of
// its allocation's growth. No timing.
func TestCostGrowsWithBigCollections(t *testing.T) {
	skipUnlessMeasuringAllocation(t)
	checked := eachCallAtTwoSizes(t, collCalls, func(b *Builtin, call bigCall, g callGrowth) string {
		moreWork := g.moreWork() || (readsWholeValue[b.Name] && call.allGrow())
		// Charged less than a third of the growth, as a ratio and in bytes.
		short := g.work >= 3 && g.w2-g.w1 > 8<<10 && g.charge < g.work/3 && g.c2-g.c1 < (g.w2-g.w1)/3
		if short || (moreWork && !g.grew()) {
			return fmt.Sprintf("%s: from 400 to 3200 elements %s", call.label(b.Name), g.describe(b))
		}
		return ""
	})
	t.Logf("%d calls ran at both sizes", checked)
	if checked < 1000 {
		t.Errorf("only %d calls ran at both sizes; the argument shapes no longer fit the builtins", checked)
	}
}
