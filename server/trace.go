package server

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// RenderTrace renders a run as text for a person debugging an agent.
func (s *Service) RenderTrace(context.Context, *ptcsidecarv1.RenderTraceRequest) (*ptcsidecarv1.RenderTraceResponse, error) {
	return nil, status.Error(codes.Unimplemented, "RenderTrace: the trace views are not built yet")
}
