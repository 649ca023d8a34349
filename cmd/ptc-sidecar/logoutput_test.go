package main

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// writes records each Write the stream receives.
type writes struct {
	mu    sync.Mutex
	calls []string
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, string(p))
	return len(p), nil
}

func (w *writes) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.calls...)
}

// Request lines wait and leave together, once the delay has passed; any
// other line takes the waiting ones out first, in order. The delay is
// lengthened so that a busy machine, which may pause this test for longer
// than requestLogDelay, cannot let the timer write between two checks.
func TestLogOutputBatchesRequestLinesInOrder(t *testing.T) {
	var stream writes
	out := newLogOutput(&stream)
	out.delay = hangGuard
	requests := out.requests()
	fmt.Fprint(requests, "call 1\n")
	fmt.Fprint(requests, "call 2\n")
	if got := stream.all(); len(got) != 0 {
		t.Fatalf("request lines written at once: %q", got)
	}
	fmt.Fprint(out, "warning\n")
	fmt.Fprint(requests, "call 3\n")
	if got, want := stream.all(), []string{"call 1\ncall 2\n", "warning\n"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("writes %q, want %q", got, want)
	}
	fmt.Fprint(requests, "call 4\n")
	if err := out.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := stream.all(); len(got) != 3 || got[2] != "call 3\ncall 4\n" {
		t.Fatalf("Flush left lines waiting: %q", got)
	}
}

// A request line left waiting is written by the timer, with no other
// write to take it out.
func TestLogOutputTimerWritesWaitingLines(t *testing.T) {
	var stream writes
	out := newLogOutput(&stream)
	fmt.Fprint(out.requests(), "call 1\n")
	deadline := time.Now().Add(hangGuard)
	for len(stream.all()) == 0 && time.Now().Before(deadline) {
		time.Sleep(requestLogDelay / 5)
	}
	if got := stream.all(); len(got) != 1 || got[0] != "call 1\n" {
		t.Fatalf("the waiting line was not written: %q", got)
	}
}

// Lines never wait beyond requestLogBatch bytes, and concurrent writers
// lose nothing.
func TestLogOutputBoundsWhatWaits(t *testing.T) {
	var stream writes
	out := newLogOutput(&stream)
	line := strings.Repeat("x", 99) + "\n"
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				if i%50 == 49 {
					fmt.Fprint(out, line) // now and then a line written at once
					continue
				}
				fmt.Fprint(out.requests(), line)
			}
		}()
	}
	wg.Wait()
	if err := out.Flush(); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, w := range stream.all() {
		if len(w) > requestLogBatch+len(line) {
			t.Errorf("a write of %d bytes: more waited than %d", len(w), requestLogBatch)
		}
		total += len(w)
	}
	if total != 800*len(line) {
		t.Errorf("%d bytes written, want %d", total, 800*len(line))
	}
}
