package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// bodyBounds bound the body of each call to the HTTP endpoint: it must
// arrive within --http-read-timeout and hold at most maxBytes. Without
// them a caller could hold a connection, a goroutine and a growing buffer
// for as long as it trickled a body in, and a thousand such callers held
// their memory as long as they liked.
//
// The body is read whole before the call is transcoded, so that a body
// that is late or too large is answered with its own error in the
// caller's protocol (connect-go's ErrorWriter): the transcoder hands the
// body to the gRPC server as it reads it, which reports a failed read as
// an unavailable server.
//
// A method the client streams (EvalTurnStream) is left alone: its messages
// arrive as the call goes on, each within the transcoder's buffer limit,
// and the service bounds the waits for them (--stream-start-timeout,
// --tool-timeout). Its body is kept in streams instead, for a shutdown to
// close.
type bodyBounds struct {
	timeout  time.Duration
	maxBytes int64
	streamed map[string]bool // paths of the methods clients stream
	streams  *openStreams
}

// openStreams are the request bodies of the streamed calls in flight.
//
// A streamed call whose handler has returned is not over until the
// transcoder has read its body to the end, which the caller may never
// send: the transcoder's reader holds its lock while it waits for the next
// message, and closing it waits for that lock. So when the server shuts
// down, a stream the sidecar has answered (server.Service.Shutdown) would
// keep its answer until the connection is cut. Ending the body ends the
// wait, and the answer goes out: as if the caller had closed its side
// (io.EOF), so that the transcoder reports no error of its own in place
// of the answer.
type openStreams struct {
	mu     sync.Mutex
	bodies map[*streamBody]bool
}

// streamBody is the body of a streamed call, which end can end.
type streamBody struct {
	io.ReadCloser
	ended atomic.Bool
}

func (b *streamBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && b.ended.Load() {
		err = io.EOF
	}
	return n, err
}

// end ends every body in s.
func (s *openStreams) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for body := range s.bodies {
		body.ended.Store(true)
		body.Close() // a Read waiting for the caller returns
	}
}

// envelopeBytes is the prefix gRPC-Web and gRPC put before a message.
const envelopeBytes = 5

// preallocatedBody is the most room made for a body before its bytes come;
// a longer one grows as they do.
const preallocatedBody = 4 << 10

// clientStreamedMethods are the HTTP paths of srv's methods whose client
// streams.
func clientStreamedMethods(srv *grpc.Server) map[string]bool {
	paths := map[string]bool{}
	for service, info := range srv.GetServiceInfo() {
		for _, m := range info.Methods {
			if m.IsClientStream {
				paths["/"+service+"/"+m.Name] = true
			}
		}
	}
	return paths
}

// bound applies the bounds to the calls next serves.
func (b bodyBounds) bound(next http.Handler) http.Handler {
	errs := connect.NewErrorWriter()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if b.streamed[r.URL.Path] {
			body := &streamBody{ReadCloser: r.Body}
			r.Body = body
			b.streams.mu.Lock()
			b.streams.bodies[body] = true
			b.streams.mu.Unlock()
			defer func() {
				b.streams.mu.Lock()
				delete(b.streams.bodies, body)
				b.streams.mu.Unlock()
			}()
			next.ServeHTTP(w, r)
			return
		}
		body, err := b.read(w, r)
		if err != nil {
			errs.Write(w, r, err)
			return
		}
		r.Body = body
		if unaryJSON(r) {
			r.ContentLength = -1 // see unaryJSON
		}
		next.ServeHTTP(w, r)
	})
}

// read reads r's body within the bounds, with net/http's own per-request
// read deadline and size limit (Server.ReadTimeout would also cut the
// calls clients stream). It returns a Connect error.
func (b bodyBounds) read(w http.ResponseWriter, r *http.Request) (*readBody, error) {
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(b.timeout)); err != nil {
		return nil, connect.NewError(connect.CodeInternal, err)
	}
	// The deadline bounds the body only: net/http goes on reading an
	// HTTP/1.1 connection while the call runs, to notice a caller that
	// leaves (golang/go#70834: a deadline passing there can cancel it).
	defer rc.SetReadDeadline(time.Time{})
	body := &readBody{}
	err := body.readFrom(http.MaxBytesReader(w, r.Body, b.maxBytes), r.ContentLength)
	var tooLarge *http.MaxBytesError
	switch {
	case err == nil:
		return body, nil
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, connect.NewError(connect.CodeDeadlineExceeded,
			fmt.Errorf("the request body did not arrive within %s (--http-read-timeout); send it at once", b.timeout))
	case errors.As(err, &tooLarge):
		return nil, connect.NewError(connect.CodeResourceExhausted,
			fmt.Errorf("the request body is larger than %d bytes, twice --max-recv-bytes", b.maxBytes-envelopeBytes))
	}
	return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("the request body could not be read: %v", err))
}

// unaryJSON reports whether r is a unary Connect call in JSON, which the
// transcoder decodes and encodes again as protobuf for the gRPC server.
// The length of such a body is not passed on: when it is known, the
// transcoder, reading the end of the body after the message, first makes
// room for that length again in the buffer that holds the protobuf
// message, twice its size for a body over 8 MiB, and keeps it for the
// whole call. Unknown, it reads the end into the room it has. (A body in
// protobuf keeps its length, which lets the transcoder pass it through
// without a buffer of its own.)
func unaryJSON(r *http.Request) bool {
	t, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && t == "application/json"
}

// readBody is a body read already, in pieces, which lets go of each
// piece once it is read again: the transcoder keeps a copy of its own.
type readBody struct {
	pieces [][]byte
	size   int
}

// readFrom reads r to its end into b. A body is held in pieces that
// grow with it to bodyPiece, so that it holds its bytes and at most a
// piece more, whether its length was announced or not: a buffer that
// doubles as the bytes come held a body without a length twice over
// while it waited for admission. The first piece is room for the length
// announced, up to what a body that trickles in may hold before it has
// sent anything: a thousand callers announcing a megabyte each must not
// make the server hold a gigabyte.
func (b *readBody) readFrom(r io.Reader, announced int64) error {
	next := preallocatedBody
	if announced >= 0 {
		next = int(min(announced, preallocatedBody)) + bytes.MinRead
	}
	for {
		piece := make([]byte, next)
		n, err := io.ReadFull(r, piece)
		if n > 0 {
			b.pieces = append(b.pieces, piece[:n])
			b.size += n
		}
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return nil
		case err != nil:
			return err
		}
		next = min(max(b.size, preallocatedBody), bodyPiece)
	}
}

// bodyPiece is the largest piece a body is read in.
const bodyPiece = 256 << 10

func (b *readBody) Read(p []byte) (int, error) {
	if len(b.pieces) == 0 {
		return 0, io.EOF
	}
	n := copy(p, b.pieces[0])
	if b.pieces[0] = b.pieces[0][n:]; len(b.pieces[0]) == 0 {
		b.pieces[0] = nil
		b.pieces = b.pieces[1:]
	}
	return n, nil
}

func (b *readBody) Close() error {
	b.pieces = nil
	return nil
}

// renderedAnswers are the HTTP paths of the methods whose answers grow
// with their requests (a history rendered, a trace written), which
// answerAfter keeps until their gRPC call is over. Other answers are
// bounded (an evaluation's by the emit limit) and pass straight through.
var renderedAnswers = map[string]bool{
	ptcsidecarv1.SidecarService_ToMessages_FullMethodName:  true,
	ptcsidecarv1.SidecarService_RenderTrace_FullMethodName: true,
}

// answerAfter serves the transcoder's gRPC calls with srv, and for one
// of renderedAnswers keeps what srv answers (headers, protobuf bytes, trailers)
// until the call is over, then hands it on.
//
// The transcoder converts an answer into JSON (or the caller's protocol)
// inside the gRPC server's write of it, and the gRPC server's handler
// waits for that write to end: while the JSON is made, the server would
// still hold the request, the response it rendered and the response's
// protobuf bytes, beside the transcoder's own copy of those bytes, the
// message it decodes from them and the JSON. Kept here in chunks, which
// are let go of as they are handed on, the answer costs its protobuf
// bytes once while the gRPC call ends, and the transcoder's work starts
// with the gRPC call's memory free.
type answerAfter struct{ srv http.Handler }

func (a answerAfter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !renderedAnswers[r.URL.Path] {
		a.srv.ServeHTTP(w, r)
		return
	}
	kept := &keptAnswer{header: http.Header{}}
	a.srv.ServeHTTP(kept, r)
	kept.handOn(w)
}

// answerChunk is the size of the pieces a kept answer's body is held in.
const answerChunk = 256 << 10

// keptAnswer is an http.ResponseWriter that keeps what is written to it:
// the headers as they were when the answer began (sent), its status
// code, its body in chunks, and the header map as it ends, whose later
// values are the trailers (net/http's way, which the gRPC server uses).
type keptAnswer struct {
	header  http.Header
	sent    http.Header // nil until the answer begins
	code    int
	chunks  [][]byte
	flushed bool
}

func (k *keptAnswer) Header() http.Header { return k.header }

func (k *keptAnswer) WriteHeader(code int) {
	if k.sent == nil {
		k.sent, k.code = k.header.Clone(), code
	}
}

func (k *keptAnswer) Write(p []byte) (int, error) {
	k.WriteHeader(http.StatusOK)
	n := len(p)
	for len(p) > 0 {
		last := len(k.chunks) - 1
		if last < 0 || len(k.chunks[last]) == cap(k.chunks[last]) {
			k.chunks = append(k.chunks, make([]byte, 0, min(max(len(p), 512), answerChunk)))
			last++
		}
		c := k.chunks[last]
		room := min(cap(c)-len(c), len(p))
		k.chunks[last] = append(c, p[:room]...)
		p = p[room:]
	}
	return n, nil
}

// Flush begins the answer, as net/http's does; the bytes wait for handOn.
func (k *keptAnswer) Flush() {
	k.WriteHeader(http.StatusOK)
	k.flushed = true
}

// handOn writes the kept answer to w as it was written to k: the headers
// and code, the body (each chunk let go of once written), a flush, then
// the trailers.
func (k *keptAnswer) handOn(w http.ResponseWriter) {
	if k.sent == nil {
		return // nothing was answered; w's own end reports it
	}
	h := w.Header()
	for key, v := range k.sent {
		h[key] = v
	}
	w.WriteHeader(k.code)
	for i := range k.chunks {
		w.Write(k.chunks[i]) // a failed write is the transcoder's to report
		k.chunks[i] = nil
	}
	if f, ok := w.(http.Flusher); ok && k.flushed {
		f.Flush()
	}
	for key, v := range k.header {
		if sent, ok := k.sent[key]; !ok || !slices.Equal(sent, v) {
			h[key] = v
		}
	}
}
