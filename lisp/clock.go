package lisp

import (
	"context"
	"errors"
	"time"
)

// evalClock is the context of an evaluation with a timeout. It expires once
// the evaluation itself has run for the timeout: the time its Host spends
// in tool calls does not count, so a program that waits on a slow tool is
// not cut short for work it did not do, and a replayed evaluation (whose
// tool answers come at once) and a streamed one (whose host waits for
// them) are held to the same budget. Cancelling the parent ends it too.
//
// pause and resume are called by the evaluating goroutine only; the timer
// cancels from its own goroutine, which context cancellation allows.
type evalClock struct {
	context.Context
	cancel context.CancelCauseFunc
	timer  *time.Timer
	left   time.Duration // of the timeout, as of since
	since  time.Time     // when the clock last started running
}

// errOwnTimeUp is the cause of an evalClock that ran out.
var errOwnTimeUp = errors.New("the evaluation's own time is up")

func startEvalClock(parent context.Context, timeout time.Duration) *evalClock {
	ctx, cancel := context.WithCancelCause(parent)
	c := &evalClock{Context: ctx, cancel: cancel, left: timeout, since: time.Now()}
	c.timer = time.AfterFunc(timeout, func() { cancel(errOwnTimeUp) })
	return c
}

// Err reports an expiry of the evaluation's own time as
// context.DeadlineExceeded, like a context with a deadline would.
func (c *evalClock) Err() error {
	err := c.Context.Err()
	if err != nil && errors.Is(context.Cause(c.Context), errOwnTimeUp) {
		return context.DeadlineExceeded
	}
	return err
}

// pause stops the clock while the host runs a tool. A timer that has
// already fired stays fired: the time was spent before the pause.
func (c *evalClock) pause() {
	if c.timer.Stop() {
		c.left -= time.Since(c.since)
	}
}

// resume starts the clock again with the time left.
func (c *evalClock) resume() {
	if c.Context.Err() != nil {
		return
	}
	c.since = time.Now()
	c.timer.Reset(c.left)
}

// stop releases the timer and the context.
func (c *evalClock) stop() {
	c.timer.Stop()
	c.cancel(context.Canceled)
}
