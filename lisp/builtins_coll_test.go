package lisp

import (
	"context"
	"slices"
	"testing"
)

func TestCollectionFunctions(t *testing.T) {
	even, inc, plus := builtinFn("even?"), builtinFn("inc"), builtinFn("+")
	active := func(b bool) *Map { return hashMap(kw("active"), Bool(b)) }
	expenses := hashMap(kw("food"), Int(50), kw("travel"), Int(200), kw("office"), Int(150))
	runBuiltinCases(t, []builtinCase{
		{name: "filter", args: []Value{even, ints(1, 2, 3, 4)}, want: "[2 4]"},
		{name: "filter", args: []Value{kw("active"), vec(active(true), active(false))}, want: "[{:active true}]"},
		{name: "filter", args: []Value{set(kw("a"), kw("b")), vec(kw("a"), kw("c"), kw("b"))}, want: "[:a :b]"},
		{name: "filter", args: []Value{even, Nil}, want: "[]"},
		{name: "filter", args: []Value{set(str("l")), str("hello")}, want: `["l" "l"]`},
		{name: "filter", args: []Value{builtinFn("vector?"), expenses}, want: "[[:food 50] [:travel 200] [:office 150]]"},
		{name: "filter", args: []Value{Int(1), ints(1)}, kind: typeError, want: "filter expected a function, got integer 1"},
		{name: "filter", args: []Value{even, Int(5)}, kind: typeError, want: "filter expected a collection"},
		{name: "remove", args: []Value{even, ints(1, 2, 3, 4)}, want: "[1 3]"},
		{name: "find", args: []Value{even, ints(1, 3, 4, 6)}, want: "4"},
		{name: "find", args: []Value{even, ints(1, 3)}, want: "nil"},
		{name: "map", args: []Value{inc, ints(1, 2, 3)}, want: "[2 3 4]"},
		{name: "map", args: []Value{plus, ints(1, 2, 3), ints(10, 20, 30)}, want: "[11 22 33]"},
		{name: "map", args: []Value{plus, ints(1, 2, 3, 4), ints(10, 20)}, want: "[11 22]"},
		{name: "map", args: []Value{kw("name"), vec(hashMap(kw("name"), str("A")), hashMap())}, want: `["A" nil]`},
		{name: "map", args: []Value{builtinFn("identity"), str("abc")}, want: `["a" "b" "c"]`},
		{name: "mapv", args: []Value{builtinFn("first"), hashMap(kw("a"), Int(1))}, want: "[:a]"},
		{name: "map-indexed", args: []Value{builtinFn("vector"), vec(str("a"), str("b"))}, want: `[[0 "a"] [1 "b"]]`},
		{name: "mapcat", args: []Value{builtinFn("reverse"), vec(ints(1, 2), ints(3, 4))}, want: "[2 1 4 3]"},
		{name: "keep", args: []Value{builtinFn("odd?"), ints(0, 1, 2)}, want: "[false true false]"},
		{name: "keep", args: []Value{kw("a"), vec(hashMap(kw("a"), Int(1)), hashMap())}, want: "[1]"},
		{name: "pluck", args: []Value{kw("name"), vec(hashMap(kw("name"), str("A")), hashMap(kw("name"), str("B")))}, want: `["A" "B"]`},
		{name: "pcalls", args: []Value{builtinFn("vector"), builtinFn("+")}, want: "[[] 0]"},
		{name: "conj", args: []Value{ints(1, 2), Int(3)}, want: "[1 2 3]"},
		{name: "conj", args: []Value{ints(1), Int(2), Int(3)}, want: "[1 2 3]"},
		{name: "conj", args: []Value{set(Int(1), Int(2)), Int(3)}, want: "#{1 2 3}"},
		{name: "conj", args: []Value{hashMap(kw("a"), Int(1)), vec(kw("b"), Int(2))}, want: "{:a 1, :b 2}"},
		{name: "conj", args: []Value{Nil, Int(1)}, want: "[1]"},
		{name: "conj", args: []Value{ints(1), Nil}, want: "[1 nil]"},
		{name: "conj", args: []Value{hashMap(), ints(1)}, kind: typeError, want: "[key value] pairs"},
		{name: "cons", args: []Value{Int(0), ints(1, 2)}, want: "[0 1 2]"},
		{name: "concat", args: []Value{ints(1, 2), ints(3, 4)}, want: "[1 2 3 4]"},
		{name: "concat", args: []Value{ints(1), Nil, str("ab")}, want: `[1 "a" "b"]`},
		{name: "into", args: []Value{vec(), ints(1, 2, 3)}, want: "[1 2 3]"},
		{name: "into", args: []Value{vec(), hashMap(kw("a"), Int(1), kw("b"), Int(2))}, want: "[[:a 1] [:b 2]]"},
		{name: "into", args: []Value{set(), ints(1, 2, 2, 3)}, want: "#{1 2 3}"},
		{name: "into", args: []Value{hashMap(), vec(vec(kw("a"), Int(1)), vec(kw("b"), Int(2)))}, want: "{:a 1, :b 2}"},
		{name: "into", args: []Value{set(), hashMap(kw("a"), Int(1))}, want: "#{[:a 1]}"},
		{name: "into", args: []Value{hashMap(), set(vec(kw("a"), Int(1)))}, want: "{:a 1}"},
		{name: "into", args: []Value{hashMap(kw("a"), Int(1)), hashMap(kw("b"), Int(2))}, want: "{:a 1, :b 2}"},
		{name: "flatten", args: []Value{vec(ints(1, 2), vec(Int(3), ints(4)))}, want: "[1 2 3 4]"},
		{name: "flatten", args: []Value{vec(Int(1), vec(Int(2), hashMap(kw("a"), Int(3))), str("str"))}, want: `[1 2 {:a 3} "str"]`},
		{name: "flatten", args: []Value{Nil}, want: "[]"},
		{name: "interleave", args: []Value{ints(1, 2, 3), vec(kw("a"), kw("b"))}, want: "[1 :a 2 :b]"},
		{name: "interpose", args: []Value{str(","), ints(1, 2, 3)}, want: `[1 "," 2 "," 3]`},
		{name: "interpose", args: []Value{str(","), vec()}, want: `[]`},
		{name: "zip", args: []Value{ints(1, 2), vec(kw("a"), kw("b"))}, want: "[[1 :a] [2 :b]]"},
		{name: "seq", args: []Value{ints(1, 2, 3)}, want: "[1 2 3]"},
		{name: "seq", args: []Value{vec()}, want: "nil"},
		{name: "seq", args: []Value{str("hi")}, want: `["h" "i"]`},
		{name: "seq", args: []Value{str("")}, want: "nil"},
		{name: "seq", args: []Value{hashMap(kw("a"), Int(1), kw("b"), Int(2))}, want: "[[:a 1] [:b 2]]"},
		{name: "seq", args: []Value{hashMap()}, want: "nil"},
		{name: "seq", args: []Value{Nil}, want: "nil"},
		{name: "vec", args: []Value{set(Int(1))}, want: "[1]"},
		{name: "vector", args: []Value{Int(1), Nil}, want: "[1 nil]"},
		{name: "empty", args: []Value{hashMap(kw("a"), Int(1))}, want: "{}"},
	})
}

func TestOrdering(t *testing.T) {
	products := vec(
		hashMap(kw("name"), str("b"), kw("price"), Int(20)),
		hashMap(kw("name"), str("a"), kw("price"), Int(10)),
		hashMap(kw("name"), str("c"), kw("price"), Int(20)),
	)
	runBuiltinCases(t, []builtinCase{
		{name: "sort", args: []Value{ints(3, 1, 2)}, want: "[1 2 3]"},
		{name: "sort", args: []Value{vec(Int(3), fl(1.5), Int(2))}, want: "[1.5 2 3]"},
		{name: "sort", args: []Value{vec(str("b"), str("a"), str("c"))}, want: `["a" "b" "c"]`},
		{name: "sort", args: []Value{vec(kw("b"), kw("a"))}, want: "[:a :b]"},
		{name: "sort", args: []Value{kw("desc"), ints(1, 3, 2)}, want: "[3 2 1]"},
		{name: "sort", args: []Value{kw("asc"), ints(3, 1, 2)}, want: "[1 2 3]"},
		{name: "sort", args: []Value{builtinFn(">"), ints(1, 3, 2)}, want: "[3 2 1]"},
		{name: "sort", args: []Value{str("cab")}, want: `["a" "b" "c"]`},
		{name: "sort", args: []Value{vec()}, want: "[]"},
		{name: "sort", args: []Value{vec(Int(1), str("a"))}, kind: typeError, want: "sort cannot compare"},
		{name: "sort", args: []Value{vec(Int(1), Nil, Int(0), Nil)}, want: "[nil nil 0 1]"},
		{name: "sort", args: []Value{kw("desc"), vec(Nil, Int(1))}, want: "[1 nil]"},
		{name: "sort", args: []Value{vec(vec(Int(1), Nil), vec(Int(1), Int(0)))}, want: "[[1 nil] [1 0]]"},
		{name: "sort", args: []Value{vec(hashMap(), hashMap())}, kind: typeError, want: "sort cannot order map values"},
		{name: "sort", args: []Value{set(Int(3), Int(1), Int(2))}, want: "[1 2 3]"},
		{name: "sort", args: []Value{kw("up"), ints(1)}, kind: typeError, want: ":asc or :desc"},
		{name: "sort-by", args: []Value{kw("date"), products}, want: `[{:name "b", :price 20} {:name "a", :price 10} {:name "c", :price 20}]`},
		{name: "sort-by", args: []Value{kw("price"), products}, want: `[{:name "a", :price 10} {:name "b", :price 20} {:name "c", :price 20}]`},
		{name: "sort-by", args: []Value{kw("price"), builtinFn(">"), products}, want: `[{:name "b", :price 20} {:name "c", :price 20} {:name "a", :price 10}]`},
		{name: "sort-by", args: []Value{kw("price"), kw("desc"), products}, want: `[{:name "b", :price 20} {:name "c", :price 20} {:name "a", :price 10}]`},
		{name: "sort-by", args: []Value{kw("name"), builtinFn("compare"), products}, want: `[{:name "a", :price 10} {:name "b", :price 20} {:name "c", :price 20}]`},
		{name: "sort-by", args: []Value{builtinFn("second"), builtinFn(">"), hashMap(kw("food"), Int(100), kw("travel"), Int(500), kw("office"), Int(200))},
			want: "[[:travel 500] [:office 200] [:food 100]]"},
		{name: "sort-by", args: []Value{builtinFn("first"), hashMap(kw("z"), Int(1), kw("a"), Int(2), kw("m"), Int(3))}, want: "[[:a 2] [:m 3] [:z 1]]"},
		{name: "sort-by", args: []Value{kw("x"), vec()}, want: "[]"},
		{name: "sort-by", args: []Value{kw("price"), builtinFn(">"), vec(hashMap(kw("price"), str("a")), hashMap(kw("price"), str("b")))}, kind: typeError, want: "> expected a number"},
		{name: "reverse", args: []Value{ints(1, 2, 3)}, want: "[3 2 1]"},
		{name: "reverse", args: []Value{vec()}, want: "[]"},
		{name: "reverse", args: []Value{str("abc")}, want: `["c" "b" "a"]`},
	})
}

func TestSubsetting(t *testing.T) {
	even := builtinFn("even?")
	runBuiltinCases(t, []builtinCase{
		{name: "first", args: []Value{ints(1, 2, 3)}, want: "1"},
		{name: "first", args: []Value{vec()}, want: "nil"},
		{name: "first", args: []Value{Nil}, want: "nil"},
		{name: "first", args: []Value{str("héllo")}, want: `"h"`},
		{name: "first", args: []Value{hashMap(kw("a"), Int(1))}, want: "[:a 1]"},
		{name: "first", args: []Value{set(Int(1))}, kind: typeError, want: "first is not supported on sets"},
		{name: "first", args: []Value{Int(1)}, kind: typeError, want: "first expected a collection"},
		{name: "second", args: []Value{str("héllo")}, want: `"é"`},
		{name: "last", args: []Value{ints(1, 2, 3)}, want: "3"},
		{name: "last", args: []Value{str("héllo")}, want: `"o"`},
		{name: "last", args: []Value{vec()}, want: "nil"},
		{name: "last", args: []Value{set(Int(1))}, kind: typeError, want: "not supported on sets"},
		{name: "nth", args: []Value{ints(1, 2, 3), Int(1)}, want: "2"},
		{name: "nth", args: []Value{ints(1, 2, 3), Int(10)}, want: "nil"},
		{name: "nth", args: []Value{ints(1, 2, 3), Int(-1)}, want: "nil"},
		{name: "nth", args: []Value{ints(1, 2, 3), Int(10), kw("none")}, want: ":none"},
		{name: "nth", args: []Value{str("abc"), Int(2)}, want: `"c"`},
		{name: "nth", args: []Value{set(Int(1)), Int(0)}, kind: typeError, want: "nth is not supported on sets"},
		{name: "nth", args: []Value{ints(1), str("0")}, kind: typeError, want: "nth expected an integer"},
		{name: "rest", args: []Value{ints(1, 2, 3)}, want: "[2 3]"},
		{name: "rest", args: []Value{vec()}, want: "[]"},
		{name: "next", args: []Value{ints(1, 2, 3)}, want: "[2 3]"},
		{name: "next", args: []Value{ints(1)}, want: "nil"},
		{name: "next", args: []Value{vec()}, want: "nil"},
		{name: "ffirst", args: []Value{vec(ints(1, 2), ints(3))}, want: "1"},
		{name: "fnext", args: []Value{ints(1, 2, 3)}, want: "2"},
		{name: "nfirst", args: []Value{vec(ints(1, 2), ints(3))}, want: "[2]"},
		{name: "nnext", args: []Value{ints(1, 2, 3, 4)}, want: "[3 4]"},
		{name: "butlast", args: []Value{ints(1, 2, 3)}, want: "[1 2]"},
		{name: "take", args: []Value{Int(2), ints(1, 2, 3, 4)}, want: "[1 2]"},
		{name: "nthrest", args: []Value{ints(1, 2, 3), Int(2)}, want: "[3]"},
		{name: "nthnext", args: []Value{ints(1, 2, 3), Int(3)}, want: "nil"},
		{name: "take-nth", args: []Value{Int(2), ints(1, 2, 3, 4, 5)}, want: "[1 3 5]"},
		{name: "take-nth", args: []Value{Int(0), ints(1)}, kind: executionError, want: "must be positive"},
		{name: "filterv", args: []Value{builtinFn("odd?"), ints(1, 2, 3)}, want: "[1 3]"},
		{name: "doall", args: []Value{ints(1)}, want: "[1]"},
		{name: "run!", args: []Value{builtinFn("inc"), ints(1, 2)}, want: "nil"},
		{name: "take", args: []Value{Int(10), ints(1, 2, 3)}, want: "[1 2 3]"},
		{name: "take", args: []Value{Int(-1), ints(1, 2, 3)}, want: "[]"},
		{name: "take", args: []Value{Int(2), str("hello")}, want: `["h" "e"]`},
		{name: "drop", args: []Value{Int(2), ints(1, 2, 3, 4)}, want: "[3 4]"},
		{name: "drop", args: []Value{Int(10), ints(1, 2, 3)}, want: "[]"},
		{name: "take-last", args: []Value{Int(2), ints(1, 2, 3)}, want: "[2 3]"},
		{name: "drop-last", args: []Value{ints(1, 2, 3)}, want: "[1 2]"},
		{name: "drop-last", args: []Value{Int(2), ints(1, 2, 3)}, want: "[1]"},
		{name: "take-while", args: []Value{kw("active"), vec(hashMap(kw("active"), trueValue), hashMap(kw("active"), trueValue), hashMap(kw("active"), falseValue))}, want: "[{:active true} {:active true}]"},
		{name: "drop-while", args: []Value{kw("pending"), vec(hashMap(kw("pending"), trueValue), hashMap(kw("pending"), falseValue))}, want: "[{:pending false}]"},
		{name: "split-at", args: []Value{Int(2), ints(1, 2, 3)}, want: "[[1 2] [3]]"},
		{name: "split-with", args: []Value{even, ints(2, 4, 5, 6)}, want: "[[2 4] [5 6]]"},
		{name: "subvec", args: []Value{ints(1, 2, 3, 4), Int(1), Int(3)}, want: "[2 3]"},
		{name: "subvec", args: []Value{ints(1, 2), Int(1), Int(3)}, kind: executionError, want: "out of bounds"},
		{name: "peek", args: []Value{ints(1, 2)}, want: "2"},
		{name: "pop", args: []Value{ints(1, 2)}, want: "[1]"},
		{name: "distinct", args: []Value{ints(1, 2, 1, 3, 2)}, want: "[1 2 3]"},
		{name: "distinct", args: []Value{str("hello")}, want: `["h" "e" "l" "o"]`},
		{name: "dedupe", args: []Value{ints(1, 1, 2, 1)}, want: "[1 2 1]"},
		{name: "partition", args: []Value{Int(2), ints(1, 2, 3, 4, 5, 6)}, want: "[[1 2] [3 4] [5 6]]"},
		{name: "partition", args: []Value{Int(3), ints(1, 2, 3, 4, 5)}, want: "[[1 2 3]]"},
		{name: "partition", args: []Value{Int(2), Int(1), ints(1, 2, 3, 4)}, want: "[[1 2] [2 3] [3 4]]"},
		{name: "partition", args: []Value{Int(3), Int(3), vec(kw("x")), ints(1, 2, 3, 4)}, want: "[[1 2 3] [4 :x]]"},
		{name: "partition", args: []Value{Int(0), ints(1)}, kind: executionError, want: "must be positive"},
		{name: "partition-all", args: []Value{Int(2), ints(1, 2, 3)}, want: "[[1 2] [3]]"},
		{name: "partition-all", args: []Value{Int(3), Int(1), ints(1, 2, 3, 4)}, want: "[[1 2 3] [2 3 4] [3 4] [4]]"},
		{name: "partition-by", args: []Value{even, ints(2, 4, 1, 3, 6)}, want: "[[2 4] [1 3] [6]]"},
		{name: "range", args: []Value{Int(5)}, want: "[0 1 2 3 4]"},
		{name: "range", args: []Value{Int(5), Int(10)}, want: "[5 6 7 8 9]"},
		{name: "range", args: []Value{Int(0), Int(10), Int(2)}, want: "[0 2 4 6 8]"},
		{name: "range", args: []Value{Int(10), Int(0), Int(-2)}, want: "[10 8 6 4 2]"},
		{name: "range", args: []Value{Int(0), Int(10), Int(-1)}, want: "[]"},
		{name: "range", args: []Value{Int(5), Int(5)}, want: "[]"},
		{name: "range", args: []Value{Int(0), fl(1), fl(0.25)}, want: "[0.0 0.25 0.5 0.75]"},
		{name: "range", args: []Value{Int(0), Int(1), Int(0)}, kind: executionError, want: "step 0"},
		{name: "range", args: []Value{fl(1e12)}, kind: stepLimit, want: "step limit"},
		{name: "range", args: []Value{Int(-9e18), Int(9e18)}, kind: stepLimit, want: "step limit"},
		{name: "repeat", args: []Value{Int(3), kw("x")}, want: "[:x :x :x]"},
		{name: "repeat", args: []Value{Int(1e12), kw("x")}, kind: stepLimit, want: "step limit"},
	})
}

// TestBudgetsChargedBeforeAllocation checks that huge requests fail on the
// memory budget even when the step budget would allow them.
func TestBudgetsChargedBeforeAllocation(t *testing.T) {
	th := newThread(context.Background(), Limits{MaxSteps: 1 << 62, MaxAllocBytes: 10 << 20})
	for _, c := range [][]Value{
		{fl(1e12)},
		{Int(0), Int(1 << 62)},
	} {
		_, err := callBuiltin(th, "range", c...)
		if e := asError(err); err == nil || e.Kind != memoryLimit {
			t.Errorf("(range %v) = %v, want memory_limit", c, err)
		}
	}
	_, err := callBuiltin(th, "repeat", Int(1e12), Int(1))
	if e := asError(err); err == nil || e.Kind != memoryLimit {
		t.Errorf("(repeat 1e12 1) = %v, want memory_limit", err)
	}
}

// TestSharedBackingArrays checks that vectors which share a backing array
// (take, rest, subvec) cannot see each other's conj.
func TestSharedBackingArrays(t *testing.T) {
	th := newTestThread()
	base := emptyVector
	for i := range 5 {
		base = base.conj(Int(i))
	}
	head, _ := callBuiltin(th, "take", Int(2), base)
	a, _ := callBuiltin(th, "conj", head, kw("a"))
	if got := Repr(base); got != "[0 1 2 3 4]" {
		t.Errorf("conj on (take 2 v) changed v to %s", got)
	}
	if got := Repr(a); got != "[0 1 :a]" {
		t.Errorf("conj on take = %s", got)
	}
	r, _ := callBuiltin(th, "rest", base)
	grown := base.conj(Int(5))
	_, _ = callBuiltin(th, "conj", r, kw("b"))
	if got := Repr(grown); got != "[0 1 2 3 4 5]" {
		t.Errorf("conj on (rest v) changed a longer vector to %s", got)
	}
}

// TestSharedStructureIsCharged builds a value whose printed form would be
// gigabytes while it costs little memory, because every level repeats the
// same vector. Printing, hashing and comparing it must hit a budget quickly.
func TestSharedStructureIsCharged(t *testing.T) {
	th := newTestThread()
	v, _ := callBuiltin(th, "range", Int(1000))
	w, _ := callBuiltin(th, "repeat", Int(1000), v)
	x, err := callBuiltin(th, "repeat", Int(1000), w)
	if err != nil {
		// The evaluator may refuse such a value as soon as it is built.
		if asError(err).Kind != memoryLimit {
			t.Fatalf("building a billion-node shared value: %v", err)
		}
		x = NewVector(slices.Repeat([]Value{w}, 1000))
	}
	for _, c := range []struct {
		name string
		args []Value
	}{
		{"str", []Value{x}},
		{"pr-str", []Value{x}},
		{"join", []Value{str(","), x}},
		{"format", []Value{str("%s"), x}},
		{"=", []Value{x, x}},
		{"frequencies", []Value{vec(x, x)}},
		{"distinct", []Value{vec(x, x)}},
		{"set", []Value{vec(x)}},
		{"group-by", []Value{builtinFn("identity"), vec(x)}},
		{"contains?", []Value{set(Int(1)), x}},
		{"sort", []Value{vec(x, x)}},
	} {
		_, err := callBuiltin(newTestThread(), c.name, c.args...)
		e := asError(err)
		if err == nil || (e.Kind != stepLimit && e.Kind != memoryLimit) {
			t.Errorf("%s of a billion-node shared value = %v, want step_limit or memory_limit", c.name, err)
		}
	}
	// A budget big enough for the steps still refuses to print gigabytes.
	big := newThread(context.Background(), Limits{MaxSteps: 1 << 40, MaxAllocBytes: 10 << 20})
	if _, err := callBuiltin(big, "str", w); err != nil {
		t.Errorf("str of a million-node value within budget: %v", err)
	}
	if _, err := callBuiltin(big, "str", vec(w, w, w, w)); asError(err).Kind != memoryLimit {
		t.Errorf("str beyond the memory budget = %v, want memory_limit", err)
	}
}
