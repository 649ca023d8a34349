package main

import (
	"io"
	"sync"
	"time"
)

// logOutput is the server's log stream (stderr) as its two writers share
// it. Request lines, one per RPC at info, are gathered and written together
// every requestLogDelay (or once requestLogBatch bytes are waiting): a busy
// server made one write per call, and each write woke the reader of the
// stream (in production the container runtime) on the cores the calls
// need; an EvalTurn over loopback takes less CPU with its line written
// this way (docs/BENCHMARKS.md). Every other line
// (start-up, shutdown, warnings, errors, failed calls above info) first
// writes what is waiting, then itself, so it is never late and the order
// of lines is kept.
type logOutput struct {
	mu      sync.Mutex
	w       io.Writer
	waiting []byte
	timer   *time.Timer   // armed while lines wait
	delay   time.Duration // requestLogDelay; tests that judge order, not time, lengthen it
}

const (
	requestLogDelay = 50 * time.Millisecond
	requestLogBatch = 32 << 10
)

func newLogOutput(w io.Writer) *logOutput { return &logOutput{w: w, delay: requestLogDelay} }

// Write writes what waits, then p.
func (o *logOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.flushLocked(); err != nil {
		return 0, err
	}
	return o.w.Write(p)
}

// Flush writes what waits; the server calls it last.
func (o *logOutput) Flush() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.flushLocked()
}

func (o *logOutput) flushLocked() error {
	if o.timer != nil {
		o.timer.Stop()
		o.timer = nil
	}
	if len(o.waiting) == 0 {
		return nil
	}
	_, err := o.w.Write(o.waiting)
	o.waiting = o.waiting[:0]
	return err
}

// requests is the writer of the request log: a line waits for the next
// write, at most requestLogDelay.
func (o *logOutput) requests() io.Writer { return requestWriter{o} }

type requestWriter struct{ o *logOutput }

func (r requestWriter) Write(p []byte) (int, error) {
	o := r.o
	o.mu.Lock()
	defer o.mu.Unlock()
	o.waiting = append(o.waiting, p...)
	switch {
	case len(o.waiting) >= requestLogBatch:
		if err := o.flushLocked(); err != nil {
			return 0, err
		}
	case o.timer == nil:
		o.timer = time.AfterFunc(o.delay, func() { _ = o.Flush() }) // a failed write has no one to tell
	}
	return len(p), nil
}
