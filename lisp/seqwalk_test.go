package lisp

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// walkSources are sequences of every kind a program walks step by step:
// each source, a lazy-seq body, lazy-cat and concat, the derivations of
// an endless source, and their compositions.
var walkSources = []string{
	`(range)`, `(iterate inc 0)`, `(cycle [1 2 3])`, `(repeat 7)`, `(repeatedly (fn [] 7))`,
	`((fn nat [n] (lazy-seq (cons n (nat (inc n))))) 0)`,
	`(lazy-cat [0 1] (range))`, `(concat [0 1] (range))`,
	`(map inc (range))`, `(filter even? (range))`, `(remove odd? (range))`,
	`(keep identity (range))`, `(mapcat (fn [x] [x x]) (range))`,
	`(take-while (fn [x] (< x 100000)) (range))`,
	`(map inc (filter even? (iterate inc 0)))`, `(lazy-seq (map inc (range)))`,
	`(cons 1 (map inc (cycle [1 2])))`, `(drop 3 (mapcat list (iterate inc 0)))`,
	`(lazy-cat [0] (remove neg? (map dec (range))))`,
}

// walkModes are the ways a program steps through a sequence s, n times.
var walkModes = map[string]string{
	"rest":          `(loop [s %s i 0 x nil] (if (< i %d) (recur (rest s) (inc i) (first s)) x))`,
	"next":          `(loop [s %s i 0 x nil] (if (< i %d) (recur (next s) (inc i) (first s)) x))`,
	"nthnext":       `(loop [s %s i 0 x nil] (if (< i %d) (recur (nthnext s 1) (inc i) (first s)) x))`,
	"drop":          `(loop [s %s i 0 x nil] (if (< i %d) (recur (drop 1 s) (inc i) (first s)) x))`,
	"[x & xs]":      `(loop [[x & xs] %s i 0 y nil] (if (< i %d) (recur xs (inc i) x) y))`,
	"rest, unread":  `(first (loop [s %s i 0] (if (< i %d) (recur (rest s) (inc i)) s)))`,
	"nthrest by 2s": `(loop [s %s i 0 x nil] (if (< i %d) (recur (nthrest s 2) (inc i) (second s)) x))`,
}

// TestWalkingIsLinear: walking n elements of a sequence by rest, next,
// nthnext, drop or destructuring is charged steps linear in n, for every
// kind of sequence, at any size the budgets allow. Before, each step was
// a drop of the one before, read again from the source's start or nested
// a level deeper: 8,000 steps by rest over (range) ended at depth_limit,
// by [x & xs] over (iterate inc 0) took 32 million steps.
func TestWalkingIsLinear(t *testing.T) {
	env := Env{Limits: Limits{MaxSteps: 100_000_000, MaxAllocBytes: 1 << 30}}
	for mode, walk := range walkModes {
		for _, src := range walkSources {
			var prev int64
			for _, n := range []int{1000, 2000, 4000, 8000} {
				res := run(t, fmt.Sprintf(walk, src, n), env)
				if res.Err != nil {
					t.Errorf("%s over %s, %d steps: %v", mode, src, n, res.Err)
					break
				}
				if prev > 0 && float64(res.Steps) >= 2.2*float64(prev) {
					t.Errorf("%s over %s: %d steps of the walk charged %d steps, half as many %d", mode, src, n, res.Steps, prev)
				}
				prev = res.Steps
			}
		}
	}
}

// TestWalksReadAsInClojure: walks by rest, next, nthnext, drop and
// destructuring give Clojure 1.11's answers under the default budgets.
func TestWalksReadAsInClojure(t *testing.T) {
	const nat = `(defn nat [n] (lazy-seq (cons n (nat (inc n))))) `
	for _, tc := range []struct{ src, want string }{
		{`(loop [s (range) n 0] (if (< n 100000) (recur (rest s) (inc n)) n))`, "100000"},
		{`(loop [s (lazy-seq (range 80000)) n 0] (if (seq s) (recur (next s) (inc n)) n))`, "80000"},
		{`(loop [[x & xs] (iterate inc 0) n 0] (if (< n 50000) (recur xs (+ n 1)) n))`, "50000"},
		{`(loop [s (map inc (filter even? (iterate inc 0))) n 0 acc 0] (if (< n 20000) (recur (next s) (inc n) (+ acc (first s))) acc))`, "400000000"},
		{`(loop [s (cycle [1 2 3]) n 0 acc 0] (if (< n 30000) (recur (nthnext s 3) (inc n) (+ acc (first s))) acc))`, "30000"},
		{nat + `(loop [s (nat 0) n 0 acc 0] (if (< n 10000) (recur (rest s) (inc n) (+ acc (first s))) acc))`, "49995000"},
		{`(loop [s (concat [:a :b] (range)) n 0 x nil] (if (< n 40000) (recur (drop 2 s) (inc n) (first s)) [x (first s)]))`, "[79996 79998]"},
		{`(loop [s (mapcat (fn [x] [x x]) (range)) n 0] (if (< n 50000) (recur (next s) (inc n)) (first s)))`, "25000"},
		{`(let [s (iterate inc 0) a (nthnext s 10000)] [(first a) (first (rest a)) (first s)])`, "[10000 10001 0]"},
		{`(let [c (atom 0) s (repeatedly (fn [] (swap! c inc)))] (loop [t s n 0] (if (< n 10000) (recur (rest t) (inc n)) [(first t) @c])))`, "[10001 10001]"},
		{`(loop [[a b & more] (lazy-cat [1 2] (map inc (range))) n 0 acc 0] (if (< n 20000) (recur more (inc n) (+ acc a b)) acc))`, "799940004"},
		{`(loop [s (remove odd? (repeat 2)) n 0] (if (< n 60000) (recur (rest s) (inc n)) (first s)))`, "2"},
		{`(let [s (map inc (range)) t (nthrest s 50000)] [(first t) (first (drop 5 t)) (nth s 3)])`, "[50001 50006 4]"},
		{`(loop [s (take-while (fn [x] (< x 30000)) (range)) n 0] (if (seq s) (recur (next s) (inc n)) n))`, "30000"},
		{`(loop [s (keep (fn [x] (when (odd? x) x)) (range)) n 0] (if (< n 25000) (recur (nthnext s 2) (inc n)) (first s)))`, "100001"},
		{`(let [s (lazy-seq [1 2 3]) r (drop 1 s)] [(realized? r) (first r) (realized? r)])`, "[false 2 true]"},
		{`[(vec (take 3 (drop -2 (range)))) (vec (take 2 (drop -1 (drop 2 (range))))) (vec (take 2 (nthrest (range) -3)))]`, "[[0 1 2] [2 3] [0 1]]"},
	} {
		res := run(t, tc.src, Env{})
		if res.Err != nil || Repr(res.Value) != tc.want {
			t.Errorf("%s: got %s %v, want %s", tc.src, Repr(res.Value), res.Err, tc.want)
		}
	}
}

// TestSharedWalkReadsTheSame: a drop made by one evaluation and kept
// reads the same for callers reading it at once, each from its source's
// start, while each walks it further its own way.
func TestSharedWalkReadsTheSame(t *testing.T) {
	held, err := ReadValue(t.Context(), `(drop 1000 (map inc (iterate inc 0)))`, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	Freeze(held)
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 3 {
				got, err := Eval(t.Context(), `(loop [s *1 i 0 acc 0] (if (< i 2000) (recur (rest s) (inc i) (+ acc (first s))) [acc (first *1)]))`,
					Env{PreviousResults: []Value{held}})
				if err != nil || got.Err != nil || Repr(got.Value) != "[4001000 1001]" {
					t.Errorf("caller %d round %d: %s %v %v", c, r, Repr(got.Value), err, got.Err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestEndlessWalkHoldsNoCells: an endless walk that keeps no head holds
// none of the elements it walked: walking a million elements to the step
// limit keeps the Go heap within 32 MiB, the least of three runs. Before,
// each step held the one before it.
func TestEndlessWalkHoldsNoCells(t *testing.T) {
	if testing.Short() {
		t.Skip("walks a million elements")
	}
	// About eight steps an element: over a million elements walked.
	env := Env{Limits: Limits{MaxSteps: 9_000_000, MaxAllocBytes: 1 << 40, Timeout: time.Hour}}
	for _, src := range []string{
		`(loop [s (iterate inc 0) x 0] (recur (next s) (first s)))`,
		`(loop [[x & xs] (map inc (range)) y 0] (recur xs x))`,
	} {
		least := leastPeakHeap(t, src, env, stepLimit)
		t.Logf("%s: %d KiB", src, least>>10)
		if least > 32<<20 {
			t.Errorf("%s: the heap grew to %d MiB walking to the step limit", src, least>>20)
		}
	}
}

// leastPeakHeap runs src three times, each ending in want, and gives the
// least of their heaps' peaks (peakHeap).
func leastPeakHeap(t *testing.T, src string, env Env, want ErrorKind) uint64 {
	t.Helper()
	least := uint64(1 << 62)
	for range 3 {
		peak, res := peakHeap(func() *Result { return run(t, src, env) })
		if errKind(res) != want {
			t.Fatalf("%s: %v, want %s", src, res.Err, want)
		}
		least = min(least, peak)
	}
	return least
}

// peakHeap runs f and gives the most heap its objects took meanwhile,
// above what they took before, sampled as f runs.
func peakHeap(f func() *Result) (uint64, *Result) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	runtime.GC()
	base := read()
	done := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		most := uint64(0)
		for {
			select {
			case <-done:
				peak <- most
				return
			default:
				most = max(most, read())
				runtime.Gosched()
			}
		}
	}()
	res := f()
	close(done)
	most := <-peak
	if most < base {
		return 0, res
	}
	return most - base, res
}

// TestKeptWalksAreCharged: what a walk keeps is charged at least what it
// holds on the heap, within the bounds of TestKeptHeapIsCharged: every
// step of a walk kept (a drop each), every place a walk read behind a
// head that is kept, and every element a derivation of a lazy sequence
// produced, which the evaluation keeps. Before, a drop kept about 200
// bytes for 48 charged, a place 64 for 16, and what a derivation of a
// lazy sequence produced an array doubling as it grew, 16 bytes charged
// an element; with the budget at 40 MiB such walks peaked at 92-115 MiB
// of RSS.
func TestKeptWalksAreCharged(t *testing.T) {
	skipUnlessMeasuringAllocation(t)
	for name, form := range map[string]string{
		"every step by rest":   `(loop [s (iterate inc %d) i 0 v []] (if (< i 64) (recur (rest s) (inc i) (conj v s)) v))`,
		"every step by next":   `(loop [s (iterate inc %d) i 0 v []] (if (< i 64) (recur (next s) (inc i) (conj v s)) v))`,
		"every step by drop":   `(loop [s (cycle [%d 1 2]) i 0 v []] (if (< i 64) (recur (drop 1 s) (inc i) (conj v s)) v))`,
		"the places behind":    `(let [h (rest (iterate inc %d))] (nth h 64) h)`,
		"a derivation's reads": `(let [s (map inc (lazy-seq (iterate inc %d)))] (nth s 64) s)`,
	} {
		kept, charged := keptByProgram(t, func(i int) string { return fmt.Sprintf(form, i+1000) })
		checkKept(t, name, kept, charged)
	}
}

// TestKeptWalksPeakWithinBudget: walks that keep what they read, and
// sequences read whole, end at the memory budget with the heap's peak
// within the budget and 24 MiB, the least of three runs, leaving the
// server's RSS room within the budget and 32 MiB (their numbers' boxes,
// 8 bytes each, are charged to no builtin). Before, with the budget at
// 40 MiB, the heap peaked at 68 MiB for a derivation of a lazy sequence
// read to the budget (each element charged 16 bytes, its array doubling
// as it grew), 103 for the places behind a kept head, 105 for every step
// of a walk kept, and 90 for a sequence read whole (its array grown by
// append, charged 16 bytes an element).
func TestKeptWalksPeakWithinBudget(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("reads to a 40 MiB budget, and measures the heap, which the race detector changes")
	}
	const budget = 40 << 20
	env := Env{Limits: Limits{MaxSteps: 1 << 40, MaxAllocBytes: budget, Timeout: time.Hour}}
	for _, src := range []string{
		`(let [s (map inc (lazy-seq (iterate inc 0)))] (reduce (fn [a x] (if (> x 50000000) (reduced a) (+ a x))) 0 s))`,
		`(let [h (rest (iterate inc 0))] (reduce (fn [a x] (if (> x 50000000) (reduced a) (+ a x))) 0 (map inc h)) (first h))`,
		`(loop [i 0 v (transient []) s (range)] (if (< i 5000000) (recur (inc i) (conj! v s) (next s)) (count (persistent! v))))`,
		`(count (take-while (fn [x] (< x 50000000)) (range)))`,
		`(frequencies (take-while (fn [x] (< x 50000000)) (range)))`,
	} {
		least := leastPeakHeap(t, src, env, memoryLimit)
		t.Logf("%s: %d MiB", src, least>>20)
		if least > budget+24<<20 {
			t.Errorf("%s: the heap peaked at %d MiB on a budget of %d MiB", src, least>>20, budget>>20)
		}
	}
}
