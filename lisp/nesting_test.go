package lisp

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestValuesLeaveNoDeeperThanTheWireReads: a program may build data of any
// depth its budgets allow, but what leaves the sandbox (result,
// definitions, tool arguments) must read back under the same nesting bound,
// or the next request carrying it would be refused.
func TestValuesLeaveNoDeeperThanTheWireReads(t *testing.T) {
	deep := func(n int) string {
		return "(loop [x [] i 1] (if (< i " + itoa(n) + ") (recur [x] (inc i)) x))"
	}
	for _, tc := range []struct {
		name, src, wantErr string
	}{
		{"result at the bound", deep(10), ""},
		{"result over the bound", deep(11), "the result nests collections more than 10 levels deep"},
		{"map values count", "(loop [x {} i 1] (if (< i 11) (recur {:a x} (inc i)) x))", "the result nests"},
		{"set elements count", "(loop [x #{} i 1] (if (< i 11) (recur #{x} (inc i)) x))", "the result nests"},
		{"definition over the bound", "(def d " + deep(11) + ") 1", "the value of d nests"},
		{"captured value over the bound", "(def d " + deep(11) + ") (defn f [] d) 1", "the value of d nests"},
		{"deep data used inside is fine", "(count (flatten " + deep(50) + "))", ""},
		{"fail reason over the bound", "(fail " + deep(11) + ")", "the fail reason nests"},
		{"fail reason at the bound", "(fail " + deep(10) + ")", "fail"},
		{"tool arguments over the bound", "(tool/echo " + deep(11) + ")", "the arguments of tool/echo nest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := Env{Tools: []string{"echo"}, Host: echoHost(), Limits: DefaultLimits(), MaxNesting: 10}
			res, err := Eval(context.Background(), tc.src, env)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.wantErr == "" && res.Err != nil:
				t.Errorf("%s: %v", tc.src, res.Err)
			case tc.wantErr == "fail":
				if res.Err == nil || res.Err.Kind != fail || !res.Failed {
					t.Errorf("%s: err %v, want fail", tc.src, res.Err)
				}
			case tc.wantErr != "" && (res.Err == nil || res.Err.Kind != depthLimit || !strings.Contains(res.Err.Message, tc.wantErr)):
				t.Errorf("%s: err %v, want depth_limit %q", tc.src, res.Err, tc.wantErr)
			case tc.wantErr != "" && (len(res.Memory.Encode()) != 0 || len(res.Defined) != 0):
				t.Errorf("%s: a refused program changed memory: %v", tc.src, res.Defined)
			}
		})
	}
}

func itoa(n int) string { return strings.TrimSpace(Repr(Int(int64(n)))) }

// randomShape builds a value of random nesting from every kind the two
// walks treat differently: collections, closures capturing values,
// combinator functions, registered and unregistered builtins.
func randomShape(r *rand.Rand, depth int) Value {
	if depth == 0 {
		return Int(r.IntN(5))
	}
	kids := func() []Value {
		out := make([]Value, r.IntN(3))
		for i := range out {
			out[i] = randomShape(r, depth-1)
		}
		return out
	}
	switch r.IntN(9) {
	case 0:
		return NewVector(kids())
	case 1:
		return NewSet(kids())
	case 2:
		b := NewMapBuilder(2)
		for i, k := range kids() {
			b.Set(Int(int64(i)), k)
		}
		return b.Map()
	case 3:
		return &closure{free: kids()}
	case 4:
		return &combined{args: kids()}
	case 5:
		return &Builtin{Name: "made-up"}
	case 6:
		inc, _ := lookupFunction("inc")
		return inc
	case 7:
		return Keyword("k")
	}
	return randomShape(r, depth-1)
}

// Freeze measures the nesting of plain frozen collections once, and both
// walks then trust the measure: they must answer for a frozen value what
// they answered for it before it was frozen, at every limit.
func TestFrozenValuesNestAsMeasured(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	const limits = 9
	for i := range 20000 {
		v := randomShape(r, 1+r.IntN(7))
		var deeper, deep [limits]bool
		var isBad [limits]bool
		for limit := range limits {
			deeper[limit] = nestsDeeper(v, limit)
			_, isBad[limit], deep[limit], _ = definable(nil, v, limit)
		}
		Freeze(v)
		for limit := range limits {
			_, bad, d, _ := definable(nil, v, limit)
			if nestsDeeper(v, limit) != deeper[limit] || bad != isBad[limit] || d != deep[limit] {
				t.Fatalf("case %d %s limit %d: frozen nestsDeeper %v definable %v %v, before %v %v %v",
					i, Repr(v), limit, nestsDeeper(v, limit), bad, d, deeper[limit], isBad[limit], deep[limit])
			}
		}
	}
	read := Freeze(mustParse(t, `[{:a [1 {:b 2}]} {:c #{[3]}} "s"]`))
	if levels, ok := nestsMeasured(read); !ok || levels != 4 {
		t.Errorf("a frozen value read from text: measured %d levels (%v), want 4", levels, ok)
	}
	if _, ok := nestsMeasured(NewVector([]Value{Int(1)})); ok {
		t.Error("a vector that was never frozen has a measured nesting")
	}
}

// nestingOf is how many levels v nests, counted by plain recursion: what
// the walk's shortcuts (measured values, flat levels) must agree with.
func nestingOf(v Value) int {
	elems, entries, isLevel := parts(v)
	if !isLevel {
		return 0
	}
	deepest := 0
	for _, e := range elems {
		deepest = max(deepest, nestingOf(e))
	}
	for _, e := range entries {
		deepest = max(deepest, nestingOf(e.Key), nestingOf(e.Val))
	}
	return deepest + 1
}

// The walk at def leaves the parts of a flat level (plain scalars and
// measured values) unvisited: it must still find every value's nesting,
// frozen in part or not, and charge each part as if it visited it, one
// step a part, so that defining twice the records costs twice the steps.
func TestDefinableWalkCountsEveryPart(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 13))
	for i := range 5000 {
		v := randomShape(r, 1+r.IntN(7))
		if r.IntN(2) == 0 {
			if elems, _, _ := parts(v); len(elems) > 0 {
				Freeze(elems[0]) // a measured part beside unmeasured ones
			}
		}
		want := nestingOf(v)
		for limit := range 9 {
			_, isBad, deep, _ := definable(nil, v, limit)
			if isBad {
				deep = want > limit // a definition that fails says nothing of its depth
			}
			if deep != (want > limit) || nestsDeeper(v, limit) != (want > limit) {
				t.Fatalf("case %d %T: definable deep %v, nestsDeeper %v at limit %d; nests %d", i, v, deep, nestsDeeper(v, limit), limit, want)
			}
		}
	}
	records := func(n int) Value {
		rows := make([]Value, n)
		for i := range rows {
			b := NewMapBuilder(3)
			b.Set(Keyword("id"), Int(i))
			b.Set(Keyword("name"), String("x"))
			b.Set(Keyword("ok"), Bool(true))
			rows[i] = b.Map()
		}
		return NewVector(rows)
	}
	steps := func(n int) int64 {
		th := newThread(context.Background(), Limits{})
		if _, bad, deep, err := definable(th, records(n), DefaultMaxNesting); bad || deep || err != nil {
			t.Fatalf("%d records: bad %v deep %v err %v", n, bad, deep, err)
		}
		return th.steps
	}
	for _, n := range []int{1000, 2000} {
		if got, want := steps(n), int64(1+n*(1+6)); got != want {
			t.Errorf("%d records of 3 entries: %d steps, want %d (the vector, each record and its keys and values)", n, got, want)
		}
	}
}
