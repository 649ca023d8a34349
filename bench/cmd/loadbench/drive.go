package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/ptc-sidecar/ptc-sidecar/bench/rawcodec"
)

// target is one side of a comparison: a server process and the call that
// the clients repeat against it.
type target struct {
	proc   *process
	method string
	md     metadata.MD // extra request metadata (the echo server's response size)
	conns  []*grpc.ClientConn
}

// dial opens n client connections to the target's server.
func (t *target) dial(n int) error {
	for range n {
		cc, err := grpc.NewClient(t.proc.addr,
			grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.ForceCodecV2(rawcodec.Codec{}),
				grpc.MaxCallRecvMsgSize(64<<20), grpc.MaxCallSendMsgSize(64<<20)))
		if err != nil {
			return err
		}
		t.conns = append(t.conns, cc)
	}
	return nil
}

func (t *target) close() {
	for _, cc := range t.conns {
		cc.Close()
	}
	t.conns = nil
}

// phase is what one timed run against one target measured.
type phase struct {
	requests, errors int
	firstErr         error
	elapsed          time.Duration
	p50, p99         time.Duration
	cpu              time.Duration // server CPU (user+system) during the run
	peakRSS          int64         // server VmHWM at the end of the run
	peakReset        bool          // whether the peak is this run's own
}

func (p phase) rps() float64 { return float64(p.requests) / p.elapsed.Seconds() }

func (p phase) cpuPerRequest() time.Duration {
	if p.requests == 0 {
		return 0
	}
	return p.cpu / time.Duration(p.requests)
}

// run drives the target with clients concurrent callers for d after a
// warm-up of warm, each caller sending req and waiting for the answer
// before the next call. At most maxRequests calls are timed.
func (t *target) run(ctx context.Context, req []byte, clients int, warm, d time.Duration, maxRequests int) (phase, error) {
	ctx = metadata.NewOutgoingContext(ctx, t.md)
	in := &rawcodec.Message{Bytes: req}
	call := func(i int) error {
		var out rawcodec.Message
		return t.conns[i%len(t.conns)].Invoke(ctx, t.method, in, &out)
	}
	loop := func(deadline time.Time, record func(i int, d time.Duration, err error) bool) {
		var wg sync.WaitGroup
		for i := range clients {
			wg.Go(func() {
				for time.Now().Before(deadline) {
					start := time.Now()
					err := call(i)
					if !record(i, time.Since(start), err) {
						return
					}
				}
			})
		}
		wg.Wait()
	}

	loop(time.Now().Add(warm), func(int, time.Duration, error) bool { return true })

	var ph phase
	ph.peakReset = t.proc.resetPeak()
	cpu0, err := t.proc.cpuTime()
	if err != nil {
		return ph, err
	}
	perClient := max(maxRequests/clients, 1)
	lat := make([][]time.Duration, clients)
	errs := make([]int, clients)
	var errMu sync.Mutex
	start := time.Now()
	loop(start.Add(d), func(i int, d time.Duration, err error) bool {
		if err != nil {
			errs[i]++
			errMu.Lock()
			if ph.firstErr == nil {
				ph.firstErr = err
			}
			errMu.Unlock()
		} else {
			lat[i] = append(lat[i], d)
		}
		return len(lat[i])+errs[i] < perClient
	})
	ph.elapsed = time.Since(start)
	cpu1, err := t.proc.cpuTime()
	if err != nil {
		return ph, err
	}
	ph.cpu = cpu1 - cpu0
	if _, ph.peakRSS, err = t.proc.memory(); err != nil {
		return ph, err
	}
	all := slices.Concat(lat...)
	for _, n := range errs {
		ph.errors += n
	}
	ph.requests = len(all)
	if len(all) == 0 {
		return ph, fmt.Errorf("%s: no successful call (first error: %v)", t.proc.name, ph.firstErr)
	}
	slices.Sort(all)
	ph.p50 = all[len(all)*50/100]
	ph.p99 = all[min(len(all)*99/100, len(all)-1)]
	return ph, nil
}
