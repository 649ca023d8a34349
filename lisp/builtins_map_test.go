package lisp

import "testing"

// TestBuildingByAssocFitsTheBudget builds a map, a set and a vector one
// item at a time, as (reduce #(assoc %1 %2 1) {} xs) does: each step extends
// the newest version in place, so the work is linear and only the growth is
// charged in memory.
func TestBuildingByAssocFitsTheBudget(t *testing.T) {
	for _, c := range []struct {
		name  string
		start Value
		add   func(coll Value, i int) []Value
	}{
		{"assoc", hashMap(), func(m Value, i int) []Value { return []Value{m, Int(i), Int(i)} }},
		{"conj", set(), func(s Value, i int) []Value { return []Value{s, Int(i)} }},
		{"conj", hashMap(), func(m Value, i int) []Value { return []Value{m, ints(int64(i), 1)} }},
		{"conj", vec(), func(v Value, i int) []Value { return []Value{v, Int(i)} }},
	} {
		th := newTestThread()
		coll := c.start
		var err error
		for i := range 1000 {
			if coll, err = callBuiltin(th, c.name, c.add(coll, i)...); err != nil {
				t.Fatalf("%s #%d onto %s: %v", c.name, i, c.start.TypeName(), err)
			}
		}
		if n, _ := callBuiltin(th, "count", coll); n != Int(1000) {
			t.Fatalf("%s built %v items", c.name, n)
		}
		if used := th.allocatedBytes(); used > 1<<20 {
			t.Errorf("%s of 1000 items onto a %s charged %d bytes", c.name, c.start.TypeName(), used)
		}
		if used := th.stepsUsed(); used > 10*1000 {
			t.Errorf("%s of 1000 items onto a %s took %d steps, want linear work", c.name, c.start.TypeName(), used)
		}
	}
}

// TestAssocOntoAnOlderVersionPaysForTheCopy extends the same map twice: the
// second extension cannot grow in place and is charged for its copy.
func TestAssocOntoAnOlderVersionPaysForTheCopy(t *testing.T) {
	th := newTestThread()
	base := Value(hashMap())
	var err error
	for i := range 500 {
		if base, err = callBuiltin(th, "assoc", base, Int(i), Int(i)); err != nil {
			t.Fatal(err)
		}
	}
	before := th.stepsUsed()
	if _, err := callBuiltin(th, "assoc", base, Int(-1), Int(0)); err != nil {
		t.Fatal(err)
	}
	inPlace := th.stepsUsed() - before
	before = th.stepsUsed()
	if _, err := callBuiltin(th, "assoc", base, Int(-2), Int(0)); err != nil {
		t.Fatal(err)
	}
	if copied := th.stepsUsed() - before; copied < 500 || inPlace > 10 {
		t.Errorf("in place: %d steps, copy of 500 entries: %d steps", inPlace, copied)
	}
}

// TestKeysValsOfEntrySequences: keys and vals take the sequence of entries
// that a sequence function makes of a map, as Clojure's do. The values are
// Clojure 1.11.1's.
func TestKeysValsOfEntrySequences(t *testing.T) {
	for _, c := range []idiomCase{
		{Program: `(keys (filter (fn [[k v]] (> v 1)) {:a 1 :b 2 :c 3}))`, Clojure: `(:b :c)`},
		{Program: `(vals (sort-by val {:a 2 :b 1}))`, Clojure: `(1 2)`},
		{Program: `(->> {"x" 3 "y" 9 "z" 5} (sort-by val >) (take 2) keys)`, Clojure: `("y" "z")`},
		{Program: `(vals (subseq (sorted-map 1 :a 2 :b 3 :c) >= 2))`, Clojure: `(:b :c)`},
		{Program: `(vals (rseq (sorted-map 1 :a 2 :b)))`, Clojure: `(:b :a)`},
		{Program: `(keys (remove (fn [[k v]] (odd? v)) {:a 1}))`, Clojure: `nil`},
		{Program: `(keys (seq {:a 1 :b 2}))`, Clojure: `(:a :b)`},
		{Program: `(keys [1 2])`, ClojureError: `java.lang.ClassCastException: class java.lang.Long cannot be cast to class java.util.Map$Entry`},
	} {
		c.ID = c.Program
		if outcome, got := idiomOutcome(t, c); outcome != "pass" {
			t.Errorf("%s: %s (%s), Clojure gives %s%s", c.Program, got, outcome, c.Clojure, c.ClojureError)
		}
	}
}
