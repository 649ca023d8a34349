package lisp

import (
	"cmp"
	"slices"
	"testing"
)

// maxBytesPerChargedStep is the most Go may allocate for a call per step
// it is charged (its steps, and its charged bytes at 64 a step). Go's
// allocation and the collection that follows cost about a nanosecond a
// byte, a charged step 25-40 ns of CPU: a call that allocates several
// times the 64 bytes a step stands for spends several times the median
// CPU per step, and a loop of it is a program the clock ends before its
// budget does, sooner on a loaded machine.
const maxBytesPerChargedStep = 6 * 64

// TestBytesPerChargedStep runs every row a program can call on the shapes
// BenchmarkNsPerChargedStep times (numbers and texts, collections, small
// dear numbers; at 400 digits or elements, to stay quick) and fails where
// Go allocated more than maxBytesPerChargedStep per step charged, the
// least of three calls: the allocation-side proxy of a dear step, which
// does not time anything.
func TestBytesPerChargedStep(t *testing.T) {
	skipUnlessMeasuringAllocation(t)
	type row struct {
		label        string
		bytes, steps int64
	}
	var rows []row
	for _, g := range chargedCallGroups {
		for _, b := range returning(everyCallable()) {
			for _, call := range g.calls(b) {
				work, charged, err := measureCall(b, func() []Value { return call.args(400) })
				if err != nil {
					continue
				}
				rows = append(rows, row{g.label + ": " + call.label(b.Name), work, max(charged/64, 1)})
			}
		}
	}
	perStep := func(r row) int64 { return r.bytes / r.steps }
	slices.SortFunc(rows, func(a, b row) int { return cmp.Compare(perStep(b), perStep(a)) })
	t.Logf("%d calls; the dearest allocates %d bytes per charged step", len(rows), perStep(rows[0]))
	for _, r := range rows {
		if perStep(r) <= maxBytesPerChargedStep {
			break
		}
		t.Errorf("%s allocated %d bytes for %d charged steps: %d a step, over %d", r.label, r.bytes, r.steps, perStep(r), maxBytesPerChargedStep)
	}
	if len(rows) < 10_000 {
		t.Errorf("only %d calls ran; the shapes no longer fit the builtins", len(rows))
	}
}
