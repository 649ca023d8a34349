package lisp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The generator below writes hostile programs from the builtin table: a
// call of any builtin, with as many arguments as its row accepts, each
// argument of the kind its signature names (a function for f or pred, a
// collection for coll, a number for n, a text for s, a map for m, ...),
// drawn from hostile shapes of that kind: big, nested, infinite, lazy and
// shared collections, wide numbers, long texts, functions that build. The
// call is made once, in a loop, or fed its own result for thousands of
// rounds, and its arguments may be calls themselves. The same seed always
// writes the same program.

// argKind is what a parameter of a builtin's signature asks for.
type argKind int

const (
	anyKind argKind = iota
	fnKind
	collKind
	mapKind
	textKind
	numberKind
	keyKind
	regexKind
)

// paramKinds names the parameters of the signatures in the builtin table
// by the kind they ask for; a parameter not named here takes any value.
var paramKinds = map[argKind][]string{
	fnKind:     {"f", "f1", "f2", "g", "pred", "keyfn", "rf", "comparator", "fns", "branch?", "children", "default-fn", "inner", "outer", "xform"},
	collKind:   {"coll", "c", "c1", "c2", "from", "to", "xrel", "yrel", "vals", "values", "keys", "ks", "path", "args", "args...", "sc", "s-or-coll"},
	mapKind:    {"m", "m1", "m2", "map", "smap", "cmap", "opts"},
	textKind:   {"s", "s1", "s2", "sep", "sub", "prefix", "suffix", "pad", "replacement", "fmt", "text", "message", "match", "name", "new", "old"},
	numberKind: {"n", "i", "index", "start", "end", "step", "limit", "radix", "scale", "digits", "amount", "init", "digit", "unscaled"},
	keyKind:    {"k", "key", "default", "key-or-index", "start-key", "end-key"},
	regexKind:  {"re", "regex"},
}

// hostileShapes are the source of hostile values of each kind. p is the
// shared prelude value every program may read (genPreludes).
var hostileShapes = map[argKind][]string{
	numberKind: {"0", "-1", "7", "100000", "1000000000", "9223372036854775807", "-9223372036854775808",
		"(reduce *' (range 1 2000))", "(bit-shift-left 1 62)", "1e308", "##NaN", "##Inf", "123456789.123456789M",
		"(/ 1 3)", "1000000N", "(count p)", "2.5"},
	collKind: {"[]", "[1 2 3]", "p", "(range)", "(repeat 7)", "(cycle [1 [2] {:a 3}])", "(iterate inc 0)",
		"(iterate (fn [x] [x x]) 1)", "(map inc (range 100000))", "(filter odd? (range))", "(range 200000)",
		"(vec (range 100000))", "(set (range 50000))", "(zipmap (range 50000) (range))",
		"(reduce (fn [a _] [a a]) 1 (range 40))", "(nth (iterate list 1) 150)", "(repeat 100000 \"abcdefghij\")",
		"(apply list (range 50000))", "(into (sorted-map) (zipmap (range 20000) (range)))", "(into (sorted-set) (range 20000))",
		"(vec (repeat 50000 p))", "(map (fn [i] (vec (range i))) (range 2000))", "(partition 2 1 (range))",
		"(apply str (repeat 100000 \"ab\"))", "(lazy-seq (cons 1 (range)))", "(take 100000 (repeat [p p]))"},
	mapKind: {"{}", "{:a 1 :b [2]}", "(zipmap (range 50000) (range))", "(zipmap (map keyword (map str (range 20000))) (repeat p))",
		"(reduce (fn [m i] {i m}) {} (range 150))", "(reduce (fn [m _] {:l m :r m}) {} (range 40))",
		"(into {} (map (fn [i] [(str i) (vec (range 100))]) (range 1000)))", "(into (sorted-map) (zipmap (range 20000) (range)))"},
	textKind: {"\"\"", "\"a\"", "\", \"", "(apply str (repeat 200000 \"ab\"))", "(apply str (repeat 100000 \"\\n\"))",
		"(apply str (repeat 50000 \"é中😀\"))", "(clojure.string/join \",\" (range 100000))", "(str p)", "\"%s%s%s\"", "\"~a\""},
	fnKind: {"identity", "inc", "vector", "str", "list", "concat", "(fn [& xs] xs)", "(fn [& xs] (vec (range 1000)))",
		"(constantly p)", "(memoize vector)", "(partial vector p)", "(comp vec reverse)", "(fn [a b] (compare b a))",
		"(fn [x] (repeat 1000 x))", "(fn [& xs] (apply str xs))", "(fn [x & _] [x x])", "(fn [& xs] (range))",
		"(map inc)", "(comp (mapcat (fn [x] [x x])) (take 100000))", "hash-map", "into"},
	keyKind:   {":a", "0", "nil", "p", "\"k\"", "[0 0]", "100000", "(keyword (apply str (repeat 10000 \"k\")))"},
	regexKind: {"#\"(a*)*b\"", "#\"(.*)(.*)(.*)\"", "#\"\\w+\"", "#\"(?s).\"", "#\"(x+x+)+y\""},
}

// genPreludes are the shared values: a program's p is one of these,
// defined by an earlier turn and handed to every caller.
var genPreludes = []string{
	"(range)", "(map inc (range 100000))", "(vec (range 100000))", "(drop 5 (range))",
	"(reduce (fn [a _] [a a]) 1 (range 10))", "(zipmap (range 20000) (range))", "(apply str (repeat 100000 \"ab\"))",
	"(memoize (fn [x] (vec (range x))))", "(into (sorted-set) (range 20000))", "(iterate (fn [x] [x x]) 1)",
	"(map inc)", "(apply list (range 50000))", "(set (range 50000))", "(reduce *' (range 1 2000))",
}

var sigCall = regexp.MustCompile(`\(([^()]*)\)`)

// genBuiltin is a builtin the generator calls: its name and, for each
// argument count it accepts, the kinds its signature names.
type genBuiltin struct {
	name  string
	idiom bool // Clojure the prompt leaves out (Category "idiom")
	forms [][]argKind
}

// genBuiltins reads the builtin table: every builtin but those that end
// the program (return, fail) and those that print (their output is
// bounded by its own limit).
func genBuiltins() []genBuiltin {
	kindOf := map[string]argKind{}
	for kind, names := range paramKinds {
		for _, n := range names {
			kindOf[n] = kind
		}
	}
	var out []genBuiltin
	for _, b := range everyBuiltin() {
		if b.Category == "io" {
			continue
		}
		g := genBuiltin{name: b.Name, idiom: b.Category == "idiom"}
		for _, m := range sigCall.FindAllStringSubmatch(b.Sig, -1) {
			params := strings.Fields(m[1])
			if len(params) == 0 {
				continue
			}
			var kinds []argKind
			for _, p := range params[1:] {
				if p == "..." || p == "&" {
					// repeat the kind before, once or twice
					if len(kinds) > 0 {
						kinds = append(kinds, kinds[len(kinds)-1])
					}
					continue
				}
				kinds = append(kinds, kindOf[strings.Trim(p, "[]{}")])
			}
			if len(kinds) >= b.MinArgs && (b.MaxArgs < 0 || len(kinds) <= b.MaxArgs) {
				g.forms = append(g.forms, kinds)
			}
		}
		if len(g.forms) == 0 { // a signature the table spells otherwise: its arity, any kinds
			g.forms = append(g.forms, make([]argKind, b.MinArgs))
		}
		out = append(out, g)
	}
	return out
}

// generator writes programs from a seed.
type generator struct {
	rnd      *rand.Rand
	builtins []genBuiltin
}

// genProgram is one generated attack: the shared value's source (p), and
// the program that reads it.
type genProgram struct {
	seed    uint64
	prelude string
	source  string
}

func newGenerator(seed uint64, builtins []genBuiltin) *generator {
	return &generator{rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), builtins: builtins}
}

func (g *generator) pick(xs []string) string { return xs[g.rnd.IntN(len(xs))] }

// arg is a value of kind; at depth > 0, sometimes a call of another
// builtin.
func (g *generator) arg(kind argKind, depth int) string {
	if depth > 0 && g.rnd.IntN(4) == 0 {
		return g.call(depth - 1)
	}
	if kind == anyKind {
		kinds := []argKind{numberKind, collKind, collKind, mapKind, textKind, fnKind, keyKind}
		kind = kinds[g.rnd.IntN(len(kinds))]
	}
	return g.pick(hostileShapes[kind])
}

// call is a call of a random builtin with arguments of the kinds it asks.
func (g *generator) call(depth int) string {
	b := g.builtins[g.rnd.IntN(len(g.builtins))]
	for g.rnd.IntN(2) == 0 && b.idiom { // the prompt's functions half the time
		b = g.builtins[g.rnd.IntN(len(g.builtins))]
	}
	form := b.forms[g.rnd.IntN(len(b.forms))]
	parts := []string{b.name}
	for _, kind := range form {
		parts = append(parts, g.arg(kind, depth))
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// program is a call made once, in a loop, or fed its own result.
func (g *generator) program(seed uint64) genProgram {
	p := genProgram{seed: seed, prelude: g.pick(genPreludes)}
	call := g.call(1)
	switch g.rnd.IntN(6) {
	case 0, 1:
		p.source = call
	case 2:
		p.source = fmt.Sprintf("(dotimes [_ 2000] %s) %s", call, call)
	case 5:
		// An error caught each round: what its message costs.
		p.source = fmt.Sprintf("(dotimes [_ 2000] (try %s (catch Exception e (ex-message e)))) %s", call, call)
	case 3:
		// The result fed back as an argument: derivations of
		// derivations.
		acc := strings.Replace(call, " p", " acc", 1)
		p.source = fmt.Sprintf("(reduce (fn [acc _] %s) p (range 3000))", acc)
	default:
		p.source = fmt.Sprintf("(let [r %s] [r (count (str r)) r])", call)
	}
	return p
}

// generatedProgram is the program of seed.
func generatedProgram(seed uint64, builtins []genBuiltin) genProgram {
	return newGenerator(seed, builtins).program(seed)
}

// genLimits are the default budgets with a clock far enough that work,
// not time, ends every generated program.
func genLimits() Limits {
	l := DefaultLimits()
	l.Timeout = time.Minute
	return l
}

// genPreludeMemory is the memory of a turn that defined p as src, sent
// back as a caller sends it (encoded, then decoded).
func genPreludeMemory(t testing.TB, src string) *Memory {
	t.Helper()
	res := run(t, "(def p "+src+")", Env{Limits: genLimits()})
	if res.Err != nil {
		t.Fatalf("prelude %s: %v", src, res.Err)
	}
	m, err := DecodeMemory(context.Background(), res.Memory.Encode())
	if err != nil {
		t.Fatalf("prelude %s does not decode: %v", src, err)
	}
	return m
}

// genOutcome is what a caller sees of a run: the value's wire text, or
// the error's kind.
func genOutcomeOf(res *Result) string {
	if res.Err != nil {
		return "error " + string(res.Err.Kind)
	}
	return "value " + res.ValueText
}

// genRun is one run of a generated program, with what Go allocated for
// it and the peak of the live heap while it ran.
type genRun struct {
	res             *Result
	allocated, peak int64
	charged         int64
	elapsed         time.Duration
}

// genHeapSample is the live heap as of the last collection.
func genLiveHeap(s []metrics.Sample) int64 {
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

func runGenerated(t testing.TB, p genProgram, prelude *Memory, measure bool) genRun {
	t.Helper()
	env := Env{Prelude: prelude, Limits: genLimits()}
	if !measure {
		return genRun{res: run(t, p.source, env)}
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	runtime.GC()
	base := genLiveHeap(sample)
	var peak int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, genLiveHeap(sample)-base)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	res := run(t, p.source, env)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	close(done)
	wg.Wait()
	return genRun{res: res, allocated: int64(after.TotalAlloc - before.TotalAlloc), peak: peak,
		charged: res.AllocBytes + 64*res.Steps, elapsed: elapsed}
}

// genTypedKinds are the errors a generated program may end with.
var genTypedKinds = []ErrorKind{parseError, validationError, undefinedSymbol, arityErrorKind, typeError,
	arithmeticError, executionError, stepLimit, memoryLimit, depthLimit, outputLimit, emitLimit}

// Bounds of the allocation check: what Go allocates for a program is at
// most genAllocFactor times what the program was charged (its allocation
// and 64 bytes a step), plus genAllocSlack for reading, analysis and the
// emit check.
const (
	genAllocFactor = 8
	genAllocSlack  = 4 << 20
)

// checkGenerated runs p alone twice and from 8 goroutines over one
// shared prelude, and returns what failed.
func checkGenerated(t testing.TB, p genProgram, measure bool) []string {
	t.Helper()
	return checkGeneratedOver(t, p, genPreludeMemory(t, p.prelude), measure)
}

// checkGeneratedOver is checkGenerated over a prelude already made.
func checkGeneratedOver(t testing.TB, p genProgram, prelude *Memory, measure bool) []string {
	t.Helper()
	var problems []string
	first := runGenerated(t, p, prelude, measure)
	res := first.res
	outcome := genOutcomeOf(res)
	if res.Err != nil {
		if !slices.Contains(genTypedKinds, res.Err.Kind) || strings.Contains(res.Err.Message, "internal interpreter error") {
			problems = append(problems, fmt.Sprintf("untyped error %s: %s", res.Err.Kind, res.Err.Message))
		}
	} else if res.ValueText != "" {
		back, err := ReadValue(context.Background(), res.ValueText, 0, 0)
		if err != nil {
			problems = append(problems, fmt.Sprintf("the value does not read back: %v", err))
		} else if again := WireText(back); again != res.ValueText {
			problems = append(problems, fmt.Sprintf("the value reads back as another: %.200s, then %.200s", res.ValueText, again))
		}
	}
	if measure {
		limit := genLimits().MaxAllocBytes + 32<<20
		over := func(r genRun) bool { return r.allocated > genAllocFactor*r.charged+genAllocSlack || r.peak > limit }
		for range 2 { // the least of three before anything is reported
			if !over(first) {
				break
			}
			again := runGenerated(t, p, prelude, true)
			first.allocated, first.peak = min(first.allocated, again.allocated), min(first.peak, again.peak)
		}
		if first.allocated > genAllocFactor*first.charged+genAllocSlack {
			problems = append(problems, fmt.Sprintf("allocated %d bytes, charged %d (%d steps, %d bytes)",
				first.allocated, first.charged, res.Steps, res.AllocBytes))
		}
		if first.peak > limit {
			problems = append(problems, fmt.Sprintf("live heap peaked %d bytes over the start, past %d", first.peak, limit))
		}
	}
	if again := genOutcomeOf(runGenerated(t, p, prelude, false).res); again != outcome {
		problems = append(problems, fmt.Sprintf("a second run: %.200s, then %.200s", outcome, again))
	}
	outcomes := make([]string, 8)
	var wg sync.WaitGroup
	for i := range outcomes {
		wg.Go(func() { outcomes[i] = genOutcomeOf(runGenerated(t, p, prelude, false).res) })
	}
	wg.Wait()
	for i, o := range outcomes {
		if o != outcome {
			problems = append(problems, fmt.Sprintf("caller %d of 8 over one prelude: %.200s, alone %.200s", i, o, outcome))
			break
		}
	}
	return problems
}

func TestGeneratedAttacks(t *testing.T) {
	count := sampled(100, 30)
	builtins := genBuiltins()
	for seed := range uint64(count) {
		p := generatedProgram(seed, builtins)
		if problems := checkGenerated(t, p, !raceDetector); len(problems) > 0 {
			t.Errorf("seed %d, p = %s\n%s\n%s", seed, p.prelude, p.source, strings.Join(problems, "\n"))
		}
	}
}

// generatedBreaks are programs the generator found breaking a bound, kept
// as they were found (seed) and with members of the same class written
// after the fix: a value shown in an error message is printed within the
// message's room, whatever its size, and a caught error in a loop pays
// nothing for the size of what it shows. Before, showing a function that
// held a set printed the whole set to sort it (2.4 MB per message for a
// set of 20,000 numbers: 2.4 GB of allocation and 11 s for 6,089 steps),
// and a map or vector held so was scanned whole before its first element
// was written.
var generatedBreaks = []genProgram{
	{seed: 84, prelude: "(into (sorted-set) (range 20000))", source: "(dotimes [_ 1000] (try (*' 0 (constantly p)) (catch Exception e nil)))"},
	{prelude: "(set (range 50000))", source: "(dotimes [_ 1000] (try (+ 1 (partial vector p)) (catch Exception e (ex-message e))))"},
	{prelude: "(set (map str (range 30000)))", source: "(let [f (partial str p)] (dotimes [_ 1000] (try (- f) (catch Exception e 0))))"},
	{prelude: "(zipmap (range 20000) (range))", source: "(let [f (constantly #{p})] (dotimes [_ 1000] (try (inc f) (catch Exception e (ex-message e)))))"},
	// A strings.Replacer built on every call: 6.7 KB of Go allocation for
	// a call of five steps.
	{seed: 200338, prelude: "(map inc)", source: `(dotimes [_ 2000] (try (clojure.string/re-quote-replacement "a") (catch Exception e (ex-message e))))`},
	// A result of source that took more than its budget to load back
	// (memory_limit when sent back): now refused when the turn emits it.
	{seed: 300255, prelude: "(map inc)", source: "(let [r (update-keys (zipmap (map keyword (map str (range 20000))) (repeat p)) identity)] [r (count (str r)) r])"},
	{seed: 300884, prelude: "(memoize (fn [x] (vec (range x))))", source: "(update-vals (zipmap (map keyword (map str (range 20000))) (repeat p)) (constantly p))"},
}

func TestGeneratedBreaksStayClosed(t *testing.T) {
	for _, p := range generatedBreaks {
		if problems := checkGenerated(t, p, !raceDetector); len(problems) > 0 {
			t.Errorf("p = %s\n%s\n%s", p.prelude, p.source, strings.Join(problems, "\n"))
		}
	}
}

// FuzzGeneratedAttacks runs the generated program of each seed through
// the checks of TestGeneratedAttacks but the allocation's, which the
// fuzzing engine's own work would blur.
func FuzzGeneratedAttacks(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed)
	}
	builtins := genBuiltins()
	f.Fuzz(func(t *testing.T, seed uint64) {
		p := generatedProgram(seed, builtins)
		if problems := checkGenerated(t, p, false); len(problems) > 0 {
			t.Errorf("seed %d, p = %s\n%s\n%s", seed, p.prelude, p.source, strings.Join(problems, "\n"))
		}
	})
}

// BenchmarkGeneratedWorstNsPerStep runs generated programs and reports
// the worst time per charged step among those that ran long enough to
// measure (1,000 steps at least), and the seed of the worst.
func BenchmarkGeneratedWorstNsPerStep(b *testing.B) {
	builtins := genBuiltins()
	const programs = 200
	worst, worstSeed := 0.0, uint64(0)
	for range b.N {
		for seed := range uint64(programs) {
			p := generatedProgram(seed, builtins)
			r := runGenerated(b, p, genPreludeMemory(b, p.prelude), true)
			if r.res.Steps < 1000 {
				continue
			}
			if ns := float64(r.elapsed.Nanoseconds()) / float64(r.res.Steps); ns > worst {
				worst, worstSeed = ns, seed
			}
		}
	}
	b.ReportMetric(worst, "worst-ns/step")
	b.ReportMetric(float64(worstSeed), "worst-seed")
}

// TestKeptOrderChargedToEveryCaller: a hash map or set shared by callers
// keeps its order in Clojure's hash once one caller asks for it; every
// later caller is charged as the first was, so that a caller's outcome
// does not depend on who came first. The generator found it on a map
// printed by str (a program ended by memory_limit alone, by step_limit
// after another caller had printed the map); sets keep their order too.
func TestKeptOrderChargedToEveryCaller(t *testing.T) {
	for _, prelude := range []string{"(zipmap (range 2000) (range))", "(set (range 2000))", "(set (map str (range 2000)))",
		"(zipmap (map keyword (map str (range 2000))) (range))"} {
		for _, src := range []string{"(str p)", "(pr-str p)", "(seq p)", "(first p)", "(vec p)", "(into [] p)", "(keys p)", "(apply list p)"} {
			shared := genPreludeMemory(t, prelude)
			var steps, alloc []int64
			for range 3 {
				res := run(t, src, Env{Prelude: shared})
				steps, alloc = append(steps, res.Steps), append(alloc, res.AllocBytes)
			}
			if steps[0] != steps[2] || alloc[0] != alloc[2] {
				t.Errorf("p = %s, %s: the first caller charged %d steps, %d bytes; the third %d steps, %d bytes",
					prelude, src, steps[0], alloc[0], steps[2], alloc[2])
			}
		}
	}
}
