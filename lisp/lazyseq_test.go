package lisp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
)

func TestLazySeqs(t *testing.T) {
	cases := []srcWant{
		{`(defn fib ([] (fib 0 1)) ([a b] (lazy-seq (cons a (fib b (+ a b)))))) (take 8 (fib))`, "[0 1 1 2 3 5 8 13]"},
		{`(def fib (lazy-cat [0 1] (map + fib (rest fib)))) (nth fib 90)`, "2880067194370816120"},
		{`(defn sieve [s] (lazy-seq (cons (first s) (sieve (remove #(zero? (mod % (first s))) (rest s)))))) (take 6 (sieve (iterate inc 2)))`, "[2 3 5 7 11 13]"},
		{`(def primes (lazy-seq (cons 2 (filter (fn [n] (every? #(pos? (mod n %)) (take-while #(<= (* % %) n) primes))) (iterate inc 3))))) (nth primes 99)`, "541"},
		{`(defn my-map [f c] (lazy-seq (when-let [s (seq c)] (cons (f (first s)) (my-map f (rest s)))))) (my-map inc [1 2 3])`, "(2 3 4)"},
		{`(letfn [(step [n] (lazy-seq (when (< n 3) (cons n (step (inc n))))))] [(step 0) (count (step 0))])`, "[(0 1 2) 3]"},
		{`(let [s (lazy-seq [1 2])] [(first s) (rest s) (next s) (seq (lazy-seq nil)) (empty? (lazy-seq [])) (= s [1 2])])`, "[1 (2) (2) nil true true]"},
		// A body runs once per evaluation, however many readers.
		{`(let [n (atom 0) s (lazy-seq (swap! n inc) [1 2])] [(first s) (count s) (vec s) @n])`, "[1 2 [1 2] 1]"},
		// A lazy sequence in a result or a printed value is its list.
		{`[(lazy-cat [1] [2]) {:a (lazy-seq [3])}]`, "[(1 2) {:a (3)}]"},
		{`(pr-str [(lazy-seq [1 2])])`, `"[(1 2)]"`},
		// Readers reading a recursive sequence a million long stay at constant depth.
		{`(nth ((fn f [n] (lazy-seq (cons n (f (inc n))))) 0) 10000)`, "10000"},
	}
	checkValuesAndErrors(t, cases, nil)
}

// TestLazySeqBudgets: a lazy sequence read to its end that never ends,
// or one whose body needs itself, is an error the budgets or the
// sequence raise, never a hang or a crash.
func TestLazySeqBudgets(t *testing.T) {
	for src, kind := range map[string]ErrorKind{
		`(count ((fn f [n] (lazy-seq (cons n (f (inc n))))) 0))`: memoryLimit,
		`(def x (lazy-seq x)) (first x)`:                         stepLimit,
		`(def s (lazy-seq (cons (first s) nil))) (first s)`:      executionError,
		`(def s (lazy-cat [1] (map inc (rest s)))) (vec s)`:      executionError,
	} {
		res := run(t, src, Env{})
		var e *Error
		if !errors.As(res.Err, &e) || e.Kind != kind {
			t.Errorf("%s: %v, want a %s", src, res.Err, kind)
		}
	}
}

// TestLazySeqSharedByCallers: a lazy sequence kept between turns is read
// by many callers at once, each realizing it in its own evaluation: all
// read the same, and -race finds nothing shared.
func TestLazySeqSharedByCallers(t *testing.T) {
	fn, err := ReadValue(context.Background(), `((fn f [a b] (lazy-seq (cons a (f b (+ a b))))) 0 1)`, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	Freeze(fn)
	const callers, rounds = 8, 20
	var wg sync.WaitGroup
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				n := 10 + (c+r)%40
				res, err := Eval(context.Background(), fmt.Sprintf(`[(nth *1 %d) (count (take %d *1))]`, n, n), Env{PreviousResults: []Value{fn}})
				if err != nil || res.Err != nil {
					t.Errorf("caller %d: %v %v", c, err, res.Err)
					return
				}
				want := fmt.Sprintf("[%d %d]", fibonacci(n), n)
				if got := Repr(res.Value); got != want {
					t.Errorf("caller %d round %d: %s, want %s", c, r, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func fibonacci(n int) int64 {
	a, b := int64(0), int64(1)
	for range n {
		a, b = b, a+b
	}
	return a
}
