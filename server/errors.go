package server

import (
	"errors"
	"fmt"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

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
	st := status.New(codes.InvalidArgument, field+": "+description)
	detailed, err := st.WithDetails(&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{
		{Field: field, Description: description},
	}})
	if err != nil {
		return st.Err() // a BadRequest always marshals; the message still names the field
	}
	return detailed.Err()
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
