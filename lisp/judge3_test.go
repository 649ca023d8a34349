package lisp

import "testing"

// judge3Corpus holds a third set of multi-step data tasks in the styles
// models write, written apart from the fresh, held-out, idiom and
// coverage corpora so that it measures whether the fixes made against them
// generalize. Each entry carries the result Clojure 1.11 gives
// (testdata/idioms/oracle.py run on testdata/judge3 made it from testdata/judge3/programs.txt).
const judge3Corpus = "testdata/judge3/corpus.jsonl"

// judge3Floor is the share of counted entries (all but the spec
// differences) that must give Clojure's value, or be refused with a
// rewrite that gives it.
const judge3Floor = 97.7

// judge3Known lists every entry that does not give Clojure's value today,
// with why, in heldoutKnown's terms: "spec" is a difference
// docs/LANGUAGE.md explains and is not counted, "silent" a wrong value
// still to be fixed, anything else a refusal whose hint, followed
// literally, does not give Clojure's value.
var judge3Known = map[string]string{
	"str2/getbytes-length":     ".getBytes is refused, and the hint lists methods without naming a byte count",
	"str2/chars-vs-strings":    "spec: a character is a one-character string, so (= \"b\" (first s)) is true where Clojure's \\b is not a string (docs/LANGUAGE.md)",
	"report/format-keys":       "spec 8.1: the text of a sequence (format %s, str, pr-str) is [...] where Clojure's seq prints (...): sequence functions return vectors (docs/LANGUAGE.md)",
	"report/pr-str-summary":    "spec 8.1: the text of a sequence (format %s, str, pr-str) is [...] where Clojure's seq prints (...): sequence functions return vectors (docs/LANGUAGE.md)",
	"report/str-sorted-ids":    "spec 8.1: the text of a sequence (format %s, str, pr-str) is [...] where Clojure's seq prints (...): sequence functions return vectors (docs/LANGUAGE.md)",
	"edge2/pr-str-nested":      "spec: a character is a one-character string, so pr-str of \\c is \"c\" (docs/LANGUAGE.md)",
	"edge2/range-variants":     "step budget: (count (range 1 1000000)) walks the range, a million steps, where Clojure counts a range at once",
	"ts/variance-ratio":        "spec 8.4: / returns a float, 1.25 where Clojure has the ratio 5/4",
	"coerce/integer-division":  "spec 8.4: / returns a float, 2.5 and 3.0 where Clojure has 5/2 and 3",
	"mistake/int-division-avg": "spec 8.4: / returns a float even when it divides exactly, 84.0 where Clojure has 84",
	"gpt/pipeline-summary":     "spec 8.4: / returns a float even when it divides exactly, 107500.0 where Clojure has 107500",
	"gpt/frequencies-ratio":    "spec 8.4: / returns a float, 0.6 where Clojure has the ratio 3/5",
	"coerce/num-compare-mixed": "spec 8.4: no ratios; the hint's (/ 1 2) is the float 0.5, which = takes as equal to 0.5, where Clojure's 1/2 is not",
	"mistake/nth-out-of-range": "spec 8.1: nth out of range is nil, where Clojure throws IndexOutOfBoundsException",
	"mistake/contains-vector":  "spec: contains? on a vector tests membership (docs/LANGUAGE.md), where Clojure tests an index",
	"mistake/str-of-lazy-seq":  "silent: (str (map inc xs)) prints the elements, where Clojure prints the lazy sequence's class and hash, clojure.lang.LazySeq@7c42",
	"text/sentence-split":      "regex lookbehind: RE2 has none, and the hint asks for a rewrite without naming one",
}

// TestJudge3Corpus runs the judge3 corpus against Clojure's answers, as
// TestHeldoutCorpus does the held-out one: it fails on a silent wrong
// answer judge3Known does not list as one, on a failing entry it does not
// list, and below judge3Floor.
func TestJudge3Corpus(t *testing.T) {
	judgeCorpus(t, "judge3", judge3Corpus, judge3Known, judge3Floor)
}
