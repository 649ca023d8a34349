package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"math"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/vanguard"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
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
	transcoder, err := newTranscoder(srv,
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
		Handler:           e.counted(metrics.instrumentHTTP(connectVersionOptional(codings(callerHeaders(answerDeadline(bodies.timeout, bodies.streamed, bodies.bound(admitLargeBodies(sidecar, bodies.maxBytes, transcoder)))))))),
		Protocols:         &protocols,
		HTTP2:             &http.HTTP2Config{MaxConcurrentStreams: int(cfg.maxStreams)},
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    maxHeaderBytes,
	}
	return e, nil
}

// newTranscoder is vanguardgrpc.NewTranscoder, except that the gRPC
// server answers ToMessages and RenderTrace into an answerAfter: the transcoder
// turns the answer into the caller's protocol only once the gRPC call is
// over, not while its request, its response and the response's protobuf
// bytes are still held (docs/RELIABILITY.md, "Strategies under attack").
func newTranscoder(srv *grpc.Server, opts ...vanguard.TranscoderOption) (*vanguard.Transcoder, error) {
	codecs := []string{vanguard.CodecProto}
	if encoding.GetCodec(vanguard.CodecJSON) != nil {
		codecs = append(codecs, vanguard.CodecJSON)
	}
	handler := answerAfter{srv: srv}
	var services []*vanguard.Service
	for name := range srv.GetServiceInfo() {
		services = append(services, vanguard.NewService(name, handler))
	}
	all := append([]vanguard.TranscoderOption{vanguard.WithDefaultServiceOptions(
		vanguard.WithTargetCodecs(codecs...),
		vanguard.WithTargetProtocols(vanguard.ProtocolGRPC),
	)}, opts...)
	return vanguard.NewTranscoder(services, all...)
}

// counted counts the requests next serves in e.calls.
func (e *httpEndpoint) counted(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.calls.Add(1)
		defer e.calls.Add(-1)
		next.ServeHTTP(w, r)
	})
}

// endStreams ends the request bodies of the streamed calls in flight, so
// that a call its handler has answered is over (see openStreams). The
// sidecar's calls must already be stopped (server.Service.StopCalls): a
// call still running would take its body's end for its caller's.
func (e *httpEndpoint) endStreams() {
	if e != nil {
		e.streams.end()
	}
}

// waitAnswered waits until no request is being served, or until the
// deadline. http.Server.Shutdown waits for the same, but looks at most
// every half second.
func (e *httpEndpoint) waitAnswered(deadline time.Time) {
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

// codingHeaders are the HTTP headers that name a request's content
// coding: Connect's, for unary and for streamed calls.
var codingHeaders = []string{"Content-Encoding", "Connect-Content-Encoding"}

// codings makes the content codings a request names mean what they mean
// on the gRPC listener and in HTTP:
//
//   - HTTP coding names are case-insensitive (RFC 9110, 8.4.1), but the
//     transcoder looks its decompressors up by the name as sent, so
//     `Content-Encoding: GZIP` was refused with 415 though `gzip` is
//     taken. They are written in lower case; a coding the server does not
//     take stays refused, and the decompressed size is bounded the same.
//   - gRPC's and gRPC-Web's grpc-encoding is matched as sent, as grpc-go's
//     server does on the gRPC listener: one it does not take is answered
//     there UNIMPLEMENTED in gRPC's way, and was answered here HTTP 415,
//     which a gRPC client reports as a transport failure. It is answered
//     as on the gRPC listener.
func codings(next http.Handler) http.Handler {
	errs := connect.NewErrorWriter()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, key := range codingHeaders {
			for i, v := range r.Header[key] {
				r.Header[key][i] = strings.ToLower(v)
			}
		}
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc") {
			if rc := r.Header.Get("Grpc-Encoding"); rc != "" && rc != "identity" && rc != "gzip" {
				errs.Write(w, r, connect.NewError(connect.CodeUnimplemented,
					fmt.Errorf("grpc: Decompressor is not installed for grpc-encoding %q", rc)))
				return
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
	// Room for a rendered answer's JSON at once: grown from vanguard's
	// small buffer a quarter at a time, a JSON answer of megabytes leaves
	// several times its size behind for the collector. The protobuf size is the JSON's
	// for text, a little less for its quotes and escapes.
	// A text's escapes are counted too: a turn's 1.9 MB result of
	// control characters is 11.4 MB of JSON (each written \u0001), and
	// grown to it a quarter at a time its earlier sizes reached +56 MiB
	// of RSS.
	if n := proto.Size(msg); n > answerChunk {
		n += jsonEscapeBytes(msg.ProtoReflect())
		base = slices.Grow(base, n+n/8)
	}
	out, err := c.JSONCodec.MarshalAppend(base, msg)
	proto.Reset(msg)
	return out, err
}

// jsonEscapeBytes is how many bytes protojson's escapes add to the texts
// of m and the messages in it: five for a control character other than
// \b \t \n \f \r (written \u00XX), one for those and for " and \.
func jsonEscapeBytes(m protoreflect.Message) int {
	extra := 0
	text := func(s string) {
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c == '"' || c == '\\' || c == '\b' || c == '\t' || c == '\n' || c == '\f' || c == '\r':
				extra++
			case c < 0x20:
				extra += 5
			}
		}
	}
	value := func(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
		switch fd.Kind() {
		case protoreflect.StringKind:
			text(v.String())
		case protoreflect.MessageKind, protoreflect.GroupKind:
			extra += jsonEscapeBytes(v.Message())
		}
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList():
			for i, l := 0, v.List(); i < l.Len(); i++ {
				value(fd, l.Get(i))
			}
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				text(k.String())
				value(fd.MapValue(), mv)
				return true
			})
		default:
			value(fd, v)
		}
		return true
	})
	return extra
}

// movingProtoCodec is vanguard's protobuf codec, except that a message
// it has encoded is emptied. Vanguard encodes a request it decoded from
// JSON once, for the gRPC server, and would hold the decoded message to
// the end of the call beside the gRPC server's own copy and what the
// handler converts that into: for a request of many small values (90,000
// one-line memory bindings) 12 times its protobuf bytes that nothing reads
// again (docs/RELIABILITY.md).
type movingProtoCodec struct{ *vanguard.ProtoCodec }

// Unmarshal decodes a ToMessages answer with its summary request sharing
// the messages it repeats (unmarshalSharing); any other message as
// vanguard's codec does.
func (c movingProtoCodec) Unmarshal(data []byte, msg proto.Message) error {
	if out, ok := msg.(*ptcsidecarv1.ToMessagesResponse); ok {
		if done, err := unmarshalSharing(data, out, c.ProtoCodec); done {
			return err
		}
	}
	return c.ProtoCodec.Unmarshal(data, msg)
}

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

// Field numbers of ToMessagesResponse and SummaryRequest that
// unmarshalSharing reads.
const (
	responseMessagesField = 1  // ToMessagesResponse.messages
	summaryRequestField   = 10 // ToMessagesResponse.summary_request
	summaryMessagesField  = 1  // SummaryRequest.messages
)

// encodedMessage is a ChatMessage decoded from its protobuf bytes.
type encodedMessage struct {
	bytes []byte
	msg   *ptcsidecarv1.ChatMessage
}

// unmarshalSharing decodes a ToMessages answer from the gRPC server for
// the transcoder to write as JSON. A summarize answer's summary request
// repeats the prompt it asks the model to summarise, which the answer's
// messages also hold: decoded field by field, each such message would be
// held twice, its text and all, while the JSON is written. Here a summary
// request's message whose bytes are those of one of the answer's
// messages is that same decoded message, so the answer holds each text
// once, as the gRPC server's answer did. It returns done false when data
// is not protobuf it can walk (codec then decodes it and reports the
// error); the result is what codec would decode.
func unmarshalSharing(data []byte, out *ptcsidecarv1.ToMessagesResponse, codec vanguard.Codec) (done bool, err error) {
	var rest, summary []byte
	var messages [][]byte
	summaries := 0
	ok := eachField(data, func(num protowire.Number, typ protowire.Type, field, value []byte) {
		switch {
		case num == responseMessagesField && typ == protowire.BytesType:
			messages = append(messages, value)
		case num == summaryRequestField && typ == protowire.BytesType:
			summary = value
			summaries++
		default:
			rest = append(rest, field...)
		}
	})
	if !ok || summaries > 1 { // a repeated summary_request merges: leave it to codec
		return false, nil
	}
	if err := codec.Unmarshal(rest, out); err != nil {
		return true, err
	}
	seed := maphash.MakeSeed()
	decoded := make(map[uint64][]encodedMessage, len(messages))
	out.Messages = make([]*ptcsidecarv1.ChatMessage, len(messages))
	for i, b := range messages {
		m := &ptcsidecarv1.ChatMessage{}
		if err := proto.Unmarshal(b, m); err != nil {
			return true, err
		}
		out.Messages[i] = m
		h := maphash.Bytes(seed, b)
		decoded[h] = append(decoded[h], encodedMessage{b, m})
	}
	if summaries == 0 {
		return true, nil
	}
	var summaryRest []byte
	var summaryMessages [][]byte
	if !eachField(summary, func(num protowire.Number, typ protowire.Type, field, value []byte) {
		if num == summaryMessagesField && typ == protowire.BytesType {
			summaryMessages = append(summaryMessages, value)
		} else {
			summaryRest = append(summaryRest, field...)
		}
	}) {
		return false, nil
	}
	sr := &ptcsidecarv1.SummaryRequest{}
	if err := proto.Unmarshal(summaryRest, sr); err != nil {
		return true, err
	}
	sr.Messages = make([]*ptcsidecarv1.ChatMessage, len(summaryMessages))
	for i, b := range summaryMessages {
		sr.Messages[i] = nil
		for _, d := range decoded[maphash.Bytes(seed, b)] {
			if bytes.Equal(d.bytes, b) {
				sr.Messages[i] = d.msg
				break
			}
		}
		if sr.Messages[i] == nil {
			m := &ptcsidecarv1.ChatMessage{}
			if err := proto.Unmarshal(b, m); err != nil {
				return true, err
			}
			sr.Messages[i] = m
		}
	}
	out.SummaryRequest = sr
	return true, nil
}

// eachField calls f with each field of the protobuf message b: its
// number, wire type, whole encoding and, for a length-delimited field,
// its contents. It reports false if b is not well-formed.
func eachField(b []byte, f func(num protowire.Number, typ protowire.Type, field, value []byte)) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return false
		}
		var value []byte
		if typ == protowire.BytesType {
			value, _ = protowire.ConsumeBytes(b[n:])
		}
		f(num, typ, b[:n+m], value)
		b = b[n+m:]
	}
	return true
}
