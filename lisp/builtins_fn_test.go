package lisp

import "testing"

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
