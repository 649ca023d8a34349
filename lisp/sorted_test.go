package lisp

import (
	"context"
	"sync"
	"testing"
)

// The behaviour of sorted collections is checked against Clojure by the
// idiom corpus (testdata/idioms, family "sorted"); these tests cover what
// Clojure cannot judge: the wire, sharing, and the budgets.

// TestSortedOnTheWire: a sorted collection travels as a plain map or set
// in its order, and the text read back writes the same text again.
func TestSortedOnTheWire(t *testing.T) {
	for _, tc := range []struct{ src, repr, wire string }{
		{`(sorted-map :b 2 :a 1 :c 3)`, `{:a 1, :b 2, :c 3}`, `{:a 1, :b 2, :c 3}`},
		{`(sorted-map-by > 1 :a 3 :c 2 :b)`, `{3 :c, 2 :b, 1 :a}`, `{3 :c, 2 :b, 1 :a}`},
		// A set prints in its order in a program and to the host, as
		// Clojure's, and on the wire in order of its elements' text, as
		// every set, since it arrives back as a plain set.
		{`(sorted-set 10 2 1)`, `#{1 2 10}`, `#{1 10 2}`},
		{`(sorted-set-by > 1 2 10)`, `#{10 2 1}`, `#{1 10 2}`},
		{`[(sorted-set 3 20) {:s (sorted-set-by #(compare %2 %1) "a" "b")}]`, `[#{3 20} {:s #{"b" "a"}}]`, `[#{20 3} {:s #{"a" "b"}}]`},
	} {
		res := run(t, tc.src, Env{})
		if res.Err != nil {
			t.Fatalf("%s: %v", tc.src, res.Err)
		}
		if got := Repr(res.Value); got != tc.repr {
			t.Errorf("%s: Repr %s, want %s", tc.src, got, tc.repr)
		}
		if got := run(t, "(pr-str "+tc.src+")", Env{}); got.Err != nil || Str(got.Value) != tc.repr {
			t.Errorf("%s: pr-str %v %v, want %s", tc.src, got.Value, got.Err, tc.repr)
		}
		wire := WireText(res.Value)
		if wire != tc.wire {
			t.Errorf("%s: wire %s, want %s", tc.src, wire, tc.wire)
		}
		back, err := ReadValue(context.Background(), wire, 0, 0)
		if err != nil {
			t.Fatalf("%s: reading %s back: %v", tc.src, wire, err)
		}
		if !Equal(back, res.Value) || WireText(back) != wire {
			t.Errorf("%s: read back as %s", tc.src, WireText(back))
		}
		if orderOf(back) != nil {
			t.Errorf("%s: read back sorted; the wire carries plain collections", tc.src)
		}
	}
}

// TestSortedComparatorIsFrozen: a sorted-map-by travels with its
// comparator, which Freeze does not walk into when it freezes the map:
// the comparator is frozen when the map is made, so that evaluations
// sharing the map (a remembered value) never extend what it captured in
// place. Under -race, the concurrent assocs below would race otherwise.
func TestSortedComparatorIsFrozen(t *testing.T) {
	v, err := ReadValue(context.Background(), `(let [x (assoc {} :a 1)
	                           by (sorted-map-by (fn [a b] (count (assoc x :b a)) (compare b a)) 3 :c 1 :a)]
	                       (fn [] by))`, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	Freeze(v)
	by := v.(*closure).free[0].(*Map)
	cmp := orderOf(by).by.(*closure)
	if x := cmp.free[0].(*Map); x.tail != nil {
		t.Fatal("the comparator's captured map can still extend in place")
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := callBuiltin(newTestThread(), "assoc", by, Int(i), Keyword("x"))
			if err != nil {
				t.Error(err)
				return
			}
			if first := got.(*Map).entries[0].Key; first != Int(max(i, 3)) {
				t.Errorf("assoc %d: first key %v", i, first)
			}
		}()
	}
	wg.Wait()
}

// TestSortedFreezeKeepsOrder: freezing a sorted collection (a constant,
// a remembered value) keeps it sorted, and an assoc onto the frozen map
// copies.
func TestSortedFreezeKeepsOrder(t *testing.T) {
	res := run(t, `(sorted-map :b 2 :a 1)`, Env{})
	m := Freeze(res.Value).(*Map)
	if orderOf(m) == nil {
		t.Fatal("Freeze dropped the ordering")
	}
	got, err := callBuiltin(newTestThread(), "assoc", m, Keyword("aa"), Int(0))
	if err != nil {
		t.Fatal(err)
	}
	if Repr(got) != "{:a 1, :aa 0, :b 2}" || Repr(m) != "{:a 1, :b 2}" {
		t.Errorf("assoc gave %s, and the frozen map is now %s", Repr(got), Repr(m))
	}
}

// TestSortedChargesComparisons: building a sorted collection costs a step
// per comparison, so a comparator that is a program's own function is
// charged each call; each insertion copies the collection, charged its
// items, so a huge build stops at a budget.
func TestSortedChargesComparisons(t *testing.T) {
	small := run(t, `(count (apply sorted-set (map #(mod (* % 7919) 100) (range 100))))`, Env{})
	large := run(t, `(count (apply sorted-set (map #(mod (* % 7919) 1000) (range 1000))))`, Env{})
	if small.Err != nil || large.Err != nil {
		t.Fatal(small.Err, large.Err)
	}
	if large.Steps < 10*small.Steps {
		t.Errorf("1000 items cost %d steps, 100 items %d", large.Steps, small.Steps)
	}
	res := run(t, `(loop [s (sorted-set) i 0] (if (< i 1000000) (recur (conj s (- i)) (inc i)) (count s)))`, Env{})
	if res.Err == nil || res.Err.Kind != stepLimit && res.Err.Kind != memoryLimit {
		t.Errorf("a million insertions at the front: %v, want step_limit or memory_limit", res.Err)
	}
}

// TestSortedRefusals: comparisons Clojure cannot make are errors here too,
// with a hint.
func TestSortedRefusals(t *testing.T) {
	for _, src := range []string{
		`(sorted-set 1 "a")`,
		`(assoc (sorted-map :a 1) "b" 2)`,
		`(sorted-map :a)`,
		`(sorted-set-by :desc 1 2)`,
		`(subseq [1 2] > 1)`,
		`(sorted-set {:a 1} {:a 2})`,
	} {
		res := run(t, src, Env{})
		if res.Err == nil {
			t.Errorf("%s: got %s, want an error", src, Repr(res.Value))
			continue
		}
		if res.Err.Hint == "" {
			t.Errorf("%s: %v has no hint", src, res.Err)
		}
	}
}
