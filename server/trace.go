package server

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/trace"
)

// RenderTrace renders a run as text for a person debugging an agent. The
// text never carries colour codes: the client, not the server, knows
// whether it writes to a terminal.
func (s *Service) RenderTrace(ctx context.Context, in *ptcsidecarv1.RenderTraceRequest) (*ptcsidecarv1.RenderTraceResponse, error) {
	return s.renderTrace(ctx, in, false)
}

// renderTrace is RenderTrace; when drop is set, in's memory, turns and
// history are released once decoded (Wire).
func (s *Service) renderTrace(ctx context.Context, in *ptcsidecarv1.RenderTraceRequest, drop bool) (*ptcsidecarv1.RenderTraceResponse, error) {
	text, limit, err := s.trace(ctx, in, trace.Style{}, drop, true)
	if err != nil {
		return nil, err
	}
	out := &ptcsidecarv1.RenderTraceResponse{Text: text}
	if err := checkAnswerSize(out, limit); err != nil {
		return nil, err
	}
	return out, nil
}

// Trace decodes a RenderTraceRequest as ToMessages decodes its request and
// renders it in the given style. The trace command calls it directly, so the
// command and the RPC read the same request the same way. Errors are gRPC
// statuses: INVALID_ARGUMENT naming the field for bad input.
func (s *Service) Trace(ctx context.Context, in *ptcsidecarv1.RenderTraceRequest, style trace.Style) (string, error) {
	text, _, err := s.trace(ctx, in, style, false, false)
	return text, err
}

// trace renders in; it returns the text and the caller's receive limit
// (options.max_response_bytes). When limited, the text is not rendered
// past that limit (the RPC's; the trace command prints a text whole).
func (s *Service) trace(ctx context.Context, in *ptcsidecarv1.RenderTraceRequest, style trace.Style, drop, limited bool) (string, int, error) {
	if err := s.checkCounts(in); err != nil {
		return "", 0, err
	}
	view, err := trace.ParseView(in.GetView())
	if err != nil {
		return "", 0, traceError(err)
	}
	rd := s.newReader(ctx, false)
	defer rd.release() // a panic must not keep the slot
	size := proto.Size(in)
	if err := rd.admitRequest(size); err != nil {
		return "", 0, err
	}
	defer collectAfterLargeRequest(size)
	req, err := s.decodeRequest(rd, in.GetTurns(), in.GetMemory(), in.GetOptions(), in.GetHistory(), drop)
	if err != nil {
		return "", 0, requestError(err)
	}
	req.Context = ctx // the strategies stop rendering once the caller has gone
	if limited {
		req.AnswerLimit = req.Options.MaxResponseBytes
	}
	text, err := trace.Render(req, view, in.GetRaw(), in.GetUsage(), style)
	rd.release()
	if err != nil {
		return "", 0, traceError(err)
	}
	return text, req.Options.MaxResponseBytes, nil
}

// traceError maps the errors of rendering: a request the strategy rejects
// (options, chat history) is INVALID_ARGUMENT, anything else INTERNAL.
func traceError(err error) error {
	if invalid, ok := fieldError(err); ok {
		return invalid
	}
	if stopped := stoppedError(err); stopped != nil {
		return stopped
	}
	return status.Error(codes.Internal, "RenderTrace: "+err.Error())
}
