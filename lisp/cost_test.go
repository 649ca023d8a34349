package lisp

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// everyBuiltin is every function a program can call by name: every row
// of the builtin table, however it is reached, and the evaluator's core
// functions.
func everyBuiltin() []*Builtin {
	all := slices.Concat(append(builtinSections, CoreFunctions())...)
	slices.SortFunc(all, func(a, b *Builtin) int { return strings.Compare(a.Name, b.Name) })
	return all
}

// binaryBuiltins are the builtins with a fast case for two integers.
func binaryBuiltins() []string {
	var names []string
	for _, b := range everyBuiltin() {
		if b.binary != nil {
			names = append(names, b.Name)
		}
	}
	return names
}

// TestEveryBuiltinDeclaresItsCost: a builtin cannot be added without
// saying how it is charged.
func TestEveryBuiltinDeclaresItsCost(t *testing.T) {
	for _, b := range everyBuiltin() {
		if !b.Cost.declared {
			t.Errorf("%s has no cost declaration: give its row a Cost (see lisp/README.md, \"Costs\")", b.Name)
		}
	}
}

// TestBinaryFastPathChargesAsDeclared: two-argument arithmetic and
// comparisons take a fast path that does not go through Builtin.Call; it
// charges what the builtin's declaration charges.
func TestBinaryFastPathChargesAsDeclared(t *testing.T) {
	long := `(apply str (repeat 100 "x"))`
	for _, name := range binaryBuiltins() {
		for _, pair := range [][2]string{{"3", "4"}, {"3", "4.5"}, {":a", ":a"}, {long, long}, {"nil", "1"}} {
			fast := fmt.Sprintf("(let [a %s b %s] (%s a b))", pair[0], pair[1], name)
			slow := fmt.Sprintf("(let [a %s b %s f %s] (f a b))", pair[0], pair[1], name)
			rf, rs := run(t, fast, Env{}), run(t, slow, Env{})
			if (rf.Err == nil) != (rs.Err == nil) {
				t.Errorf("%s: fast path %v, builtin %v", fast, rf.Err, rs.Err)
				continue
			}
			fs, ss := rf.Steps-analysisSteps(t, fast), rs.Steps-analysisSteps(t, slow)
			if rf.Err == nil && fs != ss {
				t.Errorf("%s: the fast path charged %d steps, the builtin %d", fast, fs, ss)
			}
		}
	}
}

// TestDuplicateItemsAreCharged: the builtins that hash or compare every
// item charge a step per item, whatever the items: a program calling one
// in a loop over a vector of one repeated number ends in step_limit, at
// the same point every run, instead of running until the clock stops it.
func TestDuplicateItemsAreCharged(t *testing.T) {
	for _, call := range []string{"(frequencies r)", "(distinct r)", "(dedupe r)", "(set r)", "(apply hash-set r)",
		"(group-by identity r)", "(distinct-by identity r)", "(zipmap r r)", "(into #{} r)", "(apply distinct? 1 r)"} {
		src := `(let [r (vec (repeat 100000 1))] (dotimes [i 1000] ` + call + `) :done)`
		var steps int64
		for i := range 3 {
			res := run(t, src, Env{})
			// Ended by a charge, at the same step each run: the steps of
			// the items, or (group-by) the groups' arrays.
			if res.Err == nil || (res.Err.Kind != stepLimit && res.Err.Kind != memoryLimit) {
				t.Fatalf("%s: got %v, want step_limit or memory_limit", call, res.Err)
			}
			if i > 0 && res.Steps != steps {
				t.Fatalf("%s: stopped at step %d, then %d", call, steps, res.Steps)
			}
			steps = res.Steps
		}
	}
}

// TestCostGrowsWithWork runs every builtin on arguments of two sizes, n
// and 8n, and fails when the work a call does (the bytes Go allocates for
// it) grows with n while what the thread is charged (steps, and bytes of
// allocation) does not grow alike. The arguments are every combination of
// a few shapes (vectors, maps, sets, strings, counts, and functions that
// accept anything) that the builtin accepts at both sizes.
func TestCostGrowsWithWork(t *testing.T) {
	skipUnlessMeasuringAllocation(t)
	const small, large = 64, 512
	// short: charged less than a third of the allocation's growth.
	short := func(g callGrowth) bool { return g.work >= 3 && g.w2-g.w1 > 8<<10 && g.charge < g.work/3 }
	checked := 0
	for _, b := range returning(everyBuiltin()) {
		var accepted []func(n int) []Value
		for _, args := range argumentShapes(b) {
			if accepts(b, args(4)) {
				accepted = append(accepted, args)
			}
		}
		// An even sample of what the builtin accepts keeps the test
		// quick; an undercharge shows in many shapes at once.
		const most = 40
		for i := range min(len(accepted), most) {
			args := accepted[i*len(accepted)/min(len(accepted), most)]
			g, err := measureGrowth(b, args, small, large)
			if err != nil {
				continue
			}
			checked++
			if !short(g) {
				continue
			}
			if again, err := measureGrowth(b, args, small, large); err == nil {
				g = g.leastOf(again) // measured again before it is reported
			}
			if short(g) {
				t.Errorf("%s: from %d to %d items %s", callLabel(b, args(2)), small, large, g.describe(b))
			}
		}
	}
	if checked < 2000 {
		t.Errorf("only %d calls ran at both sizes; the argument shapes no longer fit the builtins", checked)
	}
}

// returning is bs without return and fail, which end the program: no
// result to charge.
func returning(bs []*Builtin) []*Builtin {
	return slices.DeleteFunc(bs, func(b *Builtin) bool { return b.Name == "return" || b.Name == "fail" })
}

// skipUnlessMeasuringAllocation skips the tests that run every builtin
// on many arguments in -short runs, and under the race detector, which
// changes what Go allocates.
func skipUnlessMeasuringAllocation(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs every builtin on many arguments")
	}
	if raceDetector {
		t.Skip("measures allocation, which the race detector changes")
	}
}

// measureCall calls b with args on a thread with budgets far above what
// the calls need (some combinations never end, such as tree-seq whose
// children function always returns the node) and returns the bytes Go
// allocated for the call, the least of three runs (the runtime allocates
// now and then for itself), and what the thread was charged: its
// allocation plus 64 bytes per step.
func measureCall(b *Builtin, makeArgs func() []Value) (work, charged int64, err error) {
	work = -1
	for range 3 {
		args := makeArgs() // afresh: a call may extend its arguments' lineages
		th := newThread(context.Background(), Limits{MaxSteps: 20_000_000, MaxAllocBytes: 256 << 20, MaxDepth: 100})
		th.prog = newProgState(Env{})
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = th.call(b, args)
		runtime.ReadMemStats(&after)
		if err != nil {
			return 0, 0, err
		}
		if w := int64(after.TotalAlloc - before.TotalAlloc); work < 0 || w < work {
			work = w
		}
		charged = th.allocated + 64*th.steps
	}
	return work, charged, nil
}

// accepts reports whether b returns a value for args.
func accepts(b *Builtin, args []Value) bool {
	th := newThread(context.Background(), Limits{MaxSteps: 100_000, MaxAllocBytes: 16 << 20, MaxDepth: 100})
	th.prog = newProgState(Env{})
	_, err := th.call(b, args)
	return err == nil
}

func callLabel(b *Builtin, args []Value) string {
	parts := []string{b.Name}
	for _, a := range args {
		parts = append(parts, formText(a))
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// argumentShapes returns generators of argument lists for b: every
// combination of the shapes below for b's smallest arities, at least one
// of them growing with n.
func argumentShapes(b *Builtin) []func(n int) []Value {
	type shape struct {
		grows bool
		make  func(n int) Value
	}
	fixed := func(v Value) shape { return shape{make: func(int) Value { return v }} }
	builtin := func(name string) Value { f, _ := lookupFunction(name); return f }
	shapes := []shape{
		{true, func(n int) Value { return intVector(n) }},
		{true, func(n int) Value { return textVector(n) }},
		{true, func(n int) Value { return pairVector(n, false) }},
		{true, func(n int) Value { return pairVector(n, true) }},
		{true, func(n int) Value { return recordVector(n) }},
		{true, func(n int) Value { return keywordMap(n) }},
		{true, func(n int) Value { return NewSet(intVector(n).elems) }},
		{true, func(n int) Value { return sortedKeywordMap(n) }},
		{true, func(n int) Value { return setInOrder(slices.Clone(intVector(n).elems), naturalOrder) }},
		{true, func(n int) Value { return String(strings.Repeat("ab c", n/4+1)) }},
		{true, func(n int) Value { return Int(n) }},
		{true, func(n int) Value { return deepVector(n) }},
		fixed(Int(2)),
		fixed(Keyword("a")),
		fixed(String("b")),
		fixed(Nil),
		fixed(builtin("vector")),
		fixed(builtin("identity")),
		fixed(builtin("+")),
	}
	var out []func(n int) []Value
	lo := b.MinArgs
	hi := lo + 1
	if b.MaxArgs >= 0 {
		hi = min(hi, b.MaxArgs)
	}
	if lo == 0 {
		lo, hi = 1, max(hi, 2)
	}
	for arity := lo; arity <= hi && arity <= 3; arity++ {
		eachCombination(arity, len(shapes), func(idx []int) {
			grows := false
			picked := make([]shape, arity)
			for i, j := range idx {
				picked[i] = shapes[j]
				grows = grows || shapes[j].grows
			}
			if grows {
				out = append(out, func(n int) []Value {
					args := make([]Value, len(picked))
					for i, s := range picked {
						args[i] = s.make(n)
					}
					return args
				})
			}
		})
	}
	return out
}

// eachCombination calls visit with every list of arity indexes below
// count, in turn (visit must not keep idx).
func eachCombination(arity, count int, visit func(idx []int)) {
	idx := make([]int, arity)
	for {
		visit(idx)
		i := 0
		for ; i < arity; i++ {
			if idx[i]++; idx[i] < count {
				break
			}
			idx[i] = 0
		}
		if i == arity {
			return
		}
	}
}

func intVector(n int) *Vector {
	out := make([]Value, n)
	for i := range out {
		out[i] = Int(i * 1000)
	}
	return NewVector(out)
}

func textVector(n int) *Vector {
	out := make([]Value, n)
	for i := range out {
		out[i] = String(fmt.Sprintf("item %d", i))
	}
	return NewVector(out)
}

// pairVector is n vectors [i i+1], or n copies of [1 2] when same.
func pairVector(n int, same bool) *Vector {
	out := make([]Value, n)
	for i := range out {
		if same {
			out[i] = NewVector([]Value{Int(1), Int(2)})
		} else {
			out[i] = NewVector([]Value{Int(i), Int(i + 1)})
		}
	}
	return NewVector(out)
}

func recordVector(n int) *Vector {
	out := make([]Value, n)
	for i := range out {
		b := NewMapBuilder(2)
		b.Set(Keyword("a"), Int(i))
		b.Set(Keyword("b"), String("x"))
		out[i] = b.Map()
	}
	return NewVector(out)
}

func keywordMap(n int) *Map {
	b := NewMapBuilder(n)
	for i := range n {
		b.Set(Keyword(fmt.Sprintf("k%d", i)), Int(i))
	}
	return b.Map()
}

// deepVector nests n/8 vectors, each holding a number and the next.
func deepVector(n int) *Vector {
	v := NewVector([]Value{Int(0)})
	for i := range n / 8 {
		v = NewVector([]Value{Int(i), v})
	}
	return v
}

// sortedKeywordMap is keywordMap sorted by key.
func sortedKeywordMap(n int) *Map {
	m := keywordMap(n)
	entries := slices.Clone(m.entries)
	slices.SortFunc(entries, func(a, b MapEntry) int { return strings.Compare(string(a.Key.(Keyword)), string(b.Key.(Keyword))) })
	bl := NewMapBuilder(n)
	for _, e := range entries {
		bl.Set(e.Key, e.Val)
	}
	return bl.sortedMap(naturalOrder)
}
