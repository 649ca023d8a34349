package server

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// EvalTurn evaluates one PTC-Lisp program with the replay tool protocol.
func (s *Service) EvalTurn(context.Context, *ptcsidecarv1.EvalTurnRequest) (*ptcsidecarv1.EvalTurnResponse, error) {
	return nil, status.Error(codes.Unimplemented, "EvalTurn: the PTC-Lisp evaluator is not built yet")
}

// EvalTurnStream evaluates one PTC-Lisp program, exchanging tool calls and
// their results over the stream.
func (s *Service) EvalTurnStream(grpc.BidiStreamingServer[ptcsidecarv1.EvalTurnStreamRequest, ptcsidecarv1.EvalTurnStreamResponse]) error {
	return status.Error(codes.Unimplemented, "EvalTurnStream: the PTC-Lisp evaluator is not built yet")
}
