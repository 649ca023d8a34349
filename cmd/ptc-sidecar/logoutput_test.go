package main

import (
	"encoding/json"
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

// joined is everything the stream received, in order.
func (w *writes) joined() string { return strings.Join(w.all(), "") }

// waitFor waits until the stream has received want bytes or more (only a
// hang reaches hangGuard) and returns what it received.
func (w *writes) waitFor(t *testing.T, want int) string {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for len(w.joined()) < want && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	return w.joined()
}

// Request lines wait and leave together, once the delay has passed; any
// other line takes the waiting ones out with it, in order. The delay is
// lengthened so that a busy machine, which may pause this test for longer
// than requestLogDelay, cannot let the timer write between two checks.
func TestLogOutputBatchesRequestLinesInOrder(t *testing.T) {
	var stream writes
	out := newLogOutput(&stream)
	out.delay = hangGuard
	requests := out.requests()
	fmt.Fprint(requests, "call 1\n")
	fmt.Fprint(requests, "call 2\n")
	time.Sleep(10 * time.Millisecond) // a writer that wrote request lines at once would have by now
	if got := stream.all(); len(got) != 0 {
		t.Fatalf("request lines written at once: %q", got)
	}
	fmt.Fprint(out, "warning\n")
	if got, want := stream.waitFor(t, len("call 1\ncall 2\nwarning\n")), "call 1\ncall 2\nwarning\n"; got != want {
		t.Fatalf("written %q, want %q", got, want)
	}
	fmt.Fprint(requests, "call 3\n")
	fmt.Fprint(requests, "call 4\n")
	if !out.Close(hangGuard) {
		t.Fatal("Close gave up on a stream that takes every line")
	}
	if got, want := stream.joined(), "call 1\ncall 2\nwarning\ncall 3\ncall 4\n"; got != want {
		t.Fatalf("Close left lines waiting: written %q, want %q", got, want)
	}
	fmt.Fprint(out, "after close\n")
	if got := stream.joined(); strings.Contains(got, "after close") || out.Dropped() != 1 {
		t.Errorf("a line logged after Close: written %q, %d dropped", got, out.Dropped())
	}
}

// A request line left waiting is written by the timer, with no other
// write to take it out.
func TestLogOutputTimerWritesWaitingLines(t *testing.T) {
	var stream writes
	out := newLogOutput(&stream)
	defer out.Close(hangGuard)
	fmt.Fprint(out.requests(), "call 1\n")
	if got := stream.waitFor(t, len("call 1\n")); got != "call 1\n" {
		t.Fatalf("the waiting line was not written: %q", got)
	}
}

// Concurrent writers lose nothing and no line is split between writes or
// mixed with another.
func TestLogOutputConcurrentLinesWhole(t *testing.T) {
	var stream writes
	out := newLogOutput(&stream)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				line := fmt.Sprintf("%d-%d %s\n", g, i, strings.Repeat("x", 90))
				if i%50 == 49 {
					fmt.Fprint(out, line) // now and then a line written at once
					continue
				}
				fmt.Fprint(out.requests(), line)
			}
		}()
	}
	wg.Wait()
	if !out.Close(hangGuard) {
		t.Fatal("Close gave up on a stream that takes every line")
	}
	seen := map[string]bool{}
	for _, w := range stream.all() {
		if !strings.HasSuffix(w, "\n") {
			t.Fatalf("a write ends inside a line: %q", w)
		}
		for line := range strings.SplitSeq(strings.TrimSuffix(w, "\n"), "\n") {
			if seen[line] || !strings.HasSuffix(line, strings.Repeat("x", 90)) {
				t.Fatalf("line %q split, mixed or written twice", line)
			}
			seen[line] = true
		}
	}
	if len(seen) != 800 || out.Dropped() != 0 {
		t.Errorf("%d lines written, %d dropped; want 800 and 0", len(seen), out.Dropped())
	}
}

// blockedStream is a stream no one reads: every write blocks until
// release (a pipe whose buffer is full). blocked gets a value each time a
// write starts waiting.
type blockedStream struct {
	writes
	release chan struct{}
	blocked chan struct{}
}

func (b *blockedStream) Write(p []byte) (int, error) {
	select {
	case b.blocked <- struct{}{}:
	default:
	}
	<-b.release
	return b.writes.Write(p)
}

// A stream that takes nothing blocks no one who logs, nor Close beyond
// its wait: the lines that do not fit in the queue are dropped and
// counted, and once the stream takes lines again a warning says how many.
func TestLogOutputStuckStreamDropsAndCounts(t *testing.T) {
	stream := &blockedStream{release: make(chan struct{}), blocked: make(chan struct{}, 1)}
	out := newLogOutput(stream)
	out.limit = 1000
	line := strings.Repeat("y", 99) + "\n"
	fmt.Fprint(out, line)
	// The writer takes the first line and blocks in its write; until it
	// does, later lines would join the first in the writer's batch.
	select {
	case <-stream.blocked:
	case <-time.After(hangGuard):
		t.Fatal("the writer never wrote the first line")
	}
	logged := make(chan struct{})
	go func() {
		defer close(logged)
		for range 50 {
			fmt.Fprint(out, line)
			fmt.Fprint(out.requests(), line)
		}
	}()
	select {
	case <-logged:
	case <-time.After(hangGuard):
		t.Fatal("logging waits for a stream that takes nothing")
	}
	// The queue holds 10 of the 100 lines: 90 dropped.
	if d := out.Dropped(); d != 90 {
		t.Errorf("%d lines dropped, want 90", d)
	}
	if out.Close(10 * time.Millisecond) {
		t.Error("Close reports the lines written to a stream that takes nothing")
	}
	close(stream.release)
	got := stream.waitFor(t, 11*len(line))
	if n := strings.Count(got, line); n != 11 {
		t.Errorf("written %d lines, want the first and the 10 the queue held", n)
	}
	deadline := time.Now().Add(hangGuard)
	for !strings.Contains(stream.joined(), "log lines dropped") && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	last := stream.joined()[strings.LastIndex(strings.TrimSuffix(stream.joined(), "\n"), "\n")+1:]
	var warning struct {
		Level   string
		Msg     string
		Dropped int64
	}
	if err := json.Unmarshal([]byte(last), &warning); err != nil || warning.Level != "WARN" || warning.Dropped != out.Dropped()-1 && warning.Dropped != out.Dropped() {
		t.Errorf("last line %q (%v), want a warning counting the %d lines dropped", last, err, out.Dropped())
	}
}

// A line longer than the whole queue is written when nothing waits
// before it, and dropped when the queue already holds lines.
func TestLogOutputLongLine(t *testing.T) {
	var stream writes
	out := newLogOutput(&stream)
	out.limit = 100
	out.delay = hangGuard
	long := strings.Repeat("z", 300) + "\n"
	fmt.Fprint(out, long)
	if got := stream.waitFor(t, len(long)); got != long {
		t.Fatalf("a long line into an empty queue: written %q", got)
	}
	fmt.Fprint(out.requests(), "call\n") // waits in the queue
	fmt.Fprint(out.requests(), long)
	if !out.Close(hangGuard) {
		t.Fatal("Close gave up on a stream that takes every line")
	}
	got := stream.joined()
	if !strings.HasPrefix(got, long+"call\n{") || strings.Count(got, long) != 1 || out.Dropped() != 1 {
		t.Errorf("written %q, %d dropped; want the long line dropped behind the waiting one, and the warning", got, out.Dropped())
	}
}
