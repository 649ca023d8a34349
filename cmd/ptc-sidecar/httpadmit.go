package main

import (
	"context"
	"encoding/binary"
	"io"
	"net/http"
	"sync"
	"time"

	"connectrpc.com/connect"

	"github.com/ptc-sidecar/ptc-sidecar/server"
)

// admitLargeBodies lets the transcoder convert a body that bodyBounds has
// read whole only once the service has a place for it
// (server.Service.EnterLargeBody) when it is past --large-request-bytes,
// or compressed: a compressed body's bytes say nothing of what it
// decompresses to (200 MiB fits in 204 KB of gzip). Each request's
// decoding is bounded by its size; this bounds how many large ones are
// decoded at once, which nothing did over HTTP: the transcoder converts a
// body before the service sees it, and 48 bodies of 4 MiB at once raised
// the peak by 620 MiB. A body waits once it has arrived, holding its
// bytes as a request waiting on the gRPC listener does, so that a caller
// trickling a body in holds no place. The place is given back when the
// answer begins, so that a caller that never reads its answer holds none.
// A streamed call's body is not read whole: its messages are admitted one
// by one (streamGate). maxMessage is the most the transcoder takes of one
// message.
func admitLargeBodies(sidecar *server.Service, maxMessage int64, next http.Handler) http.Handler {
	errs := connect.NewErrorWriter()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := r.Body.(*readBody)
		if !ok {
			g := &streamGate{ReadCloser: r.Body, ctx: r.Context(), sidecar: sidecar, maxMessage: maxMessage}
			defer g.release()
			r.Body = g
			next.ServeHTTP(&beginningWriter{ResponseWriter: w, begin: g.release}, r)
			return
		}
		size := body.size
		if compressed(r) {
			size = -1
		}
		leave, err := sidecar.EnterLargeBody(r.Context(), size)
		if err != nil {
			errs.Write(w, r, connectError(err))
			return
		}
		defer leave()
		next.ServeHTTP(&beginningWriter{ResponseWriter: w, begin: leave}, r)
	})
}

// streamGate admits each message of a streamed call's body as
// admitLargeBodies admits a unary call's body: a message (in its 5-byte
// envelope, the same in Connect, gRPC-Web and gRPC) past
// --large-request-bytes, or compressed, is read whole first, then waits
// for a place before the transcoder has it. The place is given back when
// the next message begins, when the answer is written to, or when the
// call ends. A message longer than the transcoder takes passes through,
// for it to refuse.
type streamGate struct {
	io.ReadCloser
	ctx        context.Context
	sidecar    *server.Service
	maxMessage int64

	header  [5]byte
	got     int      // bytes of the current envelope read
	left    int64    // bytes of the current message not yet read from the caller
	message [][]byte // a large message read whole, being handed on
	err     error    // the refusal, once a message is refused

	mu   sync.Mutex
	held func() // gives back the place the current message holds
}

func (g *streamGate) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if len(g.message) > 0 {
		n := copy(p, g.message[0])
		if g.message[0] = g.message[0][n:]; len(g.message[0]) == 0 {
			g.message = g.message[1:]
		}
		return n, nil
	}
	if g.left > 0 {
		n, err := g.ReadCloser.Read(p[:min(int64(len(p)), g.left)])
		g.left -= int64(n)
		return n, err
	}
	n, err := g.ReadCloser.Read(p[:min(len(p), len(g.header)-g.got)])
	g.got += copy(g.header[g.got:], p[:n])
	if g.got < len(g.header) {
		return n, err
	}
	g.got = 0
	g.release()
	g.left = int64(binary.BigEndian.Uint32(g.header[1:]))
	size := int(g.left)
	if g.header[0]&1 != 0 { // compressed
		size = -1
	}
	if g.left > g.maxMessage || size >= 0 && !g.sidecar.LargeBody(size) {
		return n, err
	}
	// Read in pieces as the bytes come: room for them, never for the
	// length announced, and none left behind as a buffer grows.
	for g.left > 0 {
		piece := make([]byte, min(g.left, streamPiece))
		k, rerr := io.ReadFull(g.ReadCloser, piece)
		g.message = append(g.message, piece[:k])
		if g.left -= int64(k); rerr != nil {
			return n, rerr
		}
	}
	leave, aerr := g.sidecar.EnterLargeBody(g.ctx, size)
	if aerr != nil {
		g.message, g.err = nil, connectError(aerr)
		return n, nil // the envelope is whole; its message reads as the refusal
	}
	g.mu.Lock()
	g.held = leave
	g.mu.Unlock()
	return n, err
}

// streamPiece is the size of the pieces a large streamed message is read
// in.
const streamPiece = 256 << 10

// release gives back the place the current message holds, if any.
func (g *streamGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held != nil {
		g.held()
		g.held = nil
	}
}

// compressed reports whether r's body names a content coding.
func compressed(r *http.Request) bool {
	coded := func(key string) bool { v := r.Header.Get(key); return v != "" && v != "identity" }
	for _, key := range codingHeaders {
		if coded(key) {
			return true
		}
	}
	return coded("Grpc-Encoding")
}

// answerDeadline gives the answer of each call next serves, but those
// the client streams, timeout to be taken once it begins. A caller that
// never reads its answer held it for as long as it kept the connection:
// 50 answers of 3 MiB not read held 171 MiB, and nothing let go of them.
// Past the deadline the answer's writes fail, the call ends and its
// memory is let go of.
func answerDeadline(timeout time.Duration, streamed map[string]bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if streamed[r.URL.Path] {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		next.ServeHTTP(&beginningWriter{ResponseWriter: w, begin: sync.OnceFunc(func() {
			rc.SetWriteDeadline(time.Now().Add(timeout)) // an error: the connection cannot take one, and the answer goes without
		})}, r)
	})
}

// beginningWriter calls begin when the answer begins.
type beginningWriter struct {
	http.ResponseWriter
	begin func()
}

func (w *beginningWriter) WriteHeader(code int) {
	w.begin()
	w.ResponseWriter.WriteHeader(code)
}

func (w *beginningWriter) Write(p []byte) (int, error) {
	w.begin()
	return w.ResponseWriter.Write(p)
}

func (w *beginningWriter) Flush() {
	w.begin()
	http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *beginningWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
