package lisp

import "testing"

func TestMapFunctions(t *testing.T) {
	inc, plus := builtinFn("inc"), builtinFn("+")
	m := hashMap(kw("a"), Int(1), kw("b"), Int(2))
	nested := hashMap(kw("user"), hashMap(kw("name"), str("A")))
	runBuiltinCases(t, []builtinCase{
		{name: "get", args: []Value{m, kw("a")}, want: "1"},
		{name: "get", args: []Value{m, kw("z")}, want: "nil"},
		{name: "get", args: []Value{m, kw("z"), str("default")}, want: `"default"`},
		{name: "get", args: []Value{Nil, kw("a")}, want: "nil"},
		{name: "get", args: []Value{ints(5, 6), Int(1)}, want: "6"},
		{name: "get", args: []Value{set(kw("a")), kw("a")}, want: ":a"},
		{name: "get", args: []Value{Int(3), kw("a"), Int(0)}, want: "0"},
		{name: "get-in", args: []Value{nested, vec(kw("user"), kw("name"))}, want: `"A"`},
		{name: "get-in", args: []Value{nested, vec(kw("user"), kw("x"))}, want: "nil"},
		{name: "get-in", args: []Value{hashMap(kw("users"), vec(hashMap(kw("name"), str("A")))), vec(kw("users"), Int(0), kw("name"))}, want: `"A"`},
		{name: "get-in", args: []Value{ints(1, 2, 3), ints(10), kw("default")}, want: ":default"},
		{name: "get-in", args: []Value{ints(1, 2, 3), ints(0), kw("default")}, want: "1"},
		{name: "get-in", args: []Value{hashMap(kw("a"), Nil), vec(kw("a")), Int(5)}, want: "nil"},
		{name: "get-in", args: []Value{m, vec()}, want: "{:a 1, :b 2}"},
		{name: "get-in", args: []Value{m, kw("a")}, kind: typeError, want: "path vector"},
		{name: "assoc", args: []Value{m, kw("c"), Int(3)}, want: "{:a 1, :b 2, :c 3}"},
		{name: "assoc", args: []Value{m, kw("a"), Int(9), kw("d"), Int(4)}, want: "{:a 9, :b 2, :d 4}"},
		{name: "assoc", args: []Value{Nil, kw("a"), Int(1)}, want: "{:a 1}"},
		{name: "assoc", args: []Value{ints(1, 2, 3), Int(1), Int(5)}, want: "[1 5 3]"},
		{name: "assoc", args: []Value{ints(1, 2), Int(2), Int(3)}, want: "[1 2 3]"},
		{name: "assoc", args: []Value{ints(1, 2), Int(5), Int(3)}, kind: executionError, want: "out of bounds"},
		{name: "assoc", args: []Value{m, kw("a")}, kind: arityErrorKind, want: "assoc called with 2"},
		{name: "assoc", args: []Value{m, kw("a"), Int(1), kw("b")}, kind: arityErrorKind, want: "odd number"},
		{name: "assoc", args: []Value{str("s"), kw("a"), Int(1)}, kind: typeError, want: "assoc expected a map"},
		{name: "assoc", args: []Value{hashMap(), Int(1), Int(2)}, want: "{1 2}"},
		{name: "assoc-in", args: []Value{hashMap(), vec(kw("user"), kw("name")), str("Bob")}, want: `{:user {:name "Bob"}}`},
		{name: "assoc-in", args: []Value{vec(ints(1, 2), ints(3, 4)), ints(0, 1), Int(99)}, want: "[[1 99] [3 4]]"},
		{name: "assoc-in", args: []Value{hashMap(kw("a"), Int(1)), vec(kw("a"), kw("b")), Int(2)}, kind: typeError, want: "cannot step into"},
		{name: "update", args: []Value{hashMap(kw("n"), Int(1)), kw("n"), inc}, want: "{:n 2}"},
		{name: "update", args: []Value{hashMap(kw("n"), Int(1)), kw("n"), plus, Int(5)}, want: "{:n 6}"},
		{name: "update", args: []Value{ints(1, 2, 3), Int(1), inc}, want: "[1 3 3]"},
		{name: "update", args: []Value{hashMap(), kw("n"), inc}, kind: typeError, want: "inc expected a number, got nil"},
		{name: "update-in", args: []Value{hashMap(kw("a"), hashMap(kw("b"), Int(1))), vec(kw("a"), kw("b")), plus, Int(10)}, want: "{:a {:b 11}}"},
		{name: "update-in", args: []Value{vec(ints(1, 2), ints(3, 4)), ints(1, 0), inc}, want: "[[1 2] [4 4]]"},
		{name: "dissoc", args: []Value{m, kw("b")}, want: "{:a 1}"},
		{name: "dissoc", args: []Value{m, kw("z")}, want: "{:a 1, :b 2}"},
		{name: "dissoc", args: []Value{Nil, kw("z")}, want: "nil"},
		{name: "merge", args: []Value{hashMap(kw("a"), Int(1)), hashMap(kw("b"), Int(2)), hashMap(kw("a"), Int(3))}, want: "{:a 3, :b 2}"},
		{name: "merge", args: []Value{Nil, hashMap(kw("a"), Int(1))}, want: "{:a 1}"},
		{name: "merge", want: "nil"},
		{name: "merge", args: []Value{m, ints(1)}, kind: typeError, want: "merge expected a map"},
		{name: "merge-with", args: []Value{plus, hashMap(kw("a"), Int(1)), hashMap(kw("a"), Int(2), kw("b"), Int(3))}, want: "{:a 3, :b 3}"},
		{name: "select-keys", args: []Value{hashMap(kw("a"), Int(1), kw("b"), Int(2), kw("c"), Int(3)), vec(kw("a"), kw("c"), kw("z"))}, want: "{:a 1, :c 3}"},
		{name: "keys", args: []Value{m}, want: "[:a :b]"},
		{name: "keys", args: []Value{hashMap()}, want: "nil"},
		{name: "vals", args: []Value{m}, want: "[1 2]"},
		{name: "entries", args: []Value{m}, want: "[[:a 1] [:b 2]]"},
		{name: "key", args: []Value{vec(kw("a"), Int(1))}, want: ":a"},
		{name: "val", args: []Value{vec(kw("a"), Int(1))}, want: "1"},
		{name: "zipmap", args: []Value{vec(kw("a"), kw("b")), ints(1, 2, 3)}, want: "{:a 1, :b 2}"},
		{name: "hash-map", args: []Value{kw("a"), Int(1)}, want: "{:a 1}"},
		{name: "update-vals", args: []Value{m, inc}, want: "{:a 2, :b 3}"},
		{name: "update-keys", args: []Value{m, builtinFn("name")}, want: `{"a" 1, "b" 2}`},
		{name: "rename-keys", args: []Value{m, hashMap(kw("a"), kw("x"))}, want: "{:b 2, :x 1}"},
		{name: "map-invert", args: []Value{m}, want: "{1 :a, 2 :b}"},
	})
}

func TestSetFunctions(t *testing.T) {
	runBuiltinCases(t, []builtinCase{
		{name: "set", args: []Value{ints(1, 2, 2)}, want: "#{1 2}"},
		{name: "set", args: []Value{Nil}, want: "#{}"},
		{name: "union", args: []Value{set(Int(1), Int(2)), set(Int(2), Int(3))}, want: "#{1 2 3}"},
		{name: "union", want: "#{}"},
		{name: "intersection", args: []Value{set(Int(1), Int(2)), set(Int(2), Int(3))}, want: "#{2}"},
		{name: "difference", args: []Value{set(Int(1), Int(2)), set(Int(2), Int(3))}, want: "#{1}"},
		{name: "difference", args: []Value{set(Int(1), Int(2))}, want: "#{1 2}"},
		{name: "subset?", args: []Value{set(Int(1)), set(Int(1), Int(2))}, want: "true"},
		{name: "superset?", args: []Value{set(Int(1)), set(Int(1), Int(2))}, want: "false"},
		{name: "disj", args: []Value{set(Int(1), Int(2)), Int(1)}, want: "#{2}"},
		{name: "select", args: []Value{builtinFn("even?"), set(Int(1), Int(2))}, want: "#{2}"},
		{name: "contains?", args: []Value{set(Int(1)), Int(1)}, want: "true"},
	})
}

func TestAggregation(t *testing.T) {
	statuses := vec(hashMap(kw("s"), str("a")), hashMap(kw("s"), str("b")), hashMap(kw("s"), str("a")))
	amounts := func(vals ...Value) *Vector {
		out := make([]Value, len(vals))
		for i, v := range vals {
			if v == nil {
				out[i] = hashMap(kw("other"), Int(5))
				continue
			}
			out[i] = hashMap(kw("amount"), v)
		}
		return NewVector(out)
	}
	second := builtinFn("second")
	runBuiltinCases(t, []builtinCase{
		{name: "count", args: []Value{ints(1, 2, 3)}, want: "3"},
		{name: "count", args: []Value{str("héllo")}, want: "5"},
		{name: "count", args: []Value{Nil}, want: "0"},
		{name: "count", args: []Value{Int(1)}, kind: typeError, want: "count expected a collection"},
		{name: "reduce", args: []Value{builtinFn("+"), ints(1, 2, 3)}, want: "6"},
		{name: "reduce", args: []Value{builtinFn("+"), Int(10), ints(1, 2, 3)}, want: "16"},
		{name: "reduce", args: []Value{builtinFn("-"), Int(10), ints(1, 2, 3)}, want: "4"},
		{name: "reduce", args: []Value{builtinFn("-"), ints(10, 1, 2, 3)}, want: "4"},
		{name: "reduce", args: []Value{builtinFn("+"), vec()}, want: "0"},
		{name: "reduce", args: []Value{builtinFn("+"), ints(7)}, want: "7"},
		{name: "reduce", args: []Value{builtinFn("+"), Int(0), set(Int(1), Int(2), Int(3))}, want: "6"},
		{name: "reduce", args: []Value{builtinFn("str"), str("a"), str("bc")}, want: `"abc"`},
		{name: "reduce-kv", args: []Value{builtinFn("vector"), Nil, hashMap(kw("a"), Int(1))}, want: "[nil :a 1]"},
		{name: "sum-by", args: []Value{kw("amount"), amounts(Int(10), Nil, nil)}, want: "10"},
		{name: "sum-by", args: []Value{kw("amount"), amounts(Int(10), fl(0.5))}, want: "10.5"},
		{name: "sum-by", args: []Value{kw("amount"), vec()}, want: "0"},
		{name: "sum-by", args: []Value{second, vec(vec(str("a"), Int(2)), vec(str("b"), Int(3)))}, want: "5"},
		{name: "sum-by", args: []Value{kw("amount"), amounts(str("10"), Int(20))}, kind: typeError, want: `sum-by expected numeric values, got string "10"`},
		{name: "sum-by", args: []Value{kw("amount"), amounts(Int(9e18), Int(9e18))}, kind: arithmeticError, want: "overflow"},
		{name: "avg-by", args: []Value{kw("amount"), amounts(Int(10), Nil, Int(20))}, want: "15.0"},
		{name: "avg-by", args: []Value{kw("amount"), vec()}, want: "nil"},
		{name: "avg-by", args: []Value{kw("value"), vec(hashMap(kw("value"), hashMap(kw("x"), Int(1))))}, kind: typeError, want: "avg-by expected numeric values, got map[1]"},
		{name: "min-by", args: []Value{kw("amount"), amounts(Nil, Int(10), Int(5))}, want: "{:amount 5}"},
		{name: "max-by", args: []Value{kw("amount"), amounts(Int(10), Int(30), Int(30))}, want: "{:amount 30}"},
		{name: "min-by", args: []Value{kw("x"), vec()}, want: "nil"},
		{name: "min-by", args: []Value{builtinFn("first"), vec(vec(str("b"), Int(2)), vec(str("a"), Int(1)))}, want: `["a" 1]`},
		{name: "max-key", args: []Value{builtinFn("count"), str("a"), str("abc"), str("ab")}, want: `"abc"`},
		{name: "min-key", args: []Value{builtinFn("count"), str("abc"), str("a"), str("ab")}, want: `"a"`},
		{name: "max-key", args: []Value{second, vec(kw("a"), Int(3)), vec(kw("b"), Int(7)), vec(kw("c"), Int(7))}, want: "[:c 7]"},
		{name: "distinct-by", args: []Value{builtinFn("first"), vec(vec(str("a"), Int(1)), vec(str("a"), Int(2)), vec(str("b"), Int(3)))}, want: `[["a" 1] ["b" 3]]`},
		{name: "group-by", args: []Value{builtinFn("first"), vec(vec(str("a"), Int(1)), vec(str("a"), Int(2)), vec(str("b"), Int(3)))}, want: `{"a" [["a" 1] ["a" 2]], "b" [["b" 3]]}`},
		{name: "group-by", args: []Value{builtinFn("odd?"), ints(1, 2, 3)}, want: `{true [1 3], false [2]}`},
		{name: "group-by", args: []Value{statuses, kw("s")}, want: `{"a" [{:s "a"} {:s "a"}], "b" [{:s "b"}]}`},
		{name: "sum-by", args: []Value{ints(1, 2), builtinFn("identity")}, want: "3"},
		{name: "group-by", args: []Value{ints(1), ints(2)}, kind: executionError, want: "index 2 is out of range"},
		{name: "group-by", args: []Value{Int(1), ints(2)}, kind: typeError, want: "group-by expected a function"},
		{name: "frequencies", args: []Value{vec(kw("a"), kw("b"), kw("a"), kw("c"), kw("b"), kw("a"))}, want: "{:a 3, :b 2, :c 1}"},
		{name: "frequencies", args: []Value{str("hello")}, want: `{"h" 1, "e" 1, "l" 2, "o" 1}`},
		{name: "empty?", args: []Value{vec()}, want: "true"},
		{name: "empty?", args: []Value{Nil}, want: "true"},
		{name: "empty?", args: []Value{str(" ")}, want: "false"},
		{name: "empty?", args: []Value{Int(0)}, kind: typeError, want: "empty? expected"},
		{name: "not-empty", args: []Value{ints(1, 2)}, want: "[1 2]"},
		{name: "not-empty", args: []Value{str("")}, want: "nil"},
		{name: "some", args: []Value{builtinFn("even?"), ints(1, 2, 3)}, want: "true"},
		{name: "some", args: []Value{builtinFn("even?"), ints(1, 3)}, want: "nil"},
		{name: "some", args: []Value{set(str("x")), vec(str("a"), str("x"))}, want: `"x"`},
		{name: "every?", args: []Value{builtinFn("even?"), ints(2, 4)}, want: "true"},
		{name: "every?", args: []Value{builtinFn("even?"), vec()}, want: "true"},
		{name: "every?", args: []Value{builtinFn("even?"), ints(2, 3)}, want: "false"},
		{name: "not-any?", args: []Value{builtinFn("even?"), ints(1, 3)}, want: "true"},
		{name: "not-any?", args: []Value{builtinFn("even?"), ints(1, 2)}, want: "false"},
		{name: "not-every?", args: []Value{builtinFn("even?"), ints(2, 3)}, want: "true"},
		{name: "not-every?", args: []Value{builtinFn("even?"), vec()}, want: "false"},
		{name: "contains?", args: []Value{hashMap(kw("a"), Int(1)), kw("a")}, want: "true"},
		{name: "contains?", args: []Value{hashMap(kw("a"), Int(1)), kw("b")}, want: "false"},
		{name: "contains?", args: []Value{vec(str("a"), str("b")), str("b")}, want: "true"},
		{name: "contains?", args: []Value{vec(str("a"), str("b")), str("x")}, want: "false"},
		{name: "contains?", args: []Value{str("abc"), str("a")}, kind: typeError, want: "contains? expected"},
	})
}

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
