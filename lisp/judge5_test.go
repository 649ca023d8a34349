package lisp

import "testing"

// judge5Corpus holds a fifth set of multi-step data tasks in the styles
// models write, written apart from every corpus the builtins were fixed
// against, so that it measures whether those fixes generalize. Each entry
// carries the result Clojure 1.11 gives (testdata/idioms/oracle.py run on testdata/judge5 made it
// from testdata/judge5/programs.txt).
const judge5Corpus = "testdata/judge5/corpus.jsonl"

// judge5Floor is the share of counted entries (all but the spec
// differences) that must give Clojure's value, or be refused with a
// rewrite that gives it.
const judge5Floor = 99.5

// judge5Known lists every entry that does not give Clojure's value today,
// with why, in heldoutKnown's terms: "spec" is a difference
// docs/LANGUAGE.md explains and is not counted, "silent" a wrong value
// still to be fixed, anything else a refusal whose hint, followed
// literally, does not give Clojure's value.
var judge5Known = map[string]string{
	"orders/ratio-print":            "spec 8.4: no ratios; the literal 1/6 is refused and the hint's (/ 1 6) is a float where Clojure keeps 1/3",
	"hr/preconditions":              "spec 8.4: / returns a float, 1100.0 where Clojure has 1100N",
	"fin/ratio-shares":              "spec 8.4: / returns a float, 0.3 where Clojure has the ratio 3/10",
	"num/int-division-types":        "spec 8.4: no ratios; the literal 1/3 is refused and the hint's (/ 1 3) is a float where Clojure keeps 5/2",
	"num/ratio-ops":                 "spec 8.4: no ratios; the literal 1/2 is refused and the hint's (/ 1 2) is a float where Clojure keeps 3/2",
	"num/average-int-vs-double":     "spec 8.4: / returns a float, 2.5 where Clojure has the ratio 5/2",
	"print/pr-str-types":            "spec: a character is a one-character string, so (pr-str \\a) is \"\\\"a\\\"\" where Clojure prints \\a",
	"mistake/equality-of-seqs":      "spec: a character is a one-character string, so (= \"a\" \\a) is true where Clojure's is false",
	"mistake/nth-oob-try":           "spec 8.1: nth out of range is nil where Clojure throws IndexOutOfBoundsException (docs/LANGUAGE.md)",
	"mistake/contains-on-list-keys": "spec: contains? on a vector tests membership where Clojure's tests an index (docs/LANGUAGE.md)",
}

// TestJudge5Corpus runs the judge5 corpus against Clojure's answers, with
// judgeCorpus's rules.
func TestJudge5Corpus(t *testing.T) {
	judgeCorpus(t, "judge5", judge5Corpus, judge5Known, judge5Floor)
}
