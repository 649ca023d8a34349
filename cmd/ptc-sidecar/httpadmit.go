package main

import (
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
// Streamed calls pass: each of their messages goes through the service's
// own admission.
func admitLargeBodies(sidecar *server.Service, next http.Handler) http.Handler {
	errs := connect.NewErrorWriter()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := r.Body.(*readBody)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		size := len(body.rest)
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
