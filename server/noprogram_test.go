package server

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// TestReplyWithoutProgram: a raw_response with no fenced program is a
// failed turn of type no_program telling the LLM how to answer, by both
// protocols; nothing is run, memory stays as it was, and ToMessages takes
// the turn back.
func TestReplyWithoutProgram(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	prelude := &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "x", Value: edn("1"), Turn: 1}}}
	for _, raw := range []string{
		"The answer is 42.",
		"(def x 2)",                    // a bare program: the prompt asks for a fenced block
		"```python\nx = 2\n```",        // a block in another language
		"Here it is:\n```clojure\n```", // an empty block
	} {
		req := &ptcsidecarv1.EvalTurnRequest{RawResponse: raw, Prelude: prelude, TurnNumber: 2}
		resp, err := c.EvalTurn(context.Background(), req)
		if err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		streamed, _, err := streamTurn(t, c, req, nil)
		if err != nil {
			t.Fatalf("%q streamed: %v", raw, err)
		}
		for _, turn := range []*ptcsidecarv1.Turn{resp.GetTurn(), streamed} {
			e := turn.GetError()
			if turn.GetSuccess() || e.GetType() != "no_program" || !strings.Contains(e.GetHint(), "```clojure") {
				t.Fatalf("%q: turn %v", raw, turn)
			}
			if turn.GetResult() != nil || turn.GetProgram() != "" || turn.GetRawResponse() != raw || turn.GetNumber() != 2 {
				t.Errorf("%q: turn %v", raw, turn)
			}
			if !proto.Equal(turn.GetMemory(), prelude) {
				t.Errorf("%q: memory %v, want the prelude unchanged", raw, turn.GetMemory())
			}
			if _, err := c.ToMessages(context.Background(), &ptcsidecarv1.ToMessagesRequest{Turns: []*ptcsidecarv1.Turn{turn}, Memory: turn.GetMemory()}); err != nil {
				t.Errorf("%q: ToMessages: %v", raw, err)
			}
		}
	}
}
