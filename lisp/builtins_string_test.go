package lisp

import (
	"context"
	"strings"
	"testing"
)

func mustRegex(t *testing.T, pattern string) *regex {
	t.Helper()
	re, err := compileRegex("test", pattern)
	if err != nil {
		t.Fatal(err)
	}
	return re
}

// TestSplitAtMatchesJavaSplit compares the budgeted split with the
// answers Clojure 1.11 gives (Java's Pattern.split, recorded with
// (str/split s (re-pattern p) limit)), where Go's regexp.Split differs on
// empty matches: Java finds one right after a longer match, and keeps
// what follows the last match as a part even when it is empty.
func TestSplitAtMatchesJavaSplit(t *testing.T) {
	for _, c := range []struct {
		pattern, s string
		want       [4]string // limits -1, 1, 2, 3, parts joined by |
	}{
		{`,`, "a,b,,c,,", [4]string{"a|b||c||", "a,b,,c,,", "a|b,,c,,", "a|b|,c,,"}},
		{`x*`, "abc", [4]string{"a|b|c|", "abc", "a|bc", "a|b|c"}},
		{`\s+`, "  a b  ", [4]string{"|a|b|", "  a b  ", "|a b  ", "|a|b  "}},
		{`^`, "abc", [4]string{"abc", "abc", "abc", "abc"}},
		{`$`, "abc", [4]string{"abc|", "abc", "abc|", "abc|"}},
		{`b`, "b", [4]string{"|", "b", "|", "|"}},
		{`a|`, "banana", [4]string{"b||n||n||", "banana", "b|nana", "b||nana"}},
	} {
		re := mustRegex(t, c.pattern)
		for i, limit := range []int{-1, 1, 2, 3} {
			locs := javaMatches(re, c.s, re.re.FindAllStringSubmatchIndex(c.s, -1))
			if got := strings.Join(splitAt(c.s, locs, limit), "|"); got != c.want[i] {
				t.Errorf("split %q by %q limit %d = %q, Clojure gives %q", c.s, c.pattern, limit, got, c.want[i])
			}
		}
	}
}

// TestMatchesAreChargedBeforeTheyAreBuilt feeds a long string to patterns
// that match every character: the match positions must not be built
// beyond the budget.
func TestMatchesAreChargedBeforeTheyAreBuilt(t *testing.T) {
	long := str(strings.Repeat("a1", 1<<20))
	for _, c := range [][]Value{
		{mustRegex(t, `\d`), long},
	} {
		for _, fn := range []string{"re-seq"} {
			th := newThread(context.Background(), Limits{MaxSteps: 1 << 40, MaxAllocBytes: 1 << 20})
			_, err := callBuiltin(th, fn, c...)
			if e := asError(err); err == nil || e.Kind != memoryLimit {
				t.Errorf("%s over 1M matches = %v, want memory_limit", fn, err)
			}
		}
	}
	for _, args := range [][]Value{
		{long, mustRegex(t, `\d`)},
		{long, str("1")},
		{long, str("")},
	} {
		th := newThread(context.Background(), Limits{MaxSteps: 1 << 40, MaxAllocBytes: 1 << 20})
		_, err := callBuiltin(th, "split", args...)
		if e := asError(err); err == nil || e.Kind != memoryLimit {
			t.Errorf("split into 1M parts by %s = %v, want memory_limit", Repr(args[1]), err)
		}
	}
	th := newThread(context.Background(), Limits{MaxSteps: 1 << 40, MaxAllocBytes: 1 << 20})
	_, err := callBuiltin(th, "replace", long, mustRegex(t, `\d`), str("xx"))
	if e := asError(err); err == nil || e.Kind != memoryLimit {
		t.Errorf("replace of 1M matches = %v, want memory_limit", err)
	}
}
