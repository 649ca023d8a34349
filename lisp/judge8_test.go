package lisp

import "testing"

// judge8Corpus holds an eighth set of multi-step data tasks in the styles
// models write, aimed at text processing, queues and stacks, sorted
// collections, map reshaping, higher-order helpers, conditional threading,
// case and condp, loop accumulators, bits and characters, string and number
// conversions and the mistakes models make, written apart from every
// corpus the builtins were fixed against. Each entry carries the result
// Clojure 1.11 gives (testdata/idioms/oracle.py run on testdata/judge8
// made it from testdata/judge8/programs.txt).
const judge8Corpus = "testdata/judge8/corpus.jsonl"

// judge8Floor is the share of counted entries (all but the spec
// differences) that must give Clojure's value, or be refused with a
// rewrite that gives it: 96.3 at the first measurement, 97.4 after
// the fixes of name, the bit statics, assoc's key class and merge.
const judge8Floor = 97.4

// judge8Known lists every entry that does not give Clojure's value today,
// with why, in heldoutKnown's terms.
var judge8Known = map[string]string{
	"mistake/nth-negative":            "spec 8.1: nth out of range is nil where Clojure throws IndexOutOfBoundsException (docs/LANGUAGE.md)",
	"mistake/equality-int-double":     "spec 8.4: no ratios; the literal 1/2 is refused and the hint's (/ 1 2) is the float 0.5, which = takes as equal to 0.5, where Clojure's 1/2 is not",
	"big/factorial-bigint":            "no big integers: *' is refused and the hint's * overflows on 25!",
	"big/bigint-literal":              "no BigInt: 1N is refused",
	"big/inc-prime-overflow":          "no big integers: inc' is refused and the hint's inc overflows on Long/MAX_VALUE",
	"big/bigint-fn":                   "no big integers: a literal past 64 bits is refused, and the hint's float loses digits",
	"big/fib-big":                     "no BigInt: 0N is refused",
	"big/bigdec-sum":                  "no BigDecimal: 19.99M is refused",
	"char/int-char":                   "(int \\0) is refused as ambiguous, and the hint's (parse-long s) gives the digit 0, not the code 48",
	"char/digit-values":               "(int c) of a digit character is refused as ambiguous; the hint's parse-long gives the digits, but the program's (int \\0) then fails the same way",
	"sb/stringbuilder-length-reverse": "StringBuilder is refused; the hint names str for .append but nothing for .length or .reverse",
}

// TestJudge8Corpus runs the judge8 corpus against Clojure's answers, with
// judgeCorpus's rules.
func TestJudge8Corpus(t *testing.T) {
	judgeCorpus(t, "judge8", judge8Corpus, judge8Known, judge8Floor)
}
