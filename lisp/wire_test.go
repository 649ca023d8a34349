package lisp

import (
	"context"
	"strings"
	"testing"
)

// TestWireTextReadsBack: the wire text of a value reads back as a value
// with the same wire text, equal to the first when it is data that Equal
// can compare (NaN is unequal to itself, functions and regexes equal only
// themselves).
func TestWireTextReadsBack(t *testing.T) {
	for _, tc := range []struct{ expr, text string }{
		{`(keyword "a b")`, `(keyword "a b")`},
		{`(keyword "")`, `(keyword "")`},
		{`(keyword ":x")`, `(keyword ":x")`},
		{`(keyword "q\"")`, `(keyword "q\"")`},
		{`(keyword "user" "id")`, `:user/id`},
		{`(keyword "é")`, `:é`},
		{`{(keyword "a b") 1}`, `{(keyword "a b") 1}`},
		{`'x`, `(quote x)`},
		{`'[a b]`, `[(quote a) (quote b)]`},
		{`(re-pattern "a\"b")`, `(re-pattern "a\"b")`},
		{`#"\d+"`, `(re-pattern "\\d+")`},
		{`(fn [x] x)`, `(fn [x] x)`},
		{`(let [k (keyword "a b")] (fn [m] (k m)))`, `(let [k (keyword "a b")] (fn [m] (k m)))`},
		{`inc`, `inc`},
		{`(partial + 1)`, `(partial + 1)`},
		{`[##NaN -0.0 1.0E300 1.5E-7]`, `[##NaN -0.0 1.0E300 1.5E-7]`},
		{`-9223372036854775808`, `-9223372036854775808`},
		{`{nil 1, [1] 2, {:a 1} 3, 1.5 4}`, `{nil 1, [1] 2, {:a 1} 3, 1.5 4}`},
		{`#{(keyword "a 1") [:a 1]}`, `#{(keyword "a 1") [:a 1]}`},
		{"\"\x01 \\u0000\"", "\"\x01 \x00\""},
	} {
		res, err := Eval(context.Background(), tc.expr, Env{})
		if err != nil || res.Err != nil {
			t.Fatalf("%s: %v %v", tc.expr, err, res.Err)
		}
		text := WireText(res.Value)
		if text != tc.text {
			t.Errorf("%s is written %s, want %s", tc.expr, text, tc.text)
		}
		back, err := ReadValue(context.Background(), text, 0, 0)
		if err != nil {
			t.Errorf("%s: %s does not read back: %v", tc.expr, text, err)
			continue
		}
		if again := WireText(back); again != text {
			t.Errorf("%s: %s reads back as %s", tc.expr, text, again)
		}
		if !needsSource(res.Value) && !strings.Contains(text, "NaN") && !Equal(back, res.Value) {
			t.Errorf("%s: %s reads back unequal", tc.expr, text)
		}
	}
}

// TestReadValueRefusesSourceForData: source is read only for what EDN
// cannot spell; data sent as code is refused with the EDN error.
func TestReadValueRefusesSourceForData(t *testing.T) {
	for _, text := range []string{`(+ 1 2)`, `(keyword "a")`, `{:a (inc 1)}`, `(println 1)`, `(fn [x]`, `(def x 1)`} {
		if v, err := ReadValue(context.Background(), text, 0, 0); err == nil {
			t.Errorf("%s read as %s", text, Repr(v))
		}
	}
}

// TestKeywordsInCollectionsKeepApart: a keyword whose name holds a space
// is not the keyword and number its printed name looks like.
func TestKeywordsInCollectionsKeepApart(t *testing.T) {
	a := NewVector([]Value{Keyword("a 1")})
	b := NewVector([]Value{Keyword("a"), Int(1)})
	if hashKey(a) == hashKey(b) {
		t.Errorf("[(keyword \"a 1\")] and [:a 1] share a hash key")
	}
}

// TestReadValueBudget: source read from the wire may spend a budget
// proportional to its length, enough for what the sidecar writes (a
// closure over a large value) and not for a loop.
func TestReadValueBudget(t *testing.T) {
	var big strings.Builder
	big.WriteString("(let [rows [")
	for i := range 20_000 {
		big.WriteString(`{:id ` + strings.Repeat("7", 1+i%5) + ` :tags #{:a "b"}} `)
	}
	big.WriteString(`] k (keyword "a b")] (fn [i] (get (nth rows i) k)))`)
	if _, err := ReadValue(context.Background(), big.String(), 0, 0); err != nil {
		t.Errorf("a closure over 20,000 maps does not read back: %v", err)
	}
	if v, err := ReadValue(context.Background(), `[(loop [] (recur)) inc]`, 0, 0); err == nil {
		t.Errorf("a looping value read as %s", Repr(v))
	}
}

// TestReadValueUnderContext: reading a value as source stops when its
// context ends, as an evaluation does.
func TestReadValueUnderContext(t *testing.T) {
	text := `(let [a (vec (range 1100))] (fn [] a))` + strings.Repeat(" ", 600)
	if _, err := ReadValue(context.Background(), text, 0, 0); err != nil {
		t.Fatalf("does not read: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if v, err := ReadValue(ctx, text, 0, 0); err == nil {
		t.Errorf("read as %s under a cancelled context", TypeLabel(v))
	}
}

// BenchmarkWireText and BenchmarkRepr print 1,000 orders as the sidecar
// emits them and as println shows them; the difference is what checking
// each keyword's written form costs (docs/BENCHMARKS.md).
func BenchmarkWireText(b *testing.B) {
	orders := benchData(1000)
	for b.Loop() {
		_ = WireText(orders)
	}
}

func BenchmarkRepr(b *testing.B) {
	orders := benchData(1000)
	for b.Loop() {
		_ = Repr(orders)
	}
}
