package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestLargeBodiesWaitForAPlace: a body past --large-request-bytes, or one
// whose size is unknown until decompressed, takes one of as many places
// as there are evaluation slots, apart from them; a smaller one never
// waits; with every place taken the next is refused RESOURCE_EXHAUSTED
// naming why it waited; leave gives its place back, once however often
// it is called.
func TestLargeBodiesWaitForAPlace(t *testing.T) {
	s := New(Config{MaxConcurrentEvals: 1, EvalQueueWait: 10 * time.Millisecond, LargeRequestBytes: 100})
	ctx := context.Background()
	leave, err := s.EnterLargeBody(ctx, 101)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.evals.enter(ctx); err != nil {
		t.Fatalf("an evaluation waits for a large body's place: %v", err)
	}
	s.evals.leave()
	if _, err := s.EnterLargeBody(ctx, 100); err != nil {
		t.Errorf("a body of --large-request-bytes waited: %v", err)
	}
	for size, want := range map[int]string{101: "101 bytes, more than 100 (--large-request-bytes)", -1: "is compressed"} {
		_, err := s.EnterLargeBody(ctx, size)
		if st := status.Convert(err); st.Code() != codes.ResourceExhausted || !strings.Contains(st.Message(), want) {
			t.Errorf("size %d with every place taken: %v, want RESOURCE_EXHAUSTED saying %q", size, err, want)
		}
	}
	leave()
	leave()
	again, err := s.EnterLargeBody(ctx, -1)
	if err != nil {
		t.Fatalf("the place given back is not free: %v", err)
	}
	again()
	if len(s.bodies.slots) != 0 {
		t.Errorf("%d places held after every body left", len(s.bodies.slots))
	}
	none := New(Config{MaxConcurrentEvals: 1, LargeRequestBytes: -1})
	for range 3 {
		if _, err := none.EnterLargeBody(ctx, -1); err != nil {
			t.Errorf("with --large-request-bytes none, a body waited: %v", err)
		}
	}
}
