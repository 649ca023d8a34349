package server

import (
	"context"
	"strconv"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// TestToMessagesStopsWhenCancelled: a caller that has gone away is
// answered CANCELED, not rendered for.
func TestToMessagesStopsWhenCancelled(t *testing.T) {
	svc := New(Config{})
	var history []*ptcsidecarv1.ChatMessage
	for i := range 2000 {
		history = append(history, &ptcsidecarv1.ChatMessage{Role: "user", Content: "item " + strconv.Itoa(i)},
			&ptcsidecarv1.ChatMessage{Role: "assistant", Content: "ok " + strconv.Itoa(i)})
	}
	req := &ptcsidecarv1.ToMessagesRequest{History: history, Options: &ptcsidecarv1.Options{Strategy: "loop-slice"}}
	if _, err := svc.ToMessages(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := svc.ToMessages(ctx, req); status.Code(err) != codes.Canceled {
		t.Errorf("cancelled: %v, want CANCELED", err)
	}
}
