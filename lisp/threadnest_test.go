package lisp

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// TestThreadingPastTheDepthIsRefusedBeforeItIsBuilt: a threading macro
// nests its expansion a level per step, so one of 100,000 steps is
// refused at the analysis depth; it is refused by its count of steps,
// before the expansion is built, so that it allocates less than half of
// what reading and evaluating a flat vector of the same forms does (some->
// of 100,000 steps allocated 38 MiB where the vector takes 21; refused by
// its count, 5).
func TestThreadingPastTheDepthIsRefusedBeforeItIsBuilt(t *testing.T) {
	const steps = 100_000
	body := strings.Repeat("inc ", steps)
	flat := allocatedBy(t, "[0 "+body+"]")
	for _, head := range []string{"->", "->>", "some->", "some->>"} {
		src := "(" + head + " 0 " + body + ")"
		res := run(t, src, Env{})
		var e *Error
		if !errors.As(res.Err, &e) || e.Kind != depthLimit {
			t.Errorf("%s of %d steps: %v, want a depth limit", head, steps, res.Err)
			continue
		}
		got := allocatedBy(t, src)
		t.Logf("%s: %d KiB, a flat vector %d KiB", head, got>>10, flat>>10)
		if got > flat/2 {
			t.Errorf("%s of %d steps allocated %d KiB, over half the %d KiB of a flat vector of its forms", head, steps, got>>10, flat>>10)
		}
	}
}

// allocatedBy is the least of three counts of the bytes evaluating src
// allocates.
func allocatedBy(t *testing.T, src string) uint64 {
	var least uint64
	for i := range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		run(t, src, Env{})
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; i == 0 || n < least {
			least = n
		}
	}
	return least
}
