package lisp

import (
	"strings"
	"testing"
)

// judgedCorpus is a corpus of programs in the styles models write, each
// with the result Clojure 1.11 gives: testdata/idioms/oracle.py run on
// testdata/<name> made testdata/<name>/corpus.jsonl from its
// programs.txt. Each was written apart from the corpora the builtins were
// fixed against, so that it measures whether those fixes generalize.
type judgedCorpus struct {
	name string
	// floor is the share of counted entries (all but the spec
	// differences) that must give Clojure's value, or be refused with a
	// rewrite that gives it, in percent.
	floor float64
	// known lists every entry that does not give Clojure's value today,
	// with why. An entry whose reason starts with "spec" is a deliberate
	// difference docs/LANGUAGE.md explains and is not counted unless it
	// passes; one starting with "silent" is a wrong value still to be
	// fixed; the others are refusals whose hint, followed literally, does
	// not give Clojure's value, counted as failures. A failing entry
	// missing from its list fails the test, and so does a listed refusal
	// that turns into a wrong value, so a list can only shrink or get
	// better.
	known map[string]string
}

// judgedCorpora are the judged corpora, in the order they were written;
// each corpus's README.md tells what it aims at and how it was measured.
var judgedCorpora = []judgedCorpus{
	// heldout: multi-step data tasks in the styles models write, kept apart
	// from the corpora the builtins were fixed against.
	{name: "heldout", floor: 99.8, known: map[string]string{
		"orders/average-order-value": "spec 8.4: / returns a float, 136.25 where Clojure has the ratio 545/4",
		"logs/window-avg":            "spec 8.4: / returns a float even when it divides exactly, 20.0 where Clojure has 20",
		"agg/avg-helper-variadic":    "spec 8.4: / returns a float, 1.5 where Clojure has 3/2",
		"agg/stddev":                 "spec 8.4: / returns a float even when it divides exactly, 5.0 where Clojure has 5",
		"fn/pre-post":                "spec 8.4: / returns a float even when it divides exactly, 5.0 where Clojure has 5",
		"num/ratio-ops":              "spec 8.4: no ratios; the hint's (/ a b) gives floats where Clojure keeps 3/2",
		"misc/str-of-values":         "spec 8.4: no ratios; (str (/ 3 4)) is \"0.75\" where Clojure prints \"3/4\"",
		"err/rethrow-wrap":           "spec: parse-long of a non-string is nil, so nothing is thrown to wrap",
		"text/pr-str-values":         "spec: a character is a one-character string, so the rewrite's pr-str of \\c is \"c\" (prn-str's hint itself works)",
		"calc/mean-exact-int":        "spec 8.4: / returns a float even when it divides exactly, 4.0 where Clojure has 4",
		"calc/ratio-to-percent":      "spec 8.4: / returns a float, 33.33333333333333 where Clojure has 100/3",
		"calc/number-predicates":     "spec 8.4: no ratios, so the hint's (/ 1 2) is a float that ratio? does not take",
		"helpers/defn-filter-map":    "spec 8.4: / returns a float even when it divides exactly, 4.0 where Clojure has 4",
	}},
	// judge3: a third set, written apart from the fresh, held-out, idiom and
	// coverage corpora.
	{name: "judge3", floor: 97.7, known: map[string]string{
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
	}},
	// judge4: a fourth set, written apart from every corpus the builtins
	// were fixed against.
	{name: "judge4", floor: 99.9, known: map[string]string{
		"sched/localdate-plus":    "spec: a DayOfWeek is its name, \"TUESDAY\", where Clojure prints #object[java.time.DayOfWeek 0x... \"TUESDAY\"] (docs/LANGUAGE.md, Dates and times)",
		"claude2/safe-divide":     "spec 8.4: / returns a float, 2.5 where Clojure has the ratio 5/2 (docs/LANGUAGE.md)",
		"mistake/nth-oob":         "spec 8.1: nth out of range is nil where Clojure throws IndexOutOfBoundsException (docs/LANGUAGE.md)",
		"mistake/str-lazy":        "spec 8.1: the text of a sequence is [...], so (str (map inc xs)) is \"[2 3 4]\" where Clojure prints clojure.lang.LazySeq@7c42 (docs/LANGUAGE.md)",
		"mistake/contains-vector": "spec: contains? on a vector tests membership where Clojure's tests an index (docs/LANGUAGE.md)",
	}},
	// judge5: a fifth set, aimed at destructuring, keyword arguments,
	// reduce-kv, set/walk, comparators, letfn, trampoline and printing.
	{name: "judge5", floor: 99.5, known: map[string]string{
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
	}},
	// judge6: a sixth set, aimed at strings and regexes, number formatting,
	// sequence arities, transducers, threading and exceptions.
	{name: "judge6", floor: 99.6, known: map[string]string{
		"num/double-division":                 "spec 8.4: / returns a float, 2.5 and 3.0 where Clojure has 5/2 and 3",
		"num/ratio-printing":                  "spec 8.4: / returns a float even when it divides exactly, 4.0 (a Double) where Clojure has 4 (a Long)",
		"num/ratio-arith":                     "spec 8.4: no ratios; the literal 1/3 is refused and the hint's (/ 1 3) is a float, which numerator does not take",
		"num/avg-double-int":                  "spec 8.4: / returns a float even when it divides exactly, 86.0 where Clojure has 86",
		"seqs/running-window-avg":             "spec 8.4: / returns a float even when it divides exactly, 2.0 where Clojure has 2",
		"thread/thread-with-anon":             "spec 8.4: / returns a float even when it divides exactly, 6.0 where Clojure has 6",
		"loop/gcd-lcm":                        "spec 8.4: / returns a float even when it divides exactly, 12.0 where Clojure has 12",
		"err/try-returns-value":               "spec 8.4: / returns a float even when it divides exactly, 5.0 where Clojure has 5",
		"logs/latency-extract":                "spec 8.4: / returns a float, 21.666666666666668 where Clojure has 65/3",
		"num/long-vs-int-class":               "spec: integers are 64-bit, so (class (int 1)) is java.lang.Long where Clojure's is java.lang.Integer (docs/LANGUAGE.md)",
		"err/throwable-catch-all":             "spec 8.1: nth out of range is nil where Clojure throws IndexOutOfBoundsException (docs/LANGUAGE.md)",
		"text/anagram-groups":                 "spec 8.1: sort returns a vector, which sort orders, where Clojure's seqs are not Comparable (ClassCastException)",
		"mistake/keys-destructure-string-map": "spec 7.5: a map pattern's :keys falls back to the string key, [\"x\" 3] where Clojure has [nil nil]",
	}},
	// judge7: a seventh set, aimed at dates, statistics by hand, grouping
	// and pivoting, ranking, windows, joins, diffs, graph walks, validation
	// and state machines.
	// floor: 99.2 at the first measurement, 100.0 after clojure.math
	// and the namespace hints.
	{name: "judge7", floor: 100.0, known: map[string]string{
		"num/integer-division":    "spec 8.4: / returns a float even when it divides exactly, 2.0 where Clojure has 2",
		"mistake/contains-vector": "spec: contains? on a vector tests membership, [true false] where Clojure's index test gives [false true] (docs/LANGUAGE.md)",
		"mistake/keys-on-vector":  "spec 8.1: sequences are eager, so (keys [1 2]) throws inside the try, which catches it, where Clojure's lazy key seq throws only when printed, outside it (docs/LANGUAGE.md)",
	}},
	// judge8: an eighth set, aimed at text processing, queues and stacks,
	// sorted collections, map reshaping, case/condp, bits and characters,
	// conversions and the mistakes models make.
	// floor: 96.3 at the first measurement, 98.3 after the fixes of
	// name, the bit statics, assoc's key class, merge and the hints of
	// digit characters and StringBuilder, 100.0 with decimals (19.99M).
	{name: "judge8", floor: 100.0, known: map[string]string{
		"mistake/nth-negative":        "spec 8.1: nth out of range is nil where Clojure throws IndexOutOfBoundsException (docs/LANGUAGE.md)",
		"mistake/equality-int-double": "spec 8.4: no ratios; the literal 1/2 is refused and the hint's (/ 1 2) is the float 0.5, which = takes as equal to 0.5, where Clojure's 1/2 is not",
	}},
	// judge9: a ninth set, aimed at protocols, records and multimethods,
	// laziness, metadata, transients, volatiles and delays, the
	// clojure.string/set/walk/data/math APIs, exceptions with finally,
	// equality across types, printing, partitioning, sorting and letfn.
	// floor: 78.7 at the first measurement, 92.0 after volatiles, delays,
	// extend-type/extend-protocol, keyword order, list map entries and
	// the JVM-exact math functions, 93.8 after hierarchies (derive, isa?,
	// multimethod dispatch by isa? with prefer-method), 97.2 with
	// metadata (meta, with-meta, vary-meta, reader and var metadata),
	// 99.0 after lazy-seq and lazy-cat, quot's "/ by zero" on two
	// literals, methods, get-method, remove-method and satisfies?; 100.0
	// after the call of a literal non-function throwing at run time and
	// the defrecord rewrites of deftype and reify.
	{name: "judge9", floor: 100.0, known: map[string]string{
		"proto/extend-record-later":     "spec 8.4: no ratios; the literal 9/5 is refused",
		"multi/parents":                 "spec: ::b reads as :user/b, the program's namespace (docs/LANGUAGE.md), where the oracle ran the program in the namespace idiom.multi.parents; the sets are Clojure's with that namespace",
		"lazy/realized":                 "spec 8.1: sequences are eager, so realized? of one is refused (realized? takes delays), where Clojure's lazy seq is not yet realized (docs/LANGUAGE.md)",
		"lazy/seq-of-lazy-printed":      "spec 8.1: sequence functions return vectors, so pr-str of one is \"[2 3 4]\" where Clojure prints a seq \"(2 3 4)\" (docs/LANGUAGE.md)",
		"lazy/str-of-lazy-seq":          "spec 8.1: sequence functions return vectors, so str of one is its items, where Clojure prints clojure.lang.LazySeq@7c42 (docs/LANGUAGE.md)",
		"lazy/str-of-range":             "spec 8.1: sequence functions return vectors, so (str (range 3)) is \"[0 1 2]\" where Clojure prints \"(0 1 2)\" (docs/LANGUAGE.md)",
		"print/str-nested-lazy":         "spec 8.1: sequence functions return vectors, so str of one is its items, where Clojure prints clojure.lang.LazySeq@8601 (docs/LANGUAGE.md)",
		"print/println-return":          "spec 8.1: sequence functions return vectors, so println of one prints [2 3] where Clojure prints (2 3) (docs/LANGUAGE.md)",
		"print/pr-str-lazy-nested":      "spec 8.1: for and range return vectors, so their text is a vector's (docs/LANGUAGE.md)",
		"mistake/lazy-side-effect-lost": "spec 8.1: sequence functions are eager, so the dropped map's swap! runs, where Clojure's lazy seq never runs it (docs/LANGUAGE.md)",
		"mistake/for-not-doseq":         "spec 8.1: for is eager, so the dropped for's swap! runs, where Clojure's lazy seq never runs it (docs/LANGUAGE.md)",
		"mistake/tree-seq-map-branch":   "spec 8.7: (coll? {:a 1}) is false, so tree-seq with coll? does not descend into a map (lisp/CONFORMANCE.md)",
		"print/prn-str":                 "spec: a character is a one-character string, so \\b prints as \"b\" (docs/LANGUAGE.md)",
		"print/pr-str-char-string":      "spec: a character is a one-character string, so \\a prints as \"a\" (docs/LANGUAGE.md)",
		"mistake/includes-char":         "spec: a character is a one-character string, so (str/includes? \"abc\" \\b) is true where Clojure's Character is no CharSequence",
		"print/str-double":              "spec 8.4: no ratios; the literal 1/2 is refused",
		"mistake/int-division":          "spec 8.4: / returns a float, 3.5 where Clojure has the ratio 7/2",
		"mistake/rename-keys-bare":      "spec: rename-keys is one of PTC-Lisp's own bare names (the prompt lists it under maps), so the bare call runs where clojure.core has no rename-keys",
	}},
	// judge10: a tenth set, written as the closest likeness of the hidden
	// corpus: multi-step agent tasks over tool results given as data.
	{name: "judge10", floor: 100.0, known: map[string]string{
		"orders/ratio-share-exact":           "spec 8.4: / returns a float, 0.5833333333333334 where Clojure has the ratio 7/12",
		"files/csv-parse-report":             "spec 8.4: / returns a float even when it divides exactly, 109500.0 where Clojure has 109500",
		"inventory/valuation-mixed-numbers":  "spec 8.4: no ratios; the literal 3/2 is refused and the hint's (/ 3 2) is a float where Clojure keeps 21/2",
		"metrics/median-even-odd":            "spec 8.4: / returns a float, 2.5 where Clojure has the ratio 5/2",
		"metrics/rate-of-change":             "spec 8.4: / returns a float, 3.0 and -0.5 where Clojure has 3 and -1/2",
		"metrics/apdex":                      "spec 8.4: / returns a float, 0.5 where Clojure has the ratio 1/2",
		"text/sentence-stats":                "spec 8.4: / returns a float, 3.25 where Clojure has the ratio 13/4",
		"agent/plan-steps-reduce":            "spec 8.4: / returns a float, 5.5 where Clojure has the ratio 11/2",
		"style/assert-pre-post":              "spec 8.4: / returns a float, 2.5 where Clojure has the ratio 5/2",
		"mistake/equals-int-double":          "spec 8.4: / returns a float even when it divides exactly, so (= 2 (/ 4 2)) is false where Clojure's 2 is a Long",
		"mistake/divide-ints-expect-decimal": "spec 8.4: / returns a float, 0.7777777777777778 where Clojure has the ratio 7/9",
		"report/ticket-weekly-digest":        "spec 8.4: / returns a float even when it divides exactly, \"1.0\" where Clojure prints 1",
		"sim/bank-queue":                     "spec 8.4: / returns a float even when it divides exactly, 3.0 where Clojure has 3",
		"sim/dice-free-histogram":            "spec 8.4: / returns a float, 0.16666666666666666 where Clojure has the ratio 1/6",
		"num/mixed-arithmetic":               "spec 8.4: no ratios; the literal 1/2 is refused and the hint's (/ 1 2) is a float where Clojure keeps 3/2",
		"num/integer-stats":                  "spec 8.4: / returns a float even when it divides exactly, 18.0 where Clojure has 18",
		"num/average-int-division-exact":     "spec 8.4: / returns a float even when it divides exactly, 4.0 where Clojure has 4",
		"mistake/contains-on-vector-index":   "spec: contains? on a vector tests membership where Clojure's tests an index (docs/LANGUAGE.md)",
		"mistake/char-vs-string-compare":     "spec: a character is a one-character string, so (= (first s) \"b\") is true where Clojure's \\b is not a string",
		"mistake/lazy-seq-realized-in-let":   "spec 8.1: sequence functions return vectors, so (vector? (map f xs)) is true and seq? false (docs/LANGUAGE.md)",
		"mistake/apply-str-on-seq":           "spec 8.1: sequence functions return vectors, so str of one is its items, where Clojure prints clojure.lang.LazySeq@13291 (docs/LANGUAGE.md)",
	}},
	// judge11: an eleventh set, aimed at text parsing, nested JSON
	// reshaping, graphs and trees, statistics, intervals, money, relations,
	// transducers, comparators and Java interop.
	{name: "judge11", floor: 99.6, known: map[string]string{
		"json/count-leaf-types":          "spec 8.7: (coll? {}) is false, so tree-seq with coll? as branch? does not enter the root map",
		"rec/gcd-lcm":                    "spec 8.4: / returns a float even when it divides exactly, 60.0 where Clojure has 60",
		"fn/fnil-and-complement":         "spec: a function in a result prints as the source that makes it, (every-pred pos? even?), where Clojure prints #object[...] with an identity hash no value can equal",
		"exinfo/throw-catch-classes":     "spec 8.1: (nth [1 2] 5) is nil, so nothing is thrown to catch",
		"mistake/nth-out-of-range":       "spec 8.1: (nth v 3) out of range is nil, so the try returns nil where Clojure catches IndexOutOfBoundsException",
		"mistake/loop-recur-wrong-arity": "no eval: the hint's form written itself is a compile error in Clojure too, so no rewrite gives the :compile-error Clojure's eval caught",
	}},
	// judge12: a twelfth set, aimed at what agents do with tool results:
	// paging and merging, deduplicating and joining by key, reports built
	// as strings, simulations and ledgers, ranking with ties, fuzzy
	// matching, validation, nested updates and common mistakes.
	// floor: 97.7 at the first measurement (340/348), 99.4 after the
	// ArityException and map-argument messages and defs holding an atom,
	// 99.7 after the error classes and builders the generated probes found.
	{name: "judge12", floor: 99.7, known: map[string]string{
		"ledger/split-bill":                  "spec 8.4: / returns a float even when it divides exactly, 45.0 where Clojure has 45",
		"num/ratios-printed":                 "spec 8.4: no ratios; the literal 1/2 is refused and the hint's (/ 1 2) is a float where Clojure keeps 5/6",
		"num/int-double-equality":            "spec 8.4: no ratios; the literal 1/2 is refused and the hint's (/ 1 2) is the float 0.5, which = takes as equal to 0.5, where Clojure's 1/2 is not",
		"num/average-empty-guard":            "spec 8.4: / returns a float, 2.5 where Clojure has the ratio 5/2",
		"num/gcd-simplify":                   "spec 8.4: / returns a float even when it divides exactly, \"2.0/3.0\" where Clojure prints \"2/3\"",
		"num/parse-and-sum":                  "spec: (parse-double \" 7\") is nil, the PTC-Lisp specification's rule, where Clojure 1.11's trims it to 7.0 (docs/LANGUAGE.md)",
		"rec/subsets-sum":                    "spec 8.1: sort returns a vector, which sort orders, where Clojure's seqs are not Comparable (ClassCastException)",
		"mistake/contains-vector-value":      "spec: contains? on a vector tests membership where Clojure's tests an index (docs/LANGUAGE.md)",
		"mistake/str-of-lazy-seq":            "spec 8.1: sequence functions return vectors, so pr-str of one is \"[2 3 4]\" where Clojure prints \"(2 3 4)\" (docs/LANGUAGE.md)",
		"mistake/for-returns-seq-not-vector": "spec 8.1: for returns a vector, so vector? is true and conj adds at the end (docs/LANGUAGE.md)",
		"mistake/seq-of-number":              "spec 8.1: sequences are eager, so (map inc 5) throws inside the try, which catches it, where Clojure's lazy seq throws only when printed, outside it (docs/LANGUAGE.md)",
		"mistake/char-vs-string-keys":        "spec: a character is a one-character string, so (get freq \"a\") finds the key \\a where Clojure's string is not a character",
		"num/unchecked-hash":                 "types: the hexadecimal literal 0xFFFFFFFF is refused (write the decimal value), and then (int c) of a digit character of a string is refused as ambiguous, with a hint for digits only",
	}},
	// judge13: a thirteenth set, aimed at puzzle and algorithm tasks over
	// input strings, code manipulation over line lists, the numeric tower at
	// its edges, sorted collections, characters, printing and programs that
	// throw in Clojure.
	// floor: 91.6 at the first measurement (263/287), 96.5 after the
	// unchecked int arithmetic, symbols called as functions, newline and
	// the Java statics, the rewrites of hinted refusals and the hints of a
	// negative lookahead and of arrays written in a loop (277/287); 98.6
	// after read-string, BigInteger's methods and the regexes RE2 cannot
	// run (283/287); 98.9 once overloaded Java statics are called as
	// Clojure's reflector calls them (284/287).
	{name: "judge13", floor: 98.9, known: map[string]string{
		"num/ratio-arith":                    "spec 8.4: no ratios; numerator and denominator are refused, and / returns a float where Clojure keeps 19/12",
		"num/mean-median-mode-ints":          "spec 8.4: / returns a float, 5.2 and 5.5 where Clojure has the ratios 26/5 and 11/2",
		"num/number-types-predicates":        "spec 8.4: / returns a float, so (/ 1 3) and (/ 4 2) are doubles where Clojure has the ratio 1/3 and the long 2",
		"num/equality-across-types":          "spec 8.4: no ratios; the literal 1/2 is refused",
		"num/rationalize-and-ratio-ops":      "spec 8.4: no ratios; the literal 1/4 is refused",
		"num/ratio-reduce-sum":               "spec 8.4: / returns a float, 2.4499999999999997 where Clojure sums the ratios to 49/20",
		"num/average-int-vs-double":          "spec 8.4: / returns a float even when it divides exactly, 86.0 where Clojure has 86",
		"mistake/biginteger-division":        "spec 8.4: / returns a float, 2.5 where Clojure has the ratio 5/2",
		"mistake/rational-compare-double":    "spec 8.4: / returns a float, so (= (/ 1 3) 0.3333333333333333) is true where Clojure's ratio is not = to a double",
		"mistake/long-division-expect-float": "spec 8.4: / returns a float, 0.7777777777777778 where Clojure has the ratio 7/9",
		"print/pr-str-nested":                "spec: a character is a one-character string, so \\3 prints as \"3\" (docs/LANGUAGE.md)",
		"print/prn-vs-println-out":           "spec: a character is a one-character string, so prn of \\c prints \"c\" (docs/LANGUAGE.md)",
		"print/str-of-collections":           "spec: a character is a one-character string, so str of [\\b] is [\"b\"] (docs/LANGUAGE.md)",
		"print/print-str-vs-pr-str":          "spec: a character is a one-character string, so pr-str of \\b is \"b\" (docs/LANGUAGE.md)",
		"print/chars-in-collections":         "spec: a character is a one-character string, so \\a and \\space print as strings (docs/LANGUAGE.md)",
		"mistake/int-of-string-caught":       "spec: a character is a one-character string, so (int \"5\") is the ambiguous digit-or-code error (caught as ClassCastException as in Clojure) with PTC-Lisp's message where Clojure's names String and Character",
		"print/lazy-seq-printing":            "spec 8.1: sequence functions return vectors, so pr-str of (map inc [1 2 3]) is \"[2 3 4]\" where Clojure prints \"(2 3 4)\" (docs/LANGUAGE.md)",
		"print/lazy-seq-in-str":              "spec 8.1: sequence functions return vectors, so pr-str of a filter is \"[1 3 5 7 9]\" where Clojure prints \"(1 3 5 7 9)\" (docs/LANGUAGE.md)",
		"mistake/nth-out-of-range-vector":    "spec 8.1: (nth v 5) out of range is nil, so nothing is thrown to catch",
		"mistake/uncaught-nth":               "spec 8.1: (nth v 2) out of range is nil where Clojure throws IndexOutOfBoundsException",
		"mistake/mod-vs-rem-negative-index":  "spec 8.1: (nth v -1) is nil, so nothing is thrown to catch",
		"mistake/peek-on-seq":                "spec 8.1: map returns a vector, so peek gives its last item where Clojure cannot peek a lazy seq (ClassCastException)",
		"mistake/vector-arity-fn":            "spec 8.1: map is eager, so the arity error is thrown inside the try, which catches it, where Clojure's lazy seq throws only when printed, outside it",
		"mistake/keys-on-vector":             "spec 8.1: keys is eager, so the error is thrown inside the try, which catches it, where Clojure's key seq throws only when printed, outside it",
		"mistake/wrong-arity-defn":           "spec: a program's names live in the namespace user, so the message names user/area, where the oracle ran the program in the namespace idiom.mistake.wrong-arity-defn",
		"code/macro-expand-threading":        "refused: macroexpand is not available (no macros)",
		"num/sum-of-squares-overflow":        "refused: reducing (range 1 2000001) exceeds the step limit of 1000000",
		"mistake/recur-not-tail":             "refused: the call depth limit of 200 stops (sum-to 100000) before the try can catch Clojure's StackOverflowError",
	}},
	// judge14: a fourteenth set, aimed at agent bookkeeping in atoms and
	// volatiles, protocols, records and multimethods with hierarchies over
	// mixed tool results, heavy destructuring, function composition, the
	// less used sequence functions, keywords and symbols, metadata and
	// programs that throw in Clojure.
	// floor: 97.2 at the first measurement (245/252), 100 after protocol
	// methods of several arities, (keyword nil "x"), the ident predicates
	// and the rewrites of four hinted refusals (252/252).
	{name: "judge14", floor: 100, known: map[string]string{
		"kw/name-namespace":                "spec: a program's names live in the namespace user, so (namespace ::local) is \"user\" where the oracle ran the program in the namespace idiom.kw.name-namespace",
		"throw/pre-post-caught":            "spec 8.4: / returns a float even when it divides exactly, 5.0 where Clojure has 5",
		"throw/catch-order-specific-first": "spec 8.1: (nth [] 3) out of range is nil, so nothing is thrown to catch",
	}},
	// judge15: a fifteenth set, everyday agent data tasks: tool results
	// as literal vectors of maps, grouping, sorting, aggregating,
	// formatting, string parsing, small algorithms, error handling and
	// programs that throw in Clojure.
	// floor: 98.6 at the first measurement (144/146: one silent value,
	// fmt/number-commas, and one refusal with no rewrite, the
	// StringBuilder of qwen/string-builder-style), 99.3 with that
	// refusal's rewrite, its hint followed literally (145/146).
	// 100 once overloaded Java statics are called as Clojure's reflector
	// calls them (146/146).
	{name: "judge15", floor: 100},
}

// TestJudgedCorpora runs each judged corpus against Clojure's answers with
// judgeCorpus's rules.
func TestJudgedCorpora(t *testing.T) {
	for _, c := range judgedCorpora {
		t.Run(c.name, func(t *testing.T) {
			judgeCorpus(t, c)
		})
	}
}

// judgeOutcome is idiomOutcome, with a refusal whose hint's rewrite gives
// Clojure's value counted as "hinted" and one whose rewrite does not as
// "bad-hint".
func judgeOutcome(t *testing.T, c idiomCase) (outcome, got string) {
	outcome, got = idiomOutcome(t, c)
	if outcome != "refused" || c.Rewrite == "" {
		return outcome, got
	}
	fixed := idiomCase{ID: c.ID, Program: c.Rewrite, Clojure: c.Clojure, ClojureError: c.ClojureError}
	if o, g := idiomOutcome(t, fixed); o != "pass" {
		return "bad-hint", got + "; the rewrite gives " + g
	}
	return "hinted", got
}

// judgeCorpus runs a judged corpus against Clojure's answers: it fails on
// a silent wrong answer that its known list does not list as one (its
// reason starting with "silent"), on a failing entry the list does not
// name, and below its floor percent of the counted entries, which are all
// but the entries whose reason starts with "spec".
func judgeCorpus(t *testing.T, jc judgedCorpus) {
	t.Helper()
	cases := loadJudgedCorpus(t, "testdata/"+jc.name+"/corpus.jsonl")
	counted, passed, hinted := 0, 0, 0
	tally := map[string]int{}
	for _, c := range cases {
		outcome, got := judgeOutcome(t, c)
		tally[outcome]++
		why, listed := jc.known[c.ID]
		if outcome == "pass" || outcome == "hinted" {
			counted++
			passed++
			if outcome == "hinted" {
				hinted++
			}
			if listed {
				t.Logf("%s now gives Clojure's value: remove it from the known list", c.ID)
			}
			continue
		}
		if listed && strings.HasPrefix(why, "spec") {
			t.Logf("spec difference %s (%s): %s", c.ID, why, got)
			continue
		}
		counted++
		switch {
		case !listed:
			t.Errorf("%s (%s) is not in the known list: %s\n  clojure: %s%s\n  got:     %s", c.ID, outcome, c.Program, c.Clojure, c.ClojureError, got)
		case (outcome == "wrong" || outcome == "lenient" || outcome == "bad-hint") && !strings.HasPrefix(why, "silent"):
			t.Errorf("%s is now a silent wrong answer (%s), the known list says %q: %s", c.ID, outcome, why, got)
		default:
			t.Logf("known %s (%s): %s", c.ID, why, got)
		}
	}
	pct := 100 * float64(passed) / float64(counted)
	t.Logf("%s: %d/%d give Clojure's value or a refusal whose rewrite does (%.1f%%), %d of them refusals; outcomes %v",
		jc.name, passed, counted, pct, hinted, tally)
	if pct < jc.floor {
		t.Errorf("%s pass rate %.1f%% is below %.1f%%", jc.name, pct, jc.floor)
	}
}
