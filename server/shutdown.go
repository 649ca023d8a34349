package server

import (
	"context"
	"errors"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A server that shuts down lets the calls in flight finish, up to its
// shutdown timeout, then stops serving. What a call still runs then is
// cut: a stream waiting for a tool's answer, an evaluation that has not
// finished. Closing the connections would leave each such caller with a
// transport error that says nothing of why, if it said anything before
// the process was gone. So the host first calls Shutdown: every
// evaluation of the service is cancelled with errShuttingDown as the
// cause, and its call ends with UNAVAILABLE saying so (shuttingDown), an
// answer a caller can act on: nothing was kept, and the request may be
// sent again, to another instance.

// errShuttingDown is the cause of the contexts Shutdown ends.
var errShuttingDown = errors.New("the server is shutting down")

// Shutdown ends every evaluation in flight, and every one that starts
// after, each call answered UNAVAILABLE, and waits until those calls have
// answered or ctx ends. A call answers as soon as its evaluation notices
// (a stream waiting for a tool's answer at once); an evaluation inside
// work that does not look at its context may not before ctx ends.
func (s *Service) Shutdown(ctx context.Context) {
	s.StopCalls()
	for s.running.Load() > 0 && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
}

// StopCalls ends every evaluation in flight, and every one that starts
// after, without waiting for the calls to answer. When it returns, each
// call's context carries the shutdown as its cause: whatever a call sees
// next (its context ended, or its caller's side of the stream closed), it
// answers UNAVAILABLE saying the server is shutting down. A host that
// holds something of the calls ends it only after this (the HTTP bodies
// of streams), so that no call answers with that end instead.
func (s *Service) StopCalls() { s.calls.stop() }

// callRegistry holds the cancellation of every call in flight, so that
// stopping cancels each at once, in the stopping goroutine: cancelling
// through context.AfterFunc would run each in a goroutine of its own,
// which a loaded machine may not schedule before the shutdown's grace
// runs out.
type callRegistry struct {
	mu      sync.Mutex
	stopped bool
	next    uint64
	cancels map[uint64]context.CancelCauseFunc
}

// add registers cancel and returns the function that removes it; once
// stopped, it cancels at once instead.
func (r *callRegistry) add(cancel context.CancelCauseFunc) (remove func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		cancel(errShuttingDown)
		return func() {}
	}
	if r.cancels == nil {
		r.cancels = map[uint64]context.CancelCauseFunc{}
	}
	id := r.next
	r.next++
	r.cancels[id] = cancel
	return func() {
		r.mu.Lock()
		delete(r.cancels, id)
		r.mu.Unlock()
	}
}

// stop cancels every call registered, and every one added after.
func (r *callRegistry) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = true
	for id, cancel := range r.cancels {
		cancel(errShuttingDown)
		delete(r.cancels, id)
	}
}

// during is ctx, ended also by Shutdown, and the function that lets it go,
// to be called when the call answers.
func (s *Service) during(ctx context.Context) (context.Context, func()) {
	s.running.Add(1)
	ctx, cancel := context.WithCancelCause(ctx)
	remove := s.calls.add(cancel)
	return ctx, func() {
		remove()
		cancel(nil)
		s.running.Add(-1)
	}
}

// shuttingDown is the UNAVAILABLE of a call ctx (from during) ended by
// Shutdown, doing what doing says; nil when Shutdown did not end it.
func shuttingDown(ctx context.Context, doing string) error {
	if context.Cause(ctx) != errShuttingDown {
		return nil
	}
	return status.Errorf(codes.Unavailable,
		"the server is shutting down and stopped this call %s; nothing of it was kept: send the request again, to another instance", doing)
}
