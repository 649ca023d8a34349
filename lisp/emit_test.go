package lisp

import (
	"strings"
	"testing"
)

// TestPrintedSizeIsReprLength: the emitted size is the length of the text
// the wire carries, escapes and shared structure included.
func TestPrintedSizeIsReprLength(t *testing.T) {
	for _, src := range []string{
		`nil`, `true`, `-1234`, `1.5`, `1.0E10`, `:k/ns`, `"plain"`, `"q\"u\\o\nte\t\r"`, `"ünï"`,
		`[]`, `[1]`, `[1 "a" :b]`, `{}`, `{:a 1}`, `{:a 1, "b" [2 3], [4] {:c #{5}}}`,
		`#{}`, `#{1 2 3}`, `[[[[]]] {} #{[]}]`,
	} {
		v := mustEDN(src)
		want := int64(len(Repr(v)))
		if got := printedSize(v, 1<<20); got != want {
			t.Errorf("printedSize(%s) = %d, want %d (%s)", src, got, want, Repr(v))
		}
		if want > 0 && printedSize(v, want-1) <= want-1 {
			t.Errorf("printedSize(%s) with limit %d must pass the limit", src, want-1)
		}
	}
	res := run(t, `(let [s (apply str (repeat 100 "\"")) v (vec (repeat 3 [s {:k s}]))] [v (fn [] v)])`, Env{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if got, want := printedSize(res.Value, 1<<20), int64(len(Repr(res.Value))); got != want {
		t.Errorf("printedSize of shared structure = %d, want %d", got, want)
	}
}

// TestEmitLimit: a turn that would send back more than MaxEmitBytes fails
// with emit_limit, whichever part is too large, and changes no memory.
func TestEmitLimit(t *testing.T) {
	prelude, err := DecodeMemory([]WireBinding{{Name: "kept", Value: `"` + strings.Repeat("k", 3000) + `"`}})
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
