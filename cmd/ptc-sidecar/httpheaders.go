package main

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"connectrpc.com/connect"
)

// callerHeaders answers a call whose headers grpc-go or the transcoder
// would refuse as a fault of the server's INVALID_ARGUMENT, saying what
// is wrong, in the caller's protocol: a timeout header that is not a
// timeout, binary metadata that is not base64. The transcoder answered a
// malformed timeout HTTP 400 without a gRPC status, which a gRPC or
// gRPC-Web client reports as INTERNAL, or with the parser's words
// ("strconv.ParseInt: parsing ..."), and grpc-go's handler answered
// binary metadata that is not base64 alike. Every call to the HTTP
// listener passes here, whatever its method or protocol: gRPC and
// gRPC-Web send Grpc-Timeout, Connect sends Connect-Timeout-Ms. An empty
// timeout header is no timeout, as the transcoder takes it.
func callerHeaders(next http.Handler) http.Handler {
	errs := connect.NewErrorWriter()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fault := callerHeaderFaults(r.Header); fault != "" {
			errs.Write(w, r, connect.NewError(connect.CodeInvalidArgument, errors.New(fault)))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// callerHeaderFaults says what is wrong with the first of h's headers
// callerHeaders refuses, or is "".
func callerHeaderFaults(h http.Header) string {
	for key, valid := range timeoutFormats {
		values := h.Values(key)
		if len(values) > 1 || len(values) == 1 && values[0] != "" && !valid(values[0]) {
			return fmt.Sprintf("the %s header %q is not a timeout: send one header of %s, or none for no timeout",
				key, cut(strings.Join(values, ", ")), timeoutSyntax[key])
		}
	}
	for key, values := range h {
		if strings.HasSuffix(strings.ToLower(key), "-bin") {
			for _, v := range values {
				if !validBinaryHeader(v) {
					return fmt.Sprintf("the binary metadata %q is not base64: a header whose name ends in -bin holds base64", cut(strings.ToLower(key)))
				}
			}
		}
	}
	return ""
}

// timeoutFormats are the timeout headers of the HTTP listener's protocols
// and whether a value is one the transcoder takes.
var timeoutFormats = map[string]func(string) bool{
	"Grpc-Timeout":       validGRPCTimeout,
	"Connect-Timeout-Ms": validConnectTimeout,
}

// timeoutSyntax says what each timeout header holds.
var timeoutSyntax = map[string]string{
	"Grpc-Timeout":       "at most 8 digits and a unit of H, M, S, m, u or n (gRPC's)",
	"Connect-Timeout-Ms": "at most 10 digits of milliseconds (Connect's)",
}

// validGRPCTimeout reports whether v is a gRPC timeout: 1 to 8 digits and
// a unit.
func validGRPCTimeout(v string) bool {
	digits := len(v) - 1
	return digits >= 1 && digits <= 8 && strings.IndexByte("HMSmun", v[digits]) >= 0 && allDigits(v[:digits])
}

// validConnectTimeout reports whether v is a Connect timeout: 1 to 10
// digits of milliseconds.
func validConnectTimeout(v string) bool {
	return len(v) >= 1 && len(v) <= 10 && allDigits(v)
}

func allDigits(s string) bool {
	return strings.Trim(s, "0123456789") == ""
}

// cut is v, or its first 100 bytes and a mark: an error quotes what the
// caller sent, not a megabyte of it.
func cut(v string) string {
	if len(v) <= 100 {
		return v
	}
	return v[:100] + "..."
}

// validBinaryHeader reports whether v decodes as grpc-go decodes binary
// metadata: base64, padded when its length is a multiple of 4.
func validBinaryHeader(v string) bool {
	encoding := base64.RawStdEncoding
	if len(v)%4 == 0 {
		encoding = base64.StdEncoding
	}
	_, err := encoding.DecodeString(v)
	return err == nil
}
