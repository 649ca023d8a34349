package lisp

import (
	"strings"
	"testing"
)

// TestReadStringIsChargedAndBounded: read-string reads on the value
// reader, so what it reads meets the evaluation's budgets and the nesting
// bound, never the Go stack: a text of many forms meets the step budget,
// a large text the memory budget, a deep one the nesting bound.
func TestReadStringIsChargedAndBounded(t *testing.T) {
	many := "[" + strings.Repeat("1 ", 200_000) + "]"
	res := run(t, `(count (read-string data/s))`, Env{Limits: Limits{MaxSteps: 100_000}, Data: textData(many)})
	if res.Err == nil || res.Err.Kind != stepLimit {
		t.Errorf("200,000 forms under 100,000 steps: got %v %v, want a step limit", Repr(res.Value), res.Err)
	}
	dense := "[" + strings.Repeat(`"abcdefghijklmnop" `, 100_000) + "]"
	if res := run(t, `(count data/s)`, Env{Limits: Limits{MaxAllocBytes: 1 << 20, MaxSteps: 10_000_000}, Data: textData(dense)}); res.Err != nil {
		t.Fatalf("the text alone under 1 MiB: %v", res.Err)
	}
	res = run(t, `(count (read-string data/s))`, Env{Limits: Limits{MaxAllocBytes: 1 << 20, MaxSteps: 10_000_000}, Data: textData(dense)})
	if res.Err == nil || res.Err.Kind != memoryLimit {
		t.Errorf("100,000 strings under 1 MiB: got %v %v, want a memory limit", Repr(res.Value), res.Err)
	}
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	res = run(t, `(try (read-string data/s) (catch RuntimeException e :refused))`, Env{Data: textData(deep)})
	if res.Err == nil && res.Value != Keyword("refused") {
		t.Errorf("100,000 levels of nesting: got %v, want a refusal", Repr(res.Value))
	}
	some := "[" + strings.Repeat("1 ", 50_000) + "]"
	res = run(t, `(count (read-string data/s))`, Env{Data: textData(some)})
	if res.Err != nil || res.Value != Int(50_000) {
		t.Errorf("50,000 forms under the default budget: got %v %v, want 50000", Repr(res.Value), res.Err)
	}
}

// TestReadStringEvaluatesNothing: what is read is data; reader-eval is
// refused by both readers, and a list read is a list.
func TestReadStringEvaluatesNothing(t *testing.T) {
	for src, want := range map[string]string{
		`(read-string "(+ 1 2)")`:                                                                `(+ 1 2)`,
		`(list? (read-string "(inc 1)"))`:                                                        `true`,
		`(symbol? (first (read-string "(inc 1)")))`:                                              `true`,
		`(try (read-string "#=(+ 1 2)") (catch RuntimeException e (ex-message e)))`:              `"No dispatch macro for: ="`,
		`(try (clojure.edn/read-string "#=(+ 1 2)") (catch RuntimeException e (ex-message e)))`:  `"No dispatch macro for: ="`,
		`(try (read-string "[1 (2") (catch RuntimeException e (ex-message e)))`:                  `"EOF while reading"`,
		`(try (read-string "{:a 1 :a 2}") (catch IllegalArgumentException e (ex-message e)))`:    `"Duplicate key: :a"`,
		`(try (clojure.edn/read-string "(1 2))") (catch Exception e :never))`:                    `(1 2)`,
		`(try (read-string "1.2.3") (catch NumberFormatException e :nfe))`:                       `:nfe`,
		`(try (read-string "#inst \"2024-01-01\"") (catch RuntimeException e :refused))`:         `:refused`,
		`(clojure.edn/read-string {:eof :none} "")`:                                              `:none`,
		`(let [form (read-string "{:op :add :args [1 2]}")] (apply + (:args form)))`:             `3`,
		`(mapv read-string ["1" "2.5" ":k" "\"s\"" "nil" "true" "sym"])`:                         `[1 2.5 :k "s" nil true sym]`,
		`(= (read-string (pr-str {:a [1 2 #{3}] :b "x" :c nil})) {:a [1 2 #{3}] :b "x" :c nil})`: `true`,
		`(require '[clojure.edn :as edn]) (edn/read-string "[a/b c]")`:                           `[a/b c]`,
		`(try (clojure.edn/read-string "'x") (catch RuntimeException e :refused))`:               `:refused`,
		`(read-string "'x")`: `(quote x)`,
		`(try (read-string {:eof 1} nil) (catch NullPointerException e :npe))`:      `:npe`,
		`(try (read-string 42) (catch ClassCastException e :cce))`:                  `:cce`,
		`(try (clojure.edn/read-string [1] "x") (catch ClassCastException e :cce))`: `:cce`,
	} {
		res := run(t, src, Env{})
		if res.Err != nil || Repr(res.Value) != want {
			t.Errorf("%s: got %v %v, want %s", src, Repr(res.Value), res.Err, want)
		}
	}
}

// textData is the data/ inputs of a program that reads data/s.
func textData(s string) *Map {
	b := NewMapBuilder(1)
	b.Set(Keyword("s"), String(s))
	return b.Map()
}

// TestEDNReadStringIsTheWireReader: clojure.edn/read-string reads data
// as a value's text on the wire is read, and as Clojure's EDN reader
// reads it: what either refuses it refuses, with Clojure's message
// (#'x, a var, among them), under the same nesting bound
// (Env.MaxNesting); clojure.core's read-string reads #'x as the list
// (var x), as Clojure's reader does. The messages are Clojure 1.11's.
func TestEDNReadStringIsTheWireReader(t *testing.T) {
	refused := map[string]string{
		`#'x`:                `No dispatch macro for: '`,
		`[1 #'user/x]`:       `No dispatch macro for: '`,
		`#(+ 1 %)`:           `No dispatch macro for: (`,
		`#"re"`:              `No dispatch macro for: "`,
		`@x`:                 `Invalid leading character: @`,
		"`x":                 "Invalid leading character: `",
		`~x`:                 `Invalid leading character: ~`,
		`~@x`:                `Invalid leading character: ~`,
		`#foo/bar 1`:         `No reader function for tag foo/bar`,
		`#js {}`:             `No reader function for tag js`,
		`#?(:clj 1)`:         `No dispatch macro for: ?`,
		"#!x\n1":             `No dispatch macro for: !`,
		`#<x>`:               `Unreadable form`,
		`#=(+ 1 2)`:          `No dispatch macro for: =`,
		`::k`:                `Invalid token: ::k`,
		`#inst "2024-01-01"`: `unsupported reader syntax #inst`, // Clojure reads a Date; there are none
		`#uuid "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"`: `unsupported reader syntax #uuid`,
	}
	for text, want := range refused {
		res := run(t, `(try (clojure.edn/read-string data/s) (catch RuntimeException e (ex-message e)))`, Env{Data: textData(text)})
		if res.Err != nil || res.Value != String(want) {
			t.Errorf("clojure.edn/read-string %q: got %v %v, want %q", text, Repr(res.Value), res.Err, want)
		}
		if v, err := ParseEDN(text, 0); err == nil {
			t.Errorf("%q read as a value's EDN: got %v, want a refusal as clojure.edn/read-string's", text, Repr(v))
		}
	}
	for text, want := range map[string]string{
		`#'x`:          `(var x)`,
		`[#'user/f 1]`: `[(var user/f) 1]`,
		`'x`:           `(quote x)`,
		`@x`:           `(clojure.core/deref x)`,
	} {
		res := run(t, `(read-string data/s)`, Env{Data: textData(text)})
		if res.Err != nil || Repr(res.Value) != want {
			t.Errorf("read-string %q: got %v %v, want %s", text, Repr(res.Value), res.Err, want)
		}
	}
	deep := "[[[[1]]]]"
	if _, err := ParseEDN(deep, 3); err == nil {
		t.Fatalf("%s read as a value nested at most 3 deep", deep)
	}
	for _, fn := range []string{"clojure.edn/read-string", "read-string"} {
		res := run(t, `(try (`+fn+` data/s) (catch RuntimeException e :refused))`, Env{MaxNesting: 3, Data: textData(deep)})
		if res.Err != nil || res.Value != Keyword("refused") {
			t.Errorf("%s %s with values nested at most 3 deep: got %v %v, want a refusal", fn, deep, Repr(res.Value), res.Err)
		}
	}
}
