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
	if v, ok := bigValues.Load(src); ok {
		return v.(Value)
	}
	res, err := Eval(context.Background(), src, Env{})
	if err != nil || res.Err != nil {
		panic(fmt.Sprintf("building %s: %v %v", s.label, err, res.Err))
	}
	bigValues.Store(src, res.Value)
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

// bigCalls are the combinations of numShapes for b's smallest arities (up
// to three arguments) with one growing argument or more that b accepts.
func bigCalls(b *Builtin) []bigCall {
	lo := max(b.MinArgs, 1)
	hi := lo + 1
	if b.MaxArgs >= 0 {
		hi = min(hi, b.MaxArgs)
	}
	var out []bigCall
	for arity := lo; arity <= hi && arity <= 3; arity++ {
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
	const small, large = 400, 3200
	checked := 0
	for _, b := range returning(everyCallable()) {
		for _, call := range bigCalls(b) {
			w1, c1, err1 := measureCall(b, func() []Value { return call.args(small) })
			w2, c2, err2 := measureCall(b, func() []Value { return call.args(large) })
			if err1 != nil || err2 != nil {
				continue
			}
			checked++
			workGrowth := float64(w2) / float64(max(w1, 1))
			chargeGrowth := float64(c2) / float64(max(c1, 1))
			label := call.label(b.Name)
			if workGrowth >= 3 && w2-w1 > 8<<10 && chargeGrowth < workGrowth/3 {
				t.Errorf("%s: from %d to %d digits the work grew %.1fx (%d to %d bytes allocated) and the charge %.1fx (%d to %d): declared %q",
					label, small, large, workGrowth, w1, w2, chargeGrowth, c1, c2, b.Cost.describe())
				continue
			}
			// A call of one argument may return it untouched (+ x).
			moreWork := (workGrowth >= 2 && w2-w1 > 2<<10) || (readsWholeNumber[b.Name] && len(call) > 1)
			// The charge doubles, or grows by an eighth of the bytes more
			// allocated (a charge already above the work need not double).
			grew := chargeGrowth >= 2 || (w2 > w1 && c2-c1 >= (w2-w1)/8)
			if call.numbers() && moreWork && !grew {
				t.Errorf("%s: from %d to %d digits the work grew (%d to %d bytes allocated) and the charge %.1fx (%d to %d): declared %q",
					label, small, large, w1, w2, chargeGrowth, c1, c2, b.Cost.describe())
			}
		}
	}
	if checked < 1000 {
		t.Errorf("only %d calls ran at both sizes; the argument shapes no longer fit the builtins", checked)
	}
}

// BenchmarkNsPerChargedStep runs every row on the big shapes at 8n (3,200
// digits or characters) and reports, dearest first, the CPU a call spent
// per step it was charged (its steps plus its bytes of allocation at 64 a
// step), beside the median. Run it alone, once:
//
//	go test ./lisp -run '^$' -bench NsPerChargedStep -benchtime 1x -v
func BenchmarkNsPerChargedStep(b *testing.B) {
	type row struct {
		label     string
		nsPerStep float64
		steps     int64
	}
	const n = 3200
	for range b.N {
		var rows []row
		for _, bt := range returning(everyCallable()) {
			for _, call := range bigCalls(bt) {
				args := call.args(n)
				// The least time of a few calls, after a first that warms
				// caches: a collection or a lazy initialisation is not the
				// call's work.
				best, steps := time.Duration(-1), int64(0)
				for range 6 {
					th := newThread(context.Background(), Limits{MaxSteps: 20_000_000, MaxAllocBytes: 256 << 20, MaxDepth: 100})
					th.prog = newProgState(Env{})
					start := time.Now()
					_, err := th.call(bt, args)
					elapsed := time.Since(start)
					if err != nil {
						best = -1
						break
					}
					if best < 0 || elapsed < best {
						best = elapsed
					}
					steps = th.steps + th.allocated/64
				}
				if best < 0 {
					continue
				}
				rows = append(rows, row{call.label(bt.Name), float64(best.Nanoseconds()) / float64(max(steps, 1)), steps})
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
