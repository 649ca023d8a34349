package lisp

import (
	"context"
	"slices"
	"testing"
)

// TestHugeGenerationFailsAtTheStepBudget: a range or repeat too long for
// the budget fails before building anything, with step_limit, which a
// program cannot catch (so testdata/lang cannot say it).
func TestHugeGenerationFailsAtTheStepBudget(t *testing.T) {
	runBuiltinCases(t, []builtinCase{
		{name: "range", args: []Value{fl(1e12)}, kind: stepLimit, want: "step limit"},
		{name: "range", args: []Value{Int(-9e18), Int(9e18)}, kind: stepLimit, want: "step limit"},
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
	// w's 3.9 MB of text costs its bytes and the buffers it grows through
	// (up to 4 MiB, 8 MiB in all).
	big := newThread(context.Background(), Limits{MaxSteps: 1 << 40, MaxAllocBytes: 16 << 20})
	if _, err := callBuiltin(big, "str", w); err != nil {
		t.Errorf("str of a million-node value within budget: %v", err)
	}
	if _, err := callBuiltin(big, "str", vec(w, w, w, w)); asError(err).Kind != memoryLimit {
		t.Errorf("str beyond the memory budget = %v, want memory_limit", err)
	}
}
