package lisp

import (
	"strconv"
	"strings"
	"testing"
)

// deepBody is a recursive function whose body nests levels calls of inc
// around its recursive call, called to recurse n calls deep.
func deepBody(levels, n int) string {
	return "(defn f [n] (if (zero? n) 0 " + strings.Repeat("(inc ", levels) + "(f (dec n))" +
		strings.Repeat(")", levels) + ")) (f " + strconv.Itoa(n) + ")"
}

// TestDeepBodyCountsAgainstCallDepth: evaluating a function's body
// recurses once per level of its nesting, so a call of a function whose
// body nests bodyLevelsPerCall levels or more counts as more than one
// call against the depth limit. An ordinary body counts once, as before.
func TestDeepBodyCountsAgainstCallDepth(t *testing.T) {
	cases := []struct {
		levels, n int
		want      string // the value, or the error kind
	}{
		{10, 190, "1900"},  // an ordinary body: the call depth alone
		{90, 190, "17100"}, // below bodyLevelsPerCall: still one call each
		{250, 60, "15000"}, // three calls each: 61 calls count as 183
		{250, 70, "depth_limit"},
		{900, 190, "depth_limit"},
		{900, 15, "13500"},
	}
	for _, c := range cases {
		res := run(t, deepBody(c.levels, c.n), Env{})
		got := ""
		if res.Err != nil {
			got = string(res.Err.Kind)
		} else {
			got = Repr(res.Value)
		}
		if got != c.want {
			t.Errorf("a body of %d levels recursing %d calls deep: %s, want %s", c.levels, c.n, got, c.want)
		}
	}
}

// TestThreadingNestsWithinTheAnalysisDepth: a threading macro nests its
// expansion a level per step, past what the reader's nesting limit sees;
// the analysis goes as deep as twice that limit and no deeper, and
// some-> and some->> expand in work linear in their steps.
func TestThreadingNestsWithinTheAnalysisDepth(t *testing.T) {
	limit := analysisDepth(0)
	for _, form := range []string{"->", "->>", "some->", "some->>", "cond->", "as->"} {
		for _, steps := range []int{limit - analysisDepthSlack, 3 * limit} {
			var src string
			switch form {
			case "cond->":
				src = "(cond-> 1 " + strings.Repeat("true inc ", steps) + ")"
			case "as->":
				src = "(as-> 1 x " + strings.Repeat("(inc x) ", steps) + ")"
			default:
				src = "(" + form + " 1 " + strings.Repeat("inc ", steps) + ")"
			}
			res := run(t, src, Env{})
			deep := form != "cond->" && form != "as->" && steps > limit
			switch {
			case deep && (res.Err == nil || res.Err.Kind != depthLimit):
				t.Errorf("%s of %d steps: %v, want depth_limit", form, steps, res.Err)
			case !deep && res.Err != nil:
				t.Errorf("%s of %d steps: %v", form, steps, res.Err)
			case !deep && Repr(res.Value) != strconv.Itoa(steps+1):
				t.Errorf("%s of %d steps: %s, want %d", form, steps, Repr(res.Value), steps+1)
			}
		}
	}
	// The expansion of some-> is linear: a step per step of analysis and
	// no copy of the steps left at each (which grew with their square).
	small := run(t, "(some-> 1 "+strings.Repeat("inc ", 500)+")", Env{})
	large := run(t, "(some-> 1 "+strings.Repeat("inc ", 1000)+")", Env{})
	if small.Err != nil || large.Err != nil {
		t.Fatalf("some->: %v, %v", small.Err, large.Err)
	}
	if large.Steps > 2*small.Steps+100 {
		t.Errorf("some-> of 1,000 steps took %d steps, of 500 %d: more than linear", large.Steps, small.Steps)
	}
}

// TestDeepResultsRefusedBeforeTheirWalk: a result, or a value printed,
// nested far deeper than it may leave or be printed is refused by the
// walk that reads its lazy sequences, at the limit's depth, not after
// recursing through every level of it.
func TestDeepResultsRefusedBeforeTheirWalk(t *testing.T) {
	deep := "(loop [v [] i 0] (if (< i 100000) (recur [v] (inc i)) v))"
	cases := []struct{ src, want string }{
		{deep, "the result nests collections more than 1000 levels deep"},
		{"(loop [v (map inc [1]) i 0] (if (< i 100000) (recur (list v) (inc i)) v))", "the result nests collections more than 1000 levels deep"},
		{"(count (pr-str " + deep + "))", "more than 10000 levels deep, too deep to print"},
		{"(println " + deep + ")", "more than 10000 levels deep, too deep to print"},
	}
	for _, c := range cases {
		res := run(t, c.src, Env{})
		if res.Err == nil || res.Err.Kind != depthLimit || !strings.Contains(res.Err.Message, c.want) {
			t.Errorf("%.60s: %v, want depth_limit: %s", c.src, res.Err, c.want)
		}
	}
	th := newThread(t.Context(), Limits{})
	// A lazy sequence at the bottom: a vector known to hold none is not
	// entered at all.
	v := Value(newSeq(nil, seqOrigin{ends: true}))
	for range 20 {
		v = NewVector([]Value{v, Int(1)})
	}
	if _, err := realizeEndsWithin(th, v, 5); err != errTooDeep {
		t.Errorf("realizeEndsWithin of 21 levels with a limit of 5: %v, want errTooDeep", err)
	}
}
