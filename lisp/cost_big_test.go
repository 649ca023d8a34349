package lisp

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// everyCallable is every row a program can call: the builtins and core
// functions by name, the Java statics ("Class/method"), constructors and
// methods (".method", the BigInteger and BigDecimal ones included) and
// the rows reached only through a namespace.
func everyCallable() []*Builtin {
	seen := map[*Builtin]bool{}
	var all []*Builtin
	for _, m := range []map[string]*Builtin{builtins.functions, builtins.statics, builtins.forms, builtins.inNS} {
		for _, name := range slices.Sorted(maps.Keys(m)) {
			if b := m[name]; !seen[b] {
				seen[b] = true
				all = append(all, b)
			}
		}
	}
	slices.SortFunc(all, func(a, b *Builtin) int { return strings.Compare(a.Name, b.Name) })
	return all
}

// numShape is an argument that is a number of n digits (number), a text
// of about n characters, or a fixed value.
type numShape struct {
	label  string
	number bool
	grows  bool
	source func(n int) string // a program whose value is the argument
}

func digits(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteByte("1234567890"[(i*7+3)%10])
	}
	return b.String()
}

// numShapes are the arguments TestCostGrowsWithBigArguments combines:
// integers (Clojure's and Java's) and decimals of n digits (a quotient
// of integers is a double here, not a ratio),
// texts of non-ASCII characters, date patterns and formatters of n
// characters, and a few small values the methods take beside them.
var numShapes = []numShape{
	{"int", true, true, func(n int) string { return digits(n) + "N" }},
	{"negative int", true, true, func(n int) string { return "-" + digits(n) + "N" }},
	{"BigInteger", true, true, func(n int) string { return "(biginteger " + digits(n) + "N)" }},
	{"decimal", true, true, func(n int) string { return digits(n/2) + "." + digits(n-n/2) + "M" }},
	{"non-ASCII text", false, true, func(n int) string { return `"` + strings.Repeat("äß€𝄞 ", n/5+1) + `"` }},
	{"date pattern", false, true, func(n int) string { return `"` + strings.Repeat("yyyy-MM-dd HH:mm ", n/17+1) + `"` }},
	{"formatter", false, true, func(n int) string {
		return `(java.time.format.DateTimeFormatter/ofPattern "` + strings.Repeat("yyyy-MM-dd HH:mm ", n/17+1) + `")`
	}},
	{"2", false, false, func(int) string { return "2" }},
	{"-7", false, false, func(int) string { return "-7" }},
	{"text", false, false, func(int) string { return `"b"` }},
	{"date", false, false, func(int) string { return `(java.time.LocalDateTime/of 2024 1 31 10 30)` }},
	{"HALF_UP", false, false, func(int) string { return "java.math.RoundingMode/HALF_UP" }},
}

// bigValues caches the value of each shape at each size: the values are
// immutable, and building a number of thousands of digits is slow.
var bigValues sync.Map // string -> Value

func bigShapeValue(s numShape, n int) Value {
	src := s.source(n)
	if freshShapes[s.label] {
		return evalShape(s, src)
	}
	if v, ok := bigValues.Load(src); ok {
		return v.(Value)
	}
	v := evalShape(s, src)
	bigValues.Store(src, v)
	return v
}

func evalShape(s numShape, src string) Value {
	res, err := Eval(context.Background(), src, Env{})
	if err != nil || res.Err != nil {
		panic(fmt.Sprintf("building %s: %v %v", s.label, err, res.Err))
	}
	return res.Value
}

// bigCall is one combination of shapes for a builtin's arity.
type bigCall []numShape

func (c bigCall) args(n int) []Value {
	out := make([]Value, len(c))
	for i, s := range c {
		out[i] = bigShapeValue(s, n)
	}
	return out
}

func (c bigCall) numbers() bool {
	return slices.ContainsFunc(c, func(s numShape) bool { return s.number })
}

func (c bigCall) label(name string) string {
	parts := []string{name}
	for _, s := range c {
		parts = append(parts, "<"+s.label+">")
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// smallArities are b's two smallest arities of one argument or more, up
// to three.
func smallArities(b *Builtin) []int {
	lo := max(b.MinArgs, 1)
	hi := lo + 1
	if b.MaxArgs >= 0 {
		hi = min(hi, b.MaxArgs)
	}
	var out []int
	for arity := lo; arity <= hi && arity <= 3; arity++ {
		out = append(out, arity)
	}
	return out
}

// bigCalls are the combinations of numShapes for b's smallest arities (up
// to three arguments) with one growing argument or more that b accepts.
func bigCalls(b *Builtin) []bigCall {
	var out []bigCall
	for _, arity := range smallArities(b) {
		eachCombination(arity, len(numShapes), func(idx []int) {
			call := make(bigCall, arity)
			grows := false
			for i, j := range idx {
				call[i] = numShapes[j]
				grows = grows || numShapes[j].grows
			}
			if grows && accepts(b, call.args(4)) {
				out = append(out, call)
			}
		})
	}
	return out
}

// readsWholeNumber are the builtins whose work on a number reads every
// digit of it (a comparison, a hash, a division, a step of one) without
// necessarily allocating: on numbers 8 times longer they must charge
// more, whatever Go allocated.
var readsWholeNumber = map[string]bool{
	"=": true, "==": true, "<": true, ">": true, "<=": true, ">=": true, "not=": true, "compare": true,
	"hash": true, "mod": true, "quot": true, "rem": true, "inc": true, "dec": true, "inc'": true, "dec'": true,
	"-": true, "-'": true, "+": true, "+'": true, ".compareTo": true, ".equals": true, ".hashCode": true,
	"max": true, "min": true, "abs": true, ".abs": true, ".negate": true,
}

// TestCostGrowsWithBigArguments is TestCostGrowsWithWork for every row a
// program can call, the Java methods and statics included, on numbers
// (integers, decimals) of n and 8n digits, non-ASCII texts and
// date patterns of n and 8n characters. A call whose work grows (Go
// allocates more for it, or it reads every digit of its number) must be
// charged more: on numbers, at least twice as much for 8 times the
// digits; on any argument, at least a third of the growth of its
// allocation.
func TestCostGrowsWithBigArguments(t *testing.T) {
	skipUnlessMeasuringAllocation(t)
	checked := eachCallAtTwoSizes(t, bigCalls, func(b *Builtin, call bigCall, g callGrowth) string {
		// A call of one argument may return it untouched (+ x).
		moreWork := g.moreWork() || (readsWholeNumber[b.Name] && len(call) > 1)
		if (g.work >= 3 && g.w2-g.w1 > 8<<10 && g.charge < g.work/3) || (call.numbers() && moreWork && !g.grew()) {
			return fmt.Sprintf("%s: from 400 to 3200 digits %s", call.label(b.Name), g.describe(b))
		}
		return ""
	})
	if checked < 1000 {
		t.Errorf("only %d calls ran at both sizes; the argument shapes no longer fit the builtins", checked)
	}
}

// callGrowth is what a call allocated (w) and was charged (c) with its
// arguments of 400 (1) and 3,200 (2) digits or elements, and the growths.
type callGrowth struct {
	w1, c1, w2, c2 int64
	work, charge   float64
}

// moreWork reports whether the call's allocation grew enough to call for
// a charge that grows.
func (g callGrowth) moreWork() bool { return g.work >= 2 && g.w2-g.w1 > 2<<10 }

// grew reports whether the charge doubled, or grew by an eighth of the
// bytes more allocated (a charge already above the work need not double).
func (g callGrowth) grew() bool {
	return g.charge >= 2 || (g.w2 > g.w1 && g.c2-g.c1 >= (g.w2-g.w1)/8)
}

func (g callGrowth) describe(b *Builtin) string {
	return fmt.Sprintf("the work grew %.1fx (%d to %d bytes allocated) and the charge %.1fx (%d to %d): declared %q",
		g.work, g.w1, g.w2, g.charge, g.c1, g.c2, b.Cost.describe())
}

// eachCallAtTwoSizes measures every call calls gives for every row a
// program can call, with its arguments at 400 and 3,200, and reports what
// complaint says of those that succeed at both (nothing: ""); it returns
// how many did. A complaint is measured once more before it is reported
// (callGrowth.leastOf).
func eachCallAtTwoSizes(t *testing.T, calls func(*Builtin) []bigCall, complaint func(b *Builtin, call bigCall, g callGrowth) string) int {
	t.Helper()
	const small, large = 400, 3200
	checked := 0
	for _, b := range returning(everyCallable()) {
		for _, call := range calls(b) {
			g, err := measureGrowth(b, call.args, small, large)
			if err != nil {
				continue
			}
			checked++
			if complaint(b, call, g) == "" {
				continue
			}
			if again, err := measureGrowth(b, call.args, small, large); err == nil {
				g = g.leastOf(again)
			}
			if msg := complaint(b, call, g); msg != "" {
				t.Error(msg)
			}
		}
	}
	return checked
}

// measureGrowth measures a call of b with args at both sizes.
func measureGrowth(b *Builtin, args func(n int) []Value, small, large int) (callGrowth, error) {
	w1, c1, err := measureCall(b, func() []Value { return args(small) })
	if err != nil {
		return callGrowth{}, err
	}
	w2, c2, err := measureCall(b, func() []Value { return args(large) })
	if err != nil {
		return callGrowth{}, err
	}
	return newCallGrowth(w1, c1, w2, c2), nil
}

func newCallGrowth(w1, c1, w2, c2 int64) callGrowth {
	return callGrowth{w1, c1, w2, c2, float64(w2) / float64(max(w1, 1)), float64(c2) / float64(max(c1, 1))}
}

// leastOf joins two measurements of one call. Allocation is counted for
// the whole process, so another goroutine (a test's evaluation still
// ending) can add to a measurement but never take from it: the least of
// each is the call's. Charges do not vary.
func (g callGrowth) leastOf(h callGrowth) callGrowth {
	return newCallGrowth(min(g.w1, h.w1), g.c1, min(g.w2, h.w2), g.c2)
}

// chargedCallGroup is a set of calls BenchmarkNsPerChargedStep times: the
// calls of every row on shapes of n, on a thread whose decimal arithmetic
// keeps precision digits (with-precision; 0 for exact).
type chargedCallGroup struct {
	label     string
	calls     func(b *Builtin) []bigCall
	n         int
	precision int64
}

// chargedCallGroups are the arguments BenchmarkNsPerChargedStep weighs
// CPU against charge on: numbers and texts of 3,200 digits or
// characters, collections of 3,200 elements (and nested 400 deep, 400
// rows of 400), and the small numbers that are dear: decimals of 300
// digits, exact and with a MathContext of 300 digits.
var chargedCallGroups = []chargedCallGroup{
	{"big", bigCalls, 3200, 0},
	{"collection", collCalls, 3200, 0},
	{"300 digits", bigCalls, 300, 0},
	{"300 digits, with-precision 300", bigCalls, 300, 300},
}

// BenchmarkNsPerChargedStep runs every row on each group of shapes
// (chargedCallGroups) and reports, dearest first, the CPU a call spent
// per step it was charged (its steps plus its bytes of allocation at 64
// a step), beside the median of all the calls. Run it alone, once:
//
//	go test ./lisp -run '^$' -bench NsPerChargedStep -benchtime 1x -v
func BenchmarkNsPerChargedStep(b *testing.B) {
	type row struct {
		label     string
		nsPerStep float64
		steps     int64
	}
	for range b.N {
		var rows []row
		for _, g := range chargedCallGroups {
			for _, bt := range returning(everyCallable()) {
				for _, call := range g.calls(bt) {
					if ns, steps, ok := nsPerChargedStep(bt, call, g); ok {
						rows = append(rows, row{g.label + ": " + call.label(bt.Name), ns, steps})
					}
				}
			}
		}
		slices.SortFunc(rows, func(a, b row) int { return cmp.Compare(b.nsPerStep, a.nsPerStep) })
		median := rows[len(rows)/2].nsPerStep
		b.Logf("%d calls; median %.0f ns per charged step", len(rows), median)
		for _, r := range rows[:min(40, len(rows))] {
			b.Logf("%8.0f ns/step %6.0fx median  %8d steps a call  %s", r.nsPerStep, r.nsPerStep/median, r.steps, r.label)
		}
	}
}

// nsPerChargedStep is the least time of a few calls of bt (after a first
// that warms caches: a collection or a lazy initialisation is not the
// call's work) over the steps it was charged; ok is false when the call
// fails.
func nsPerChargedStep(bt *Builtin, call bigCall, g chargedCallGroup) (ns float64, steps int64, ok bool) {
	best := time.Duration(-1)
	for range 6 {
		args := call.args(g.n)
		th := newThread(context.Background(), Limits{MaxSteps: 20_000_000, MaxAllocBytes: 256 << 20, MaxDepth: 100})
		th.prog = newProgState(Env{})
		if g.precision > 0 {
			th.decimals = &mathContext{precision: g.precision, mode: "HALF_UP"}
		}
		start := time.Now()
		_, err := th.call(bt, args)
		elapsed := time.Since(start)
		if err != nil {
			return 0, 0, false
		}
		if best < 0 || elapsed < best {
			best = elapsed
		}
		steps = th.steps + th.allocated/64
	}
	return float64(best.Nanoseconds()) / float64(max(steps, 1)), steps, true
}
