package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"
)

// TestBodyIsHeldOnce: a body of 8 MiB is read whole before its call is
// transcoded, with its length announced and without (chunked), and what
// reading it allocates is within its bytes and a quarter more. A buffer
// that doubled as the bytes came allocated 32 MiB for it and held 16
// while the call waited for admission; its bytes read back as sent.
func TestBodyIsHeldOnce(t *testing.T) {
	const size = 8 << 20
	payload := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	bounds := bodyBounds{timeout: time.Minute, maxBytes: 64 << 20, streams: &openStreams{bodies: map[*streamBody]bool{}}}
	var before, read runtime.MemStats
	var got []byte
	srv := httptest.NewServer(bounds.bound(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		runtime.ReadMemStats(&read)
		got, _ = io.ReadAll(r.Body)
	})))
	defer srv.Close()
	for _, way := range []string{"with its length", "chunked"} {
		var body io.Reader = bytes.NewReader(payload)
		if way == "chunked" {
			body = io.MultiReader(body) // the client cannot know its length
		}
		runtime.GC()
		runtime.ReadMemStats(&before)
		resp, err := http.Post(srv.URL, "application/proto", body)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if !bytes.Equal(got, payload) {
			t.Errorf("%s: the handler read %d bytes, not the %d sent", way, len(got), len(payload))
		}
		allocated := read.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %.1f MiB allocated to read %d MiB", way, float64(allocated)/(1<<20), size>>20)
		if allocated > size+size/4 {
			t.Errorf("%s: reading a body of %d MiB allocated %.1f MiB, over %d MiB", way, size>>20, float64(allocated)/(1<<20), (size+size/4)>>20)
		}
	}
}
