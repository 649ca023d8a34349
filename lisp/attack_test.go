package lisp

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// attack is a hostile program and how it must end: with the typed error
// want (or none), having made Go allocate at most maxAlloc bytes, with an
// error message of at most maxMessage bytes.
type attack struct {
	name, src  string
	want       ErrorKind // "" for success
	maxAlloc   int64
	maxMessage int
}

// The value of 60 MB of printed text that many attacks print: 600
// references to one string of 100,000 bytes. It fits the allocation
// budget (the string is built once) and the value weight limit.
const sixtyMB = `(let [s (apply str (repeat 100000 "x")) v (vec (repeat 600 s))] `

// runAttack runs a.src twice, checks that both runs end alike (the same
// error, steps and allocation charged: a replay must stop where the first
// run stopped), and returns the first run with the bytes Go allocated.
func runAttack(t *testing.T, a attack, env Env) (*Result, int64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := run(t, a.src, env)
	runtime.ReadMemStats(&after)
	again := run(t, a.src, env)
	if errKind(res) != errKind(again) || res.Steps != again.Steps || res.AllocBytes != again.AllocBytes {
		t.Errorf("%s: first run %s after %d steps and %d bytes, second %s after %d and %d",
			a.name, errKind(res), res.Steps, res.AllocBytes, errKind(again), again.Steps, again.AllocBytes)
	}
	return res, int64(after.TotalAlloc - before.TotalAlloc)
}

func errKind(res *Result) ErrorKind {
	if res.Err == nil {
		return ""
	}
	return res.Err.Kind
}

func checkAttacks(t *testing.T, attacks []attack, env Env) {
	t.Helper()
	for _, a := range attacks {
		res, alloc := runAttack(t, a, env)
		if errKind(res) != a.want {
			t.Errorf("%s: ended with %v, want %q", a.name, res.Err, a.want)
		}
		if alloc > a.maxAlloc && !raceDetector {
			t.Errorf("%s: Go allocated %d MiB, want at most %d MiB", a.name, alloc>>20, a.maxAlloc>>20)
		}
		if res.Err != nil && a.maxMessage > 0 && len(res.Err.Message)+len(res.Err.Hint) > a.maxMessage {
			t.Errorf("%s: an error message of %d bytes, want at most %d", a.name, len(res.Err.Message)+len(res.Err.Hint), a.maxMessage)
		}
	}
}

// TestTextIsChargedAsItIsBuilt: text a program builds (str, join, pr-str,
// println, format) is charged as it is written and stops at the budget or
// the output limit, not after the whole text was built; error messages
// show values cut short. Before, each of these built the whole text
// first: hundreds of megabytes for a value of 60 MB of text, or a
// closure whose body is 100 KB printed many times.
func TestTextIsChargedAsItIsBuilt(t *testing.T) {
	body := strings.Repeat("x", 100_000)
	closures := `(let [f (fn [] "` + body + `") v (vec (repeat 90 f))] `
	checkAttacks(t, []attack{
		{name: "println of 60 MB", src: sixtyMB + `(println v))`, want: outputLimit, maxAlloc: 32 << 20},
		{name: "prn of 60 MB", src: sixtyMB + `(prn v))`, want: outputLimit, maxAlloc: 32 << 20},
		{name: "str of 60 MB", src: sixtyMB + `(count (str v)))`, want: memoryLimit, maxAlloc: 64 << 20},
		{name: "join of 60 MB", src: sixtyMB + `(count (clojure.string/join "," v)))`, want: memoryLimit, maxAlloc: 64 << 20},
		{name: "pr-str of 60 MB", src: sixtyMB + `(count (pr-str v)))`, want: memoryLimit, maxAlloc: 64 << 20},
		{name: "format of 60 MB", src: sixtyMB + `(count (format "%s" v)))`, want: memoryLimit, maxAlloc: 64 << 20},
		{name: "json/generate-string of 60 MB", src: sixtyMB + `(count (json/generate-string v)))`, want: memoryLimit, maxAlloc: 64 << 20},
		{name: "format with a precision", src: sixtyMB + `(count (format "%.5s" v)))`, maxAlloc: 16 << 20},
		// Each conversion padded 10 KB after the budget had stopped the
		// text: 1 GB of Go allocation for a 10 MiB charge.
		{name: "format of %1$10000d 100,000 times", src: `(count (format (apply str (repeat 100000 "%1$10000d")) 1))`, want: memoryLimit, maxAlloc: 64 << 20},
		{name: "str of a closure's 100 KB body, many times", src: closures + `(dotimes [i 20] (str v)) :done)`, want: memoryLimit, maxAlloc: 64 << 20},
		{name: "a type error describes a closure", src: sixtyMB + `(+ 1 (fn [] v)))`, want: typeError, maxAlloc: 16 << 20, maxMessage: 400},
		{name: "condp without a match", src: `(let [v (vec (repeat 600 (apply str (repeat 1000 "x"))))] (condp = 1 v :a))`, want: executionError, maxAlloc: 16 << 20, maxMessage: 600},
		{name: "assoc on a vector with a huge index", src: sixtyMB + `(assoc [1 2] v 3))`, want: typeError, maxAlloc: 16 << 20, maxMessage: 600},
		{name: "case without a match", src: `(let [v (vec (repeat 600 (apply str (repeat 1000 "x"))))] (case v 1 :a))`, want: executionError, maxAlloc: 16 << 20, maxMessage: 600},
	}, Env{})
}

// TestAproposChargesTheToolsItLists: apropos and dir list the request's
// tools on every call, names of any length built for it, sorted and
// matched each time: they are charged as built, sorted and read. Before, 10,000 tools of 1 KB
// names cost 10 MB built and matched per call for 10,000 steps, and a
// loop of such calls ran seconds past its timeout.
func TestAproposChargesTheToolsItLists(t *testing.T) {
	tools := make([]string, 10_000)
	for i := range tools {
		tools[i] = fmt.Sprintf("%06d%s", i, strings.Repeat("a", 1000))
	}
	checkAttacks(t, []attack{
		{name: "apropos by regex over 10,000 tools", src: `(dotimes [i 100000] (apropos #"(a|aa)*b")) :done`, want: memoryLimit, maxAlloc: 256 << 20},
		{name: "apropos by text over 10,000 tools", src: `(dotimes [i 100000] (apropos "zz")) :done`, want: memoryLimit, maxAlloc: 256 << 20},
	}, Env{Tools: tools})
	res := run(t, `(count (apropos "000017"))`, Env{Tools: tools})
	if res.Err != nil || res.Value != Int(1) {
		t.Errorf("apropos of one tool among 10,000: %v, %v", res.Value, res.Err)
	}
	// Listing them sorted is charged as a sort: the step budget ends the
	// loop after a few calls, where it ran until the memory budget did,
	// hundreds of calls later, racing the clock on a loaded machine.
	short := make([]string, 10_000)
	for i := range short {
		short[i] = fmt.Sprintf("t%d", i)
	}
	checkAttacks(t, []attack{
		{name: "dir of 10,000 tools", src: `(dotimes [i 100000] (with-out-str (dir "tool"))) :done`, want: stepLimit, maxAlloc: 64 << 20},
	}, Env{Tools: short})
}

// TestJSONParseIsChargedAsItReads: json/parse-string charges each value
// as it reads it, and makes room for a long array no larger than the
// budget left, so that text whose value passes the budget stops there.
// Before, the value was built whole and charged after: 4 MB of numbers
// built 2 million values, 259 MiB allocated (97 now, most of it the JSON
// tokenizer's garbage), to end memory_limit, or timeout on a loaded
// machine. The decoder's tokens are now charged in steps as well
// (jsonTokenSteps), which end both before the memory budget does.
func TestJSONParseIsChargedAsItReads(t *testing.T) {
	b := NewMapBuilder(2)
	b.Set(Keyword("numbers"), String("["+strings.Repeat("1,", 2_000_000)+"1]"))
	b.Set(Keyword("objects"), String("["+strings.Repeat(`{"a":1,"b":2},`, 300_000)+"1]"))
	// The budget decides, not the clock, however slow the machine (the
	// race detector makes this reading ten times slower).
	env := Env{Data: b.Map(), Limits: Limits{Timeout: 10 * time.Minute}}
	checkAttacks(t, []attack{
		{name: "4 MB of numbers", src: `(count (json/parse-string data/numbers))`, want: stepLimit, maxAlloc: 128 << 20},
		{name: "4 MB of objects", src: `(count (json/parse-string data/objects))`, want: stepLimit, maxAlloc: 128 << 20},
	}, env)
	res := run(t, `(json/parse-string "{\"a\": [1, 2.5, {\"b\": null}], \"c\": \"x\"}" true)`, Env{})
	if res.Err != nil || Repr(res.Value) != `{:a [1 2.5 {:b nil}], :c "x"}` {
		t.Errorf("a small text: %v, %v", res.Value, res.Err)
	}
}

// TestErrorTextCountsAgainstTheEmitLimit: a failed turn's error travels
// back with its prints, so its message is cut to what the emit limit
// leaves; a long name in a message is cut too.
func TestErrorTextCountsAgainstTheEmitLimit(t *testing.T) {
	limits := Limits{MaxEmitBytes: 4 << 10, MaxOutputBytes: 64 << 10}
	res := run(t, `(println (apply str (repeat 3000 "x"))) (fail (apply str (repeat 3000 "y")))`, Env{Limits: limits})
	if res.Err == nil || res.Err.Kind != emitLimit {
		t.Errorf("a fail reason past the emit limit: got %v, want emit_limit", res.Err)
	}
	long := strings.Repeat("z", 1<<20)
	res = run(t, `(declare `+long+`) (println (apply str (repeat 3000 "x"))) (`+long+` 1) (def `+long+` 2)`, Env{Limits: limits})
	if res.Err == nil || res.Err.Kind != undefinedSymbol {
		t.Fatalf("got %v, want undefined_symbol", res.Err)
	}
	if n := len(res.Err.Message) + len(res.Err.Hint); n > 4096-3000 {
		t.Errorf("a message of %d bytes after 3,000 bytes printed under an emit limit of 4 KiB", n)
	}
}

// TestFunctionsWeighTheirText: a function's weight and footprint count
// its source text, not only what it captured, so a vector of a closure
// with a long body is as heavy as it prints.
func TestFunctionsWeighTheirText(t *testing.T) {
	body := strings.Repeat("x", 100_000)
	res := run(t, `(fn [] "`+body+`")`, Env{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	f := res.Value
	if w := weightOf(f); w < 100_000 {
		t.Errorf("a closure with a 100 KB body weighs %d", w)
	}
	if n := Footprint(f); n < 100_000 {
		t.Errorf("a closure with a 100 KB body has a footprint of %d bytes", n)
	}
	if n, one := Footprint(NewVector([]Value{f, f, f})), Footprint(f); n > one+400 {
		t.Errorf("three references to one closure count %d bytes, one %d: shared code counts once", n, one)
	}
	res = run(t, `(let [f (fn [] "`+body+`")] (vec (repeat 1000 f)))`, Env{})
	if res.Err == nil || res.Err.Kind != memoryLimit {
		t.Errorf("a vector printing as 100 MB of one closure: got %v, want memory_limit", res.Err)
	}
}

// TestNestedSetsPrintInLinearTime: a set prints its elements in order of
// their text; each element is printed once, so sets nested in sets print
// in time linear in their text. Before, each level printed its elements
// twice, and an 81-byte program ran for seconds past its timeout.
func TestNestedSetsPrintInLinearTime(t *testing.T) {
	var texts, allocs [2]int64
	for i, levels := range []int{12, 16} {
		src := fmt.Sprintf(`(let [s (reduce (fn [s _] #{s [s]}) #{} (range %d))] (count (str s)))`, levels)
		// Each set made hashes s, whose key is its whole text, once per
		// path: 16 levels are charged about 14 MB.
		res, alloc := runAttack(t, attack{name: src, src: src}, Env{Limits: Limits{MaxAllocBytes: 32 << 20}})
		if res.Err != nil {
			t.Fatalf("%s: %v", src, res.Err)
		}
		texts[i], allocs[i] = int64(res.Value.(Int)), alloc
	}
	// Each level holds the one below twice: the text grows 16 times from
	// 12 levels to 16. Printing each set's elements twice grew the work
	// 256 times.
	if textGrowth, allocGrowth := float64(texts[1])/float64(texts[0]), float64(allocs[1])/float64(allocs[0]); allocGrowth > 3*textGrowth && !raceDetector {
		t.Errorf("from 12 to 16 levels the text grew %.0fx and the bytes allocated %.0fx", textGrowth, allocGrowth)
	}
	res := run(t, `(let [s (reduce (fn [s _] #{s [s]}) #{} (range 24))] (count (str s)))`, Env{})
	if k := errKind(res); k != memoryLimit && k != stepLimit {
		t.Errorf("24 levels: got %v, want the budget to stop it", res.Err)
	}
}

// letRebindings is a program of n let bindings that each read the first:
// analyzing it looked every one up by scanning all the bindings before
// it, and charged nothing (a 1.4 MB one ran 18 s under a 1 s timeout).
func letRebindings(n int) string {
	var b strings.Builder
	b.WriteString("(let [a 1 ")
	for i := range n {
		fmt.Fprintf(&b, "b%d a ", i)
	}
	b.WriteString("] a)")
	return b.String()
}

// TestAnalysisIsChargedAndClocked: analysis charges a step per form and
// so stops at the step budget and at the clock, the same way on every
// run; a program read once and analyzed once is charged its analysis
// again on every evaluation that reuses it, so a replay stops where the
// first run did.
func TestAnalysisIsChargedAndClocked(t *testing.T) {
	src := letRebindings(120_000) // 1.4 MB
	checkAttacks(t, []attack{
		{name: "1.4 MB of let bindings, small budget", src: src, want: stepLimit, maxAlloc: 512 << 20},
	}, Env{Limits: Limits{MaxSteps: 100_000}})
	res := run(t, src, Env{Limits: Limits{MaxSteps: Unlimited, Timeout: time.Millisecond}})
	if res.Err == nil || res.Err.Kind != timeout {
		t.Errorf("1.4 MB of let bindings in 1 ms: got %v, want timeout", res.Err)
	}
	p, err := ReadProgram(`(defn f [x] (* 2 x)) (map f (range 10))`, 0)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := EvalProgram(context.Background(), p, Env{})
	again, _ := EvalProgram(context.Background(), p, Env{})
	if first.Err != nil || first.Steps != again.Steps {
		t.Errorf("a program analyzed once: %d steps, then %d reusing the analysis (%v)", first.Steps, again.Steps, first.Err)
	}
}

// TestParsersBoundTheirNesting: every recursive parser refuses input
// nested past its limit with a parse error, whatever the nesting is made
// of.
func TestParsersBoundTheirNesting(t *testing.T) {
	for _, src := range []string{
		strings.Repeat("(", 5000), strings.Repeat("[", 5000), strings.Repeat("{:a ", 5000),
		strings.Repeat("#{", 5000), strings.Repeat("'", 5000) + "x", strings.Repeat("^:m ", 5000) + "x",
		strings.Repeat("#_", 5000) + "1 2", strings.Repeat("#(", 2) + ")",
	} {
		res := run(t, src, Env{})
		if res.Err == nil || res.Err.Kind != parseError {
			t.Errorf("%.20s...: got %v, want parse_error", src, res.Err)
		}
	}
	for _, text := range []string{strings.Repeat("[", 5000), strings.Repeat("{:a ", 5000), strings.Repeat("#_", 5000) + "1"} {
		if _, err := ParseEDN(text, 0); err == nil {
			t.Errorf("EDN %.20s... read", text)
		}
	}
	if _, err := DecodeJSON(strings.Repeat(`{"a":`, 5000), 0); err == nil {
		t.Error("JSON nested 5,000 deep read")
	}
}

// TestDefiningALargeValueIsCharged: checking a definition walks its value
// (can it be kept, does it nest too deep), charged a step per value, so
// defining a large value in a loop meets the step budget.
func TestDefiningALargeValueIsCharged(t *testing.T) {
	checkAttacks(t, []attack{
		{name: "def of 100,000 items in a loop", src: `(let [v (vec (range 100000))] (dotimes [i 100000] (def x v)) :done)`,
			want: stepLimit, maxAlloc: 64 << 20},
	}, Env{})
}

// A value read from the wire as source is remembered by the server and
// shared by every caller that sends the same text: one holding a value
// that lives only while a program runs (an atom, a transient, an
// exception, a transducer), at any depth and inside functions, is
// refused. A closure over an atom sent as an earlier result counted up
// across callers (1, 2, 3, ... for 100 callers at once).
func TestWireRefusesWhatLivesOnlyInARun(t *testing.T) {
	source := func() (context.Context, error) { return context.Background(), nil }
	for _, text := range []string{
		`(let [a (atom 0)] (fn [] (swap! a inc)))`,
		`(let [a (atom 0)] (memoize (fn [x] (swap! a inc))))`,
		`(let [a (atom 0)] (map (fn [x] (swap! a inc)) (range)))`,
		`(let [a (atom 0)] (comp inc (fn [x] (swap! a inc))))`,
		`(let [t (transient [])] (fn [] (conj! t 1)))`,
		`(ex-info "x" {:n (atom 0)})`,
		`[(ex-info "x" {})]`,
		`(volatile! 0)`,
		`{:a (atom [])}`,
	} {
		v, _, err := ReadWire(text, WireRead{Source: source})
		e, ok := err.(*Error)
		if !ok || e.Kind != validationError || !strings.Contains(e.Message, "lives only while the program") {
			t.Errorf("%s: read as %v (%v), want it refused", text, v, err)
		}
	}
	// What holds only values and functions is read as before.
	for _, text := range []string{`(map (memoize (fn [x] (* x x))) (range))`, `(fn [x] (inc x))`, `(comp inc dec)`} {
		if _, _, err := ReadWire(text, WireRead{Source: source}); err != nil {
			t.Errorf("%s: %v", text, err)
		}
	}
}

// The analysis records at most maxWarnings warnings and counts the rest
// in one more: a program defining 5,000 atoms wrote 5,000 warnings, one
// per name, each compared with all before it (40,000 made a 7 MB turn).
func TestWarningsAreBounded(t *testing.T) {
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, "(def a%d (atom %d))\n", i, i)
	}
	b.WriteString("(def round 1) 1") // a warning of another kind, left out too
	// A name as long as the program allows, quoted by its warning.
	fmt.Fprintf(&b, "\n(def %s (atom 0)) 1", strings.Repeat("n", 1<<20))
	res := run(t, b.String(), Env{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if len(res.Warnings) != maxWarnings+1 {
		t.Fatalf("%d warnings, want %d and one counting the rest", len(res.Warnings), maxWarnings+1)
	}
	if last := res.Warnings[maxWarnings]; last.Type != WarningEvaluationOnly || !strings.Contains(last.Message, "4902 more warnings") {
		t.Errorf("the last warning is %+v", last)
	}
	res = run(t, fmt.Sprintf("(def %s (atom 0)) 1", strings.Repeat("n", 1<<20)), Env{})
	if len(res.Warnings) != 1 || len(res.Warnings[0].Message) > maxWarningBytes+3 {
		t.Errorf("a warning quoting a 1 MiB name: %d warnings, the first of %d bytes", len(res.Warnings), len(res.Warnings[0].Message))
	}
}

// TestDataDiffIsLinear: clojure.data/diff compares two values whole at
// every level in Clojure; here the walk that builds the parts decides
// equality too, so a 5,000-deep pair is diffed in one pass, and a long
// pair ends at the step budget, a step per index.
func TestDataDiffIsLinear(t *testing.T) {
	deep := `(clojure.data/diff (reduce (fn [acc _] [acc]) 1 (range 5000)) (reduce (fn [acc _] [acc]) 2 (range 5000)))`
	res := run(t, `(let [[a b both] `+deep+`] [(count (pr-str a)) (nil? both) (first (flatten a)) (first (flatten b))])`, Env{})
	if res.Err != nil || Repr(res.Value) != "[10001 true 1 2]" {
		t.Errorf("diff of two 5,000-deep vectors: %v, %v; want [10001 true 1 2]", res.Value, res.Err)
	}
	checkAttacks(t, []attack{
		{name: "diff of two 300,000-item vectors", src: `(clojure.data/diff (vec (range 300000)) (vec (range 1 300001)))`,
			want: stepLimit, maxAlloc: 64 << 20},
	}, Env{})
}

// TestReadRecordTypesAreCounted: a record literal read in a value holds
// its type's field list beside its map, which the read cost counts, and
// the literals of one type in a value share one list. Before, each
// literal had a list of its own that no cost counted: a record of a
// million fields sent as an earlier result cost 19 times its text over
// gRPC (the bound is 16), and 500,000 literals half a million lists.
func TestReadRecordTypesAreCounted(t *testing.T) {
	var many, wide, plain strings.Builder
	many.WriteString("[")
	for i := range 1000 {
		fmt.Fprintf(&many, "#user.R{:a %d, :b 2} #user.S{:a %d} ", i, i)
	}
	many.WriteString("]")
	v, _, err := ReadWire(many.String(), WireRead{})
	if err != nil {
		t.Fatal(err)
	}
	classes := map[*recordClass]int{}
	for _, e := range v.(*Vector).Elems() {
		classes[e.(*Map).class()]++
	}
	if len(classes) != 2 {
		t.Errorf("2,000 literals of two types read as %d types", len(classes))
	}
	// A literal of other keys is another type of the same name.
	v, _, err = ReadWire("[#user.R{:a 1} #user.R{:b 1} #user.R{:a 2}]", WireRead{})
	if err != nil {
		t.Fatal(err)
	}
	if e := v.(*Vector).Elems(); e[0].(*Map).class() == e[1].(*Map).class() || !e[1].(*Map).class().isField(Keyword("b")) || e[2].(*Map).class().isField(Keyword("b")) {
		t.Errorf("#user.R{:a 1} and #user.R{:b 1} read as one type")
	}
	const n = 10_000
	wide.WriteString("#user.W{")
	plain.WriteString("{")
	for i := range n {
		fmt.Fprintf(&wide, ":f%d %d ", i, i)
		fmt.Fprintf(&plain, ":f%d %d ", i, i)
	}
	wide.WriteString("}")
	plain.WriteString("}")
	_, wideCost, err := ReadWire(wide.String(), WireRead{})
	if err != nil {
		t.Fatal(err)
	}
	_, plainCost, err := ReadWire(plain.String(), WireRead{})
	if err != nil {
		t.Fatal(err)
	}
	if wideCost-plainCost < n*heapSlot {
		t.Errorf("a record of %d fields costs %d to read, its map alone %d: the field list is not counted", n, wideCost, plainCost)
	}
}

// TestFootprintCountsRecordTypes: the footprint a host keeps values by
// counts a record type's field list once, however many records share it.
func TestFootprintCountsRecordTypes(t *testing.T) {
	var wide, plain strings.Builder
	wide.WriteString("[#user.W{")
	plain.WriteString("[{")
	for i := range 10_000 {
		fmt.Fprintf(&wide, ":f%d %d ", i, i)
		fmt.Fprintf(&plain, ":f%d %d ", i, i)
	}
	wide.WriteString("} #user.S{:a 1} #user.S{:a 2}]")
	plain.WriteString("} {:a 1} {:a 2}]")
	w, _, err := ReadWire(wide.String(), WireRead{})
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := ReadWire(plain.String(), WireRead{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Footprint(w)-Footprint(p), int64(2*heapClass+heapSlot*10_001); got != want {
		t.Errorf("the records' footprint is their maps' and %d, want %d (two types, 10,001 fields)", got, want)
	}
}

// TestDefrecordExpansionIsCharged: a defrecord's two functions are
// charged as they are compiled. Before, 10,000 (defrecord Rn [a b]) of
// 0.23 MB compiled to 36 MB of Go memory with nothing charged, and the
// server peaked at +56 to +79 MiB against a 49 MiB bound.
func TestDefrecordExpansionIsCharged(t *testing.T) {
	var b strings.Builder
	for i := range 10_000 {
		fmt.Fprintf(&b, "(defrecord R%d [a b])\n", i)
	}
	checkAttacks(t, []attack{
		{name: "10,000 defrecords", src: b.String() + "1", want: memoryLimit, maxAlloc: 32 << 20},
	}, Env{Limits: Limits{Timeout: time.Minute}})
	if res := run(t, "(defrecord P [x y]) (defrecord Q [a]) [(->P 1 2) (map->Q {:a 3})]", Env{}); res.Err != nil {
		t.Errorf("two records: %v", res.Err)
	}
}

// TestRememberedProgramReplaysItsAnalysisCharge: a program read once and
// evaluated again reuses its analysis, and is charged the allocation the
// analysis was, as it is its steps. Before, a defrecord of 20,000 fields
// (charged 10.2 MB as it is compiled) ended at memory_limit the first
// time and ran to the end every later time.
func TestRememberedProgramReplaysItsAnalysisCharge(t *testing.T) {
	src := "(defrecord R [" + func() string {
		var b strings.Builder
		for i := range 20_000 {
			fmt.Fprintf(&b, "f%d ", i)
		}
		return b.String()
	}() + "]) (count (vec (range 100000)))"
	p, err := ReadProgram(src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var first *Result
	for i := range 3 {
		res, err := EvalProgram(context.Background(), p, Env{})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = res
			continue
		}
		if errKind(res) != errKind(first) || res.AllocBytes != first.AllocBytes || res.Steps != first.Steps {
			t.Errorf("run %d: %s after %d bytes and %d steps, the first %s after %d and %d", i+1,
				errKind(res), res.AllocBytes, res.Steps, errKind(first), first.AllocBytes, first.Steps)
		}
	}
	if errKind(first) != memoryLimit {
		t.Errorf("the first run ended with %v, want memory_limit", first.Err)
	}
}

// TestBigIntegerTextIsCharged: converting decimal text to a big integer
// is quadratic in its digits (18 ms for 100,000), and bigint, biginteger
// and the reader of a program charge it (bigParseSteps), so a loop of
// conversions ends at the step limit, alike on any machine. Before, each
// was charged as a scan of its text and 1,000 ran to the timeout.
func TestBigIntegerTextIsCharged(t *testing.T) {
	digits := strings.Repeat("7", 100_000)
	checkAttacks(t, []attack{
		{name: "bigint of 100,000 digits, 1,000 times", src: `(let [s "` + digits + `"] (dotimes [i 1000] (bigint s)) 1)`, want: stepLimit, maxAlloc: 32 << 20},
		{name: "biginteger of 100,000 digits, 1,000 times", src: `(let [s "` + digits + `"] (dotimes [i 1000] (biginteger s)) 1)`, want: stepLimit, maxAlloc: 32 << 20},
		{name: "a program of 20 literals of 100,000 digits", src: "(count [" + strings.Repeat(digits+" ", 20) + "])", want: stepLimit, maxAlloc: 32 << 20},
	}, Env{})
	// One conversion of the most digits read fits the default budget.
	for _, src := range []string{`(count (str (bigint "` + digits + `")))`, "(count (str " + digits + "N))"} {
		if res := run(t, src, Env{}); res.Err != nil || res.Value != Int(100_000) {
			t.Errorf("%.40s...: %v, %v; want 100000", src, res.Value, res.Err)
		}
	}
	if a, b := bigParseSteps(10_000), bigParseSteps(100_000); b < 90*a {
		t.Errorf("10 times the digits cost %d times the steps, want about 100 (quadratic)", b/a)
	}
}

// TestReadingLongTokensLooksAtTheContext: a value's reader looks at its
// caller's context by the text it has read as well as by the forms, so
// that a few hundred integers of 100,000 digits (milliseconds each to
// convert) stop when the request's time is up, not after all of them.
func TestReadingLongTokensLooksAtTheContext(t *testing.T) {
	digits := strings.Repeat("7", 100_000)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, how := range []WireRead{{Ctx: ctx}, {Ctx: ctx, JSON: true}} {
		text := "[" + strings.Repeat(digits+" ", 10) + "]"
		if how.JSON {
			text = "[" + strings.Repeat(digits+",", 9) + digits + "]"
		}
		if _, _, err := ReadWire(text, how); err != context.Canceled {
			t.Errorf("JSON %v: ten integers of 100,000 digits read under a cancelled context: %v, want %v", how.JSON, err, context.Canceled)
		}
	}
}

// TestCollectedItemsAllocateWhatIsCharged: sequence, eduction and into
// with a transducer collect their items in chunks, copied once, so that
// Go allocates about what they are charged (an element collected and one
// of the vector) rather than the five times that one growing slice
// allocates; an eduction over an infinite sequence stops at the budget
// within it. The items keep their order across the chunks.
func TestCollectedItemsAllocateWhatIsCharged(t *testing.T) {
	checkAttacks(t, []attack{
		{name: "an eduction of cat over an infinite sequence", src: `(reduce + (eduction cat (repeat (range 1000))))`, want: memoryLimit, maxAlloc: 40 << 20},
		{name: "into with (map inc) over (range)", src: `(count (into [] (map inc) (range)))`, want: memoryLimit, maxAlloc: 40 << 20},
	}, Env{Limits: Limits{MaxSteps: 100_000_000}})
	res := run(t, `(let [v (into [] (comp (map inc) (filter odd?)) (range 20000))] [(count v) (first v) (nth v 4095) (nth v 4096) (peek v)])`, Env{})
	if got := Repr(res.Value); res.Err != nil || got != "[10000 1 8191 8193 19999]" {
		t.Errorf("into with a transducer over 20,000 items: %v, %v", got, res.Err)
	}
}
