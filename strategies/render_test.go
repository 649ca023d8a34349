package strategies

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// TestRenderValue walks every rule of value rendering (docs/STRATEGIES.md,
// "Value rendering"), the examples of that section literally included.
func TestRenderValue(t *testing.T) {
	cases := []struct {
		name       string
		edn        string
		limit, max int
		want       string
	}{
		{"nil", "nil", 3, 80, "nil"},
		{"true", "true", 3, 80, "true"},
		{"false", "false", 3, 80, "false"},
		{"integer", "-42", 3, 80, "-42"},
		{"float keeps one zero", "1.0", 3, 80, "1.0"},
		{"float tenth", "0.1", 3, 80, "0.1"},
		{"float noise dropped", "3.3000000000000003", 3, 80, "3.3"},
		{"float at most ten digits", "0.123456789012", 3, 80, "0.123456789"},
		{"float tiny rounds to zero", "1e-12", 3, 80, "0.0"},
		{"float below 1e7 is plain", "9999999.25", 3, 80, "9999999.25"},
		{"float from 1e7 as the interpreter prints it", "1e7", 3, 80, "1.0E7"},
		{"float huge stays short", "1e308", 3, 80, "1.0E308"},
		{"float huge negative", "-1.5e300", 3, 80, "-1.5E300"},
		{"float negative", "-2.5", 3, 80, "-2.5"},
		{"infinity", "##Inf", 3, 80, "##Inf"},
		{"negative infinity", "##-Inf", 3, 80, "##-Inf"},
		{"not a number", "##NaN", 3, 80, "##NaN"},
		{"string", `"hello"`, 3, 80, `"hello"`},
		{"string escapes", `"a\"b\\c\nd\te\rf"`, 3, 80, `"a\"b\\c\nd\te\rf"`},
		{"string cut (spec example)", `"very long string"`, 3, 10, `"very long ..."`},
		{"string of exactly P kept", `"0123456789"`, 3, 10, `"0123456789"`},
		{"string cut counts characters", `"ééééé"`, 3, 3, `"ééé..."`},
		{"string of exactly P characters kept", `"ééé"`, 3, 3, `"ééé"`},
		{"string cut at zero", `"ab"`, 3, 0, `"..."`},
		{"string cut before escaping", `"ab\ncd"`, 3, 3, `"ab\n..."`},
		{"keyword", ":active", 3, 80, ":active"},
		{"qualified keyword", ":user/id", 3, 80, ":user/id"},
		{"vector", "[1 2 3]", 3, 80, "[1 2 3]"},
		{"empty vector", "[]", 3, 80, "[]"},
		{"vector cut (spec example)", "[1 2 3 4 5]", 2, 80, "[1 2 ...] (5 items, showing first 2)"},
		{"vector limit zero", "[1 2]", 0, 80, "[...] (2 items, showing first 0)"},
		{"nested vectors use the same limits", `[[1 2 3 4] "abcdef"]`, 3, 4, `[[1 2 3 ...] (4 items, showing first 3) "abcd..."]`},
		{"set ordered by text", `#{"b" "a" 10 2}`, 5, 80, `#{"a" "b" 10 2}`},
		{"set cut", "#{5 4 3 2 1}", 2, 80, "#{1 2 ...} (5 items, showing first 2)"},
		{"empty set", "#{}", 3, 80, "#{}"},
		{"map keys in byte order", `{:b "x" :a 1}`, 3, 80, `{:a 1 :b "x"}`},
		{"map cut (spec example)", `{:name "Laptop" :price 1200 :category "Electronics"}`, 3, 80, `{:category "Electronics" :name "Laptop" ...}`},
		{"map entries bounded by P div 30", `{:a 1 :b 2 :c 3}`, 3, 60, `{:a 1 :b 2 ...}`},
		{"map entries at least one", `{:a 1 :b 2}`, 3, 20, `{:a 1 ...}`},
		{"map entries bounded by L", `{:a 1 :b 2 :c 3 :d 4}`, 3, 200, `{:a 1 :b 2 :c 3 ...}`},
		{"map hidden keys dropped and not counted", `{:_secret 1 :a 2 :b 3}`, 3, 60, `{:a 2 :b 3}`},
		{"map hidden string keys dropped", `{"_secret" 1 "a" 2}`, 3, 80, `{"a" 2}`},
		{"map only hidden keys", `{:_a 1}`, 3, 80, `{}`},
		{"nested hidden keys dropped", `[{:_t "x" :id 1}]`, 3, 80, `[{:id 1}]`},
		{"map values share P: (80-20)/2 = 30", `{:a "0123456789012345678901234567890123" :b 1}`, 3, 80, `{:a "012345678901234567890123456789..." :b 1}`},
		{"map values get at least 10", `{:a "0123456789abc"}`, 3, 15, `{:a "0123456789..."}`},
		{"map keys rendered without limits", `{"a long key beyond the limit" 1}`, 3, 5, `{"a long key beyond the limit" 1}`},
		{"empty map", "{}", 3, 80, "{}"},
		{"map with integer keys by text", "{10 :x 9 :y}", 3, 80, "{10 :x 9 :y}"},
		{"map with keyword and string keys by text", `{:b 1 "a" 2 :a 3}`, 3, 200, `{"a" 2 :a 3 :b 1}`},
		{"map hidden string key among keywords", `{"_x" 1 :b 2 :a 3}`, 3, 80, `{:a 3 :b 2}`},
		{"map of more than 8 keywords", `{:i 9 :h 8 :g 7 :f 6 :e 5 :d 4 :c 3 :b 2 :a 1 :j 10}`, 20, 1000, `{:a 1 :b 2 :c 3 :d 4 :e 5 :f 6 :g 7 :h 8 :i 9 :j 10}`},
		{"float with many digits", "1.2345678901234568e20", 3, 80, "1.2345678901234568E20"},
		{"float with trailing zeros", "[2.50 -0.0 1e-11]", 3, 80, "[2.5 -0.0 0.0]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := lisp.ParseEDN(c.edn, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := RenderValue(v, c.limit, c.max); got != c.want {
				t.Errorf("RenderValue(%s, %d, %d) = %s, want %s", c.edn, c.limit, c.max, got, c.want)
			}
		})
	}
}

// testFn is a function value with the given parameters.
type testFn struct{ params []string }

func (*testFn) TypeName() string                                    { return "function" }
func (*testFn) Call(*lisp.Thread, []lisp.Value) (lisp.Value, error) { return lisp.Nil, nil }
func (f *testFn) ParamNames() []string                              { return f.params }

func TestRenderFunctions(t *testing.T) {
	cases := []struct {
		v    lisp.Value
		want string
	}{
		{&testFn{[]string{"x", "y"}}, "#fn[x y]"},
		{&testFn{nil}, "#fn[]"},
		{lisp.NewVector([]lisp.Value{&testFn{[]string{"a", "&", "rest"}}}), "[#fn[a & rest]]"},
	}
	for _, c := range cases {
		if got := RenderValue(c.v, 3, 80); got != c.want {
			t.Errorf("got %s, want %s", got, c.want)
		}
	}
}

// TestRenderFloatArithmetic checks the float rule on a computed value, not a
// literal: 1.1 + 2.2 shows as 3.3.
func TestRenderFloatArithmetic(t *testing.T) {
	sum := lisp.Float(1.1 + 2.2)
	if got := RenderValue(sum, 3, 80); got != "3.3" {
		t.Errorf("1.1+2.2 renders %s, want 3.3", got)
	}
	if got := RenderValue(lisp.Float(math.Copysign(0, -1)), 3, 80); got != "-0.0" {
		t.Errorf("-0.0 renders %s", got)
	}
}

func TestRenderLargeCollectionStaysSmall(t *testing.T) {
	elems := make([]lisp.Value, 100000)
	for i := range elems {
		elems[i] = lisp.String(strings.Repeat("x", 1000))
	}
	got := RenderValue(lisp.NewVector(elems), 3, 80)
	if len(got) > 400 || !strings.HasSuffix(got, "(100000 items, showing first 3)") {
		t.Errorf("large vector rendered as %d bytes: %.200s", len(got), got)
	}
}

// TestRenderValuesAtTheNestingCap: the renderer recurses once per level a
// value nests, which reading the value bounded (at most
// lisp.MaxValueNesting, --max-value-depth's ceiling); a value nested that
// deep in each kind of collection renders whole. Sets and map keys nested
// in one another are rendered whole at each level to order them, work the
// reader bounds as the text it hashes whole (twice the value's text): a
// set nested a thousand deep reads only inside megabytes of other data.
func TestRenderValuesAtTheNestingCap(t *testing.T) {
	const depth = lisp.MaxValueNesting
	pad := `"` + strings.Repeat("x", 3<<20) + `"`
	inner := `"` + strings.Repeat("x", 64<<10) + `"`
	for _, text := range []string{
		// A collection costs more than its brackets once read: the text
		// of the string inside lets the reader build them.
		strings.Repeat("[", depth) + inner + strings.Repeat("]", depth),
		strings.Repeat("(1 ", depth) + inner + strings.Repeat(")", depth),
		strings.Repeat("{:a ", depth) + inner + strings.Repeat("}", depth),
		"[" + pad + " " + strings.Repeat("#{", 1000) + strings.Repeat("}", 1000) + "]",
		"[" + pad + " " + strings.Repeat("{", 1000) + strings.Repeat("} 1", 1000) + "]",
	} {
		v, err := lisp.ParseEDN(text, depth)
		if err != nil {
			t.Fatalf("%.20s: %v", text, err)
		}
		if got := RenderValue(v, unlimited, unlimited); got != lisp.Repr(v) {
			t.Errorf("%.20s renders as %.60s..., want its text", text, got)
		}
	}
}

// TestWriteStringCutsByCharacters checks the cut against its definition:
// a string of more than printable characters (utf8.RuneCountInString, an
// invalid byte counting one) keeps its first printable characters.
func TestWriteStringCutsByCharacters(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	pieces := []string{"a", "é", "漢", "😀", "\xff", "\xe2\x82", "\n", `"`}
	for range 5000 {
		var sb strings.Builder
		for range r.IntN(12) {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		s, printable := sb.String(), r.IntN(14)
		want := s
		if utf8.RuneCountInString(s) > printable {
			i := 0
			for range printable {
				_, size := utf8.DecodeRuneInString(s[i:])
				i += size
			}
			want = s[:i]
		}
		var b, w strings.Builder
		writeString(&b, s, printable)
		w.WriteByte('"')
		lisp.WriteEscaped(&w, want)
		if want != s {
			w.WriteString("...")
		}
		w.WriteByte('"')
		if b.String() != w.String() {
			t.Fatalf("writeString(%q, %d) = %s, want %s", s, printable, b.String(), w.String())
		}
	}
}

// TestCallerTextsStayOnOneLine: line breaks in a docstring or a tool
// description become spaces; a text without them is kept as it is.
func TestCallerTextsStayOnOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"":                     "",
		"plain text":           "plain text",
		"a\r\nb\nc\rd":         "a b c d",
		"\n\nends\r\n":         "  ends ",
		"keeps\ttabs\u2028and": "keeps\ttabs\u2028and",
	} {
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
	var b strings.Builder
	writeFunctionLine(&b, &Binding{Name: "score", Fn: &Function{Params: []string{"x"}, Docstring: "Scores;\r\na product\nfast", ReturnType: "float"}})
	if want := `(score [x])                   ; "Scores a product fast" -> float`; b.String() != want {
		t.Errorf("function line %q, want %q", b.String(), want)
	}
}
