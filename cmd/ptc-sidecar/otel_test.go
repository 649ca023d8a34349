package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/server"
)

// callerTrace is the W3C trace context of a caller's span that the
// sidecar's spans must continue.
const (
	callerTraceID    = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpanID     = "00f067aa0ba902b7"
	callerTraceparen = "00-" + callerTraceID + "-" + callerSpanID + "-01"
)

// tracedServer serves the sidecar in memory with tracing into a recorder.
func tracedServer(t *testing.T) (ptcsidecarv1.SidecarServiceClient, healthpb.HealthClient, *tracetest.SpanRecorder) {
	t.Helper()
	recorder := tracetest.NewSpanRecorder()
	cfg := defaultServeConfig()
	cfg.tracing = newTracing(recorder, resource.Empty())
	discard := slog.New(slog.DiscardHandler)
	srv, healthSrv := newGRPCServer(cfg, discard, discard, nil, newSidecar(cfg, nil))
	markServing(healthSrv)
	conn := serveInMemory(t, srv)
	return ptcsidecarv1.NewSidecarServiceClient(conn), healthpb.NewHealthClient(conn), recorder
}

// callerContext carries the caller's traceparent, as an instrumented
// agent sends it.
func callerContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	t.Cleanup(cancel)
	return metadata.AppendToOutgoingContext(ctx, "traceparent", callerTraceparen)
}

// spansNamed waits for n spans of that name to end and returns them in
// the order they ended. The server ends a call's span after it has sent
// the response, so the client can be ahead of it.
func spansNamed(t *testing.T, recorder *tracetest.SpanRecorder, name string, n int) []sdktrace.ReadOnlySpan {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		var found []sdktrace.ReadOnlySpan
		for _, s := range recorder.Ended() {
			if s.Name() == name {
				found = append(found, s)
			}
		}
		if len(found) == n {
			return found
		}
		if len(found) > n || time.Now().After(deadline) {
			t.Fatalf("%d spans named %s, want %d", len(found), name, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func attributes(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

// checkAttributes fails on each attribute of want the span lacks or has
// with another value.
func checkAttributes(t *testing.T, s sdktrace.ReadOnlySpan, want map[attribute.Key]any) {
	t.Helper()
	got := attributes(s)
	for k, v := range want {
		if g, ok := got[k]; !ok || g.AsInterface() != v {
			t.Errorf("span %s: %s = %v (present: %v), want %v", s.Name(), k, g.AsInterface(), ok, v)
		}
	}
}

// checkContinuesCaller: the span is a child of the caller's span.
func checkContinuesCaller(t *testing.T, s sdktrace.ReadOnlySpan) {
	t.Helper()
	if got := s.SpanContext().TraceID().String(); got != callerTraceID {
		t.Errorf("span %s is in trace %s, want the caller's %s", s.Name(), got, callerTraceID)
	}
	if got := s.Parent().SpanID().String(); got != callerSpanID || !s.Parent().IsRemote() {
		t.Errorf("span %s has parent %s (remote %v), want the caller's span %s", s.Name(), got, s.Parent().IsRemote(), callerSpanID)
	}
}

func TestTracingToMessagesSpan(t *testing.T) {
	sidecar, _, recorder := tracedServer(t)
	turn := &ptcsidecarv1.Turn{Number: 1, Program: "(tool/get-user {:id 7})", Success: true,
		Result:    &ptcsidecarv1.Value{Edn: "{:name \"Ada\"}"},
		ToolCalls: []*ptcsidecarv1.ToolCall{{Name: "get-user", Args: &ptcsidecarv1.Value{Edn: "{:id 7}"}}}}
	resp, err := sidecar.ToMessages(callerContext(t), &ptcsidecarv1.ToMessagesRequest{
		Turns: []*ptcsidecarv1.Turn{turn, turn}, Options: &ptcsidecarv1.Options{Mission: "Find Ada."}})
	if err != nil {
		t.Fatal(err)
	}
	span := spansNamed(t, recorder, "ptcsidecar.v1.SidecarService/ToMessages", 1)[0]
	checkContinuesCaller(t, span)
	st := resp.GetStats()
	if st.GetTokensBefore() == 0 || st.GetTokensAfter() == 0 {
		t.Fatalf("stats count no tokens: %v", st)
	}
	checkAttributes(t, span, map[attribute.Key]any{
		"ptc.strategy":        st.GetStrategy(),
		"ptc.turns":           int64(2),
		"ptc.tokens_before":   int64(st.GetTokensBefore()),
		"ptc.tokens_after":    int64(st.GetTokensAfter()),
		"ptc.messages_before": int64(st.GetMessagesBefore()),
		"ptc.messages_after":  int64(st.GetMessagesAfter()),
		"ptc.tool_calls":      int64(2),
	})
	if _, ok := attributes(span)["error.type"]; ok {
		t.Errorf("a successful call has error.type")
	}
}

func TestTracingEvalTurnSpans(t *testing.T) {
	sidecar, _, recorder := tracedServer(t)
	ctx := callerContext(t)
	tools := []*ptcsidecarv1.ToolSpec{{Name: "get-user", Signature: "(id :int) -> :any"}}
	const name = "ptcsidecar.v1.SidecarService/EvalTurn"
	// nthSpan waits for the n-th call's span; the calls go one at a time,
	// so spans end in call order.
	nthSpan := func(n int) sdktrace.ReadOnlySpan {
		s := spansNamed(t, recorder, name, n)[n-1]
		checkContinuesCaller(t, s)
		return s
	}

	// Stops at a tool call to ask for.
	if _, err := sidecar.EvalTurn(ctx, &ptcsidecarv1.EvalTurnRequest{Program: "(tool/get-user {:id 7})", Tools: tools}); err != nil {
		t.Fatal(err)
	}
	checkAttributes(t, nthSpan(1), map[attribute.Key]any{"ptc.eval.pending_tool": "get-user", "ptc.eval.turn": int64(1)})

	// Finishes, but the program fails on its step budget.
	_, err := sidecar.EvalTurn(ctx, &ptcsidecarv1.EvalTurnRequest{TurnNumber: 3, Program: "(loop [i 0] (recur (inc i)))",
		Limits: &ptcsidecarv1.Limits{MaxSteps: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	checkAttributes(t, nthSpan(2), map[attribute.Key]any{
		"ptc.eval.turn":       int64(3),
		"ptc.eval.success":    false,
		"ptc.eval.error_type": "step_limit",
		"ptc.eval.steps":      int64(1001), // the budget, and the step refused
		"ptc.tool_calls":      int64(0),
	})

	// Refused: a negative step budget.
	_, err = sidecar.EvalTurn(ctx, &ptcsidecarv1.EvalTurnRequest{Program: "(+ 1 2)", Limits: &ptcsidecarv1.Limits{MaxSteps: -1}})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("negative max_steps: %v, want INVALID_ARGUMENT", err)
	}
	checkAttributes(t, nthSpan(3), map[attribute.Key]any{"error.type": "InvalidArgument"})
}

// TestTracingLeavesHealthChecksOut: probes would outnumber real calls.
func TestTracingLeavesHealthChecksOut(t *testing.T) {
	sidecar, health, recorder := tracedServer(t)
	if _, err := health.Check(callerContext(t), &healthpb.HealthCheckRequest{}); err != nil {
		t.Fatal(err)
	}
	// A traced call after it: once its span has ended, the health check's
	// would have too.
	if _, err := sidecar.ListStrategies(callerContext(t), &ptcsidecarv1.ListStrategiesRequest{}); err != nil {
		t.Fatal(err)
	}
	spansNamed(t, recorder, "ptcsidecar.v1.SidecarService/ListStrategies", 1)
	if n := len(recorder.Ended()); n != 1 {
		t.Errorf("%d spans besides ListStrategies', want none for the health check", n-1)
	}
}

func TestTracingFromEnv(t *testing.T) {
	for _, c := range []struct {
		name     string
		env      map[string]string
		exporter string // "": off
		err      string
	}{
		{name: "nothing set: off"},
		{name: "none", env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}},
		{name: "console", env: map[string]string{"OTEL_TRACES_EXPORTER": "console"}, exporter: "console"},
		{name: "otlp", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, exporter: "otlp"},
		{name: "otlp over gRPC", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, exporter: "otlp"},
		{name: "an endpoint means otlp", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, exporter: "otlp"},
		{name: "disabled SDK", env: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "console"}},
		{name: "unknown exporter", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, err: `OTEL_TRACES_EXPORTER="zipkin": want otlp, console or none`},
		{name: "unknown protocol", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, err: `OTEL_EXPORTER_OTLP_PROTOCOL="http/json"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, err := tracingFromEnv(context.Background(), func(k string) string { return c.env[k] }, io.Discard)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one saying %s", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer tr.shutdown(context.Background())
			if got := exporterOf(tr); got != c.exporter {
				t.Errorf("exporter %q, want %q", got, c.exporter)
			}
		})
	}
}

func exporterOf(t *tracing) string {
	if t == nil {
		return ""
	}
	return t.exporter
}

func TestTracingEvalTurnStreamSpan(t *testing.T) {
	sidecar, _, recorder := tracedServer(t)
	stream, err := sidecar.EvalTurnStream(callerContext(t))
	if err != nil {
		t.Fatal(err)
	}
	err = stream.Send(&ptcsidecarv1.EvalTurnStreamRequest{Message: &ptcsidecarv1.EvalTurnStreamRequest_Start{Start: &ptcsidecarv1.EvalTurnRequest{
		TurnNumber: 2, Program: "(tool/get-user {:id 7})", Tools: []*ptcsidecarv1.ToolSpec{{Name: "get-user", Signature: "(id :int) -> :any"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	call, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	err = stream.Send(&ptcsidecarv1.EvalTurnStreamRequest{Message: &ptcsidecarv1.EvalTurnStreamRequest_ToolResult{ToolResult: &ptcsidecarv1.ToolResult{
		Index: 0, Name: "get-user", Args: call.GetToolCall().GetArgs(), Result: &ptcsidecarv1.Value{Json: `{"name": "Ada"}`}}}})
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := stream.Recv(); err != nil || !resp.GetTurn().GetSuccess() {
		t.Fatalf("turn %v, %v; want a successful one", resp, err)
	}
	stream.CloseSend()
	span := spansNamed(t, recorder, "ptcsidecar.v1.SidecarService/EvalTurnStream", 1)[0]
	checkContinuesCaller(t, span)
	checkAttributes(t, span, map[attribute.Key]any{"ptc.eval.turn": int64(2), "ptc.tool_calls": int64(1), "ptc.eval.success": true})
	if _, ok := attributes(span)["ptc.eval.tool_results"]; ok {
		t.Errorf("a stream's span counts answers sent up front; a stream sends none")
	}
}

// TestTracingCutsWhatTheCallerNamed: a span keeps no text of the caller's
// whole. A tool of a 1 MiB name the program stopped at was kept whole as
// ptc.eval.pending_tool, and every span waits in the exporter's queue for
// as long as the collector takes; an attribute set by any other
// instrumentation of the provider is cut as well.
func TestTracingCutsWhatTheCallerNamed(t *testing.T) {
	sidecar, _, recorder := tracedServer(t)
	ctx := callerContext(t)
	long := strings.Repeat("n", 1<<20)
	if _, err := sidecar.EvalTurn(ctx, &ptcsidecarv1.EvalTurnRequest{Program: "(tool/" + long + " {})",
		Tools: []*ptcsidecarv1.ToolSpec{{Name: long}}}); err != nil {
		t.Fatal(err)
	}
	_, err := sidecar.ToMessages(ctx, &ptcsidecarv1.ToMessagesRequest{History: []*ptcsidecarv1.ChatMessage{{Role: long, Content: "hi"}}})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("a role of 1 MiB: %v, want INVALID_ARGUMENT", err)
	}
	spans := append(spansNamed(t, recorder, "ptcsidecar.v1.SidecarService/EvalTurn", 1),
		spansNamed(t, recorder, "ptcsidecar.v1.SidecarService/ToMessages", 1)...)
	if got := attributes(spans[0])["ptc.eval.pending_tool"].AsString(); got != long[:server.MaxSpanText] {
		t.Errorf("ptc.eval.pending_tool of %d bytes, want the name's first %d", len(got), server.MaxSpanText)
	}

	other := newTracing(recorder, resource.Empty())
	_, span := other.provider.Tracer("another").Start(ctx, "another")
	span.SetAttributes(attribute.String("caller.text", long))
	span.End()
	spans = append(spans, spansNamed(t, recorder, "another", 1)...)
	for _, s := range spans {
		for _, kv := range s.Attributes() {
			if n := len(kv.Value.Emit()); n > server.MaxSpanText {
				t.Errorf("span %s keeps %s of %d bytes, want at most %d", s.Name(), kv.Key, n, server.MaxSpanText)
			}
		}
		if n := len(s.Status().Description); n > 5<<10 {
			t.Errorf("span %s keeps a status of %d bytes, want the status's cut", s.Name(), n)
		}
	}
}
