package server

import (
	"context"
	"errors"
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
	s.stop(errShuttingDown)
	for s.running.Load() > 0 && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
}

// during is ctx, ended also by Shutdown, and the function that lets it go,
// to be called when the call answers.
func (s *Service) during(ctx context.Context) (context.Context, func()) {
	s.running.Add(1)
	ctx, cancel := context.WithCancelCause(ctx)
	if s.stopping.Err() != nil {
		cancel(errShuttingDown) // now, not in AfterFunc's goroutine
	}
	stop := context.AfterFunc(s.stopping, func() { cancel(errShuttingDown) })
	return ctx, func() {
		stop()
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
