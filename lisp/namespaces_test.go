package lisp

import (
	"context"
	"strings"
	"testing"
)

// TestNamespacedNameRefusals: a namespaced name its namespace does not
// have is refused, and the program rewritten as the hint says gives
// Clojure 1.11's value (recorded from the clojure command).
func TestNamespacedNameRefusals(t *testing.T) {
	for _, tc := range []struct {
		program, message, hint string
		rewrite, clojure       string
	}{
		{`(clojure.core/join "," [1 2])`, "clojure.core has no join", `write (clojure.string/join ...)`,
			`(clojure.string/join "," [1 2])`, `"1,2"`},
		{`(clojure.set/upper-case "a")`, "clojure.set has no upper-case", `write (clojure.string/upper-case ...)`,
			`(clojure.string/upper-case "a")`, `"A"`},
		{`(clojure.string/format "%d!" 1)`, "clojure.string has no format", `write (format ...)`,
			`(format "%d!" 1)`, `"1!"`},
		{`(clojure.core/sum-by :a [{:a 1} {:a 2}])`, "clojure.core has no sum-by", "write (sum-by ...)",
			`(sum-by :a [{:a 1} {:a 2}])`, `3`},
		{`(clojure.string/uppercase "a")`, "clojure.string has no uppercase", "did you mean clojure.string/upper-case?",
			`(clojure.string/upper-case "a")`, `"A"`},
		{`(clojure.walk/macroexpand-all '(inc 1))`, "clojure.walk/macroexpand-all is not available",
			`write the quoted form itself`,
			`'(inc 1)`, `(inc 1)`},
		{`(clojure.string/titlecase "a")`, "clojure.string has no titlecase", "clojure.string has: blank?, capitalize,",
			`(clojure.string/capitalize "a")`, `"A"`},
		{`(clojure.data/diff-similar [1] [2])`, "clojure.data/diff-similar is not available", "write (clojure.data/diff a b)",
			`(clojure.data/diff [1] [2])`, `[[1] [2] nil]`},
		{`(clojure.lens/view [1] [2])`, "namespace clojure.lens is not available", "the namespaces here are clojure.core",
			"", ""},
		{`(clojure.math/get-exponent 1.0)`, "clojure.math/get-exponent is not available", "the clojure.math vars here are E IEEE-remainder PI",
			"", ""},
	} {
		res, err := Eval(context.Background(), tc.program, Env{})
		if err != nil || res.Err == nil {
			t.Errorf("%s: got %v, %v; want a refusal", tc.program, res.Value, err)
			continue
		}
		if !strings.Contains(res.Err.Message, tc.message) || !strings.Contains(res.Err.Hint, tc.hint) {
			t.Errorf("%s: got %q (hint %q), want %q (hint containing %q)", tc.program, res.Err.Message, res.Err.Hint, tc.message, tc.hint)
		}
		if tc.rewrite == "" {
			continue
		}
		res, err = Eval(context.Background(), tc.rewrite, Env{})
		if err != nil || res.Err != nil || Repr(res.Value) != tc.clojure {
			t.Errorf("%s: rewrite %s gives %v %v %v, Clojure gives %s", tc.program, tc.rewrite, res.Value, res.Err, err, tc.clojure)
		}
	}
}

// TestUserDefinesPTCLispName: a program may define a name PTC-Lisp has
// and Clojure does not; its definition wins, the turn warns, and it is
// kept between turns, through the wire too. Clojure's own names stay
// refused.
func TestUserDefinesPTCLispName(t *testing.T) {
	ctx := context.Background()
	res, err := Eval(ctx, "(defn round [x] (* 10 x)) (round 2.5)", Env{})
	if err != nil || res.Err != nil || Repr(res.Value) != "25.0" {
		t.Fatalf("got %v %v %v, want 25.0", res.Value, res.Err, err)
	}
	if len(res.Warnings) != 1 || res.Warnings[0].Type != WarningShadowedBuiltin || !strings.Contains(res.Warnings[0].Message, "round") {
		t.Errorf("warnings %+v, want one %s naming round", res.Warnings, WarningShadowedBuiltin)
	}
	mem, err := DecodeMemory(ctx, res.Memory.Encode())
	if err != nil {
		t.Fatal(err)
	}
	res, err = Eval(ctx, "(round 3)", Env{Prelude: mem})
	if err != nil || res.Err != nil || Repr(res.Value) != "30" {
		t.Errorf("next turn: got %v %v %v, want 30", res.Value, res.Err, err)
	}
	res, err = Eval(ctx, "(round 2.5)", Env{})
	if err != nil || res.Err != nil || Repr(res.Value) != "3" {
		t.Errorf("without the definition: got %v %v %v, want the builtin's 3", res.Value, res.Err, err)
	}
	// A function kept in memory that calls round sees the definition of
	// the turn it runs in.
	res, err = Eval(ctx, "(defn twice-round [x] (* 2 (round x)))", Env{})
	if err != nil || res.Err != nil {
		t.Fatal(res.Err, err)
	}
	mem, err = DecodeMemory(ctx, res.Memory.Encode())
	if err != nil {
		t.Fatal(err)
	}
	res, err = Eval(ctx, "(defn round [x] 7) (twice-round 1.2)", Env{Prelude: mem})
	if err != nil || res.Err != nil || Repr(res.Value) != "14" {
		t.Errorf("memory function: got %v %v %v, want 14", res.Value, res.Err, err)
	}
	res, err = Eval(ctx, "(defn count [x] 1)", Env{})
	if err != nil || res.Err == nil || !strings.Contains(res.Err.Message, "cannot shadow builtin 'count'") {
		t.Errorf("count: got %v %v, want the refusal", res.Err, err)
	}
}

// TestNamespaceHeaders: a header of what the sandbox has is skipped with
// one warning; one naming what it lacks is refused with the hint to
// delete that part, and the program so rewritten gives Clojure 1.11's
// value.
func TestNamespaceHeaders(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ program, clojure string }{
		{`(use 'clojure.string) [(reverse "abc") (replace "a-b" "-" "+")]`, `["cba" "a+b"]`},
		{`(ns app.core (:require [clojure.string :as str]) (:import (java.time LocalDate))) (str/capitalize "ab")`, `"Ab"`},
		{`(require '[clojure.string :as s] '[clojure.set :refer :all]) (s/join (sort (union #{"b"} #{"a"})))`, `"ab"`},
	} {
		res, err := Eval(ctx, tc.program, Env{})
		if err != nil || res.Err != nil || Repr(res.Value) != tc.clojure {
			t.Errorf("%s: got %v %v %v, Clojure gives %s", tc.program, res.Value, res.Err, err, tc.clojure)
			continue
		}
		if len(res.Warnings) != 1 || res.Warnings[0].Type != WarningNamespaceHeader {
			t.Errorf("%s: warnings %+v, want one %s", tc.program, res.Warnings, WarningNamespaceHeader)
		}
	}
	for _, tc := range []struct {
		program, hint, rewrite, clojure string
	}{
		{`(require '[clojure.data.json :as json]) (+ 1 2)`, "delete the (require ...) form", `(+ 1 2)`, "3"},
		{`(require '[clojure.string :as s] '[clj-http.client :as http]) (s/trim " a ")`, "delete '[clj-http.client :as http] from the (require ...) form",
			`(require '[clojure.string :as s]) (s/trim " a ")`, `"a"`},
		{`(ns app (:require [clojure.string :as s]) (:import (java.io File))) (count "ab")`, "delete the (:import ...) clause of the ns form",
			`(ns app (:require [clojure.string :as s])) (count "ab")`, "2"},
		{`(import 'java.util.Date '(java.io File)) 1`, "delete '(java.io File) from the (import ...) form", `(import 'java.util.Date) 1`, "1"},
		{`(require '[clojure.set :refer [unoin]]) 1`, "did you mean clojure.set/union?", `(require '[clojure.set :refer [union]]) 1`, "1"},
	} {
		res, err := Eval(ctx, tc.program, Env{})
		if err != nil || res.Err == nil || !strings.Contains(res.Err.Hint, tc.hint) {
			t.Errorf("%s: got %v %v, want a refusal hinting %q", tc.program, res.Err, err, tc.hint)
			continue
		}
		res, err = Eval(ctx, tc.rewrite, Env{})
		if err != nil || res.Err != nil || Repr(res.Value) != tc.clojure {
			t.Errorf("%s: rewrite %s gives %v %v %v, Clojure gives %s", tc.program, tc.rewrite, res.Value, res.Err, err, tc.clojure)
		}
	}
}

// TestAliasInKeptFunction: a function using a header's alias is kept
// with the namespace written out, and so runs in a later turn that has
// no header.
func TestAliasInKeptFunction(t *testing.T) {
	ctx := context.Background()
	res, err := Eval(ctx, `(require '[clojure.string :as s]) (defn shout [x] (s/upper-case x))`, Env{})
	if err != nil || res.Err != nil {
		t.Fatal(res.Err, err)
	}
	mem, err := DecodeMemory(ctx, res.Memory.Encode())
	if err != nil {
		t.Fatal(err)
	}
	res, err = Eval(ctx, `(shout "a")`, Env{Prelude: mem})
	if err != nil || res.Err != nil || Repr(res.Value) != `"A"` {
		t.Errorf("got %v %v %v, want \"A\"", res.Value, res.Err, err)
	}
}

// TestHeaderNamesAsData: ns, use, require and import are forms only at
// the head of a call; as values they are still data keys.
func TestHeaderNamesAsData(t *testing.T) {
	data := NewMapBuilder(2)
	data.Set(Keyword("ns"), NewVector([]Value{Int(1), Int(2)}))
	data.Set(Keyword("use"), String("x"))
	res, err := Eval(context.Background(), "[(count ns) use]", Env{Data: data.Map()})
	if err != nil || res.Err != nil || Repr(res.Value) != `[2 "x"]` {
		t.Errorf("got %v %v %v, want [2 \"x\"]", res.Value, res.Err, err)
	}
}
