package lisp

import "testing"

// callMade builds a function with a combinator and calls it.
func callMade(t *testing.T, combinator string, fargs []Value, args ...Value) string {
	t.Helper()
	th := newTestThread()
	f, err := callBuiltin(th, combinator, fargs...)
	if err != nil {
		t.Fatalf("(%s ...) failed: %v", combinator, err)
	}
	v, err := th.call(f, args)
	if err != nil {
		return "error: " + asError(err).Message
	}
	return Repr(v)
}

func TestFunctionCombinators(t *testing.T) {
	b := builtinFn
	cases := []struct {
		combinator string
		fargs      []Value
		args       []Value
		want       string
	}{
		{"comp", nil, []Value{Int(42)}, "42"},
		{"comp", []Value{b("inc")}, []Value{Int(5)}, "6"},
		{"comp", []Value{b("str"), b("inc")}, []Value{Int(5)}, `"6"`},
		{"comp", []Value{b("str"), b("+")}, []Value{Int(1), Int(2), Int(3)}, `"6"`},
		{"comp", []Value{b("inc"), b("inc"), b("inc")}, []Value{Int(0)}, "3"},
		{"comp", []Value{b("inc"), kw("n")}, []Value{hashMap(kw("n"), Int(1))}, "2"},
		{"partial", []Value{b("+")}, []Value{Int(1), Int(2)}, "3"},
		{"partial", []Value{b("+"), Int(1)}, []Value{Int(2)}, "3"},
		{"partial", []Value{b("+"), Int(1), Int(2)}, nil, "3"},
		{"partial", []Value{b("+"), Int(1)}, []Value{Int(2), Int(3), Int(4)}, "10"},
		{"partial", []Value{b("str"), str("a"), str("b")}, []Value{str("c"), str("d")}, `"abcd"`},
		{"complement", []Value{b("even?")}, []Value{Int(3)}, "true"},
		{"complement", []Value{b("even?")}, []Value{Int(4)}, "false"},
		{"complement", []Value{b("nil?")}, []Value{Nil}, "false"},
		{"complement", []Value{b("<")}, []Value{Int(3), Int(2)}, "true"},
		{"constantly", []Value{Int(5)}, nil, "5"},
		{"constantly", []Value{Int(5)}, []Value{Int(1), Int(2), Int(3)}, "5"},
		{"constantly", []Value{Nil}, []Value{kw("a"), kw("b")}, "nil"},
		{"every-pred", []Value{b("even?")}, []Value{Int(4)}, "true"},
		{"every-pred", []Value{b("even?"), b("pos?")}, []Value{Int(-4)}, "false"},
		{"every-pred", []Value{b("even?"), b("pos?")}, []Value{Int(4), Int(6), Int(8)}, "true"},
		{"every-pred", []Value{b("even?"), b("pos?")}, []Value{Int(4), Int(-6), Int(8)}, "false"},
		{"every-pred", []Value{b("even?")}, nil, "true"},
		{"some-fn", []Value{kw("a"), kw("b")}, []Value{hashMap(kw("a"), Int(1))}, "1"},
		{"some-fn", []Value{kw("a"), kw("b")}, []Value{hashMap(kw("b"), Int(2))}, "2"},
		{"some-fn", []Value{kw("a"), kw("b")}, []Value{hashMap(kw("c"), Int(3))}, "nil"},
		{"some-fn", []Value{b("even?"), b("pos?")}, []Value{Int(3)}, "true"},
		{"some-fn", []Value{b("even?"), b("pos?")}, []Value{Int(-3)}, "false"},
		{"some-fn", []Value{b("even?")}, nil, "nil"},
		{"juxt", []Value{kw("name"), kw("age")}, []Value{hashMap(kw("name"), str("Alice"), kw("age"), Int(30))}, `["Alice" 30]`},
		{"juxt", []Value{b("first"), b("last")}, []Value{ints(1, 2, 3)}, "[1 3]"},
		{"juxt", nil, []Value{hashMap(kw("a"), Int(1))}, "[]"},
		{"fnil", []Value{b("inc"), Int(0)}, []Value{Nil}, "1"},
		{"fnil", []Value{b("+"), Int(0)}, []Value{Nil, Int(5)}, "5"},
		{"fnil", []Value{b("inc"), Int(0)}, []Value{Int(1)}, "2"},
	}
	for _, c := range cases {
		if got := callMade(t, c.combinator, c.fargs, c.args...); got != c.want {
			t.Errorf("((%s %v) %v) = %s, want %s", c.combinator, c.fargs, c.args, got, c.want)
		}
	}
}

func TestApply(t *testing.T) {
	runBuiltinCases(t, []builtinCase{
		{name: "apply", args: []Value{builtinFn("+"), ints(1, 2, 3)}, want: "6"},
		{name: "apply", args: []Value{builtinFn("str"), vec(str("a"), str("b"), str("c"))}, want: `"abc"`},
		{name: "apply", args: []Value{builtinFn("+"), Int(1), Int(2), ints(3, 4)}, want: "10"},
		{name: "apply", args: []Value{builtinFn("merge"), hashMap(kw("a"), Int(1)), vec(hashMap(kw("b"), Int(2)), hashMap(kw("c"), Int(3)))}, want: "{:a 1, :b 2, :c 3}"},
		{name: "apply", args: []Value{kw("name"), vec(hashMap(kw("name"), str("Alice")))}, want: `"Alice"`},
		{name: "apply", args: []Value{set(Int(1), Int(2), Int(3)), ints(2)}, want: "2"},
		{name: "apply", args: []Value{builtinFn("+"), vec()}, want: "0"},
		{name: "apply", args: []Value{builtinFn("+"), Int(1), set(Int(2), Int(3))}, want: "6"},
		{name: "apply", args: []Value{builtinFn("max-key"), builtinFn("second"), hashMap(kw("a"), Int(3), kw("b"), Int(7), kw("c"), Int(2))}, want: "[:b 7]"},
		{name: "apply", args: []Value{builtinFn("+"), Int(1), Int(2), Nil}, kind: typeError, want: "apply expected a collection as its last argument, got nil"},
		{name: "apply", args: []Value{Int(1), ints(1)}, kind: typeError, want: "expected a function"},
	})
}

func TestWalk(t *testing.T) {
	b := builtinFn
	matrix := vec(ints(1, 2), ints(3, 4), ints(5, 6))
	nested := hashMap(kw("a"), Int(1), kw("b"), hashMap(kw("c"), Int(2), kw("d"), Int(3)))
	runBuiltinCases(t, []builtinCase{
		{name: "walk", args: []Value{b("second"), b("vec"), matrix}, want: "[2 4 6]"},
		{name: "walk", args: []Value{b("first"), b("reverse"), matrix}, want: "[5 3 1]"},
		{name: "walk", args: []Value{b("identity"), b("identity"), ints(1, 2, 3)}, want: "[1 2 3]"},
		{name: "walk", args: []Value{b("inc"), b("identity"), set(Int(1), Int(2), Int(3))}, want: "#{2 3 4}"},
		{name: "walk", args: []Value{b("identity"), b("count"), nested}, want: "2"},
		{name: "prewalk", args: []Value{b("identity"), vec(Int(1), ints(2, 3), vec(Int(4), ints(5, 6)))}, want: "[1 [2 3] [4 [5 6]]]"},
		{name: "prewalk", args: []Value{b("inc"), Int(5)}, want: "6"},
		{name: "prewalk", args: []Value{b("identity"), Nil}, want: "nil"},
		{name: "prewalk", args: []Value{b("identity"), nested}, want: "{:a 1, :b {:c 2, :d 3}}"},
		{name: "postwalk", args: []Value{b("identity"), vec(Int(1), ints(2, 3))}, want: "[1 [2 3]]"},
		{name: "postwalk", args: []Value{b("inc"), Int(5)}, want: "6"},
		{name: "postwalk", args: []Value{b("identity"), vec()}, want: "[]"},
		{name: "tree-seq", args: []Value{b("vector?"), b("seq"), vec(vec(Int(1), Int(2), ints(3)), ints(4))}, want: "[[[1 2 [3]] [4]] [1 2 [3]] 1 2 [3] 3 [4] 4]"},
		{name: "tree-seq", args: []Value{b("vector?"), b("seq"), vec(vec(), ints(1), vec())}, want: "[[[] [1] []] [] [1] 1 []]"},
		{name: "tree-seq", args: []Value{b("vector?"), b("seq"), vec()}, want: "[[]]"},
		{name: "tree-seq", args: []Value{b("vector?"), b("seq"), Int(42)}, want: "[42]"},
		{name: "tree-seq", args: []Value{kw("children"), kw("children"),
			hashMap(kw("id"), Int(1), kw("children"), vec(hashMap(kw("id"), Int(2), kw("children"), vec())))},
			want: "[{:id 1, :children [{:id 2, :children []}]} {:id 2, :children []}]"},
	})
}

// TestDeepValues checks that walking and flattening data nested far deeper
// than any call stack fails with a limit or succeeds, without crashing.
func TestDeepValues(t *testing.T) {
	var deep Value = Int(1)
	for range 100_000 {
		deep = NewVector([]Value{deep})
	}
	th := newTestThread()
	if v, err := callBuiltin(th, "flatten", deep); err != nil || Repr(v) != "[1]" {
		t.Errorf("flatten of deep vector = %v, %v", v, err)
	}
	for _, fn := range []string{"prewalk", "postwalk"} {
		_, err := callBuiltin(newTestThread(), fn, builtinFn("identity"), deep)
		if e := asError(err); err == nil || e.Kind != depthLimit {
			t.Errorf("%s of a 100,000-deep vector = %v, want depth_limit", fn, err)
		}
	}
	// Every node of the result holds the rest of the chain, so its printed
	// size is quadratic: a memory limit is as good an answer as the nodes.
	_, err := callBuiltin(newTestThread(), "tree-seq", builtinFn("vector?"), builtinFn("seq"), deep)
	if err != nil && asError(err).Kind != memoryLimit {
		t.Errorf("tree-seq of a deep vector: %v", err)
	}
}
