package lisp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// bigString is a program expression for a string of 10*n bytes.
func bigString(n int) string { return fmt.Sprintf(`(apply str (repeat %d "0123456789"))`, n) }

// TestHostileWorkEndsInBudget: programs that make a builtin do far more
// work than the steps and bytes they were charged (hashing, comparing and
// matching shared or deeply nested values) end with the typed error of
// the budget they exhaust. The sizes are those of the attacks scaled down,
// with budgets scaled alike.
func TestHostileWorkEndsInBudget(t *testing.T) {
	small := Limits{MaxSteps: 200_000, MaxAllocBytes: 2 << 20, MaxDepth: 200, MaxOutputBytes: 1 << 10,
		MaxToolCalls: 5, MaxEmitBytes: 1 << 20, Timeout: time.Minute}
	for _, tc := range []struct {
		name, src string
		want      ErrorKind
	}{
		// identical? compared 60 million shared elements per call.
		{"identical? on shared structure", `(let [v (vec (repeat 60 (vec (repeat 100 (vec (range 100)))))) w (conj (pop v) (peek v))]
			(dotimes [i 100] (identical? v w)) :done)`, stepLimit},
		{"compare on shared structure", `(let [v (vec (repeat 60 (vec (repeat 100 (vec (range 100)))))) w (conj (pop v) (peek v))]
			(dotimes [i 100] (compare v w)) :done)`, stepLimit},
		{"endless while", `(let [a (atom 0)] (while true (swap! a inc)))`, stepLimit},
		// The canonical text of a vector holding one string sixty times.
		{"hashing a shared string", `(let [s ` + bigString(10_000) + ` w (vec (repeat 60 s))]
			(loop [i 0] (contains? #{1} w) (recur (inc i))))`, memoryLimit},
		{"set literals around a string", `(let [s ` + bigString(10_000) + `]
			(loop [i 0 x s] (if (< i 1000) (recur (inc i) #{x}) (count x))))`, memoryLimit},
		{"map keys around a string", `(let [s ` + bigString(10_000) + `]
			(loop [i 0 x s] (if (< i 1000) (recur (inc i) {x i}) (count x))))`, memoryLimit},
		{"group-by shared keys", `(let [s ` + bigString(10_000) + ` w (vec (repeat 60 s))]
			(group-by (fn [_] w) (range 100)))`, memoryLimit},
		// A rest map of destructuring hashes every key it is given.
		{"rest map over shared keys", `(let [s ` + bigString(100) + ` w (vec (repeat 60 s))
			args (vec (mapcat (fn [i] [w i]) (range 100)))
			[& {:as m}] args]
			(count m))`, memoryLimit},
		// RE2 is linear in the input, times the program: thousands of
		// instructions on every byte.
		{"regex program times input", `(let [s (apply str (repeat 16384 "abcd"))] (re-find (re-pattern "(\\w+\\s*){1000}x") s))`, stepLimit},
		{"regex replace", `(let [s (apply str (repeat 16384 "abcd"))] (replace s (re-pattern "(\\w+\\s*){200}x") "y"))`, stepLimit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, tc.src, Env{Limits: small})
			if res.Err == nil || res.Err.Kind != tc.want {
				t.Fatalf("got %v (value %s), want %s", res.Err, formText(res.Value), tc.want)
			}
		})
	}
}

// TestNestedHashIsLinear: hashing a value nested thousands of levels deep
// around a long string builds its canonical text once, not once per level,
// and the evaluation is charged the bytes of that text. Each hash of it
// also builds walk stacks 10,000 levels deep and orders 10,000 maps, which
// are charged too: the budget is what that takes (30 MB in all).
func TestNestedHashIsLinear(t *testing.T) {
	res := run(t, `(let [s `+bigString(50_000)+` d (reduce (fn [m _] {:k m :n 1}) s (range 10000))]
		[(contains? #{1} d) (contains? #{d} d)])`, Env{Limits: Limits{MaxAllocBytes: 40 << 20}})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if got := Repr(res.Value); got != "[false true]" {
		t.Errorf("got %s", got)
	}
	if res.AllocBytes < 3*500_000 {
		t.Errorf("charged %d bytes; hashing the 500 KB value three times must be charged", res.AllocBytes)
	}
}

// TestHashKeyFollowsEqual is a property of the canonical key: values
// equal by Equal, whatever the order their maps and sets were built in,
// have the same key, and values that differ have different keys.
func TestHashKeyFollowsEqual(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var gen func(depth int) string
	gen = func(depth int) string {
		switch k := rng.IntN(9); {
		case depth > 3 || k < 3:
			return []string{`1`, `2`, `-0.0`, `0.0`, `1.5`, `"a"`, `"a b"`, `:a`, `nil`, `true`, `"1"`, `""`}[rng.IntN(12)]
		case k < 5:
			return "[" + gen(depth+1) + " " + gen(depth+1) + "]"
		case k < 7:
			return "{" + gen(depth+1) + " " + gen(depth+1) + " " + gen(depth+1) + " " + gen(depth+1) + "}"
		default:
			return "#{" + gen(depth+1) + " " + gen(depth+1) + "}"
		}
	}
	keys := map[any]string{}
	for range 3000 {
		src := gen(0)
		v, err := ParseEDN(src, 0)
		if err != nil {
			continue // duplicate keys in a literal
		}
		reordered := reorder(v)
		if !Equal(v, reordered) || hashKey(v) != hashKey(reordered) {
			t.Fatalf("%s: reordered copy %s has a different key", Repr(v), Repr(reordered))
		}
		k := hashKey(v)
		if prev, ok := keys[k]; ok && !Equal(mustEDN(prev), v) {
			t.Fatalf("%s and %s differ but share a key", prev, Repr(v))
		}
		keys[k] = Repr(v)
	}
}

// reorder rebuilds v with every map's entries and set's elements in
// reverse order.
func reorder(v Value) Value {
	switch c := v.(type) {
	case *Vector:
		out := make([]Value, c.Len())
		for i, e := range c.Elems() {
			out[i] = reorder(e)
		}
		return NewVector(out)
	case *Map:
		b := NewMapBuilder(c.Len())
		for i := c.Len() - 1; i >= 0; i-- {
			e := c.Entries()[i]
			b.Set(reorder(e.Key), reorder(e.Val))
		}
		return b.Map()
	case *Set:
		var out []Value
		for i := c.Len() - 1; i >= 0; i-- {
			out = append(out, reorder(c.Elems()[i]))
		}
		return NewSet(out)
	}
	return v
}

// TestTimeoutInsideLongBuiltins: with budgets too large to stop them, the
// walks of long builtins look at the deadline as they charge, so the
// evaluation ends as a timeout.
func TestTimeoutInsideLongBuiltins(t *testing.T) {
	limits := Limits{MaxSteps: 1 << 40, MaxAllocBytes: 1 << 40, MaxDepth: 200, Timeout: 50 * time.Millisecond}
	src := `(let [v (vec (repeat 60 (vec (repeat 1000 (vec (range 1000)))))) w (conj (pop v) (peek v))]
		(dotimes [i 100] (identical? v w)) :done)`
	res, err := Eval(context.Background(), src, Env{Limits: limits})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err == nil || res.Err.Kind != timeout || !strings.Contains(res.Err.Message, "timed out") {
		t.Fatalf("got %v, want timeout", res.Err)
	}
}

// TestLongStringComparesCharged: hashing or comparing a long string costs
// a step per 64 bytes each time, so a loop doing it meets the step budget
// in proportion to the bytes it reads.
func TestLongStringComparesCharged(t *testing.T) {
	const n, times = 64 << 10, 10
	for _, op := range []string{`(contains? #{1} s)`, `(get {1 2} s)`, `(= s t)`, `(not= s t)`, `(= s t s)`, `(identical? s t)`} {
		src := fmt.Sprintf(`(let [s (apply str (repeat %d "x")) t (str s "")] (dotimes [i %d] %s))`, n, times, op)
		base := run(t, fmt.Sprintf(`(let [s (apply str (repeat %d "x")) t (str s "")] (dotimes [i %d] nil))`, n, times), Env{})
		res := run(t, src, Env{})
		if res.Err != nil {
			t.Fatalf("%s: %v", op, res.Err)
		}
		if extra := res.Steps - base.Steps; extra < times*n/64 {
			t.Errorf("%s on a %d-byte string %d times charged %d steps, want at least %d", op, n, times, extra, times*n/64)
		}
	}
}

// TestCollectionsAsFunctionsCharged: a set or map called as a function
// hashes its argument like contains? and get do, and is charged alike.
func TestCollectionsAsFunctionsCharged(t *testing.T) {
	small := Limits{MaxSteps: 200_000, MaxAllocBytes: 2 << 20, MaxDepth: 200, Timeout: time.Minute}
	for _, op := range []string{`(#{1} w)`, `({1 2} w)`, `(some #{1} [w])`} {
		src := `(let [s ` + bigString(10_000) + ` w (vec (repeat 60 s))] (loop [i 0] ` + op + ` (recur (inc i))))`
		res := run(t, src, Env{Limits: small})
		if res.Err == nil || res.Err.Kind != memoryLimit {
			t.Errorf("%s: got %v, want memory_limit", op, res.Err)
		}
	}
}

// TestChargedCountsDoNotWrap: a count a program chooses is charged whole.
// Before, an index whose bytes passed the largest integer wrapped round
// to a 16-byte charge, and Go then refused to make the slice: an internal
// error (a panic the evaluator caught) instead of memory_limit.
func TestChargedCountsDoNotWrap(t *testing.T) {
	for _, src := range []string{
		`(nth (range) 4611686018427387905)`,
		`(nth (drop 1 (cycle [1 2])) 1152921504606846977)`,
		`(nth (iterate inc 0) 4611686018427387905)`,
		`(take 4611686018427387905 (range))`,
		`(nth (range) 9223372036854775807)`,
	} {
		res := run(t, src, Env{})
		if res.Err == nil || res.Err.Kind != memoryLimit {
			t.Errorf("%s: %v, want memory_limit", src, res.Err)
		}
	}
}
