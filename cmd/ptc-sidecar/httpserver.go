package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/vanguard"
	"connectrpc.com/vanguard/vanguardgrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/ptc-sidecar/ptc-sidecar/server"
)

// httpEndpoint serves the gRPC server's services over HTTP/1.1 and HTTP/2
// (h2c, or TLS when configured) with the Connect and gRPC-Web protocols,
// JSON or protobuf bodies. Vanguard transcodes each call into a gRPC call
// that the one *grpc.Server handles: the same handlers, interceptors
// (metrics, request log, panic recovery), size limit, health service and
// stats handler (traces) as native gRPC callers. A nil *httpEndpoint is
// the disabled endpoint.
type httpEndpoint struct {
	lis  net.Listener
	http *http.Server
	// calls counts the requests being served, for waitAnswered.
	calls   atomic.Int64
	streams openStreams
}

// newHTTPEndpoint listens on --http-listen and routes to srv, whose
// services must all be registered already, sidecar among them; metrics may
// be nil (no metrics endpoint).
// maxHeaderBytes bounds the headers (gRPC metadata) of one request on
// either listener: net/http's default, to which grpc-go's own (16 MiB a
// stream, held while the call runs) is lowered.
const maxHeaderBytes = 1 << 20

func newHTTPEndpoint(cfg serveConfig, srv *grpc.Server, sidecar *server.Service, metrics *metricsEndpoint) (*httpEndpoint, error) {
	transcoder, err := vanguardgrpc.NewTranscoder(srv,
		vanguard.WithCodec(func(res vanguard.TypeResolver) vanguard.Codec { return newRequestJSONCodec(res, sidecar) }),
		vanguard.WithCodec(func(res vanguard.TypeResolver) vanguard.Codec { return movingProtoCodec{vanguard.NewProtoCodec(res)} }),
		vanguard.WithDefaultServiceOptions(vanguard.WithMaxMessageBufferBytes(httpBufferLimit(int(cfg.maxRecvBytes))),
			vanguard.WithNoTargetCompression()),
		// A compressed message decompresses to no more than an
		// uncompressed body may hold.
		vanguard.WithCompression("gzip", newHTTPGzipWriter, newHTTPGzip(2*int64(cfg.maxRecvBytes))),
	)
	if err != nil {
		return nil, fmt.Errorf("HTTP transcoder: %w", err)
	}
	lis, err := net.Listen("tcp", string(cfg.httpListen))
	if err != nil {
		return nil, fmt.Errorf("HTTP listen on %s: %w", cfg.httpListen, err)
	}
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	if cfg.tlsConfig != nil {
		protocols.SetHTTP2(true)
		tlsConfig := cfg.tlsConfig.Clone()
		tlsConfig.NextProtos = []string{"h2", "http/1.1"}
		lis = tls.NewListener(lis, tlsConfig)
	} else {
		protocols.SetUnencryptedHTTP2(true) // h2c with prior knowledge, as gRPC-Web and Connect clients send
	}
	e := &httpEndpoint{lis: lis, streams: openStreams{bodies: map[*streamBody]bool{}}}
	bodies := bodyBounds{timeout: time.Duration(cfg.httpReadTimeout), maxBytes: 2*int64(cfg.maxRecvBytes) + envelopeBytes,
		streamed: clientStreamedMethods(srv), streams: &e.streams}
	e.http = &http.Server{
		Handler:           e.counted(metrics.instrumentHTTP(connectVersionOptional(bodies.bound(transcoder)))),
		Protocols:         &protocols,
		HTTP2:             &http.HTTP2Config{MaxConcurrentStreams: int(cfg.maxStreams)},
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    maxHeaderBytes,
	}
	return e, nil
}

// counted counts the requests next serves in e.calls.
func (e *httpEndpoint) counted(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.calls.Add(1)
		defer e.calls.Add(-1)
		next.ServeHTTP(w, r)
	})
}

// waitAnswered lets the streamed calls end once their handlers have
// answered (see openStreams), then waits until no request is being
// served, or until the deadline. http.Server.Shutdown waits for the same,
// but looks at most every half second.
func (e *httpEndpoint) waitAnswered(deadline time.Time) {
	if e != nil {
		e.streams.end()
	}
	for e != nil && e.calls.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

// connectVersionOptional lets unary Connect calls leave out the
// Connect-Protocol-Version header, as connect-go's own servers do, so that
// a plain `curl -H 'Content-Type: application/json' -d ...` is a Connect
// call. Without the header vanguard takes such a POST for REST, which
// this server does not map (its methods carry no HTTP annotations).
func connectVersionOptional(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Connect-Protocol-Version") == "" {
			switch r.Header.Get("Content-Type") {
			case "application/json", "application/proto":
				r.Header.Set("Connect-Protocol-Version", "1")
			}
		}
		next.ServeHTTP(w, r)
	})
}

// requestJSONCodec is vanguard's JSON codec with the choices of connect-go
// and grpcurl instead of its REST-minded defaults: a misspelled field is
// an error naming it rather than silently dropped, fields at their zero
// value are left out of responses, and JSON that does not decode is the
// caller's INVALID_ARGUMENT (HTTP 400), not an UNKNOWN server error. A
// request's lists are counted before it is decoded (server.CheckJSON), as
// the gRPC server counts a protobuf request's.
type requestJSONCodec struct {
	vanguard.JSONCodec
	sidecar *server.Service
}

func newRequestJSONCodec(res vanguard.TypeResolver, sidecar *server.Service) vanguard.Codec {
	return requestJSONCodec{JSONCodec: vanguard.JSONCodec{
		MarshalOptions:   protojson.MarshalOptions{Resolver: res},
		UnmarshalOptions: protojson.UnmarshalOptions{Resolver: res},
	}, sidecar: sidecar}
}

func (c requestJSONCodec) Unmarshal(data []byte, msg proto.Message) error {
	if err := c.sidecar.CheckJSON(msg, data); err != nil {
		return connectError(err)
	}
	if err := c.JSONCodec.Unmarshal(data, msg); err != nil {
		// protojson quotes what it refuses (an unknown field's name, a
		// number's text), which may be megabytes: cut as the gRPC
		// server's errors are.
		return connectError(status.Errorf(codes.InvalidArgument, "the body is not a %s in JSON: %v", msg.ProtoReflect().Descriptor().FullName(), err))
	}
	return nil
}

// MarshalAppend encodes a response for the HTTP client and empties it, as
// movingProtoCodec does a request: vanguard decoded it from the gRPC
// server's bytes and would hold it while the JSON is written, for a
// history of many short content parts as much again as the JSON's size
// ten times over.
func (c requestJSONCodec) MarshalAppend(base []byte, msg proto.Message) ([]byte, error) {
	out, err := c.JSONCodec.MarshalAppend(base, msg)
	proto.Reset(msg)
	return out, err
}

// movingProtoCodec is vanguard's protobuf codec, except that a message
// it has encoded is emptied. Vanguard encodes a request it decoded from
// JSON once, for the gRPC server, and would hold the decoded message to
// the end of the call beside the gRPC server's own copy and what the
// handler converts that into: for a request of many small values (90,000
// one-line memory bindings) 12 times its protobuf bytes that nothing reads
// again (docs/RELIABILITY.md).
type movingProtoCodec struct{ *vanguard.ProtoCodec }

func (c movingProtoCodec) MarshalAppend(base []byte, msg proto.Message) ([]byte, error) {
	out, err := c.ProtoCodec.MarshalAppend(base, msg)
	proto.Reset(msg)
	return out, err
}

// connectError is the gRPC status err as connect-go's error, details
// kept, its message cut as every status the server answers is.
func connectError(err error) *connect.Error {
	st := status.Convert(server.CutStatus(err))
	out := connect.NewError(connect.Code(st.Code()), errors.New(st.Message()))
	for _, d := range st.Proto().GetDetails() {
		if detail, err := connect.NewErrorDetail(d); err == nil {
			out.AddDetail(detail)
		}
	}
	return out
}

// httpBufferLimit is the most vanguard holds of one message while it
// converts it, request or response, decompressed: twice --max-recv-bytes,
// as a JSON body is wordier than the protobuf message it becomes (the gRPC
// server then holds that message to --max-recv-bytes as for any caller),
// and at least minHTTPBufferBytes so that a small request limit does not
// also cap the responses, which the gRPC path leaves unbounded. Both
// limits answer RESOURCE_EXHAUSTED (HTTP 429 in the Connect protocol).
func httpBufferLimit(maxRecvBytes int) uint32 {
	return uint32(min(max(2*int64(maxRecvBytes), minHTTPBufferBytes), math.MaxUint32))
}

// minHTTPBufferBytes is the least httpBufferLimit: room for the largest
// responses under the default sandbox budgets (10 MiB of values, written
// as JSON).
const minHTTPBufferBytes = 64 << 20

func (e *httpEndpoint) addr() string { return e.lis.Addr().String() }

func (e *httpEndpoint) serve(logger *slog.Logger) {
	if err := e.http.Serve(e.lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error("HTTP endpoint stopped", "error", err.Error())
	}
}

// drain stops accepting HTTP connections and waits, until ctx ends, for
// the requests in flight to finish. It has to come before the gRPC
// server's GracefulStop, which would cut the calls that came through
// HTTP off at once (it closes their transports instead of draining them).
func (e *httpEndpoint) drain(ctx context.Context) {
	if e != nil {
		e.http.Shutdown(ctx) // an error only says ctx ended first
	}
}

// close cuts off whatever HTTP requests are still running.
func (e *httpEndpoint) close() {
	if e != nil {
		e.http.Close()
	}
}
