package lisp

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadForms(t *testing.T) {
	cases := []struct{ src, want string }{
		{"42", "42"},
		{"-17", "-17"},
		{"+5", "5"},
		{"3.14", "3.14"},
		{"-0.5", "-0.5"},
		{"2.5e10", "2.5E10"},
		{"1.23e-4", "1.23E-4"},
		{"1E3", "1000.0"},
		{"##Inf ##-Inf ##NaN", "##Inf ##-Inf ##NaN"},
		{`"line1\nline2"`, `"line1\nline2"`},
		{`"tab\there" "quote: \"" "back\\slash" "\u00e9"`, `"tab\there" "quote: \"" "back\\slash" "é"`},
		{`\a \Z \5 \λ`, `"a" "Z" "5" "λ"`},
		{`\newline \space \tab \return \backspace \formfeed \u0041`, "\"\\n\" \" \" \"\\t\" \"\\r\" \"\b\" \"\f\" \"A\""},
		{`\( \)`, `"(" ")"`},
		{":name :user-id :else", ":name :user-id :else"},
		{"nil true false", "nil true false"},
		{"filter sort-by empty? ->> data/bar tool/search clojure.string/join", "filter sort-by empty? ->> data/bar tool/search clojure.string/join"},
		{"[1, 2, 3] {:a 1, :b 2}", "[1 2 3] {:a 1, :b 2}"},
		{"#{1 2 3}", "#{1 2 3}"},
		{"(+ 1 2) ; comment\n(f)", "(+ 1 2) (f)"},
		{"#_(ignored form) kept #_ #_ a b c", "kept c"},
		{"#(+ % 1)", "(fn [%1] (+ %1 1))"},
		{"#(+ %1 %2)", "(fn [%1 %2] (+ %1 %2))"},
		{"#(* % %)", "(fn [%1] (* %1 %1))"},
		{"#(42)", "(fn [] (42))"},
		{"#(apply + %&)", "(fn [& %&] (apply + %&))"},
		{"#(vector %2)", "(fn [%1 %2] (vector %2))"},
		{"#'x #'save!", "#'user/x #'user/save!"},
		{"#'user/x #'clojure.core/inc #'inc", "#'user/x #'clojure.core/inc #'clojure.core/inc"},
		{"'(1 2)", "(quote (1 2))"},
		{`#"\d+"`, `(re-pattern "\\d+")`},
		{"()", "()"},
		{"a,b", "a b"},
	}
	for _, c := range cases {
		forms, err := read(c.src, 0)
		if err != nil {
			t.Errorf("Read(%q): %v", c.src, err)
			continue
		}
		parts := make([]string, len(forms))
		for i, f := range forms {
			parts[i] = Repr(f)
		}
		if got := strings.Join(parts, " "); got != c.want {
			t.Errorf("Read(%q) = %s, want %s", c.src, got, c.want)
		}
	}
}

func TestReadPositions(t *testing.T) {
	forms, err := read("(a)\n  (b\n (c))", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := forms[1].(*list).Pos; got != (Pos{2, 3}) {
		t.Errorf("second form at %v, want line 2 column 3", got)
	}
	if got := forms[1].(*list).Elems[1].(*list).Pos; got != (Pos{3, 2}) {
		t.Errorf("nested form at %v, want line 3 column 2", got)
	}
}

// TestReadErrors compares reader errors with testdata/read_errors.golden,
// one "input => error" pair per case; run with -update to rewrite it.
func TestReadErrors(t *testing.T) {
	inputs := []string{
		"(+ 1 2",
		"(+ 1 2)) (+ 3 4)",
		"[1 2 3",
		"{:a 1 :b}",
		`"unterminated`,
		`"bad \q escape"`,
		`\foo`,
		`[[\"foo\"]]`,
		"1/3",
		"08", "2r102", "37r1", "0x1.5",
		"1.5.5M",
		"#?(:clj 1)",
		"#(+ #(inc %) 1)",
		"(a\n  (b\n    ]",
		"##Foo",
		":",
		"#(+ %0 1)",
		"#_",
		"(str \u201chello\u201d)",
		"(a|b)",
	}
	var b strings.Builder
	for _, in := range inputs {
		_, err := read(in, 0)
		if err == nil {
			t.Errorf("Read(%q) succeeded, want a parse error", in)
			continue
		}
		e := asError(err)
		if e.Kind != parseError {
			t.Errorf("Read(%q) error kind %s, want parse_error", in, e.Kind)
		}
		b.WriteString(strings.ReplaceAll(in, "\n", `\n`) + "\n  => " + e.Error() + "\n")
	}
	golden(t, "read_errors.golden", b.String())
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the output; run go test -update and review the diff.\ngot:\n%s", path, got)
	}
}

func TestReadDeepNesting(t *testing.T) {
	for _, open := range []string{"(", "[", "{", "#{", "#(", "'", "^:a "} {
		src := strings.Repeat(open, 100_000)
		_, err := read(src, 0)
		if err == nil || asError(err).Kind != parseError {
			t.Errorf("100,000 nested %q: got %v, want a parse error", open, err)
		}
	}
	if _, err := read(strings.Repeat("[", 50)+strings.Repeat("]", 50), 40); err == nil {
		t.Error("nesting 50 with limit 40 was accepted")
	}
	if _, err := read(strings.Repeat("[", 50)+strings.Repeat("]", 50), 60); err != nil {
		t.Errorf("nesting 50 with limit 60: %v", err)
	}
}

func TestParseEDN(t *testing.T) {
	ok := map[string]string{
		`{:a 1 :b [1 2.5 "x"] "k" #{:z}}`: `{:a 1, :b [1 2.5 "x"], "k" #{:z}}`,
		"(1 2 3)":                         "(1 2 3)",
		"  nil ; comment\n":               "nil",
		"-0.0":                            "-0.0",
	}
	for in, want := range ok {
		v, err := ParseEDN(in, 0)
		if err != nil {
			t.Errorf("ParseEDN(%q): %v", in, err)
			continue
		}
		if got := Repr(v); got != want {
			t.Errorf("ParseEDN(%q) = %s, want %s", in, got, want)
		}
	}
	if v, err := ParseEDN("##NaN", 0); err != nil || !math.IsNaN(float64(v.(Float))) {
		t.Errorf("ParseEDN(##NaN) = %v, %v", v, err)
	}
	// EDN has no #' (Clojure's EDN reader: "No dispatch macro for: '").
	for _, in := range []string{"", "foo", "(+ 1 2 x)", "1 2", "#(inc %)", "'x", "{:a}", strings.Repeat("[", 2000), "#'helper", "#'user/helper"} {
		if _, err := ParseEDN(in, 0); err == nil {
			t.Errorf("ParseEDN(%q) succeeded, want an error", in)
		}
	}
}

// TestVarQuoteReadsBack: #' of any short token, bare or quoted, is
// refused or reads as a value whose wire text reads back as itself; '#'0
// once read as a var printed (var user/0), an invalid token.
func TestVarQuoteReadsBack(t *testing.T) {
	const alphabet = "0a+-:/.'#%"
	tokens := []string{"nil", "true", "false", "user/nil", "clojure.core/+", "user/", "clojure.core//", "1/2", "-1.5", "+a", "##Inf"}
	var grow func(prefix string, n int)
	grow = func(prefix string, n int) {
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			tok := prefix + string(c)
			tokens = append(tokens, tok, "user/"+tok, "clojure.core/"+tok)
			grow(tok, n-1)
		}
	}
	grow("", 3)
	for _, tok := range tokens {
		for _, src := range []string{"#'" + tok, "'#'" + tok, "['#'" + tok + "]"} {
			v, _, err := ReadWire(src, WireRead{})
			if err != nil {
				continue
			}
			text := WireText(v)
			again, _, err := ReadWire(text, WireRead{})
			if err != nil {
				t.Errorf("%s reads as %s, which does not read back: %v", src, text, err)
				continue
			}
			if got := WireText(again); got != text {
				t.Errorf("%s reads as %s, which reads back as %s", src, text, got)
			}
		}
	}
}

func TestReadByteOrderMark(t *testing.T) {
	forms, err := read("\uFEFF(+ 1 2)", 0)
	if err != nil || len(forms) != 1 {
		t.Fatalf("Read with a byte order mark: %v %v", forms, err)
	}
}

// TestReadWireStopsWhenTheCallerGoes: a value's reading stops once its
// caller's context ends, with the context's error (which a host does not
// remember as the text's), and reads whole under a live one.
func TestReadWireStopsWhenTheCallerGoes(t *testing.T) {
	texts := map[string]WireRead{
		"[" + strings.Repeat("1 ", 100_000) + "]":  {},
		"[" + strings.Repeat("1,", 100_000) + "1]": {JSON: true},
	}
	for text, how := range texts {
		ctx, cancel := context.WithCancel(context.Background())
		how.Ctx = ctx
		if _, _, err := ReadWire(text, how); err != nil {
			t.Fatalf("json %v, under a live context: %v", how.JSON, err)
		}
		cancel()
		if _, _, err := ReadWire(text, how); !errors.Is(err, context.Canceled) {
			t.Errorf("json %v, its caller gone: %v, want context.Canceled", how.JSON, err)
		}
	}
}

// Reading a value does work in proportion to its text: twice the records
// take twice the allocations, EDN and JSON alike, the context looked at
// as they are read (BenchmarkReadAndDefineDoubling times it).
func TestReadWireWorkIsLinear(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	text := func(n int, json bool) string {
		var sb strings.Builder
		for i := range n {
			if json {
				sb.WriteString(`,{"id":1,"tags":["a","b"]}`)
			} else {
				sb.WriteString(` {:id 1 :tags [:a :b]}` + strings.Repeat(" ", i%2))
			}
		}
		return "[" + strings.TrimPrefix(sb.String(), ",") + "]"
	}
	for _, json := range []bool{false, true} {
		allocs := func(n int) float64 {
			in := text(n, json)
			return testing.AllocsPerRun(3, func() {
				if _, _, err := ReadWire(in, WireRead{Ctx: ctx, JSON: json}); err != nil {
					t.Fatal(err)
				}
			})
		}
		small, large := allocs(20_000), allocs(40_000)
		if growth := large / small; growth > 2.1 {
			t.Errorf("json %v: 20,000 records took %.0f allocations, 40,000 took %.0f: %.2f times", json, small, large, growth)
		}
	}
}
