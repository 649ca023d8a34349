package lisp

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestDearSmallNumbersAreCharged: numbers too short for the charges that
// grow with their digits still cost more than a step to read. A decimal
// or big integer of about 300 digits given to any builtin (converted to a
// double, an index or a count) is charged a step per 64-bit word; Java's
// IEEEremainder, a step per 16 binary places it reduces; .precision of
// 100,000 digits, the power of ten its digit count builds, not a scan.
func TestDearSmallNumbersAreCharged(t *testing.T) {
	dec300 := digits(150) + "." + digits(150) + "M"
	big300 := digits(300) + "N"
	long := strings.Repeat("7", 100_000) + "M"
	callable := everyCallable()
	for _, c := range []struct {
		name      string
		args      []string
		leastStep int64
	}{
		{"Math/hypot", []string{dec300, dec300}, 30},
		{"Math/atan2", []string{big300, dec300}, 30},
		{"Double/toString", []string{dec300}, 15},
		{"range", []string{dec300, dec300}, 30},
		{"nth", []string{"[1 2 3]", dec300, "0"}, 15},
		{"Math/IEEEremainder", []string{"1e300", "7.0"}, 60},
		{"Math/IEEEremainder", []string{"1e300", "1e-300"}, 120},
		{".precision", []string{long}, 50_000},
	} {
		i := slices.IndexFunc(callable, func(b *Builtin) bool { return b.Name == c.name })
		if i < 0 {
			t.Fatalf("no row %s", c.name)
		}
		b := callable[i]
		args := make([]Value, len(c.args))
		for i, src := range c.args {
			res := run(t, src, Env{})
			if res.Err != nil {
				t.Fatalf("%s: %v", src, res.Err)
			}
			args[i] = res.Value
		}
		th := newThread(context.Background(), Limits{MaxSteps: 20_000_000, MaxAllocBytes: 256 << 20, MaxDepth: 100})
		th.prog = newProgState(Env{})
		if _, err := th.call(b, args); err != nil {
			t.Fatalf("(%s ...): %v", c.name, err)
		}
		if th.steps < c.leastStep {
			t.Errorf("(%s ...) on %d arguments of about 300 digits was charged %d steps, want at least %d", c.name, len(args), th.steps, c.leastStep)
		}
	}
}
