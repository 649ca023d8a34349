package lisp

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

// TestLazyPartsReadAsTheirElements: a lazy sequence held inside a vector,
// a map or a set prints, compares, hashes and flattens as the list it
// reads as, in every builtin that reads parts and in the map and set a
// program writes; the answers are Clojure 1.11's, but for the vectors
// flatten and dedupe give where Clojure gives lists.
func TestLazyPartsReadAsTheirElements(t *testing.T) {
	const defs = `(def x (lazy-seq [1 2])) (def l (list 1 2)) `
	cases := []srcWant{
		{defs + `(= [x] [l])`, "true"},
		{defs + `(= (hash [x]) (hash [l]))`, "true"},
		{defs + `(contains? #{[l]} [x])`, "true"},
		{defs + `(= #{x} #{l})`, "true"},
		{defs + `(= {x 1} {l 1})`, "true"},
		{defs + `(get {[l] :found} [x])`, ":found"},
		{defs + `[(count (set [[x] [l]])) (count (distinct [[x] [l]])) (count (frequencies [[x] [l]])) (count (group-by identity [[x] [l]]))]`, "[1 1 1 1]"},
		{defs + `(flatten [x])`, "[1 2]"},
		{defs + `[(count (hash-set [x] [l])) (count (into #{} [[x] [l]])) (count (conj #{[l]} [x])) (count (assoc {[l] 1} [x] 2))]`, "[1 1 1 1]"},
		{defs + `[(count (zipmap [[x] [l]] [1 2])) (count (hash-map [x] 1 [l] 2)) (count (dissoc {[l] 1} [x])) (count (disj #{[l]} [x]))]`, "[1 1 0 0]"},
		{defs + `[(find {[l] 1} [x]) (get-in {[l] {:a 1}} [[x] :a]) (select-keys {[l] 1} [[x]]) (distinct? [x] [l])]`, "[[[(1 2)] 1] 1 {[(1 2)] 1} false]"},
		{defs + `[(count (group-by (fn [v] [(lazy-seq [v])]) [1 2])) (update {[l] 1} [x] inc) (dedupe [[x] [l]])]`, "[2 {[(1 2)] 2} [[(1 2)]]]"},
		{defs + `[(= #{(lazy-seq [1])} #{(lazy-seq [2])}) (count (set [[(lazy-seq [1])] [(lazy-seq [2])]])) (get {[(lazy-seq [1])] 1} [(lazy-seq [2])])]`, "[false 2 nil]"},
		{defs + `(let [n (atom 0) f (memoize (fn [v] (swap! n inc)))] (f [x]) (f [l]) @n)`, "1"},
		{defs + `[(contains? {{:a x} 1} {:a l}) (= #{{:a x}} #{{:a l}}) (flatten [[x] x]) (count (persistent! (conj! (transient #{[l]}) [x])))]`, "[true true [1 2 1 2] 1]"},
	}
	checkValuesAndErrors(t, cases, nil)
}

// TestBuiltinsThatHashPartsReadThemWhole walks the builtin table: every
// builtin whose cost declares that it hashes values as keys or compares
// them whole reads their lazy parts first (readsPartsWhole).
func TestBuiltinsThatHashPartsReadThemWhole(t *testing.T) {
	need := map[string]string{}
	for _, b := range builtins.list {
		for _, term := range append(append([]costTerm(nil), b.Cost.before...), b.Cost.after...) {
			if (strings.Contains(term.what, "hashed") || strings.Contains(term.what, "compared")) && !strings.Contains(term.what, "digits") {
				need[b.Name] = term.what
			}
		}
	}
	// What these hash are the keys of their map arguments, read when
	// they were put in, and the keys their function returns (realizedKey).
	for _, name := range []string{"merge", "merge-with", "group-by", "distinct-by"} {
		delete(need, name)
	}
	for name, what := range need {
		if readsPartsWhole[name] == nil {
			t.Errorf("%s declares %q but does not read its arguments' lazy parts (readsPartsWhole)", name, what)
		}
	}
}

// TestEndlessLazyPartsEndAtALimit: a lazy sequence that never ends, held
// inside a key, a set or a hashed value, is read until the budgets end
// it, never for ever.
func TestEndlessLazyPartsEndAtALimit(t *testing.T) {
	const endless = `(defn f [n] (lazy-seq (cons n (f (inc n))))) `
	for _, src := range []string{
		`(hash [(f 0)])`,
		`(contains? #{} [(f 0)])`,
		`#{(f 0)}`,
		`{[(f 0)] 1}`,
		`(group-by (fn [_] [(f 0)]) [1])`,
		`(conj #{} {:a (f 0)})`,
		`(flatten [[(f 0)]])`,
	} {
		res := run(t, endless+src, Env{})
		var e *Error
		if !errors.As(res.Err, &e) || (e.Kind != memoryLimit && e.Kind != stepLimit) {
			t.Errorf("%s: %v, want a memory or step limit", src, res.Err)
		}
	}
}

// TestLazyPartsSharedByCallers: a vector holding a lazy sequence, kept
// between turns, is hashed and looked up by many callers at once, each
// reading the sequence in its own evaluation: all see its elements, and
// -race finds nothing shared.
func TestLazyPartsSharedByCallers(t *testing.T) {
	held, err := ReadValue(context.Background(), `[((fn f [n] (lazy-seq (when (< n 3) (cons n (f (inc n)))))) 0)]`, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	Freeze(held)
	const callers, rounds = 8, 10
	const src = `[(= (hash *1) (hash [(list 0 1 2)])) (contains? #{[(list 0 1 2)]} *1) (count (set [*1 [(list 0 1 2)]])) (get {*1 :found} [[0 1 2]])]`
	var wg sync.WaitGroup
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				res, err := Eval(context.Background(), src, Env{PreviousResults: []Value{held}})
				if err != nil || res.Err != nil {
					t.Errorf("caller %d: %v %v", c, err, res.Err)
					return
				}
				if got, want := Repr(res.Value), "[true true 1 :found]"; got != want {
					t.Errorf("caller %d round %d: %s, want %s", c, r, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}
