package lisp

import "testing"

// judge7Corpus holds a seventh set of multi-step data tasks in the styles
// models write, aimed at dates as text and java.time, statistics by hand,
// grouping and pivoting, ranking, windows, joins, deduplication, snapshot
// diffs, graph walks, report strings, key=value parsing, validation, state
// machines, atoms and memoize, multimethods, nested updates, multi-key
// sorts, numeric edges and the mistakes models make, written apart from
// every corpus the builtins were fixed against. Each entry carries the
// result Clojure 1.11 gives (testdata/idioms/oracle.py run on
// testdata/judge7 made it from testdata/judge7/programs.txt).
const judge7Corpus = "testdata/judge7/corpus.jsonl"

// judge7Floor is the share of counted entries (all but the spec
// differences) that must give Clojure's value, or be refused with a
// rewrite that gives it: 99.2 at the first measurement, 100.0 after
// clojure.math and the namespace hints.
const judge7Floor = 100.0

// judge7Known lists every entry that does not give Clojure's value today,
// with why, in heldoutKnown's terms: "spec" is a difference
// docs/LANGUAGE.md explains and is not counted, "silent" a wrong value
// still to be fixed, anything else a refusal whose hint, followed
// literally, does not give Clojure's value.
var judge7Known = map[string]string{
	"num/integer-division":    "spec 8.4: / returns a float even when it divides exactly, 2.0 where Clojure has 2",
	"mistake/contains-vector": "spec: contains? on a vector tests membership, [true false] where Clojure's index test gives [false true] (docs/LANGUAGE.md)",
	"mistake/keys-on-vector":  "spec 8.1: sequences are eager, so (keys [1 2]) throws inside the try, which catches it, where Clojure's lazy key seq throws only when printed, outside it (docs/LANGUAGE.md)",
}

// TestJudge7Corpus runs the judge7 corpus against Clojure's answers, with
// judgeCorpus's rules.
func TestJudge7Corpus(t *testing.T) {
	judgeCorpus(t, "judge7", judge7Corpus, judge7Known, judge7Floor)
}
