package server

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ptc-sidecar/ptc-sidecar/bench/fixture"
	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// Every length gets a buffer at least that long from the smallest class
// that holds it, at most a quarter larger, and a buffer given back serves
// the next request of its class.
func TestRequestBufferClasses(t *testing.T) {
	var pool requestBuffers
	pool.frames.next = arenaBytes // full: every buffer comes from a class
	prev := 0
	for n := 1; n < 1<<22; n += 1 + n/7 {
		class, size, ok := bufferClass(n)
		if !ok || size < n || n > 1<<minBufferExp && 4*size > 5*n+4 || class < prev {
			t.Fatalf("bufferClass(%d) = %d, %d, %v", n, class, size, ok)
		}
		prev = class
		b := pool.Get(n)
		if len(*b) != n || cap(*b) != size {
			t.Fatalf("Get(%d): len %d cap %d, want cap %d", n, len(*b), cap(*b), size)
		}
		(*b)[n-1] = 'x'
		pool.Put(b)
	}
	if _, _, ok := bufferClass(1<<(maxBufferExp+1) + 1); ok {
		t.Error("a request larger than the largest class has a class")
	}
	b := pool.Get(1<<(maxBufferExp+1) + 1)
	pool.Put(b) // not kept, and no panic
	odd := make([]byte, 5000)
	pool.Put(&odd) // a capacity that is no class's: not kept
	if got := pool.Get(5000); cap(*got) == 5000 {
		t.Error("a buffer of a capacity that is no class's was handed out")
	}
}

// The transport reads frames into the pool and the codec gathers requests
// there, and the pool hands buffers out with whatever they last held:
// answers over gRPC must not depend on it. Every class is first filled
// with buffers of junk, then the fixtures' calls over a real connection
// must answer what the service answers in-process.
func TestDirtyBuffersNeverReachAnswers(t *testing.T) {
	svc := New(Config{})
	for n := 1 << 10; n < 4<<20; n += n / 8 {
		for range 4 {
			b := svc.codec.buffers.fromClass(n)
			junk := (*b)[:cap(*b)]
			for i := range junk {
				junk[i] = byte(0xa5 ^ i)
			}
			svc.codec.buffers.toClass(b)
		}
	}
	arena := &svc.codec.buffers.frames
	arena.block = make([]byte, arenaBytes)
	for i := range arena.block {
		arena.block[i] = byte(0x5a ^ i)
	}
	client := ptcsidecarv1.NewSidecarServiceClient(serveInMemory(t, svc))
	ctx := context.Background()

	tm := fixture.ToMessages()
	want, err := New(Config{}).ToMessages(ctx, tm)
	if err != nil {
		t.Fatal(err)
	}
	ev := fixture.EvalTurn()
	wantTurn, err := New(Config{}).EvalTurn(ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 { // the first call fills the value cache, the next find it
		got, err := client.ToMessages(ctx, tm)
		if err != nil {
			t.Fatalf("ToMessages call %d: %v", i, err)
		}
		if !proto.Equal(got, want) {
			t.Fatalf("ToMessages call %d over gRPC answered differently from the service in-process", i)
		}
		gotTurn, err := client.EvalTurn(ctx, ev)
		if err != nil {
			t.Fatalf("EvalTurn call %d: %v", i, err)
		}
		wantTurn.GetTurn().DurationMs, gotTurn.GetTurn().DurationMs = 0, 0
		if !proto.Equal(gotTurn, wantTurn) {
			t.Fatalf("EvalTurn call %d over gRPC answered differently from the service in-process", i)
		}
	}
	if arena.inPlace < 3 {
		t.Errorf("%d requests decoded where their frames lay, want the 3 ToMessages calls", arena.inPlace)
	}
}

// Callers at once interleave their frames in the arena and fill it; every
// answer must still be the service's, whichever way each request was
// read, and one caller alone afterwards must find its frames end to end
// again.
func TestOverlappingRequestsShareTheArena(t *testing.T) {
	svc := New(Config{})
	client := ptcsidecarv1.NewSidecarServiceClient(serveInMemory(t, svc))
	ctx := context.Background()
	tm := fixture.ToMessages()
	want, err := New(Config{}).ToMessages(ctx, tm)
	if err != nil {
		t.Fatal(err)
	}
	const callers = 6
	errs := make(chan error, callers)
	for range callers {
		go func() {
			for range 3 {
				got, err := client.ToMessages(ctx, tm)
				if err == nil && !proto.Equal(got, want) {
					err = errors.New("an overlapping ToMessages call answered differently from the service in-process")
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range callers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	arena := &svc.codec.buffers.frames
	arena.mu.Lock()
	before, live := arena.inPlace, arena.live
	arena.mu.Unlock()
	if live != 0 {
		t.Fatalf("%d frames still cut from the arena after every call ended", live)
	}
	if got, err := client.ToMessages(ctx, tm); err != nil || !proto.Equal(got, want) {
		t.Fatalf("a lone call after the overlapping ones: %v", err)
	}
	arena.mu.Lock()
	defer arena.mu.Unlock()
	if arena.inPlace != before+1 {
		t.Error("a lone call after overlapping ones did not find its frames end to end")
	}
}
