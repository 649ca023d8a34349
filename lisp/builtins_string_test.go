package lisp

import (
	"context"
	"math"
	"strings"
	"testing"
)

func TestStringFunctions(t *testing.T) {
	runBuiltinCases(t, []builtinCase{
		{name: "str", want: `""`},
		{name: "str", args: []Value{str("Hello"), str(" "), str("World")}, want: `"Hello World"`},
		{name: "str", args: []Value{Int(42)}, want: `"42"`},
		{name: "str", args: []Value{fl(3.14)}, want: `"3.14"`},
		{name: "str", args: []Value{fl(1)}, want: `"1.0"`},
		{name: "str", args: []Value{trueValue}, want: `"true"`},
		{name: "str", args: []Value{kw("user")}, want: `":user"`},
		{name: "str", args: []Value{Nil, str("x")}, want: `"x"`},
		{name: "str", args: []Value{ints(1, 2), hashMap(kw("a"), str("b"))}, want: `"[1 2]{:a \"b\"}"`},
		{name: "subs", args: []Value{str("hello"), Int(1)}, want: `"ello"`},
		{name: "subs", args: []Value{str("hello"), Int(1), Int(4)}, want: `"ell"`},
		{name: "subs", args: []Value{str("héllo"), Int(1), Int(2)}, want: `"é"`},
		{name: "subs", args: []Value{str("hello"), Int(3), Int(9)}, kind: executionError, want: "out of bounds"},
		{name: "subs", args: []Value{Nil, Int(0)}, kind: typeError, want: "subs expected a string, got nil"},
		{name: "split", args: []Value{str("a,b,c"), str(",")}, want: `["a" "b" "c"]`},
		{name: "split", args: []Value{str("hello"), str("")}, want: `["h" "e" "l" "l" "o"]`},
		{name: "split", args: []Value{str("a,,b"), str(",")}, want: `["a" "" "b"]`},
		{name: "split", args: []Value{str("a,b,,"), str(",")}, want: `["a" "b"]`},
		{name: "split", args: []Value{str("a.b"), str(".")}, want: `["a" "b"]`},
		{name: "split", args: []Value{str(""), str(",")}, want: `[""]`},
		{name: "split", args: []Value{str("a1b22c"), mustRegex(t, `\d+`)}, want: `["a" "b" "c"]`},
		{name: "split", args: []Value{str("a,b,c"), str(","), Int(2)}, want: `["a" "b,c"]`},
		{name: "split", args: []Value{str("a"), Int(1)}, kind: typeError, want: "separator"},
		{name: "split-lines", args: []Value{str("a\nb\r\nc")}, want: `["a" "b" "c"]`},
		{name: "split-lines", args: []Value{str("a\n\n\n")}, want: `["a"]`},
		{name: "join", args: []Value{str(", "), vec(str("a"), str("b"), str("c"))}, want: `"a, b, c"`},
		{name: "join", args: []Value{str("-"), ints(1, 2, 3)}, want: `"1-2-3"`},
		{name: "join", args: []Value{vec(str("a"), Nil, kw("b"))}, want: `"a:b"`},
		{name: "join", args: []Value{str(","), vec()}, want: `""`},
		{name: "trim", args: []Value{str("\n\tworld\r\n")}, want: `"world"`},
		{name: "triml", args: []Value{str("  a ")}, want: `"a "`},
		{name: "trimr", args: []Value{str("  a ")}, want: `"  a"`},
		{name: "replace", args: []Value{str("hello"), str("l"), str("L")}, want: `"heLLo"`},
		{name: "replace", args: []Value{str("aaa"), str("a"), str("b")}, want: `"bbb"`},
		{name: "replace", args: []Value{str("a1b22"), mustRegex(t, `(\d+)`), str("<$1>")}, want: `"a<1>b<22>"`},
		{name: "replace", args: []Value{str("a1"), mustRegex(t, `\d`), str(`\$`)}, want: `"a$"`},
		{name: "replace", args: []Value{str("a1b2"), mustRegex(t, `\d`), builtinFn("inc")}, kind: typeError, want: "inc expected a number, got string"},
		{name: "replace", args: []Value{str("ab"), mustRegex(t, `[ab]`), builtinFn("upper-case")}, want: `"AB"`},
		{name: "replace-first", args: []Value{str("aaa"), str("a"), str("b")}, want: `"baa"`},
		{name: "replace-first", args: []Value{str("a1b2"), mustRegex(t, `\d`), str("#")}, want: `"a#b2"`},
		{name: "upper-case", args: []Value{str("world")}, want: `"WORLD"`},
		{name: "upcase", args: []Value{str("hello")}, want: `"HELLO"`},
		{name: "lower-case", args: []Value{str("WORLD")}, want: `"world"`},
		{name: "downcase", args: []Value{str("HELLO")}, want: `"hello"`},
		{name: "capitalize", args: []Value{str("hELLO")}, want: `"Hello"`},
		{name: "starts-with?", args: []Value{str("hello"), str("he")}, want: "true"},
		{name: "starts-with?", args: []Value{str("hello"), str("lo")}, want: "false"},
		{name: "starts-with?", args: []Value{str("hello"), str("")}, want: "true"},
		{name: "ends-with?", args: []Value{str("hello"), str("lo")}, want: "true"},
		{name: "ends-with?", args: []Value{str("hello"), str("")}, want: "true"},
		{name: "includes?", args: []Value{str("hello"), str("ll")}, want: "true"},
		{name: "includes?", args: []Value{str("hello"), str("x")}, want: "false"},
		{name: "includes?", args: []Value{Nil, str("x")}, kind: typeError, want: "includes? expected a string, got nil"},
		{name: "index-of", args: []Value{str("héllo"), str("l")}, want: "2"},
		{name: "index-of", args: []Value{str("hello"), str("l"), Int(3)}, want: "3"},
		{name: "index-of", args: []Value{str("hello"), str("z")}, want: "nil"},
		{name: "last-index-of", args: []Value{str("hello"), str("l")}, want: "3"},
		{name: "blank?", args: []Value{str(" \t")}, want: "true"},
		{name: "blank?", args: []Value{Nil}, want: "true"},
		{name: "blank?", args: []Value{str("a")}, want: "false"},
		{name: "pr-str", args: []Value{str("a"), Int(1)}, want: `"\"a\" 1"`},
		{name: "print-str", args: []Value{str("a"), Int(1)}, want: `"a 1"`},
		{name: "name", args: []Value{kw("foo")}, want: `"foo"`},
		{name: "name", args: []Value{kw("a/b")}, want: `"b"`},
		{name: "name", args: []Value{str("bar")}, want: `"bar"`},
		{name: "keyword", args: []Value{str("test")}, want: ":test"},
		{name: "keyword", args: []Value{kw("bar")}, want: ":bar"},
		{name: "keyword", args: []Value{Nil}, want: "nil"},
		{name: "parse-long", args: []Value{str("42")}, want: "42"},
		{name: "parse-long", args: []Value{str("-17")}, want: "-17"},
		{name: "parse-long", args: []Value{str("+5")}, want: "5"},
		{name: "parse-long", args: []Value{str("abc")}, want: "nil"},
		{name: "parse-long", args: []Value{str("42abc")}, want: "nil"},
		{name: "parse-long", args: []Value{str(" 42")}, want: "nil"},
		{name: "parse-long", args: []Value{str("99999999999999999999")}, want: "nil"},
		{name: "parse-long", args: []Value{Int(42)}, want: "nil"},
		{name: "parse-long", args: []Value{Nil}, want: "nil"},
		{name: "parse-double", args: []Value{str("3.14")}, want: "3.14"},
		{name: "parse-double", args: []Value{str("-0.5")}, want: "-0.5"},
		{name: "parse-double", args: []Value{str("1.23e-4")}, want: "1.23E-4"},
		{name: "parse-double", args: []Value{str("42")}, want: "42.0"},
		{name: "parse-double", args: []Value{str(".5")}, want: "0.5"},
		{name: "parse-double", args: []Value{str("Infinity")}, want: "##Inf"},
		{name: "parse-double", args: []Value{str("1e999")}, want: "##Inf"},
		{name: "parse-double", args: []Value{str("invalid")}, want: "nil"},
		{name: "parse-double", args: []Value{str("3.14 ")}, want: "nil"},
		{name: "parse-double", args: []Value{str("0x10")}, want: "nil"},
		{name: "parse-double", args: []Value{str("inf")}, want: "nil"},
		{name: "parse-double", args: []Value{fl(3.14)}, want: "nil"},
	})
}

func TestFormat(t *testing.T) {
	runBuiltinCases(t, []builtinCase{
		{name: "format", args: []Value{str("Hello %s"), str("world")}, want: `"Hello world"`},
		{name: "format", args: []Value{str("%d items"), Int(5)}, want: `"5 items"`},
		{name: "format", args: []Value{str("%.2f"), fl(3.14159)}, want: `"3.14"`},
		{name: "format", args: []Value{str("%s has %d items"), str("Alice"), Int(5)}, want: `"Alice has 5 items"`},
		{name: "format", args: []Value{str("100%%")}, want: `"100%"`},
		{name: "format", args: []Value{str("%x"), Int(255)}, want: `"ff"`},
		{name: "format", args: []Value{str("%X"), Int(-1)}, want: `"FFFFFFFFFFFFFFFF"`},
		{name: "format", args: []Value{str("%5d|%-5d|%05d"), Int(42), Int(42), Int(-42)}, want: `"   42|42   |-0042"`},
		{name: "format", args: []Value{str("%,d"), Int(1234567)}, want: `"1,234,567"`},
		{name: "format", args: []Value{str("%+d"), Int(3)}, want: `"+3"`},
		{name: "format", args: []Value{str("%.1f"), fl(0.15)}, want: `"0.2"`},
		{name: "format", args: []Value{str("%.2f"), fl(0.125)}, want: `"0.13"`},
		{name: "format", args: []Value{str("%.0f"), fl(2.5)}, want: `"3"`},
		{name: "format", args: []Value{str("%.2f"), fl(9.999)}, want: `"10.00"`},
		{name: "format", args: []Value{str("%f"), Int(2)}, want: `"2.000000"`},
		{name: "format", args: []Value{str("%.2f"), fl(-1.005)}, want: `"-1.01"`},
		{name: "format", args: []Value{str("%,.2f"), fl(1234567.891)}, want: `"1,234,567.89"`},
		{name: "format", args: []Value{str("%8.3f|"), fl(math.Pi)}, want: `"   3.142|"`},
		{name: "format", args: []Value{str("%e"), fl(12345.678)}, want: `"1.234568e+04"`},
		{name: "format", args: []Value{str("%s %s"), Nil, kw("k")}, want: `"null :k"`},
		{name: "format", args: []Value{str("%.3s"), str("abcdef")}, want: `"abc"`},
		{name: "format", args: []Value{str("%b %c"), Nil, str("x")}, want: `"false x"`},
		{name: "format", args: []Value{str("a%nb")}, want: `"a\nb"`},
		{name: "format", args: []Value{str("%d"), fl(1.5)}, kind: typeError, want: "%d expected an integer, got float"},
		{name: "format", args: []Value{str("%s %s"), str("a")}, kind: executionError, want: "no argument left"},
		{name: "format", args: []Value{str("%q"), str("a")}, kind: executionError, want: "unknown conversion"},
		{name: "format", args: []Value{str("50%")}, kind: executionError, want: "ends inside"},
		{name: "format", args: []Value{str("%1$s"), str("a")}, kind: executionError, want: "argument indexes"},
		{name: "format", args: []Value{str("%999999999d"), Int(1)}, kind: executionError, want: "width or precision"},
	})
}

func mustRegex(t *testing.T, pattern string) *regex {
	t.Helper()
	re, err := compileRegex("test", pattern)
	if err != nil {
		t.Fatal(err)
	}
	return re
}

func TestRegexFunctions(t *testing.T) {
	digits := mustRegex(t, `\d+`)
	runBuiltinCases(t, []builtinCase{
		{name: "re-pattern", args: []Value{str(`\d+`)}, want: `#"\d+"`},
		{name: "re-pattern", args: []Value{str(`(?<=a)b`)}, kind: executionError, want: "RE2 cannot compile the pattern"},
		{name: "re-pattern", args: []Value{str(`(a)\1`)}, kind: executionError, want: "RE2 cannot compile"},
		{name: "re-pattern", args: []Value{str(strings.Repeat("a", 300))}, kind: executionError, want: "longer than the limit"},
		{name: "re-pattern", args: []Value{Int(1)}, kind: typeError, want: "re-pattern expected a string"},
		{name: "re-find", args: []Value{digits, str("v1")}, want: `"1"`},
		{name: "re-find", args: []Value{digits, str("none")}, want: "nil"},
		{name: "re-find", args: []Value{mustRegex(t, `(\d+)-(\d+)`), str("10-20")}, want: `["10-20" "10" "20"]`},
		{name: "re-find", args: []Value{mustRegex(t, `(a)|(b)`), str("b")}, want: `["b" nil "b"]`},
		{name: "re-find", args: []Value{str(`\d`), str("aaa1aaa")}, want: `"1"`},
		{name: "re-find", args: []Value{Int(1), str("a")}, kind: typeError, want: "re-find expected a regex"},
		{name: "re-matches", args: []Value{digits, str("123")}, want: `"123"`},
		{name: "re-matches", args: []Value{digits, str("123abc")}, want: "nil"},
		{name: "re-matches", args: []Value{mustRegex(t, `a|ab`), str("ab")}, want: `"ab"`},
		{name: "re-seq", args: []Value{digits, str("a1b22c333")}, want: `["1" "22" "333"]`},
		{name: "re-seq", args: []Value{digits, str("abc")}, want: "nil"},
		{name: "re-split", args: []Value{mustRegex(t, `\s+`), str("a  b   c")}, want: `["a" "b" "c"]`},
		{name: "re-split", args: []Value{mustRegex(t, `,`), str("a,b,c")}, want: `["a" "b" "c"]`},
		{name: "regex?", args: []Value{digits}, want: "true"},
		{name: "regex?", args: []Value{str(`\d`)}, want: "false"},
	})
}

// TestSplitAtMatchesRegexpSplit compares the budgeted split with Go's own.
func TestSplitAtMatchesRegexpSplit(t *testing.T) {
	for _, c := range []struct{ pattern, s string }{
		{`,`, "a,b,,c,,"}, {`x*`, "abc"}, {`\s+`, "  a b  "}, {`^`, "abc"}, {`$`, "abc"}, {`b`, "b"}, {`a|`, "banana"},
	} {
		re := mustRegex(t, c.pattern)
		for _, limit := range []int{-1, 1, 2, 3} {
			locs := re.re.FindAllStringSubmatchIndex(c.s, -1)
			got := splitAt(c.s, locs, limit)
			want := re.re.Split(c.s, limit)
			if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
				t.Errorf("split %q by %q limit %d = %q, regexp.Split gives %q", c.s, c.pattern, limit, got, want)
			}
		}
	}
}

// TestMatchesAreChargedBeforeTheyAreBuilt feeds a long string to patterns
// that match every character: the match positions must not be built
// beyond the budget.
func TestMatchesAreChargedBeforeTheyAreBuilt(t *testing.T) {
	long := str(strings.Repeat("a1", 1<<20))
	for _, c := range [][]Value{
		{mustRegex(t, `\d`), long},
	} {
		for _, fn := range []string{"re-seq"} {
			th := newThread(context.Background(), Limits{MaxSteps: 1 << 40, MaxAllocBytes: 1 << 20})
			_, err := callBuiltin(th, fn, c...)
			if e := asError(err); err == nil || e.Kind != memoryLimit {
				t.Errorf("%s over 1M matches = %v, want memory_limit", fn, err)
			}
		}
	}
	for _, args := range [][]Value{
		{long, mustRegex(t, `\d`)},
		{long, str("1")},
		{long, str("")},
	} {
		th := newThread(context.Background(), Limits{MaxSteps: 1 << 40, MaxAllocBytes: 1 << 20})
		_, err := callBuiltin(th, "split", args...)
		if e := asError(err); err == nil || e.Kind != memoryLimit {
			t.Errorf("split into 1M parts by %s = %v, want memory_limit", Repr(args[1]), err)
		}
	}
	th := newThread(context.Background(), Limits{MaxSteps: 1 << 40, MaxAllocBytes: 1 << 20})
	_, err := callBuiltin(th, "replace", long, mustRegex(t, `\d`), str("xx"))
	if e := asError(err); err == nil || e.Kind != memoryLimit {
		t.Errorf("replace of 1M matches = %v, want memory_limit", err)
	}
}

func TestClojureStringReverseIsAStringFunction(t *testing.T) {
	for src, want := range map[string]string{
		`(clojure.string/reverse "abc")`: `"cba"`,
		`(str/reverse "héllo")`:          `"olléh"`,
		`(reverse "abc")`:                `["c" "b" "a"]`,
	} {
		res := run(t, src, Env{})
		if res.Err != nil || Repr(res.Value) != want {
			t.Errorf("%s = %s (error %v), want %s", src, Repr(res.Value), res.Err, want)
		}
	}
}
