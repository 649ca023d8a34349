package lisp

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// lazyShared are lazy sequences of every making, as a previous result
// or remembered value holds them, with what taking from each gives.
var lazyShared = []struct{ src, take3 string }{
	{`(drop 5 (range))`, `[5 6 7]`},
	{`(drop 2 (drop 3 (range)))`, `[5 6 7]`},
	{`(drop-while (fn [x] (< x 4)) (range))`, `[4 5 6]`},
	{`(filter odd? (range))`, `[1 3 5]`},
	{`(remove odd? (drop 1 (range)))`, `[2 4 6]`},
	{`(map inc (drop 2 (iterate inc 0)))`, `[3 4 5]`},
	{`(drop 1 (cycle [1 2 3]))`, `[2 3 1]`},
	{`(map (fn [x] (* 2 x)) (repeat 4))`, `[8 8 8]`},
	{`(drop 4 (iterate (fn [x] (conj x 1)) []))`, `[[1 1 1 1] [1 1 1 1 1] [1 1 1 1 1 1]]`},
	// One of each builtin that derives a lazy sequence (lazyderive.go).
	{`(map-indexed vector (repeat :x))`, `[[0 :x] [1 :x] [2 :x]]`},
	{`(keep-indexed (fn [i x] (when (odd? i) x)) (range))`, `[1 3 5]`},
	{`(mapcat (fn [x] [x x]) (range))`, `[0 0 1]`},
	{`(mapcat list (range) (repeat :k))`, `[0 :k 1]`},
	{`(keep (fn [x] (when (odd? x) (* x x))) (range))`, `[1 9 25]`},
	{`(interpose :s (range))`, `[0 :s 1]`},
	{`(take-nth 2 (range))`, `[0 2 4]`},
	{`(distinct (cycle [1 2 1 3 4]))`, `[1 2 3]`},
	{`(dedupe (cycle [1 1 2 2 3 3]))`, `[1 2 3]`},
	{`(partition 2 (range))`, `[[0 1] [2 3] [4 5]]`},
	{`(partition 2 3 (range))`, `[[0 1] [3 4] [6 7]]`},
	{`(partition-all 2 (range))`, `[[0 1] [2 3] [4 5]]`},
	{`(partition-by (fn [x] (quot x 2)) (range))`, `[[0 1] [2 3] [4 5]]`},
	{`(interleave (range) (repeat :x))`, `[0 :x 1]`},
	{`(flatten (repeat [1 [2]]))`, `[1 2 1]`},
	{`(conj (range) :x)`, `[:x 0 1]`},
	{`(list* 1 (range))`, `[1 0 1]`},
	{`(nthrest (range) 2)`, `[2 3 4]`},
	{`(drop-last 2 (range))`, `[0 1 2]`},
	{`(reductions + (range))`, `[0 1 3]`},
	{`(reductions conj [] (range))`, `[[] [0] [0 1]]`},
	{`(eduction (map inc) (filter odd?) (range))`, `[1 3 5]`},
	{`(sequence (comp (map inc) (take 5)) (range))`, `[1 2 3]`},
	{`(clojure.core/replace {1 :one} (range))`, `[0 :one 2]`},
	{`(partition-all 2 (lazy-seq/call (fn [] [1 2 3])))`, `[[1 2] [3]]`},
	{`(distinct (concat (lazy-seq/call (fn [] [1 1 2])) (cycle [2 3])))`, `[1 2 3]`},
}

// TestLazySequenceReadsTheSameForEveryReader: a lazy sequence kept
// between turns is one value read by any number of callers at once; each
// reader starts from its first element. Before, drop counted its
// elements down in the value itself: the first reader got (5 6), every
// later one (0 1), and -race saw the callers write the same count.
func TestLazySequenceReadsTheSameForEveryReader(t *testing.T) {
	for _, tc := range lazyShared {
		v, err := ReadValue(context.Background(), tc.src, 0, 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		if _, lazy := v.(*infiniteSeq); !lazy {
			t.Errorf("%s read as %s, not a lazy sequence", tc.src, Repr(v))
		}
		Freeze(v)
		want := fmt.Sprintf("[%s %s %s]", tc.take3, tc.take3, tc.take3)
		const callers = 8
		var wg sync.WaitGroup
		for c := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := range 5 {
					res, err := Eval(context.Background(), `[(take 3 *1) (take 3 *1) (vec (take 3 *1))]`, Env{PreviousResults: []Value{v}})
					if err != nil || res.Err != nil {
						t.Errorf("%s: caller %d: %v %v", tc.src, c, err, res.Err)
						return
					}
					if got := Repr(res.Value); got != want {
						t.Errorf("%s: caller %d round %d read %s, want %s", tc.src, c, r, got, want)
						return
					}
				}
			}()
		}
		wg.Wait()
	}
}

// TestLazyDerivationsAreCharged: every lazy sequence is charged its heap
// shape when it is made, so a chain of derivations costs what it holds,
// linearly. Before, each derivation kept a description of the whole
// chain below it: (map inc s) 12,000 times over made Go allocate 1.2 GB
// for 1.3 MB charged.
func TestLazyDerivationsAreCharged(t *testing.T) {
	chain := func(n int, step string) string {
		return fmt.Sprintf(`(do (reduce (fn [s i] %s) (range) (range %d)) 1)`, step, n)
	}
	// A drop of a drop is one drop of the source, no chain, charged as a
	// view (heapDrop): TestWalkingIsLinear counts it.
	for _, step := range []string{`(map inc s)`, `(filter odd? s)`, `(drop-while neg? s)`} {
		small := run(t, chain(2000, step), Env{})
		large := run(t, chain(4000, step), Env{})
		if small.Err != nil || large.Err != nil {
			t.Fatalf("%s: %v %v", step, small.Err, large.Err)
		}
		per := (large.AllocBytes - small.AllocBytes) / 2000
		if per < heapLazySeq {
			t.Errorf("%s: a derivation charged %d bytes, its heap shape is %d", step, per, int64(heapLazySeq))
		}
		if grow := float64(large.AllocBytes) / float64(small.AllocBytes); grow > 2.1 {
			t.Errorf("%s: twice the derivations charged %.2f times the bytes", step, grow)
		}
	}
	checkAttacks(t, []attack{
		// The program: charged about 300 bytes a derivation, it
		// fits the 10 MiB budget and allocates what it is charged.
		{name: "12,000 nested maps", src: chain(12_000, `(map inc s)`), maxAlloc: 16 << 20},
		{name: "a million nested maps", src: chain(1_000_000, `(map inc s)`), want: memoryLimit, maxAlloc: 48 << 20},
		{name: "a million sources kept", src: `(count (reduce (fn [v i] (conj v (repeat i))) [] (range 1000000)))`, want: memoryLimit, maxAlloc: 48 << 20},
		// Realizing a chain is nested calls: the depth limit bounds it,
		// and the Go stack it takes.
		{name: "realizing 12,000 nested maps", src: `(first (reduce (fn [s i] (map inc s)) (range) (range 12000)))`, want: depthLimit, maxAlloc: 16 << 20},
		{name: "a shared chain realized many times", src: `(let [s (reduce (fn [s i] (map inc s)) (range) (range 150))] (reduce + (map (fn [i] (first s)) (range 100000))))`, want: memoryLimit, maxAlloc: 48 << 20},
	}, Env{Limits: Limits{MaxSteps: 50_000_000}})
	// A chain the depth limit allows reads as it should.
	res := run(t, `(take 3 (reduce (fn [s i] (map inc s)) (drop 1 (range)) (range 50)))`, Env{})
	if res.Err != nil || Repr(res.Value) != "[51 52 53]" {
		t.Errorf("50 nested maps: %s %v", Repr(res.Value), res.Err)
	}
}

// TestLazyDerivationsHoldingItemsAreCharged: a derivation that holds what
// it reads (a partition chunk that never fills, what drop-last holds
// back, what distinct has seen) is charged each element it reads, so over
// an unbounded sequence it ends at the memory budget, with Go allocating
// about what was charged, however many steps are allowed.
func TestLazyDerivationsHoldingItemsAreCharged(t *testing.T) {
	checkAttacks(t, []attack{
		{name: "partition-all of 0", src: `(first (partition-all 0 (range)))`, want: memoryLimit, maxAlloc: 40 << 20},
		{name: "partition-by of one key", src: `(first (partition-by (constantly 1) (range)))`, want: memoryLimit, maxAlloc: 40 << 20},
		{name: "a partition of 100 million", src: `(first (partition 100000000 (range)))`, want: memoryLimit, maxAlloc: 40 << 20},
		{name: "drop-last of 100 million", src: `(first (drop-last 100000000 (range)))`, want: memoryLimit, maxAlloc: 40 << 20},
		{name: "distinct of ten million", src: `(nth (distinct (range)) 10000000)`, want: memoryLimit, maxAlloc: 40 << 20},
		// A transducer's step may hold what it reads: each element read
		// is charged, so one that holds nothing ends at the budget too.
		{name: "distinct that never finds a second", src: `(second (distinct (repeat 1)))`, want: memoryLimit, maxAlloc: 40 << 20},
	}, Env{Limits: Limits{MaxSteps: 200_000_000}})
}
