package server

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// TestRequestReadCost: values each within what their text allows once
// read, the floor included, are refused together when a request holds so
// many that they cost more than its multiple of its bytes and the slack;
// a history of the same values as long as agents keep reads.
func TestRequestReadCost(t *testing.T) {
	c := dial(t, Config{})
	// 150 small sets of a vector: about 60 KB once read for 0.9 KB of
	// text, within the floor of one value.
	dense := "[" + strings.Repeat("#{[]} ", 150) + "]"
	request := func(n int) *ptcsidecarv1.ToMessagesRequest {
		turns := make([]*ptcsidecarv1.Turn, n)
		for i := range turns {
			turns[i] = &ptcsidecarv1.Turn{Number: int32(i + 1), Program: "(f)", Success: true,
				Result: &ptcsidecarv1.Value{Edn: dense}}
		}
		return &ptcsidecarv1.ToMessagesRequest{Turns: turns, Options: &ptcsidecarv1.Options{Strategy: "full"}}
	}
	if _, err := c.ToMessages(context.Background(), request(50)); err != nil {
		t.Fatalf("50 turns: %v", err)
	}
	_, err := c.ToMessages(context.Background(), request(1000))
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "the request's values would take more than") ||
		!strings.Contains(err.Error(), "turns[") {
		t.Fatalf("1000 turns: %v, want INVALID_ARGUMENT naming a turn and the request's values", err)
	}
}

// TestPrettyPrintedDenseToolAnswer: a tool answer read within its limit
// thanks to its layout, which its wire text would not be, fails the call
// in the turn rather than making a turn that ToMessages refuses.
func TestPrettyPrintedDenseToolAnswer(t *testing.T) {
	c := dial(t, Config{})
	pretty := "[\n" + strings.Repeat("      [1]\n", 50_000) + "]" // 10 bytes an element; its wire text 4
	req := &ptcsidecarv1.EvalTurnRequest{Program: "(count (tool/rows))", Tools: []*ptcsidecarv1.ToolSpec{{Name: "rows"}},
		ToolResults: []*ptcsidecarv1.ToolResult{{Index: 0, Name: "rows", Args: &ptcsidecarv1.Value{Edn: "nil"}, Result: &ptcsidecarv1.Value{Edn: pretty}}}}
	resp, err := c.EvalTurn(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	turn := resp.GetTurn()
	if turn.GetSuccess() || turn.GetError().GetType() != "tool_error" || len(turn.GetToolCalls()) != 1 || turn.GetToolCalls()[0].GetError() == "" {
		t.Fatalf("turn: success %v, error %v, %d calls", turn.GetSuccess(), turn.GetError(), len(turn.GetToolCalls()))
	}
	if _, err := c.ToMessages(context.Background(), &ptcsidecarv1.ToMessagesRequest{Turns: []*ptcsidecarv1.Turn{turn}}); err != nil {
		t.Errorf("ToMessages refuses the turn: %v", err)
	}
}

// TestDenseMemoryBinding: a memory binding that would take more than its
// text allows once read is refused, naming it, rather than loaded as
// source; sent as pretty-printed JSON, it is refused for the EDN text the
// turn's memory would carry it in.
func TestDenseMemoryBinding(t *testing.T) {
	c := dial(t, Config{})
	for name, value := range map[string]*ptcsidecarv1.Value{
		"EDN":         {Edn: "[" + strings.Repeat("[1] ", 50_000) + "]"},
		"pretty JSON": {Json: "[\n" + strings.Repeat("      [1],\n", 50_000) + "[1]]"},
	} {
		_, err := c.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: "(count rows)",
			Prelude: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "rows", Value: value}}}})
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), `prelude.bindings[0].value`) || !strings.Contains(err.Error(), "once read") {
			t.Errorf("%s: %.300v, want INVALID_ARGUMENT naming the binding", name, err)
		}
	}
}
