package server

import (
	"context"
	"fmt"
	"sync"
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
//
// A large request is the same kind of work whatever its method: decoding
// sixteen megabytes of values and tokenizing them takes seconds of CPU and
// a multiple of its size in memory. So a request larger than largeBytes
// takes a slot before it is decoded (valueReader.admitRequest), ToMessages
// and RenderTrace as well as the evaluations; smaller requests, most of an
// agent's, never wait for one to be decoded or rendered.
type admission struct {
	slots      chan struct{} // one element per running evaluation or large request
	queueWait  time.Duration
	largeBytes int          // --large-request-bytes; negative: none is large
	waiting    atomic.Int64 // new evaluations and large requests waiting for a slot
	refused    atomic.Int64 // those refused after queueWait
	large      atomic.Int64 // large requests that waited for a slot
}

// AdmissionStats are the admission counters, for metrics.
type AdmissionStats struct {
	Limit   int   // --max-concurrent-evals
	Running int   // evaluations and large requests holding a slot
	Waiting int64 // new ones waiting for one
	Refused int64 // new ones refused with RESOURCE_EXHAUSTED, since start
	Large   int64 // requests over --large-request-bytes that took or waited for a slot to be decoded, since start
}

func (a *admission) stats() AdmissionStats {
	return AdmissionStats{Limit: cap(a.slots), Running: len(a.slots), Waiting: a.waiting.Load(), Refused: a.refused.Load(), Large: a.large.Load()}
}

func newAdmission(size int, queueWait time.Duration, largeBytes int) *admission {
	return &admission{slots: make(chan struct{}, size), queueWait: queueWait, largeBytes: largeBytes}
}

// isLarge reports whether a request of size bytes takes a slot before it
// is decoded.
func (a *admission) isLarge(size int) bool { return a.largeBytes >= 0 && size > a.largeBytes }

// enterLarge takes a slot for a large request of size bytes, as enter
// does, with its own refusal.
func (a *admission) enterLarge(ctx context.Context, size int) error {
	a.large.Add(1)
	err := a.enter(ctx)
	if status.Code(err) == codes.ResourceExhausted {
		return status.Errorf(codes.ResourceExhausted,
			"the request is %d bytes, more than %d (--large-request-bytes), and waits for an evaluation slot as an evaluation does; "+
				"the server is running its most at once (%d) and none finished within %s; retry after a short backoff, or send less at once",
			size, a.largeBytes, cap(a.slots), a.queueWait)
	}
	return err
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

// LargeBody reports whether a body of size bytes (negative: known only
// once decompressed) waits in EnterLargeBody.
func (s *Service) LargeBody(size int) bool {
	return s.bodies.largeBytes >= 0 && (size < 0 || s.bodies.isLarge(size))
}

// EnterLargeBody bounds the large request bodies that a transport holds
// and converts before the service sees them, as the HTTP listener's
// transcoder does: it decodes a JSON body, encodes it again as protobuf
// and hands that to the gRPC server, three copies of the request and more
// before admitRequest can take a slot, so 48 bodies of 4 MiB at once
// raised the peak by 620 MiB. A body of size bytes past --large-request-bytes
// waits here for one of as many places as there are evaluation slots, at
// most --eval-queue-wait, then is refused RESOURCE_EXHAUSTED; leave gives
// its place back (safe to call more than once). A negative size is a
// body whose size is known only once it is decompressed, which waits as a
// large one. The places are apart from the evaluation slots, which the
// request then takes as any other does.
func (s *Service) EnterLargeBody(ctx context.Context, size int) (leave func(), err error) {
	if !s.LargeBody(size) {
		return func() {}, nil
	}
	if err := s.bodies.enter(ctx); err != nil {
		if status.Code(err) == codes.ResourceExhausted {
			what := fmt.Sprintf("is %d bytes, more than %d (--large-request-bytes), and", size, s.bodies.largeBytes)
			if size < 0 {
				what = "is compressed, its size unknown until it is decompressed, and"
			}
			err = status.Errorf(codes.ResourceExhausted,
				"the request %s waits to be converted for as many requests at once as there are evaluation slots (%d); "+
					"none finished within %s; retry after a short backoff, or send less at once",
				what, cap(s.bodies.slots), s.bodies.queueWait)
		}
		return nil, err
	}
	return sync.OnceFunc(s.bodies.leave), nil
}
