package main_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// TestMaxConcurrentStreamsQueuesCalls starts the server with a limit of two
// streams per connection. Two EvalTurnStream calls that the server is in
// the middle of (it waits for their tool answers) take both streams of one
// connection: a third call on that connection does not start until one of
// them ends, and then succeeds; it is never refused. Then 32 callers share
// the connection and every one of their calls succeeds.
func TestMaxConcurrentStreamsQueuesCalls(t *testing.T) {
	t.Parallel()
	p := start(t, "--listen", "127.0.0.1:0", "--max-concurrent-streams", "2")
	if !strings.Contains(p.log(), `"max_concurrent_streams":2`) {
		t.Errorf("the serving line does not report the limit:\n%s", p.log())
	}
	conn := p.client()
	c := ptcsidecarv1.NewSidecarServiceClient(conn)
	ctx := testContext(t)

	var held sync.WaitGroup
	release := make(chan struct{})
	streamErrs := make(chan error, 2)
	held.Add(2)
	for range 2 {
		go func() { streamErrs <- evalStream(ctx, c, func() { held.Done(); <-release }) }()
	}
	held.Wait()

	third := make(chan error, 1)
	go func() {
		_, err := c.ListStrategies(ctx, &ptcsidecarv1.ListStrategiesRequest{})
		third <- err
	}()
	select {
	case err := <-third:
		t.Fatalf("a third call ended while two streams held the connection's limit: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	for range 2 {
		if err := <-streamErrs; err != nil {
			t.Errorf("held stream: %v", err)
		}
	}
	if err := <-third; err != nil {
		t.Errorf("the queued call failed once a stream was free: %v", err)
	}

	const callers, callsEach = 32, 4
	tm := loadRequest()
	var failed atomic.Int64
	var first sync.Once
	var firstErr error
	var wg sync.WaitGroup
	for caller := range callers {
		wg.Go(func() {
			for i := range callsEach {
				if err := mixedCall(ctx, c, caller+i, tm); err != nil {
					failed.Add(1)
					first.Do(func() { firstErr = fmt.Errorf("caller %d call %d: %w", caller, i, err) })
				}
			}
		})
	}
	wg.Wait()
	if n := failed.Load(); n > 0 {
		t.Errorf("%d of %d calls over a 2-stream connection failed; first: %v", n, callers*callsEach, firstErr)
	}
}
