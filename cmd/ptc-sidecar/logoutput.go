package main

import (
	"fmt"
	"io"
	"log"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"google.golang.org/grpc/grpclog"
)

// logOutput is the server's log stream (stderr) as its writers share it.
//
// No goroutine that logs writes to the stream itself: a line goes into a
// bounded queue and one goroutine of logOutput's own writes the queue
// out. A stream that stops taking lines (a pipe whose reader is gone or
// stuck: once its buffer is full every write blocks) then costs lines,
// never a call or the shutdown. A line that does not fit in the queue
// (logQueueBytes) is dropped and counted (dropped, the metric
// ptc_sidecar_log_lines_dropped_total); once the stream takes lines again,
// a warning line says how many were dropped. Close waits a bounded time
// for the queue to be written, and the process exits without it when the
// stream takes nothing.
//
// Request lines, one per RPC at info, wait to be written together every
// requestLogDelay (or once requestLogBatch bytes wait): a busy server made
// one write per call, and each write woke the reader of the stream (in
// production the container runtime) on the cores the calls need; an
// EvalTurn over loopback takes less CPU with its line written this way
// (docs/BENCHMARKS.md). Every other line (start-up, shutdown, warnings,
// errors, failed calls above info) is written at once, with the lines
// waiting before it: lines are written in the order they were logged.
type logOutput struct {
	w     io.Writer
	delay time.Duration // requestLogDelay; tests that judge order, not time, lengthen it
	limit int           // logQueueBytes; the most bytes the queue holds

	mu     sync.Mutex
	queue  []byte      // whole lines, in order, waiting for the writer
	timer  *time.Timer // armed while only request lines wait
	closed bool

	wake    chan struct{} // capacity 1: lines are due
	done    chan struct{} // closed once the writer has returned
	dropped atomic.Int64
}

const (
	requestLogDelay = 50 * time.Millisecond
	requestLogBatch = 32 << 10
	// logQueueBytes bounds the lines waiting for the stream: about a
	// thousand lines, seconds of a busy server's request lines, so that
	// a reader that pauses loses none.
	logQueueBytes = 256 << 10
	// logCloseWait is how long the server's exit waits for its last lines
	// to be written: a stream that takes lines at all takes a full queue
	// in far less.
	logCloseWait = 200 * time.Millisecond
	// logTimeFormat is the time of slog's JSON lines (RFC 3339, milliseconds).
	logTimeFormat = "2006-01-02T15:04:05.000Z07:00"
)

// newLogOutput starts the writer of w; Close stops it.
func newLogOutput(w io.Writer) *logOutput {
	o := &logOutput{w: w, delay: requestLogDelay, limit: logQueueBytes,
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	go o.run()
	return o
}

// Write queues p, a whole line, to be written at once.
func (o *logOutput) Write(p []byte) (int, error) {
	o.enqueue(p, true)
	return len(p), nil
}

// requests is the writer of the request log: a line waits for the next
// write, at most requestLogDelay.
func (o *logOutput) requests() io.Writer { return requestWriter{o} }

type requestWriter struct{ o *logOutput }

func (r requestWriter) Write(p []byte) (int, error) {
	r.o.enqueue(p, false)
	return len(p), nil
}

// enqueue adds line to the queue, or counts it dropped when the queue is
// full or closed, and wakes the writer now (urgent) or after the delay.
// It never waits for the stream. A line longer than the whole queue (a
// long stack) still goes into an empty one, so that it is not lost on a
// stream that takes lines: what waits is then that one line.
func (o *logOutput) enqueue(line []byte, urgent bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || len(o.queue) > 0 && len(o.queue)+len(line) > o.limit {
		o.dropped.Add(1)
		return
	}
	o.queue = append(o.queue, line...)
	switch {
	case urgent || len(o.queue) >= requestLogBatch:
		o.signal()
	case o.timer == nil:
		o.timer = time.AfterFunc(o.delay, o.signal)
	}
}

// signal wakes the writer, if it is not already due to wake.
func (o *logOutput) signal() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// run is the writer: it takes the whole queue each time it is woken and
// writes it in one write, until Close.
func (o *logOutput) run() {
	defer close(o.done)
	var batch []byte
	reported := int64(0)
	for {
		<-o.wake
		o.mu.Lock()
		batch, o.queue = o.queue, batch[:0]
		if o.timer != nil {
			o.timer.Stop()
			o.timer = nil
		}
		closed := o.closed
		o.mu.Unlock()
		if dropped := o.dropped.Load(); dropped > reported {
			batch = fmt.Appendf(batch, `{"time":%q,"level":"WARN","msg":"log lines dropped: the log stream took no lines while the queue was full","dropped":%d,"dropped_total":%d}`+"\n",
				time.Now().Format(logTimeFormat), dropped-reported, dropped)
			reported = dropped
		}
		if len(batch) > 0 {
			_, _ = o.w.Write(batch) // a failed write has no one to tell
		}
		if closed {
			return
		}
	}
}

// Close writes the lines queued, waiting at most wait for the stream to
// take them, and reports whether it did. Lines logged after Close are
// dropped.
func (o *logOutput) Close(wait time.Duration) bool {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	o.signal()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-o.done:
		return true
	case <-timer.C:
		return false
	}
}

// Dropped is how many lines were dropped because the queue was full.
func (o *logOutput) Dropped() int64 { return o.dropped.Load() }

// routeLibraryLogs sends what libraries log by themselves through logs
// too, so that none of it waits for stderr either: the standard library's
// log (net/http servers' errors, such as a failed TLS handshake on any
// connection), grpc-go's log (errors only, unless
// GRPC_GO_LOG_SEVERITY_LEVEL asks for warning or info), and
// OpenTelemetry's errors (a span export that failed), which logger logs.
// Their lines keep their own formats, as they had on stderr. It is set
// once at start, before the servers run.
func routeLibraryLogs(logs *logOutput, logger *slog.Logger, getenv func(string) string) {
	log.SetOutput(logs)
	// grpc-go writes an error to its warning and info writers as well,
	// so each level has the one writer it starts at.
	infoW, warningW, errorW := io.Discard, io.Discard, io.Writer(logs)
	switch strings.ToLower(getenv("GRPC_GO_LOG_SEVERITY_LEVEL")) {
	case "info":
		infoW, errorW = logs, io.Discard
	case "warning":
		warningW, errorW = logs, io.Discard
	}
	verbosity, _ := strconv.Atoi(getenv("GRPC_GO_LOG_VERBOSITY_LEVEL"))
	grpclog.SetLoggerV2(grpclog.NewLoggerV2WithVerbosity(infoW, warningW, errorW, verbosity))
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		logger.Warn("OpenTelemetry", "error", err.Error())
	}))
}
