package server

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// bigText is the EDN of a string of n letters.
func bigText(n int) *ptcsidecarv1.Value {
	return &ptcsidecarv1.Value{Edn: `"` + strings.Repeat("x", n) + `"`}
}

// A turn whose tool calls echo answers of megabytes leaves the largest out
// until it fits a gRPC client's default receive limit, names them, and is
// taken back by ToMessages and as the next turn's earlier result.
func TestTurnFitsTheDefaultReceiveLimit(t *testing.T) {
	s := New(Config{})
	var answers []*ptcsidecarv1.ToolResult
	for i, n := range []int{3 << 20, 1 << 10, 500_000} {
		answers = append(answers, &ptcsidecarv1.ToolResult{Index: int32(i), Name: "get", Args: edn("{:i " + string(rune('0'+i)) + "}"), Result: bigText(n)})
	}
	req := &ptcsidecarv1.EvalTurnRequest{
		Program: `(do (tool/get {:i 0}) (tool/get {:i 1}) (tool/get {:i 2}))`,
		Tools:   []*ptcsidecarv1.ToolSpec{{Name: "get"}}, ToolResults: answers}
	resp, err := s.EvalTurn(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	turn := resp.GetTurn()
	if n := proto.Size(resp); n > 4<<20 || !turn.GetSuccess() {
		t.Fatalf("the response is %d bytes, success %v (%v)", n, turn.GetSuccess(), turn.GetError())
	}
	calls := turn.GetToolCalls()
	if len(calls) != 3 || calls[0].GetResult() != nil || calls[1].GetResult().GetEdn() != answers[1].Result.Edn || calls[2].GetResult() == nil {
		t.Errorf("want only the 3 MiB answer left out, got results %v, %v, %v", calls[0].GetResult() != nil, calls[1].GetResult() != nil, calls[2].GetResult() != nil)
	}
	var warned string
	for _, w := range turn.GetWarnings() {
		if w.GetType() == warningEchoCut {
			warned = w.GetMessage()
		}
	}
	if !strings.Contains(warned, "tool_calls[0].result") || strings.Contains(warned, "tool_calls[2]") {
		t.Errorf("the warning does not name what was left out: %q", warned)
	}
	if turn.GetResult().GetEdn() == "" {
		t.Error("the turn's result lost its EDN")
	}
	if _, err := s.ToMessages(context.Background(), &ptcsidecarv1.ToMessagesRequest{Turns: []*ptcsidecarv1.Turn{turn}}); err != nil {
		t.Errorf("ToMessages refuses the turn: %v", err)
	}
	next := &ptcsidecarv1.EvalTurnRequest{Program: "(count *1)", Prelude: turn.GetMemory(), PreviousResults: []*ptcsidecarv1.Value{turn.GetResult()}}
	if got, err := s.EvalTurn(context.Background(), next); err != nil || got.GetTurn().GetResult().GetEdn() != "500000" {
		t.Errorf("the next turn: %v %v", got, err)
	}
}

// A prelude that alone passes the emit limit is refused, naming the field:
// every turn would fail, and echo it whole.
func TestPreludeOverTheEmitLimitIsRefused(t *testing.T) {
	s := New(Config{})
	req := &ptcsidecarv1.EvalTurnRequest{Program: "1", Prelude: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{
		{Name: "a", Value: bigText(1 << 20)}, {Name: "b", Value: bigText(1 << 20)}}}}
	_, err := s.EvalTurn(context.Background(), req)
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "prelude") {
		t.Errorf("%v, want INVALID_ARGUMENT naming the prelude", err)
	}
	req.Prelude.Bindings = req.Prelude.Bindings[:1]
	if resp, err := s.EvalTurn(context.Background(), req); err != nil || !resp.GetTurn().GetSuccess() {
		t.Errorf("a prelude within the limit: %v %v", resp, err)
	}
}

// turnBytesAtMost never counts a turn smaller than it is: fitTurn trusts it
// to leave a turn alone.
func TestTurnBytesAtMostBoundsTheTurn(t *testing.T) {
	s := New(Config{})
	req := &ptcsidecarv1.EvalTurnRequest{
		Program:     `(defn f "doc" [a & more] a) (def xs [1 "two" :three]) (println "hi") (f (tool/get {:i 0}) (fail {:why "no"}))`,
		Tools:       []*ptcsidecarv1.ToolSpec{{Name: "get"}},
		ToolResults: []*ptcsidecarv1.ToolResult{{Index: 0, Name: "get", Args: edn("{:i 0}"), Result: edn(`{:rows [1 2 3]}`)}}}
	resp, err := s.EvalTurn(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	turn := resp.GetTurn()
	turn.Warnings = append(turn.Warnings, &ptcsidecarv1.TurnWarning{Type: "w", Message: "m"})
	turn.Defined = append(turn.Defined, "f")
	if got, exact := turnBytesAtMost(turn), proto.Size(turn); got < exact {
		t.Errorf("bound %d below the turn's %d bytes", got, exact)
	}
}

// A call the caller must answer, whose arguments print within the emit
// limit as EDN but six times larger as JSON (control characters), reaches a
// gRPC client with the default 4 MiB receive limit, as EvalTurn's pending
// response and as a stream's tool_call message: its EDN whole, its JSON
// left out.
func TestPendingCallFitsADefaultClient(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	text := strings.Repeat("\x01", 1_900_000)
	req := &ptcsidecarv1.EvalTurnRequest{Program: "(tool/get data/s)", Tools: []*ptcsidecarv1.ToolSpec{{Name: "get"}},
		Data: edn(`{:s "` + text + `"}`)}
	resp, err := c.EvalTurn(context.Background(), req)
	if err != nil {
		t.Fatalf("EvalTurn: %v", err)
	}
	calls := resp.GetPending().GetCalls()
	if len(calls) != 1 || !strings.Contains(calls[0].GetArgs().GetEdn(), `"`+text+`"`) || calls[0].GetArgs().GetJson() != "" {
		t.Fatalf("want the call with its EDN whole and no JSON, got %d calls: edn %d bytes %.20q, json %d bytes", len(calls), len(calls[0].GetArgs().GetEdn()), calls[0].GetArgs().GetEdn(), len(calls[0].GetArgs().GetJson()))
	}
	var called *ptcsidecarv1.ToolCall
	turn, _, err := streamTurn(t, c, req, func(call *ptcsidecarv1.ToolCall) *ptcsidecarv1.ToolResult {
		called = call
		return &ptcsidecarv1.ToolResult{Index: call.GetIndex(), Name: call.GetName(), Result: edn("1")}
	})
	if err != nil {
		t.Fatalf("EvalTurnStream: %v", err)
	}
	if !strings.Contains(called.GetArgs().GetEdn(), `"`+text+`"`) || !turn.GetSuccess() || turn.GetResult().GetEdn() != "1" {
		t.Errorf("the stream's call had %d bytes of EDN; the turn: %v, %v", len(called.GetArgs().GetEdn()), turn.GetSuccess(), turn.GetError())
	}

	// A call that fits keeps its JSON.
	req.Data = edn(`{:s "abc"}`)
	resp, err = c.EvalTurn(context.Background(), req)
	if err != nil || !strings.Contains(resp.GetPending().GetCalls()[0].GetArgs().GetJson(), `"abc"`) {
		t.Errorf("a small call: %v, %v", resp, err)
	}
}
