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

// TestSplitAtMatchesRegexpSplit compares the budgeted split with Go's own.
func TestSplitAtMatchesRegexpSplit(t *testing.T) {
	for _, c := range []struct{ pattern, s string }{
		{`,`, "a,b,,c,,"}, {`x*`, "abc"}, {`\s+`, "  a b  "}, {`^`, "abc"}, {`$`, "abc"}, {`b`, "b"}, {`a|`, "banana"},
	} {
		re := mustRegex(t, c.pattern)
		for _, limit := range []int{-1, 1, 2, 3} {
			locs := re.re.FindAllStringSubmatchIndex(c.s, -1)
			got := splitAt(c.s, locs, limit)
			want := re.re.Split(c.s, limit)
			if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
				t.Errorf("split %q by %q limit %d = %q, regexp.Split gives %q", c.s, c.pattern, limit, got, want)
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
