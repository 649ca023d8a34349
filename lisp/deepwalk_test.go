package lisp

import (
	"fmt"
	"testing"
)

// TestArgumentWalkIsChargedByParts: before a builtin that prints,
// compares or hashes runs, the arguments it reads are searched for lazy
// sequences inside them. That search is charged a step per part it
// visits, so a loop of lookups keyed by a large value ends at the step
// limit, whatever the machine's load; and a value known to hold no lazy
// sequence (data built of vectors and scalars, or read from a request)
// is not searched at all, so ordinary programs pay nothing for it.
func TestArgumentWalkIsChargedByParts(t *testing.T) {
	const rows, lookups = 400, 20
	steps := func(build, call string) int64 {
		t.Helper()
		src := fmt.Sprintf("(let [rows %s] (dotimes [_ %d] %s) 1)", build, lookups, call)
		r := run(t, src, Env{Limits: Limits{MaxSteps: 1 << 40}})
		if r.Err != nil {
			t.Fatalf("%s: %v", src, r.Err)
		}
		return r.Steps
	}
	ofMaps := fmt.Sprintf("(mapv (fn [i] {:i i}) (range %d))", rows)
	for _, call := range []string{"(get \"b\" rows)", "(contains? [] rows)", "(= rows rows)", "(hash rows)", "(get-in {} rows)", "(dissoc {} rows)", "(select-keys {} [rows])"} {
		extra := steps(ofMaps, call) - steps(ofMaps, "(contains? #{} 0)")
		// rows and each map in it: a step per entry visited.
		if min := int64(lookups * 2 * rows); extra < min {
			t.Errorf("%s over a vector of %d program-built maps: %d steps for %d lookups, want at least %d (a step per part searched)",
				call, rows, extra, lookups, min)
		}
	}
}

// TestBuiltVectorsAreKnownFreeOfLazySeqs: a vector of scalars and plain
// vectors, however a program builds it, is known to hold no lazy sequence
// without a walk (holdsNoEndingSeq), so the search before a builtin that
// reads it whole costs nothing; one that holds a lazy sequence is not.
func TestBuiltVectorsAreKnownFreeOfLazySeqs(t *testing.T) {
	for _, src := range []string{
		"(mapv (fn [i] [i (str i) [i]]) (range 3))", "(vector 1 [2])", "(vec (range 3))", "(into [] (range 3))",
		"(conj [1] [2])", "(assoc [1 2] 0 [3])", "(update [1 2] 0 inc)", "(subvec [1 [2] 3] 1)", "(pop [[1] 2 3])",
		"(persistent! (conj! (transient []) [1]))", "(reduce conj [] (range 3))", "(list 1 [2])", "(filterv odd? [1 2 3])",
		"(rest [[1] 2 3])", "(map vector [1 2])", "(reverse [[1] 2])", "(sort [2 1])", "(partition 2 [1 2 3 4])",
		"(into [] (map (fn [i] [i])) (range 3))", "(first {:a [1]})",
	} {
		r := run(t, src, Env{})
		if r.Err != nil {
			t.Fatalf("%s: %v", src, r.Err)
		}
		if !holdsNoEndingSeq(r.Value) {
			t.Errorf("%s: not known to hold no lazy sequence; the search before = or get walks it", src)
		}
	}
	for _, src := range []string{"(conj [1] (lazy-seq [1]))", "(into [] [(lazy-seq [1])])",
		"(subvec [(lazy-seq [1]) 2] 0 1)", "(vector [(lazy-seq [1])])", "(mapv (fn [i] (lazy-seq [i])) [1])"} {
		r := run(t, "(let [v "+src+"] (def kept v) true)", Env{})
		if r.Err != nil {
			t.Fatalf("%s: %v", src, r.Err)
		}
		if b, _ := r.Memory.lookup("kept"); holdsNoEndingSeq(b.Value) {
			t.Errorf("%s: marked as holding no lazy sequence", src)
		}
	}
}
