package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/ptc-sidecar/ptc-sidecar/server"
)

// envelope frames message as Connect, gRPC-Web and gRPC do.
func envelope(flags byte, message string) []byte {
	n := len(message)
	return append([]byte{flags, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, message...)
}

// TestStreamGatePassesMessagesAsSent: a streamed body read through the
// gate, one byte a read or all at once, is the body sent, small and large
// messages alike; a large or compressed message holds one place until the
// next message begins or release; with every place taken a large message
// reads as the refusal, and so does everything after it; a message longer
// than the transcoder takes passes through for it to refuse.
func TestStreamGatePassesMessagesAsSent(t *testing.T) {
	sidecar := server.New(server.Config{MaxConcurrentEvals: 1, EvalQueueWait: 10 * time.Millisecond, LargeRequestBytes: 100})
	gate := func(r io.Reader, maxMessage int64) *streamGate {
		return &streamGate{ReadCloser: io.NopCloser(r), ctx: context.Background(), sidecar: sidecar, maxMessage: maxMessage}
	}
	large := strings.Repeat("x", 1000)
	body := bytes.Join([][]byte{envelope(0, "small"), envelope(0, ""), envelope(0, large), envelope(1, "z")}, nil)
	for name, wrap := range map[string]func(io.Reader) io.Reader{"whole": func(r io.Reader) io.Reader { return r }, "a byte a read": iotest.OneByteReader} {
		g := gate(wrap(bytes.NewReader(body)), 1<<20)
		got, err := io.ReadAll(g)
		if err != nil || !bytes.Equal(got, body) {
			t.Errorf("%s: read %d bytes (%v), want the %d sent", name, len(got), err, len(body))
		}
		if g.held == nil {
			t.Errorf("%s: the compressed message holds no place", name)
		}
		g.release()
	}
	g := gate(bytes.NewReader(body), 1<<20)
	if _, err := io.ReadFull(g, make([]byte, 5+len("small")+5+5+len(large))); err != nil {
		t.Fatal(err)
	}
	other := gate(bytes.NewReader(envelope(0, large)), 1<<20)
	_, err := io.ReadAll(other)
	if err == nil || !strings.Contains(err.Error(), "more than 100 (--large-request-bytes)") {
		t.Errorf("a large message with every place taken: %v, want the refusal", err)
	}
	if _, again := other.Read(make([]byte, 10)); again != err {
		t.Errorf("read again after the refusal: %v", again)
	}
	// The next message's envelope gives the large one's place back, and
	// the compressed message takes it.
	if rest, err := io.ReadAll(g); err != nil || len(rest) != 6 || g.held == nil {
		t.Errorf("the rest after a large message: %d bytes (%v), held %v", len(rest), err, g.held != nil)
	}
	g.release()
	passed := gate(bytes.NewReader(envelope(0, large)), 10)
	if got, err := io.ReadAll(passed); err != nil || passed.held != nil || len(got) != 5+len(large) {
		t.Errorf("a message past maxMessage: read %d bytes (%v), held %v; want it passed through for the transcoder to refuse", len(got), err, passed.held != nil)
	}
}
