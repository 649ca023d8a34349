package lisp

import (
	"fmt"
	"strings"
	"testing"
)

// suggestionProbes are names models write that PTC-Lisp does not define:
// misspellings, names from other languages, Clojure functions it leaves
// out, and the Clojure features it refuses.
var suggestionProbes = []string{
	// misspellings
	"fitler", "redcue", "assco", "conut", "frist", "sort-vy", "upper-cse", "parse-lnog", "mpa", "contians?",
	"get-ni", "seelct-keys", "distnict", "group-vy", "strr", "even", "nil", "includes",
	// other languages
	"len", "length", "size", "append", "push", "lower", "upper", "strip", "substring", "indexOf",
	"startsWith", "sum", "flatMap", "enumerate", "uniq", "head", "tail", "contains", "toString",
	"parseInt", "lambda", "puts", "foreach",
	// Clojure functions PTC-Lisp leaves out
	"any?", "unreduced", "with-meta", "defmacro", "defrecord",
	"re-matcher", "gensym", "aget", "intern", "chunk", "munge", "seque",
	// Clojure features PTC-Lisp refuses
	"read-string", "rand-int", "shuffle", "lazy-seq", "while", "slurp", "eval", "future", "ref",
	// namespaced
	"clojure.core/fitler", "clojure.walk/macroexpand-all", "clojure.string/substring",
}

// TestSuggestionsGolden: what a program calling each probe is told
// (testdata/suggestions.golden; rewrite with -update). A "did you mean"
// names only defined functions, and never guesses for a Clojure name.
func TestSuggestionsGolden(t *testing.T) {
	var b strings.Builder
	for _, name := range suggestionProbes {
		res := run(t, "("+name+" 1)", Env{})
		if res.Err == nil {
			t.Errorf("%s is defined; take it out of the probes", name)
			continue
		}
		fmt.Fprintf(&b, "%s\n  %s\n", name, res.Err.Message)
		if res.Err.Hint != "" {
			fmt.Fprintf(&b, "  hint: %s\n", res.Err.Hint)
		}
		checkSuggested(t, name, res.Err.Hint)
	}
	golden(t, "suggestions.golden", b.String())
}

// checkSuggested fails when hint guesses for a Clojure name, or names a
// function that is not defined.
func checkSuggested(t *testing.T, name, hint string) {
	t.Helper()
	rest, ok := strings.CutPrefix(hint, "did you mean ")
	if !ok {
		return
	}
	if clojureNames()[name] {
		t.Errorf("%s is a Clojure function, but the hint guesses: %s", name, hint)
	}
	for _, s := range strings.Split(strings.TrimSuffix(rest, "?"), ", ") {
		if s == "" || strings.HasPrefix(s, "(") {
			continue
		}
		if _, ok := lookupFunction(s); !ok {
			if _, special := specialForms[s]; !special && !strings.Contains(s, "/") {
				t.Errorf("%s: the hint names %s, which is not defined", name, s)
			}
		}
	}
}

// TestNoGuessForClojureNames: no Clojure function PTC-Lisp leaves out gets
// a "did you mean" guess.
func TestNoGuessForClojureNames(t *testing.T) {
	for name := range clojureNames() {
		res := run(t, "(fn [] ("+name+"))", Env{})
		if res.Err != nil && res.Err.Kind == undefinedSymbol {
			checkSuggested(t, name, res.Err.Hint)
		}
	}
}
