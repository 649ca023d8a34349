package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	protov2 "google.golang.org/protobuf/proto"

	"github.com/ptc-sidecar/ptc-sidecar/internal/trace"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// invalidField is the INVALID_ARGUMENT status of a request whose field is
// wrong; every INVALID_ARGUMENT the service answers is built here. The
// message is "field: description", and the status details carry a
// google.rpc.BadRequest with the same field path (proto field names,
// "turns[0].tool_calls[1].args.edn") and description, so that a client
// can point at the field without parsing the message. A fault in the
// request as a whole is named "request".
func invalidField(field, description string) error {
	if field == "" {
		field = "request"
	}
	field, description = cutText(field), cutText(description)
	st := status.New(codes.InvalidArgument, field+": "+description)
	detailed, err := st.WithDetails(&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{
		{Field: field, Description: description},
	}})
	if err != nil {
		return st.Err() // a BadRequest always marshals; the message still names the field
	}
	return detailed.Err()
}

// maxStatusText bounds a status's message, and a field violation's field
// and description: an error may quote what the caller sent (a role, an
// id, a name), which may be megabytes, and a status travels in the
// response's trailers: a 12 MB role quoted in its INVALID_ARGUMENT left
// a grpc-go client waiting for the answer until its deadline.
const maxStatusText = 4 << 10

// cutText is s cut to maxStatusText bytes, saying how much was left out.
func cutText(s string) string {
	if len(s) <= maxStatusText {
		return s
	}
	return strings.ToValidUTF8(s[:maxStatusText], "") + fmt.Sprintf("... (%d bytes more)", len(s)-maxStatusText)
}

// CutStatus is err with its status's message cut to maxStatusText; its
// details are kept (the service's own, invalidField's, are cut already).
func CutStatus(err error) error {
	st, ok := status.FromError(err)
	if !ok || len(st.Message()) <= maxStatusText {
		return err
	}
	p := st.Proto()
	p.Message = cutText(p.Message)
	return status.FromProto(p).Err()
}

// CutStatusUnary and CutStatusStream are the interceptors that apply
// CutStatus to every call's error, whichever handler made it.
func CutStatusUnary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	return resp, CutStatus(err)
}

func CutStatusStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return CutStatus(handler(srv, ss))
}

// RefuseUndecodedUnary and RefuseUndecodedStream answer a request of
// another service registered beside this one (health, reflection) that
// the codec could not decode, and so marked with its refusal (refuse), as
// INVALID_ARGUMENT naming where its bytes went wrong: grpc-go would answer
// a codec error with INTERNAL, as if the server were at fault. This
// service's own methods answer the mark in their count check.
func RefuseUndecodedUnary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err := undecoded(req); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

func RefuseUndecodedStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return handler(srv, refusingStream{ss})
}

// refusingStream is a server stream whose every received message is
// checked for the codec's refusal.
type refusingStream struct{ grpc.ServerStream }

func (s refusingStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	return undecoded(m)
}

// undecoded is the INVALID_ARGUMENT of a message the codec marked as
// refused, and nil for any other.
func undecoded(m any) error {
	msg, ok := m.(protov2.Message)
	if !ok {
		return nil
	}
	if path, reason, ok := refusal(msg.ProtoReflect().GetUnknown()); ok {
		return invalidField(path, reason)
	}
	return nil
}

// invalidf is invalidField with a formatted description.
func invalidf(field, format string, args ...any) error {
	return invalidField(field, fmt.Sprintf(format, args...))
}

// fieldError returns the INVALID_ARGUMENT of a domain error that names a
// request field (an option, a history message, the input a strategy does
// not read, a trace field), and false
// for any other error.
func fieldError(err error) (error, bool) {
	var (
		oe *strategies.OptionError
		he *strategies.HistoryError
		ie *strategies.InputError
		fe *trace.FieldError
	)
	switch {
	case errors.As(err, &oe):
		return invalidField("options."+oe.Option, oe.Reason), true
	case errors.As(err, &ie):
		return invalidField(ie.Field, ie.Reason), true
	case errors.As(err, &he):
		return invalidField(fmt.Sprintf("history[%d].%s", he.Index, he.Field), he.Reason), true
	case errors.As(err, &fe):
		return invalidField(fe.Field, fe.Reason), true
	}
	return nil, false
}
