package server

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

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

// TestLargeRenderLeavesNoGarbage: a ToMessages or RenderTrace call of a
// large request (a tool signature of 150,000 parameters, 2.2 MB) has the
// garbage of its rendering collected as it ends, so the next call does
// not build its own on top of it.
func TestLargeRenderLeavesNoGarbage(t *testing.T) {
	s := New(Config{})
	var sig strings.Builder
	sig.WriteString("(q {")
	for i := range 150_000 {
		if i > 0 {
			sig.WriteString(", ")
		}
		fmt.Fprintf(&sig, "p%d :string", i)
	}
	sig.WriteString("}) -> :string")
	turns := []*ptcsidecarv1.Turn{{Number: 1, Program: "(tool/q {})", Success: true, Result: &ptcsidecarv1.Value{Edn: "1"}}}
	options := &ptcsidecarv1.Options{Strategy: "cache-stable", ProgramForm: "tool_call", MaxResponseBytes: proto.Int32(64 << 20),
		Tools: []*ptcsidecarv1.ToolSpec{{Name: "q", Signature: sig.String(), Description: "Reads a file."}}}
	calls := map[string]func() error{
		"ToMessages": func() error {
			_, err := s.ToMessages(context.Background(), &ptcsidecarv1.ToMessagesRequest{Turns: turns, Options: options})
			return err
		},
		"RenderTrace": func() error {
			_, err := s.RenderTrace(context.Background(), &ptcsidecarv1.RenderTraceRequest{Turns: turns, Options: options, View: "compressed"})
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			runtime.GC()
			before := heapObjectBytes()
			if err := call(); err != nil {
				t.Fatal(err)
			}
			if after := heapObjectBytes(); after > before+4<<20 {
				t.Errorf("after rendering a %d-byte signature the heap holds %d KiB more than before, want its garbage collected", sig.Len(), (after-before)>>10)
			}
		})
	}
}
