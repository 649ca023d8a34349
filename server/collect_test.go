package server

import (
	"context"
	"runtime/metrics"
	"testing"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// heapObjectBytes is what the heap's objects take, live or not yet
// collected.
func heapObjectBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestHeavyEvaluationLeavesNoGarbage: an evaluation that built megabytes
// (a chain of lazy filters to the allocation budget) has them collected
// as it ends, so the next one does not build its own on top of them.
func TestHeavyEvaluationLeavesNoGarbage(t *testing.T) {
	s := New(Config{})
	heavy := &ptcsidecarv1.EvalTurnRequest{Program: `(loop [s (range) i 0] (if (< i 1000000) (recur (filter odd? s) (inc i)) 1))`}
	before := heapObjectBytes()
	resp, err := s.EvalTurn(context.Background(), heavy)
	if err != nil || resp.GetTurn().GetError().GetType() != "memory_limit" {
		t.Fatalf("a million nested filters: %v, %v; want memory_limit", resp, err)
	}
	if after := heapObjectBytes(); after > before+2<<20 {
		t.Errorf("after an evaluation that reached its 10 MiB budget the heap holds %d KiB more than before, want its garbage collected", (after-before)>>10)
	}
}
