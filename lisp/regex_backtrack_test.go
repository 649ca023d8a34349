package lisp

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// catastrophic backtracks exponentially: the backreference turns off the
// remembering of failed loop entries, as it does in Java.
const catastrophic = `()\1(a+)+b`

// TestBacktrackEndsByCharge: a catastrophic match ends by the step budget,
// at the same step each time, with the clock far away (a ten-minute
// timeout); and without a step budget, by the matcher's own bound.
func TestBacktrackEndsByCharge(t *testing.T) {
	prog, err := compileBacktrack(catastrophic)
	if err != nil {
		t.Fatal(err)
	}
	input := strings.Repeat("a", 30) + "c"
	var steps []int64
	for i := 0; i < 3; i++ {
		th := newThread(context.Background(), Limits{MaxSteps: 200_000, Timeout: 10 * time.Minute})
		_, err := prog.find(th, input, 0, false)
		e, ok := err.(*Error)
		if !ok || e.Kind != stepLimit {
			t.Fatalf("run %d: %v, want a step limit error", i, err)
		}
		if !strings.Contains(e.Hint, "nested repetition") {
			t.Errorf("run %d: hint %q does not name the cause", i, e.Hint)
		}
		steps = append(steps, th.steps)
	}
	if steps[0] != steps[1] || steps[1] != steps[2] {
		t.Errorf("the match ended at steps %v, want the same step each time", steps)
	}

	th := newThread(context.Background(), Limits{MaxSteps: 1 << 40, Timeout: 10 * time.Minute})
	_, err = prog.find(th, input, 0, false)
	if e, ok := err.(*Error); !ok || e.Kind != stepLimit || !strings.Contains(e.Message, "steps of backtracking") {
		t.Errorf("without a step budget: %v, want the matcher's own step bound", err)
	}

	// From a program, the same: an error of the step budget, not the clock.
	src := `(re-find #"` + catastrophic + `" "` + input + `")`
	res := run(t, src, Env{Limits: Limits{Timeout: 10 * time.Minute}})
	if res.Err == nil || res.Err.Kind != stepLimit {
		t.Errorf("%s: %v, want a step limit error", src, res.Err)
	}
}

// TestBacktrackStackIsCharged: the backtrack stack counts against the
// allocation budget as it grows.
func TestBacktrackStackIsCharged(t *testing.T) {
	prog, err := compileBacktrack(`()\1(?:a|b)*c`)
	if err != nil {
		t.Fatal(err)
	}
	th := newThread(context.Background(), Limits{MaxSteps: 1 << 40, MaxAllocBytes: 1 << 20, Timeout: 10 * time.Minute})
	_, err = prog.find(th, strings.Repeat("a", 100_000), 0, false)
	if e, ok := err.(*Error); !ok || e.Kind != memoryLimit {
		t.Errorf("%v, want a memory limit error", err)
	}
}

// TestBacktrackRemembersFailures: a greedy loop whose body failed from a
// position is not entered there again (as Java since 9), so (a+)+ with a
// lookahead after it answers in steps linear in the input.
func TestBacktrackRemembersFailures(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`(re-find #"(a+)+(?=b)" "` + strings.Repeat("a", 2000) + `c")`, "nil"},
		{`(re-find #"(a|aa)+(?=b)" "` + strings.Repeat("a", 2000) + `b")`, `["` + strings.Repeat("a", 2000) + `" "a"]`},
		{`(re-matches #"(\w+\s?)+(?<=x)" "` + strings.Repeat("ab ", 300) + `!")`, "nil"},
	} {
		res := run(t, c.src, Env{Limits: Limits{MaxSteps: 1_000_000, Timeout: 10 * time.Minute}})
		if res.Err != nil {
			t.Errorf("%.60s...: %v", c.src, res.Err)
			continue
		}
		if got := Repr(res.Value); got != c.want {
			t.Errorf("%.60s...: got %.80s, want %.80s", c.src, got, c.want)
		}
	}
}

// TestBacktrackRefusals: what Java refuses, the matcher refuses, with the
// place.
func TestBacktrackRefusals(t *testing.T) {
	for _, p := range []string{`(?<=a)(b`, `(?<=a))`, `(?=a`, `[a-`, `\k<x>(?<x>a)`, `a{2,1}(?=b)`, `(?<=a)*+b\`, `(?<n>a)(?<n>b)\1`, `(?=a)\G`} {
		if _, err := compileBacktrack(p); err == nil {
			t.Errorf("%q compiled, want an error", p)
		}
	}
}

// FuzzBacktrack: whatever the pattern and input, the matcher does not
// panic, and a match ends with an answer or by a charge (steps or
// memory), within the step budget.
func FuzzBacktrack(f *testing.F) {
	for _, seed := range [][2]string{
		{catastrophic, strings.Repeat("a", 25)},
		{`(?<=\$)\d+(?!\.)`, "cost $42.50"},
		{`(\w)\1(?>a|ab)c*+`, "xxabcc"},
		{`(?i)(?<q>['"]).*?\k<q>`, `'a' "b"`},
		{`[a-z&&[^aeiou]]+|(?m)^$|\b\B`, "hello\n\nworld"},
		{`(?x) a # comment` + "\n" + ` b{2,}`, "abbb"},
		{`((a*)*)*(?=b)`, "aaaaaaaaaaaac"},
		{`(?<=(a|bc){1,3})\R\Q.*\E`, "bca\r\n.*"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pattern, input string) {
		if len(pattern) > maxPatternBytes || len(input) > 4096 {
			return
		}
		prog, err := compileBacktrack(pattern)
		if err != nil {
			return
		}
		const budget = 50_000
		th := newThread(context.Background(), Limits{MaxSteps: budget, MaxAllocBytes: 1 << 20, Timeout: 10 * time.Minute})
		locs, err := prog.findAll(th, input, -1)
		if err != nil {
			e, ok := err.(*Error)
			if !ok || e.Kind != stepLimit && e.Kind != memoryLimit {
				t.Fatalf("%q on %q: %v, want an answer or a charge", pattern, input, err)
			}
			return
		}
		if th.steps > budget {
			t.Fatalf("%q on %q: %d steps past the budget of %d", pattern, input, th.steps, budget)
		}
		for _, loc := range locs {
			if len(loc) != 2*(prog.groups+1) || loc[0] < 0 || loc[0] > loc[1] || loc[1] > len(input) {
				t.Fatalf("%q on %q: bad match positions %v", pattern, input, loc)
			}
		}
	})
}

// FuzzBacktrackAgreesWithRE2: on a pattern both engines run, over ASCII
// text without line breaks, the backtracking matcher finds what RE2 (in
// its leftmost-first mode, which follows backtracking's order) finds:
// the same matches and groups. Patterns where Java and RE2 differ on
// purpose ($ before a final break, \b outside ASCII, case folding, an
// empty iteration of a loop) are skipped.
func FuzzBacktrackAgreesWithRE2(f *testing.F) {
	for _, seed := range [][2]string{
		{`(a|ab)(c|bcd)(d*)`, "abcd"},
		{`(\w+)\s*=\s*(\d+)?`, "x = 1, y=, z = 22"},
		{`[^a-c]+|a{2,3}?b*`, "aaabbxyzacab"},
		{`((a)|b)+`, "abab"},
		{`(?:x|xy)z?`, "xyzxz"},
		// Java's octal escapes, checked with Clojure 1.11: \0000 is NUL,
		// \0400 a space and a 0.
		{`0\0000*`, "0"},
		{`a\0101`, "aA"},
		{`a\0400`, "a 0"},
		{`[\0101-\0103]+`, "xABCD"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pattern, input string) {
		if len(pattern) > 40 || len(input) > 64 || strings.ContainsAny(pattern, "$^.*\\(?{") && strings.ContainsAny(pattern, "$^.") ||
			strings.Contains(pattern, `\b`) || strings.Contains(pattern, `\B`) || strings.Contains(pattern, `(?`) ||
			strings.Contains(pattern, `\Z`) || strings.Contains(pattern, `\z`) || strings.Contains(pattern, `\Q`) ||
			strings.Count(pattern, "[") > 1 || strings.Contains(pattern, "{0") {
			// nested classes and {00} are read as Java reads them, which
			// RE2 does not
			return
		}
		for i := 0; i < len(input); i++ {
			if input[i] < ' ' || input[i] > '~' {
				return
			}
		}
		if loopCanMatchEmpty(pattern) {
			return
		}
		translated, ok := javaRegex(pattern)
		if !ok {
			return
		}
		re, err := regexp.Compile(translated)
		if err != nil {
			return
		}
		prog, err := compileBacktrack(pattern)
		if err != nil {
			return // Java refuses what RE2 reads as a literal, such as a{2
		}
		th := newThread(context.Background(), Limits{MaxSteps: 1 << 40, MaxAllocBytes: 1 << 30, Timeout: 10 * time.Minute})
		got, err := prog.findAll(th, input, -1)
		if err != nil {
			return
		}
		want := re.FindAllStringSubmatchIndex(input, -1)
		if len(got) != len(want) {
			t.Fatalf("%q on %q: %d matches %v, RE2 %d %v", pattern, input, len(got), got, len(want), want)
		}
		for i := range got {
			if !slices.Equal(got[i], want[i]) {
				t.Fatalf("%q on %q: match %d is %v, RE2's %v", pattern, input, i, got[i], want[i])
			}
		}
	})
}

// loopCanMatchEmpty reports whether a repetition in pattern can repeat
// something that matches the empty string, where Java's and RE2's
// matches differ (Java stops a loop on an empty iteration), or where an
// empty match follows a longer one (Java finds it, RE2 skips it).
func loopCanMatchEmpty(pattern string) bool {
	tree, _, err := parseBacktrack(pattern)
	if err != nil {
		return true
	}
	if lo, _ := widthOf(tree); lo == 0 {
		return true
	}
	var walk func(n *btNode) bool
	walk = func(n *btNode) bool {
		if n.kind == nRepeat {
			if lo, _ := widthOf(n.subs[0]); lo == 0 {
				return true
			}
		}
		return slices.ContainsFunc(n.subs, walk)
	}
	return walk(tree)
}

// BenchmarkBacktrackStep: the time of one step of the backtracking
// matcher (one instruction), on a lookahead and on a backreference over
// text, reported as ns/step (docs/BENCHMARKS.md).
func BenchmarkBacktrackStep(b *testing.B) {
	text := strings.Repeat("the price is $42.50 or 17px, bookkeeper ", 25)
	for _, pattern := range []string{`\d+(?=px)`, `(\w)\1`, `(?<=\$)\d+(?:\.\d+)?`} {
		prog, err := compileBacktrack(pattern)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(pattern, func(b *testing.B) {
			var steps int64
			for i := 0; i < b.N; i++ {
				th := newThread(context.Background(), Limits{MaxSteps: 1 << 40, MaxAllocBytes: 1 << 30, Timeout: time.Minute})
				if _, err := prog.findAll(th, text, -1); err != nil {
					b.Fatal(err)
				}
				steps += th.steps
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
		})
	}
}
