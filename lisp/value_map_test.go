package lisp

import (
	"fmt"
	"math"
	"testing"
)

// TestMapSmallAndIndexed checks that maps answer the same below and above
// the size at which they start keeping an index: lookups of every key kind,
// equal keys of different spellings, replacement in place and misses.
func TestMapSmallAndIndexed(t *testing.T) {
	keys := []Value{
		Keyword("a"), String("a"), symbol("a"), Int(1), Float(1.5), Bool(true), Nil,
		Float(math.NaN()), Float(0), NewVector([]Value{Int(1), Int(2)}),
	}
	for n := 0; n <= 3*smallMap; n++ {
		b := NewMapBuilder(0)
		var want []MapEntry
		for i := range n {
			k := keys[i%len(keys)]
			if i >= len(keys) {
				k = Keyword(fmt.Sprintf("k%d", i))
			}
			b.Set(k, Int(i))
			want = append(want, MapEntry{k, Int(i)})
		}
		if n > 0 {
			b.Set(want[0].Key, String("replaced")) // keeps its position
			want[0].Val = String("replaced")
		}
		m := b.Map()
		if m.Len() != len(want) {
			t.Fatalf("n=%d: Len = %d, want %d", n, m.Len(), len(want))
		}
		for i, e := range m.Entries() {
			if hashKey(e.Key) != hashKey(want[i].Key) || !Equal(e.Val, want[i].Val) {
				t.Fatalf("n=%d: entry %d = %v, want %v", n, i, e, want[i])
			}
			if got, ok := m.Get(want[i].Key); !ok || !Equal(got, want[i].Val) {
				t.Fatalf("n=%d: Get(%s) = %v, %v", n, Repr(want[i].Key), got, ok)
			}
		}
		// Spellings of keys already present find them.
		if n >= len(keys) {
			if _, ok := m.Get(Float(math.Copysign(0, -1))); !ok {
				t.Errorf("n=%d: -0.0 does not find 0.0", n)
			}
			if _, ok := m.Get(NewVector([]Value{Int(1), Int(2)})); !ok {
				t.Errorf("n=%d: an equal vector is not found", n)
			}
		}
		for _, miss := range []Value{Keyword("absent"), Int(99), NewVector(nil), String("k3")} {
			if _, ok := m.Get(miss); ok {
				t.Errorf("n=%d: Get(%s) found a key that is absent", n, Repr(miss))
			}
		}
		if got := m.assoc(Keyword("new"), Int(-1)); got.Len() != m.Len()+1 {
			t.Errorf("n=%d: Assoc of a new key: Len %d", n, got.Len())
		}
	}
}

// TestKeywordLookup checks (:k m) and (:k m default) on small and indexed
// maps, keys of other types that print alike, and non-maps.
func TestKeywordLookup(t *testing.T) {
	want := map[string]string{
		`[(:a {:a 1}) (:a {"a" 1}) (:a {"a" 1} :d) (:b {:a 1} :d) (:a nil) (:a [1]) (:a nil 5)]`:                        `[1 nil :d :d nil nil 5]`,
		`(let [m (zipmap (map #(keyword (str "k" %)) (range 20)) (range 20))] [(:k3 m) (:k19 m) (:k20 m) (:k20 m :d)])`: `[3 19 nil :d]`,
		`(map :a [{:a 1} {:b 2} {:a nil}])`: `[1 nil nil]`,
	}
	for src, w := range want {
		res, err := Eval(t.Context(), src, Env{})
		if err != nil || res.Err != nil {
			t.Fatalf("%s: %v %v", src, err, res.Err)
		}
		if got := Repr(res.Value); got != w {
			t.Errorf("%s = %s, want %s", src, got, w)
		}
	}
}

// TestMapLineageAcrossIndexSize checks in-place growth as the map passes
// the size at which it starts an index: each version sees exactly its own
// keys, whether it scans or uses the shared index.
func TestMapLineageAcrossIndexSize(t *testing.T) {
	b := NewMapBuilder(0)
	for i := range smallMap - 1 {
		b.Set(Int(i), Int(i))
	}
	small := b.Map()
	versions := []*Map{small}
	for i := smallMap - 1; i < smallMap+3; i++ {
		versions = append(versions, versions[len(versions)-1].assoc(Int(i), Int(i)))
	}
	branch := versions[2].assoc(Keyword("branch"), trueValue) // not the tail: copies
	for _, m := range append(versions, branch) {
		for i := range smallMap + 3 {
			_, ok := m.Get(Int(i))
			if want := i < m.Len() && (m != branch || i < versions[2].Len()); ok != want {
				t.Errorf("version of %d entries: Get(%d) found %v, want %v", m.Len(), i, ok, want)
			}
		}
		if _, ok := m.Get(Keyword("branch")); ok != (m == branch) {
			t.Errorf("version of %d entries: the branch's key leaked", m.Len())
		}
	}
}

// TestBorrowedArguments checks calls to builtins that take their arguments
// from the thread's scratch stack: nesting, closures and higher-order
// calls inside the arguments, errors with their positions, and steps
// charged as for any call.
func TestBorrowedArguments(t *testing.T) {
	for src, want := range map[string]string{
		`(+ (* 2 3) (- 10 (inc 1)) (dec 1))`:                                `14`,
		`(defn f [x] (+ x (reduce + (map inc [1 2 3])))) (+ (f 1) (f 2) 1)`: `22`,
		`(= [1 2] (vector 1 2) (mapv #(- % 0) [1 2]))`:                      `true`,
		`(not= 1 (+ 0 1))`:                                                                 `false`,
		`(map vector [1 2] [3 4])`:                                                         `[[1 3] [2 4]]`,
		`(map (fn [& xs] xs) [1 2] [3 4])`:                                                 `[[1 3] [2 4]]`,
		`(mapv (fn [a b] [b a]) [1 2] [3 4])`:                                              `[[3 1] [4 2]]`,
		`(reduce (fn [acc x] (conj acc [x])) [] [1 2 3])`:                                  `[[1] [2] [3]]`,
		`(defn pair [a b] [a b]) (map pair [1 2] [(pair 3 4) 5])`:                          `[[1 [3 4]] [2 5]]`,
		`(let [xs (map (fn [x] (+ x 1)) (range 5))] (< (first xs) (second xs) (last xs)))`: `true`,
	} {
		res, err := Eval(t.Context(), src, Env{})
		if err != nil || res.Err != nil {
			t.Fatalf("%s: %v %v", src, err, res.Err)
		}
		if got := Repr(res.Value); got != want {
			t.Errorf("%s = %s, want %s", src, got, want)
		}
	}
	res, err := Eval(t.Context(), "(+ 1\n   (inc \"a\"))", Env{})
	if err != nil || res.Err == nil || res.Err.Pos.Line != 2 {
		t.Errorf("error of a nested borrowed call: %v %v", err, res.Err)
	}
	limits := DefaultLimits()
	limits.MaxSteps = 5
	res, _ = Eval(t.Context(), `(+ 1 (+ 2 (+ 3 (+ 4 (+ 5 (+ 6 7))))))`, Env{Limits: limits})
	if res.Err == nil || res.Err.Kind != stepLimit {
		t.Errorf("six calls under a budget of five steps: %v", res.Err)
	}
}

// TestSmallMapWithCollectionKeysIsIndexed: a small map keeps no index
// while its keys are their own hash keys, and builds one with its first
// collection key, so that looking a collection up builds one hash key (the
// one the builtin is charged for) instead of one per entry. Every version
// of the lineage, the older ones without the index included, still finds
// its keys.
func TestSmallMapWithCollectionKeysIsIndexed(t *testing.T) {
	vec := func(i int) Value { return NewVector([]Value{Int(i), String("x")}) }
	for n := 1; n <= smallMap; n++ {
		for at := range n {
			b := NewMapBuilder(0)
			for i := range n {
				if i == at {
					b.Set(vec(i), Int(i))
				} else {
					b.Set(Keyword(fmt.Sprintf("k%d", i)), Int(i))
				}
			}
			m := b.Map()
			if m.index == nil {
				t.Fatalf("n=%d, collection key at %d: no index", n, at)
			}
			if got, ok := m.Get(vec(at)); !ok || !Equal(got, Int(at)) {
				t.Fatalf("n=%d: Get(%s) = %v, %v", n, Repr(vec(at)), got, ok)
			}
			if _, ok := m.Get(vec(at + 100)); ok {
				t.Fatalf("n=%d: found a vector that is absent", n)
			}
		}
	}

	plain := NewMapBuilder(0)
	for i := range smallMap {
		plain.Set(Keyword(fmt.Sprintf("k%d", i)), Int(i))
	}
	if m := plain.Map(); m.index != nil {
		t.Errorf("a small map of keywords keeps an index")
	}

	older := NewMapBuilder(0)
	older.Set(Keyword("a"), Int(1))
	v1 := older.Map()
	v2 := v1.assoc(vec(7), Int(2)) // extends v1's entries in place
	if v1.index != nil || v2.index == nil {
		t.Fatalf("index: older version %v, newer %v; want only the newer", v1.index != nil, v2.index != nil)
	}
	if _, ok := v1.Get(vec(7)); ok {
		t.Errorf("the older version sees the newer version's key")
	}
	if got, ok := v2.Get(Keyword("a")); !ok || !Equal(got, Int(1)) {
		t.Errorf("the newer version lost :a: %v, %v", got, ok)
	}
	if got, ok := v2.Get(vec(7)); !ok || !Equal(got, Int(2)) {
		t.Errorf("the newer version does not find its vector key: %v, %v", got, ok)
	}
}
