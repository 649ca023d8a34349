package lisp

import (
	"strings"
	"sync"
	"testing"
)

// TestApplyLazyAsInClojure: apply passes a lazy or endless last argument
// unread, as Clojure does, to a function of a rest parameter and to
// concat; the answers are Clojure 1.11's. testdata/lazyprobe holds the
// rows over an endless source with the answers recorded there; these
// are the rows over lazy sequences of a program's own, which the probes'
// one-line form does not hold. On the base, the rows over a sequence
// that never ends reached memory_limit.
func TestApplyLazyAsInClojure(t *testing.T) {
	const nat = `(defn nat [n] (lazy-seq (cons n (nat (inc n))))) `
	for _, tc := range []struct{ src, want string }{
		{nat + `(vec (take 4 (apply concat (map (fn [i] [i]) (nat 5)))))`, "[5 6 7 8]"},
		{nat + `(apply (fn ([a] a) ([a & r] [a (first r)])) (nat 5))`, "[5 6]"},
		{`(defn g [& xs] (if (> (first xs) 3) (first xs) (apply g (rest xs)))) (apply g (cycle [0 1 2 9]))`, "9"},
		// A lazy sequence that ends picks the arity its count does.
		{`(apply (fn ([a] [:one a]) ([a & r] [:more a (vec r)])) (lazy-seq [1]))`, "[:one 1]"},
		{`(apply (fn ([a] [:one a]) ([a & r] [:more a (vec r)])) (lazy-seq [1 2]))`, "[:more 1 [2]]"},
		{`(apply (fn [a b & r] [a b r]) 1 2 (lazy-seq []))`, "[1 2 nil]"},
		{`(apply (fn [a b & r] [a b r]) 1 (lazy-seq [2]))`, "[1 2 nil]"},
		{`(apply + (lazy-seq [1 2 3]))`, "6"},
	} {
		res := run(t, tc.src, Env{})
		if res.Err != nil || Repr(res.Value) != tc.want {
			t.Errorf("%s: got %s %v, want %s", tc.src, Repr(res.Value), res.Err, tc.want)
		}
	}
}

// TestApplyEndlessRefused: where Clojure's apply never returns, because
// the function needs every argument, the endless sequence is refused,
// naming it, or stopped by the budgets.
func TestApplyEndlessRefused(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`(apply max (range))`, "apply cannot consume (range): it never ends"},
		{`(apply (fn [a] a) (range))`, "apply cannot consume (range): it never ends"},
		{`(apply str "a" (repeat "b"))`, "apply cannot consume (repeat x): it never ends"},
		{`(apply (fn [& {:keys [a]}] a) (range))`, "destructuring cannot consume (range): it never ends"},
		{`(apply (fn [& xs] (count xs)) (range))`, "count expected a collection or string, got infinite sequence"},
		{`(apply (fn [& xs] (nth xs 100000000)) (range))`, "limit of"},
	} {
		res := run(t, tc.src, Env{})
		if res.Err == nil || !strings.Contains(res.Err.Message, tc.want) {
			t.Errorf("%s: got %s %v, want an error containing %q", tc.src, Repr(res.Value), res.Err, tc.want)
		}
	}
}

// TestApplyLazyHeldReadsTheSame: the lazy concatenation apply makes is
// kept between turns as the call that makes it, and reads the same for
// callers reading it at once.
func TestApplyLazyHeldReadsTheSame(t *testing.T) {
	prelude := genPreludeMemory(t, `(apply concat (map (fn [i] [i (- i)]) (range)))`)
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Go(func() {
			for r := range 3 {
				res := run(t, `[(vec (take 5 p)) (vec (take 3 (drop 1000 p)))]`, Env{Prelude: prelude})
				if res.Err != nil || Repr(res.Value) != "[[0 0 1 -1 2] [500 -500 501]]" {
					t.Errorf("caller %d round %d: %s %v", c, r, Repr(res.Value), res.Err)
					return
				}
			}
		})
	}
	wg.Wait()
}
