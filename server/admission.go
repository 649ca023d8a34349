package server

import (
	"context"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// admission bounds the evaluations that run at once. Evaluations are CPU
// work: more of them than there are processors only makes each slower,
// until they end as timeouts and the health service waits behind them.
// A request waits for a slot at most queueWait, then gets
// RESOURCE_EXHAUSTED; the evaluation's clock starts once it has one, so
// waiting never turns into a timeout.
type admission struct {
	slots     chan struct{} // one element per running evaluation
	queueWait time.Duration
	waiting   atomic.Int64 // new evaluations waiting for a slot
	refused   atomic.Int64 // new evaluations refused after queueWait
}

// AdmissionStats are the admission counters, for metrics.
type AdmissionStats struct {
	Limit   int   // --max-concurrent-evals
	Running int   // evaluations holding a slot
	Waiting int64 // new evaluations waiting for one
	Refused int64 // new evaluations refused with RESOURCE_EXHAUSTED, since start
}

func (a *admission) stats() AdmissionStats {
	return AdmissionStats{Limit: cap(a.slots), Running: len(a.slots), Waiting: a.waiting.Load(), Refused: a.refused.Load()}
}

func newAdmission(size int, queueWait time.Duration) *admission {
	return &admission{slots: make(chan struct{}, size), queueWait: queueWait}
}

// enter takes a slot for a new evaluation, waiting at most queueWait.
func (a *admission) enter(ctx context.Context) error {
	select {
	case a.slots <- struct{}{}:
		return nil
	default:
	}
	a.waiting.Add(1)
	defer a.waiting.Add(-1)
	timer := time.NewTimer(a.queueWait)
	defer timer.Stop()
	select {
	case a.slots <- struct{}{}:
		return nil
	case <-timer.C:
		a.refused.Add(1)
		return status.Errorf(codes.ResourceExhausted,
			"the server is running its most evaluations at once (%d) and none finished within %s; retry after a short backoff",
			cap(a.slots), a.queueWait)
	case <-ctx.Done():
		return status.FromContextError(ctx.Err()).Err()
	}
}

// resume takes a slot back for an evaluation that gave it up while it
// waited for a tool's answer. It waits as long as the request lives: the
// evaluation was admitted, and refusing it now would lose the tool's work.
// Its clock is stopped meanwhile (lisp does not count host time).
func (a *admission) resume(ctx context.Context) error {
	select {
	case a.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return status.FromContextError(ctx.Err()).Err()
	}
}

// leave gives a slot back.
func (a *admission) leave() { <-a.slots }
