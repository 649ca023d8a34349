package lisp

import (
	"context"
	"strings"
	"testing"
)

// TestPrintedSizeIsReprLength: the emitted size is the length of the text
// the wire carries, escapes and shared structure included (the printer
// counting rather than keeping the text).
func TestPrintedSizeIsReprLength(t *testing.T) {
	for _, src := range []string{
		`nil`, `true`, `-1234`, `1.5`, `1.0E10`, `:k/ns`, `"plain"`, `"q\"u\\o\nte\t\r"`, `"ünï"`,
		`[]`, `[1]`, `[1 "a" :b]`, `{}`, `{:a 1}`, `{:a 1, "b" [2 3], [4] {:c #{5}}}`,
		`#{}`, `#{1 2 3}`, `[[[[]]] {} #{[]}]`,
	} {
		v := mustEDN(src)
		want := int64(len(Repr(v)))
		if got, _ := printedSize(v, 1<<20, DefaultMaxNesting); got != want {
			t.Errorf("printedSize(%s) = %d, want %d (%s)", src, got, want, Repr(v))
		}
		if got, _ := printedSize(v, want-1, DefaultMaxNesting); want > 0 && got <= want-1 {
			t.Errorf("printedSize(%s) with limit %d must pass the limit", src, want-1)
		}
	}
	for _, src := range []string{
		`(let [s (apply str (repeat 100 "\"")) v (vec (repeat 3 [s {:k s}]))] [v (fn [] v)])`,
		`(fn [x] (* 2 x))`,
		`(let [a 1 b [2 "c"]] (fn [x] (+ a x (count b))))`,
		`(let [k 3 f (fn [x] (* k x)) g (fn [y] (f (f y)))] [g {:f f}])`,
		`[(comp inc (partial + 2)) (every-pred odd? pos?) (where :a > "x\"y") (where [:a :b] = [1 #{2}]) (where :ok)]`,
		`(let [f (fn [x] (* 2 x))] (comp f (juxt f inc) (fnil f 0)))`,
	} {
		res := run(t, src, Env{})
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		want := int64(len(Repr(res.Value)))
		if got, _ := printedSize(res.Value, 1<<20, DefaultMaxNesting); got != want {
			t.Errorf("printedSize of %s = %d, want %d (%s)", src, got, want, Repr(res.Value))
		}
	}
}

// TestDeepValuesEndInDepthLimit: a value a program builds may nest as deep
// as the allocation budget allows, far deeper than the walks that print,
// compare or hash it should recurse, and deeper than the wire reads back.
// Every way of walking one ends in depth_limit, whether the value nests
// collections or functions that captured the last one.
func TestDeepValuesEndInDepthLimit(t *testing.T) {
	const deepVector = `(loop [x [] i 0] (if (< i 100000) (recur [x] (inc i)) x))`
	const deepMap = `(loop [x {} i 0] (if (< i 50000) (recur {:a x} (inc i)) x))`
	const deepFn = `(loop [f identity i 0] (if (< i 50000) (recur (fn [x] (f x)) (inc i)) f))`
	const deepComp = `(loop [f inc i 0] (if (< i 50000) (recur (comp f inc) (inc i)) f))`
	const deepMixed = `(loop [f inc i 0] (if (< i 20000) (recur (partial (fn [g x] (g x)) [f]) (inc i)) f))`
	host := hostFunc(func(context.Context, string, Value) (Value, error) { return Nil, nil })
	for _, tc := range []struct{ name, src string }{
		{"result", `(let [d ` + deepVector + `] d)`},
		{"str", `(let [d ` + deepVector + `] (str d))`},
		{"pr-str of a map", `(let [d ` + deepMap + `] (pr-str d))`},
		{"equal", `(let [d ` + deepVector + `] (= d [d]))`},
		{"compare", `(let [d ` + deepVector + `] (compare d d))`},
		{"hash", `(let [d ` + deepVector + `] (contains? #{1} d))`},
		{"def", `(let [d ` + deepVector + `] (def x d) 1)`},
		{"fail", `(let [d ` + deepVector + `] (fail d))`},
		{"tool arguments", `(let [d ` + deepVector + `] (tool/t {:a d}))`},
		{"assoc-in path", `(count (assoc-in {} (vec (range 20000)) 1))`},
		{"function chain as result", `(let [f ` + deepFn + `] f)`},
		{"function chain printed", `(let [f ` + deepFn + `] (pr-str f))`},
		{"function chain defined", `(let [f ` + deepFn + `] (def g f) 1)`},
		{"comp chain as result", `(let [f ` + deepComp + `] f)`},
		{"comp chain printed", `(let [f ` + deepComp + `] (str f))`},
		{"comp chain defined", `(let [f ` + deepComp + `] (def g f) 1)`},
		{"partial over vectors over closures", `(let [f ` + deepMixed + `] f)`},
		{"partial over vectors over closures, printed", `(let [f ` + deepMixed + `] (pr-str f))`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, tc.src, Env{Tools: []string{"t"}, Host: host})
			if res.Err == nil || res.Err.Kind != depthLimit {
				t.Fatalf("got %v, want depth_limit", res.Err)
			}
		})
	}
}

// TestEmitLimit: a turn that would send back more than MaxEmitBytes fails
// with emit_limit, whichever part is too large, and changes no memory.
func TestEmitLimit(t *testing.T) {
	prelude, err := DecodeMemory(context.Background(), []WireBinding{{Name: "kept", Value: `"` + strings.Repeat("k", 3000) + `"`}})
	if err != nil {
		t.Fatal(err)
	}
	limits := DefaultLimits()
	limits.MaxEmitBytes = 64 << 10
	for _, tc := range []struct{ name, src, where string }{
		// A value that fits the allocation budget by sharing, but prints
		// as 60 times its string.
		{"shared definition", `(def s (apply str (repeat 10000 "x"))) (def w (vec (repeat 60 s))) (count w)`, "the value of w"},
		{"shared result", `(let [s (apply str (repeat 10000 "x"))] (vec (repeat 60 s)))`, "the result"},
		{"escapes", `(apply str (repeat 40000 "\""))`, "the result"},
		{"memory in total", `(def a (apply str (repeat 33000 "x"))) (def b (apply str (repeat 33000 "y"))) :ok`, "the memory"},
		{"fail reason", `(fail (apply str (repeat 70000 "x")))`, "the result"},
		{"tool arguments", `(tool/echo {:blob (apply str (repeat 70000 "x"))})`, "the arguments of tool/echo"},
		{"tool arguments in total", `(dotimes [i 3] (tool/echo (apply str (repeat 30000 "x"))))`, "the arguments of tool/echo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := echoHost()
			res := run(t, tc.src, Env{Prelude: prelude, Limits: limits, Tools: []string{"echo"}, Host: h})
			if res.Err == nil || res.Err.Kind != emitLimit {
				t.Fatalf("got %v, want an emit_limit error", res.Err)
			}
			if !strings.Contains(res.Err.Message, tc.where) || res.Err.Hint == "" {
				t.Errorf("error %v should name %q and give a hint", res.Err, tc.where)
			}
			if res.Memory != prelude || len(res.Defined) != 0 || res.Value != Nil {
				t.Errorf("a turn over the emit limit must leave memory unchanged: memory %v, defined %v, value %v",
					res.Memory.Bindings(), res.Defined, res.Value)
			}
			if tc.name == "tool arguments" && len(h.calls) != 0 {
				t.Errorf("the tool was called with arguments over the limit: %v", len(h.calls))
			}
		})
	}
	ok := run(t, `(def a (apply str (repeat 20000 "x"))) (count a)`, Env{Prelude: prelude, Limits: limits})
	if ok.Err != nil {
		t.Fatalf("a turn within the limit failed: %v", ok.Err)
	}
}

// TestEmitLimitDefault: with the default limits, the program that shares
// one string sixty times in a definition is refused.
func TestEmitLimitDefault(t *testing.T) {
	res := run(t, `(def s (apply str (repeat 100000 "0123456789"))) (def w (vec (repeat 60 s))) (count w)`, Env{})
	if res.Err == nil || res.Err.Kind != emitLimit {
		t.Fatalf("got %v, want emit_limit", res.Err)
	}
	if res.Memory.len() != 0 {
		t.Errorf("memory holds %d bindings after a failed turn", res.Memory.len())
	}
}

// TestResultPartsWithoutText: a result holding, at any depth, a value that
// only lives while the program runs is refused as a definition of it is,
// rather than emitted as #<...>, which nothing reads back.
func TestResultPartsWithoutText(t *testing.T) {
	for _, src := range []string{
		`[(reduced 1)]`,
		`{:a #{(atom 0)}}`,
		`(fnil #{(reduced :b)} 1)`,
		`(let [r (reduced 2)] (fn [] r))`,
	} {
		res := run(t, src, Env{})
		if res.Err == nil || res.Err.Kind != validationError || !strings.Contains(res.Err.Message, "has no text it could be sent back as") {
			t.Errorf("%s: %v, %v", src, res.Value, res.Err)
		}
	}
	if res := run(t, `[(reduce (fn [a x] (reduced x)) 0 [1]) @(atom 2)]`, Env{}); res.Err != nil || Repr(res.Value) != "[1 2]" {
		t.Errorf("plain data taken out: %v, %v", res.Value, res.Err)
	}
}

// TestEmitTextNestsAsRead: a value whose wire text nests deeper than the
// nesting setting, counting the calls that write what EDN cannot spell,
// is refused when emitted, and everything emitted reads back under the
// same setting.
func TestEmitTextNestsAsRead(t *testing.T) {
	for _, c := range []struct {
		src     string
		nesting int
		refused bool
	}{
		{`[[(keyword "a b")]]`, 3, false},
		{`[[[(keyword "a b")]]]`, 3, true},
		{`[[[:ok]]]`, 3, false},
		{`[[["(((" #"\d"]]]`, 3, true},
		{`[["(((" #"\d"]]`, 3, false},
		{`[["(((" "]]]"]]`, 3, false},
		{`{:f (let [k [[1]]] (fn [] k))}`, 4, true},
		{`{:f (let [k [1]] (fn [] k))}`, 5, false},
	} {
		res, err := Eval(context.Background(), c.src, Env{})
		if err != nil || res.Err != nil {
			t.Fatalf("%s: %v %v", c.src, err, res.Err)
		}
		e := emitText(nil, res.Value, 1<<20, c.nesting, nil, "the result", true)
		text, ok, deep, bad := e.text, e.ok, e.deep, e.bad
		if refused := !ok || deep || bad != nil; refused != c.refused {
			t.Errorf("%s at nesting %d: refused %v (%v), want %v; text %s", c.src, c.nesting, refused, bad, c.refused, text)
			continue
		}
		if c.refused {
			if bad == nil || !strings.Contains(bad.Message, "nested more than") {
				t.Errorf("%s: refused with %v, want the nesting of its text named", c.src, bad)
			}
			continue
		}
		back, err := ReadValue(context.Background(), text, c.nesting, 0)
		if err != nil {
			t.Errorf("%s emitted as %s does not read back at nesting %d: %v", c.src, text, c.nesting, err)
		} else if again := WireText(back); again != text {
			t.Errorf("%s emitted as %s reads back as %s", c.src, text, again)
		}
	}
}

// TestRecordTextsEmitTheSameText: a turn that emits records of its data
// copies their texts (RecordTexts) and writes what printing them writes,
// whole, cut at a limit, and refused at the same nesting.
func TestRecordTextsEmitTheSameText(t *testing.T) {
	data, err := ParseEDN(`{:orders [{:id 1, :tag :a, :s "x \"y\""} {:id 2, :tag :b, :f 1.5, :n nil} {:id 3, :nested {:k 1}}]
	 :sets #{{:id 9}} :keyed {{:id 8} 1}}`, 0)
	if err != nil {
		t.Fatal(err)
	}
	data = Freeze(data)
	texts := NewRecordTexts(data)
	if texts.len() == 0 {
		t.Fatal("no record texts")
	}
	m := data.(*Map)
	for _, src := range []string{`data/orders`, `[data/orders data/sets data/keyed]`, `(group-by :tag data/orders)`, `[(first data/orders) (keyword "a b")]`, `(vec (filter :tag data/orders))`, `{:v (vec (filter :tag data/orders))}`} {
		res, err := Eval(context.Background(), src, Env{Data: m})
		if err != nil || res.Err != nil {
			t.Fatalf("%s: %v %v", src, err, res.Err)
		}
		for _, room := range []int64{1 << 20, 40, 10} {
			want := emitText(nil, res.Value, room, 0, nil, "the result", true)
			got := emitText(nil, res.Value, room, 0, texts, "the result", true)
			if got.text != want.text || got.ok != want.ok || want.ok && (got.size != want.size || got.readCost != want.readCost) || got.json != want.json {
				t.Errorf("%s in %d bytes: with record texts %q (%d, %v, %s), printed %q (%d, %v, %s)", src, room,
					got.text, got.size, got.ok, got.json, want.text, want.size, want.ok, want.json)
			}
		}
		wdeep := emitText(nil, res.Value, 1<<20, 2, nil, "the result", false).deep
		gdeep := emitText(nil, res.Value, 1<<20, 2, texts, "the result", false).deep
		if wdeep != gdeep {
			t.Errorf("%s at nesting 2: deep %v with record texts, %v printed", src, gdeep, wdeep)
		}
	}
}

// TestSentValuesHaveText: a fail reason and a tool call's arguments are
// sent back as a result is (the turn's result; the arguments echoed with
// the tool's answer), so what has no text that reads back is refused in
// them as in a result, naming which, with and without an emit limit;
// what reads back (a sequence that never ends, as its source) is not.
func TestSentValuesHaveText(t *testing.T) {
	for _, limits := range []Limits{DefaultLimits(), {MaxSteps: 100_000}} {
		for _, tc := range []struct{ src, want string }{
			{`(fail (atom 1))`, "the fail reason is an atom"},
			{`(fail {:why [(volatile! 1)]})`, "the fail reason holds a volatile"},
			{`(fail (try (/ 1 0) (catch Exception e e)))`, "the fail reason is an exception"},
			{`(fail (cat [1]))`, "the fail reason is a reducing function"},
			{`(fail (reduced 1))`, "the fail reason is (reduced ...)"},
			{`(tool/echo (transient []))`, "the arguments of tool/echo hold a transient"},
			{`(tool/echo {:a (atom 1)})`, "the arguments of tool/echo hold an atom"},
			{`(tool/echo {:rf ((map inc) conj)})`, "the arguments of tool/echo hold"},
			{`(fail (drop 2 (range)))`, ""},
			{`(fail {:f (fn [x] x) :k (keyword "a b")})`, ""},
			{`(tool/echo {:s (iterate inc 0)})`, ""},
		} {
			h := echoHost()
			res := run(t, tc.src, Env{Limits: limits, Tools: []string{"echo"}, Host: h})
			switch {
			case tc.want == "" && res.Err != nil && !res.Failed:
				t.Errorf("%s (emit limit %d): %v", tc.src, limits.MaxEmitBytes, res.Err)
			case tc.want != "" && (res.Err == nil || res.Err.Kind != validationError || !strings.Contains(res.Err.Message, tc.want)):
				t.Errorf("%s (emit limit %d): %v, want a validation_error containing %q", tc.src, limits.MaxEmitBytes, res.Err, tc.want)
			case tc.want != "" && (res.Failed || len(h.calls) != 0 || res.Value != Nil):
				t.Errorf("%s (emit limit %d): the turn still sends it: failed %v, %d calls, value %v", tc.src, limits.MaxEmitBytes, res.Failed, len(h.calls), res.Value)
			}
		}
	}
}
