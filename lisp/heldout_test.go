package lisp

import (
	"strings"
	"testing"
)

// heldoutCorpus holds multi-step data tasks in the styles models write,
// kept apart from the corpora the builtins were fixed against, so that it
// measures whether those fixes generalize. Each entry carries the result
// Clojure 1.11 gives (testdata/heldout/oracle.py made it from
// testdata/heldout/programs.txt).
const heldoutCorpus = "testdata/heldout/corpus.jsonl"

// heldoutFloor is the share of counted entries (all but the spec
// differences) that must give Clojure's value, or be refused with a
// rewrite that gives it.
const heldoutFloor = 95.8

// heldoutKnown lists every entry that does not give Clojure's value today,
// with why. An entry whose reason starts with "spec" is a deliberate
// difference docs/LANGUAGE.md explains and is not counted unless it passes;
// one starting with "silent" is a wrong value still to be fixed; the others
// are refusals whose hint, followed literally, does not give Clojure's
// value, counted as failures. A failing entry missing from this list fails
// the test, and so does a listed refusal that turns into a wrong value, so
// the list can only shrink or get better.
var heldoutKnown = map[string]string{
	"orders/average-order-value":        "spec 8.4: / returns a float, 136.25 where Clojure has the ratio 545/4",
	"logs/window-avg":                   "spec 8.4: / returns a float even when it divides exactly, 20.0 where Clojure has 20",
	"agg/avg-helper-variadic":           "spec 8.4: / returns a float, 1.5 where Clojure has 3/2",
	"agg/stddev":                        "spec 8.4: / returns a float even when it divides exactly, 5.0 where Clojure has 5",
	"fn/pre-post":                       "spec 8.4: / returns a float even when it divides exactly, 5.0 where Clojure has 5",
	"num/ratio-ops":                     "spec 8.4: no ratios; the hint's (/ a b) gives floats where Clojure keeps 3/2",
	"misc/str-of-values":                "spec 8.4: no ratios; (str (/ 3 4)) is \"0.75\" where Clojure prints \"3/4\"",
	"err/rethrow-wrap":                  "spec: parse-long of a non-string is nil, so nothing is thrown to wrap",
	"thread/doto-not-needed":            "silent: conj! on a transient used for its effect (bashing in place) changes nothing here, Clojure's transient vector does change",
	"num/bigint-explicit":               "no big integers: the hint's (long x) overflows on 10^19",
	"num/inc-dec-overflow-safe":         "no big integers: the hint's inc overflows on Long/MAX_VALUE",
	"edge/equality-collections-numbers": "no BigInt: 1N is refused",
	"text/pr-str-values":                "spec: a character is a one-character string, so the rewrite's pr-str of \\c is \"c\" (prn-str's hint itself works)",
	"calc/mean-exact-int":               "spec 8.4: / returns a float even when it divides exactly, 4.0 where Clojure has 4",
	"calc/ratio-to-percent":             "spec 8.4: / returns a float, 33.33333333333333 where Clojure has 100/3",
	"calc/number-predicates":            "spec 8.4: no ratios, so the hint's (/ 1 2) is a float that ratio? does not take",
	"calc/float-fn":                     "silent: float does not narrow to 32 bits, (float (/ 10 3)) is 3.3333333333333335 where Clojure prints 3.3333333",
	"helpers/defn-filter-map":           "spec 8.4: / returns a float even when it divides exactly, 4.0 where Clojure has 4",
	"math2/float-vs-double":             "silent: float does not narrow to 32 bits, so the ratio hint's rewrite gives 0.1 for (double (float 0.1)), Clojure 0.10000000149011612",
	"err2/catch-all-throwable-message":  "silent: (quot 1 0)'s message is not \"/ by zero\", which Clojure gives when it compiles quot on primitive longs (boxed values, as from a collection, give \"Divide by zero\")",
	"dates/local-date-of-format":        ".format with a DateTimeFormatter is refused, and the hint names no builtin",
	"dates/duration-between-times":      "java.time.LocalTime and Duration are not available, and the hint lists the namespaces",
	"math2/bigdec-money":                "no BigDecimal: 19.99M is refused",
}

// heldoutOutcome is idiomOutcome, with a refusal whose hint's rewrite
// gives Clojure's value counted as "hinted" and one whose rewrite does not
// as "bad-hint".
func heldoutOutcome(t *testing.T, c idiomCase) (outcome, got string) {
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

// TestHeldoutCorpus runs the held-out corpus against Clojure's answers. It
// fails on any silent wrong answer outside the spec differences, on a
// refusal whose rewrite does not give Clojure's value, on a failing entry
// heldoutKnown does not list, and below heldoutFloor.
func TestHeldoutCorpus(t *testing.T) {
	cases := loadJudgedCorpus(t, heldoutCorpus)
	counted, passed, hinted := 0, 0, 0
	tally := map[string]int{}
	for _, c := range cases {
		outcome, got := heldoutOutcome(t, c)
		tally[outcome]++
		why, known := heldoutKnown[c.ID]
		if outcome == "pass" || outcome == "hinted" {
			counted++
			passed++
			if outcome == "hinted" {
				hinted++
			}
			if known {
				t.Logf("%s now gives Clojure's value: remove it from heldoutKnown", c.ID)
			}
			continue
		}
		if known && strings.HasPrefix(why, "spec") {
			t.Logf("spec difference %s (%s): %s", c.ID, why, got)
			continue
		}
		counted++
		switch {
		case !known:
			t.Errorf("%s (%s) is not in heldoutKnown: %s\n  clojure: %s%s\n  got:     %s", c.ID, outcome, c.Program, c.Clojure, c.ClojureError, got)
		case (outcome == "wrong" || outcome == "lenient" || outcome == "bad-hint") && !strings.HasPrefix(why, "silent"):
			t.Errorf("%s is now a silent wrong answer (%s), heldoutKnown says %q: %s", c.ID, outcome, why, got)
		default:
			t.Logf("known %s (%s): %s", c.ID, why, got)
		}
	}
	pct := 100 * float64(passed) / float64(counted)
	t.Logf("heldout: %d/%d give Clojure's value or a refusal whose rewrite does (%.1f%%), %d of them refusals; outcomes %v",
		passed, counted, pct, hinted, tally)
	if pct < heldoutFloor {
		t.Errorf("held-out pass rate %.1f%% is below %.1f%%", pct, heldoutFloor)
	}
}
