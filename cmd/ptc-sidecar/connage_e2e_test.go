package main_test

import (
	"testing"

	"google.golang.org/grpc/connectivity"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// TestMaxConnectionAgeSendsClientsBack: with --max-connection-age, the
// server ends a connection once it is that old (GOAWAY), so that a
// client resolves its target again; a stream in flight at that moment
// still finishes, and the client's next call goes on a new connection.
func TestMaxConnectionAgeSendsClientsBack(t *testing.T) {
	skipIfShort(t)
	t.Parallel()
	p := start(t, "--listen", "127.0.0.1:0", "--max-connection-age", "1s", "--shutdown-timeout", "30s")
	conn := dial(t, p.addr)
	defer conn.Close()
	sidecar := ptcsidecarv1.NewSidecarServiceClient(conn)
	ctx := testContext(t)

	stream, err := sidecar.EvalTurnStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	startTurn := &ptcsidecarv1.EvalTurnRequest{Program: "(inc (tool/a {}))", Tools: []*ptcsidecarv1.ToolSpec{{Name: "a"}}}
	if err := stream.Send(&ptcsidecarv1.EvalTurnStreamRequest{Message: &ptcsidecarv1.EvalTurnStreamRequest_Start{Start: startTurn}}); err != nil {
		t.Fatal(err)
	}
	if msg, err := stream.Recv(); err != nil || msg.GetToolCall().GetName() != "a" {
		t.Fatalf("stream: %v, %v; want a call of tool/a", msg, err)
	}

	// The connection leaves READY when the server sends GOAWAY.
	for state := conn.GetState(); state == connectivity.Ready; state = conn.GetState() {
		if !conn.WaitForStateChange(ctx, state) {
			t.Fatalf("the connection stayed %v: the server never ended it", state)
		}
	}

	answer := &ptcsidecarv1.ToolResult{Index: 0, Name: "a", Result: &ptcsidecarv1.Value{Edn: "41"}}
	if err := stream.Send(&ptcsidecarv1.EvalTurnStreamRequest{Message: &ptcsidecarv1.EvalTurnStreamRequest_ToolResult{ToolResult: answer}}); err != nil {
		t.Fatal(err)
	}
	if msg, err := stream.Recv(); err != nil || msg.GetTurn().GetResult().GetEdn() != "42" {
		t.Errorf("stream in flight when the connection aged: %v, %v; want 42", msg, err)
	}
	resp, err := sidecar.EvalTurn(ctx, &ptcsidecarv1.EvalTurnRequest{Program: "(+ 1 2)"})
	if err != nil || resp.GetTurn().GetResult().GetEdn() != "3" {
		t.Errorf("call after the connection aged = %v, %v; want 3", resp.GetTurn().GetResult(), err)
	}
}
