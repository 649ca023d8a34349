package lisp

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestStepMatchesReference checks Step's inlined fast path against the
// plain rule: the charge is added, passing MaxSteps fails with steps left
// at MaxSteps+1, and the context is looked at whenever the count crosses a
// multiple of ctxCheckInterval.
func TestStepMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		maxSteps := int64(r.IntN(5000))
		ctx, cancel := context.WithCancel(context.Background())
		th := NewThread(ctx, Limits{MaxSteps: maxSteps})
		var ref int64
		cancelAt := int64(r.IntN(6000))
		cancelled := false
		for i := 0; i < 400; i++ {
			n := int64(r.IntN(40))
			if r.IntN(10) == 0 {
				n = int64(r.IntN(3000))
			}
			if !cancelled && ref >= cancelAt {
				cancel()
				cancelled = true
			}
			before := ref
			ref += n
			var want ErrorKind
			switch {
			case maxSteps > 0 && ref > maxSteps:
				ref = maxSteps + 1
				want = StepLimit
			case before/ctxCheckInterval != ref/ctxCheckInterval && cancelled:
				want = Timeout
			}
			err := th.Step(n)
			var got ErrorKind
			if err != nil {
				got = AsError(err).Kind
			}
			if got != want || th.StepsUsed() != ref {
				t.Fatalf("trial %d, charge %d of %d: got %q with %d steps, want %q with %d", trial, i, n, got, th.StepsUsed(), want, ref)
			}
		}
		cancel()
	}
}
