package main_test

import (
	"context"
	"net/http"
	"strings"
	"syscall"
	"testing"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// drainDelay is long enough for the calls the test makes during the drain
// on a busy machine; the test takes about this long.
const drainDelay = "5s"

// TestDrainDelayKeepsAnsweringAfterSIGTERM: with --drain-delay, SIGTERM
// turns health NOT_SERVING at once, over gRPC and HTTP, while calls, on
// a connection opened before the signal and on one opened after it, are
// still answered, and a stream under way finishes; then the server stops
// and exits 0.
func TestDrainDelayKeepsAnsweringAfterSIGTERM(t *testing.T) {
	skipIfShort(t)
	t.Parallel()
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--drain-delay", drainDelay, "--shutdown-timeout", "2s")
	before := p.client()
	watching, stopWatching := context.WithCancel(testContext(t))
	defer stopWatching()
	watch, err := healthpb.NewHealthClient(before).Watch(watching, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := watch.Recv(); err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health before SIGTERM: %v, %v; want SERVING", resp, err)
	}

	// A stream in flight across the signal: it waits for a tool's answer,
	// given during the drain.
	stream, err := ptcsidecarv1.NewSidecarServiceClient(before).EvalTurnStream(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	startTurn := &ptcsidecarv1.EvalTurnRequest{Program: "(inc (tool/a {}))", Tools: []*ptcsidecarv1.ToolSpec{{Name: "a"}}}
	if err := stream.Send(&ptcsidecarv1.EvalTurnStreamRequest{Message: &ptcsidecarv1.EvalTurnStreamRequest_Start{Start: startTurn}}); err != nil {
		t.Fatal(err)
	}
	if msg, err := stream.Recv(); err != nil || msg.GetToolCall().GetName() != "a" {
		t.Fatalf("stream before SIGTERM: %v, %v; want a call of tool/a", msg, err)
	}

	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if resp, err := watch.Recv(); err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("health update after SIGTERM: %v, %v; want NOT_SERVING", resp, err)
	}
	// The watch is an RPC in flight: ending it lets the graceful stop
	// after the drain finish without waiting for the shutdown timeout.
	stopWatching()

	_, body := postJSON(t, http.DefaultClient, p.httpAddr, "grpc.health.v1.Health/Check", `{}`)
	if !strings.Contains(string(body), `"NOT_SERVING"`) {
		t.Errorf("HTTP health during the drain: %s, want NOT_SERVING", body)
	}
	after := dial(t, p.addr) // a balancer that has not yet seen the change
	defer after.Close()
	for name, conn := range map[string]clients{
		"connection opened before SIGTERM":   clients{healthpb.NewHealthClient(before), ptcsidecarv1.NewSidecarServiceClient(before)},
		"connection opened during the drain": clients{healthpb.NewHealthClient(after), ptcsidecarv1.NewSidecarServiceClient(after)},
	} {
		resp, err := conn.EvalTurn(testContext(t), &ptcsidecarv1.EvalTurnRequest{Program: "(+ 1 2)"})
		if err != nil || resp.GetTurn().GetResult().GetEdn() != "3" {
			t.Errorf("%s: EvalTurn during the drain = %v, %v; want 3", name, resp.GetTurn().GetResult(), err)
		}
		check, err := conn.Check(testContext(t), &healthpb.HealthCheckRequest{})
		if err != nil || check.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING {
			t.Errorf("%s: health during the drain = %v, %v; want NOT_SERVING", name, check, err)
		}
	}

	answer := &ptcsidecarv1.ToolResult{Index: 0, Name: "a", Result: &ptcsidecarv1.Value{Edn: "41"}}
	if err := stream.Send(&ptcsidecarv1.EvalTurnStreamRequest{Message: &ptcsidecarv1.EvalTurnStreamRequest_ToolResult{ToolResult: answer}}); err != nil {
		t.Fatal(err)
	}
	if msg, err := stream.Recv(); err != nil || msg.GetTurn().GetResult().GetEdn() != "42" {
		t.Errorf("stream opened before SIGTERM, answered during the drain: %v, %v; want 42", msg, err)
	}

	if code := p.wait(); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
	log := p.log()
	draining, stopping := strings.Index(log, `"msg":"draining`), strings.Index(log, `"msg":"shutting down"`)
	if draining < 0 || stopping < draining {
		t.Errorf("log: want a draining line, then shutting down:\n%s", log)
	}
}

// clients are the two services of one connection.
type clients struct {
	healthpb.HealthClient
	ptcsidecarv1.SidecarServiceClient
}
