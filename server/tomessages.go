package server

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// ToMessages compresses a history into the next message array.
func (s *Service) ToMessages(context.Context, *ptcsidecarv1.ToMessagesRequest) (*ptcsidecarv1.ToMessagesResponse, error) {
	return nil, status.Error(codes.Unimplemented, "ToMessages: the compression strategies are not built yet")
}
