package server

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// The attributes the RPCs add to their trace span (the one the host's
// tracing opened for the call; without tracing there is none and these
// cost a check). They are what a person looking into an agent's cost
// wants beside the RPC's duration: how much history went in, how much
// came out, what the program did.
const (
	attrStrategy        = attribute.Key("ptc.strategy")
	attrTurns           = attribute.Key("ptc.turns")
	attrTokensBefore    = attribute.Key("ptc.tokens_before")
	attrTokensAfter     = attribute.Key("ptc.tokens_after")
	attrCharsBefore     = attribute.Key("ptc.chars_before")
	attrCharsAfter      = attribute.Key("ptc.chars_after")
	attrMessagesBefore  = attribute.Key("ptc.messages_before")
	attrMessagesAfter   = attribute.Key("ptc.messages_after")
	attrToolCalls       = attribute.Key("ptc.tool_calls")
	attrTurnNumber      = attribute.Key("ptc.eval.turn")
	attrEvalSteps       = attribute.Key("ptc.eval.steps")
	attrEvalAllocBytes  = attribute.Key("ptc.eval.alloc_bytes")
	attrEvalSuccess     = attribute.Key("ptc.eval.success")
	attrEvalErrorType   = attribute.Key("ptc.eval.error_type")
	attrEvalPendingTool = attribute.Key("ptc.eval.pending_tool")
	attrToolResults     = attribute.Key("ptc.eval.tool_results")
	// attrErrorType is OpenTelemetry's general error.type: here the gRPC
	// code of a failed call, e.g. InvalidArgument.
	attrErrorType = attribute.Key("error.type")
)

// MaxSpanText bounds a text a span keeps: a name the caller chose (a
// tool's, a strategy's) may be megabytes, and a span waits in the
// exporter's queue (2,048 spans) for as long as the collector takes: 2,200
// EvalTurn calls naming a 256 KiB tool raised the server's peak RSS from
// 57 to 294 MiB while the collector did not answer. The host's tracing
// cuts every attribute to it as well (otelgrpc's own among them).
const MaxSpanText = 1 << 10

// spanText is s cut to MaxSpanText bytes, and copied: a text that shares
// the bytes of the request (a name read out of a program's source) keeps
// all of them for as long as the span waits.
func spanText(s string) string {
	if len(s) > MaxSpanText {
		s = strings.ToValidUTF8(s[:MaxSpanText], "")
	}
	return strings.Clone(s)
}

// recordingSpan is the call's span when it records, else nil.
func recordingSpan(ctx context.Context) trace.Span {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		return span
	}
	return nil
}

// spanToMessages records a ToMessages call's size before and after.
func spanToMessages(ctx context.Context, turns int, st *ptcsidecarv1.CompressionStats) {
	span := recordingSpan(ctx)
	if span == nil {
		return
	}
	span.SetAttributes(
		attrStrategy.String(spanText(st.GetStrategy())),
		attrTurns.Int(turns),
		attrTokensBefore.Int(int(st.GetTokensBefore())),
		attrTokensAfter.Int(int(st.GetTokensAfter())),
		attrCharsBefore.Int(int(st.GetCharsBefore())),
		attrCharsAfter.Int(int(st.GetCharsAfter())),
		attrMessagesBefore.Int(int(st.GetMessagesBefore())),
		attrMessagesAfter.Int(int(st.GetMessagesAfter())),
		attrToolCalls.Int(int(st.GetToolCallsTotal())),
	)
}

// spanEvaluation records what an evaluation did: res may be nil when it
// stopped at a tool call to ask for (pendingTool is then its name).
func spanEvaluation(ctx context.Context, ev *evaluation, res *lisp.Result, pendingTool string) {
	span := recordingSpan(ctx)
	if span == nil {
		return
	}
	span.SetAttributes(attrTurnNumber.Int(ev.number))
	if len(ev.answers) > 0 { // EvalTurn's answered calls; a stream has none up front
		span.SetAttributes(attrToolResults.Int(len(ev.answers)))
	}
	if pendingTool != "" {
		span.SetAttributes(attrEvalPendingTool.String(spanText(pendingTool)))
	}
	if res == nil {
		return
	}
	span.SetAttributes(
		attrEvalSteps.Int64(res.Steps),
		attrEvalAllocBytes.Int64(res.AllocBytes),
		attrToolCalls.Int(len(res.ToolCalls)),
		attrEvalSuccess.Bool(res.Err == nil),
	)
	if res.Err != nil {
		span.SetAttributes(attrEvalErrorType.String(string(res.Err.Kind)))
	}
}

// spanError records a failed call's gRPC code as error.type and returns
// err unchanged.
func spanError(ctx context.Context, err error) error {
	if span := recordingSpan(ctx); span != nil && err != nil {
		span.SetAttributes(attrErrorType.String(status.Code(err).String()))
	}
	return err
}
