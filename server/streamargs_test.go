package server

import (
	"context"
	"io"
	"testing"
	"time"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// sentStream is a turn stream that records what the server sends and
// ends at once when read.
type sentStream struct {
	turnStream
	sent []*ptcsidecarv1.EvalTurnStreamResponse
}

func (s *sentStream) Send(m *ptcsidecarv1.EvalTurnStreamResponse) error {
	s.sent = append(s.sent, m)
	return nil
}

func (s *sentStream) Recv() (*ptcsidecarv1.EvalTurnStreamRequest, error) { return nil, io.EOF }

// TestStreamSendsTheEmittedArguments: the stream host sends a tool call's
// arguments in the text and JSON the emit pass printed and charged, not
// a print of its own; a call given without them is printed as before.
func TestStreamSendsTheEmittedArguments(t *testing.T) {
	args := lisp.Int(7)
	for _, c := range []struct {
		name           string
		call           lisp.ToolCallRecord
		wantEDN, wantJ string
	}{
		// Text that no print of 7 gives: only the emitted text can be sent.
		{"emitted", lisp.ToolCallRecord{Name: "get-user", Args: args, ArgsText: "7 ", ArgsJSON: "7 "}, "7 ", "7 "},
		{"not printed", lisp.ToolCallRecord{Name: "get-user", Args: args}, "7", "7"},
	} {
		t.Run(c.name, func(t *testing.T) {
			stream := &sentStream{}
			h := &streamHost{svc: New(Config{Limits: lisp.DefaultLimits()}), stream: stream, toolTimeout: time.Minute}
			if _, err := h.CallToolPrinted(context.Background(), c.call); err == nil {
				t.Fatal("a stream closed before the answer: want an error")
			}
			if len(stream.sent) != 1 {
				t.Fatalf("sent %d messages, want the tool call", len(stream.sent))
			}
			got := stream.sent[0].GetToolCall().GetArgs()
			if got.GetEdn() != c.wantEDN || got.GetJson() != c.wantJ {
				t.Errorf("sent args %q / %q, want %q / %q", got.GetEdn(), got.GetJson(), c.wantEDN, c.wantJ)
			}
		})
	}
}
