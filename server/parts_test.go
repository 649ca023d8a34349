package server

import (
	"context"
	"os"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// partsHistory is the strategies' content-parts conversation
// (strategies/testdata/parts), read as the wire's JSON.
func partsHistory(t *testing.T) []*ptcsidecarv1.ChatMessage {
	t.Helper()
	raw, err := os.ReadFile("../strategies/testdata/parts/history.json")
	if err != nil {
		t.Fatal(err)
	}
	var req ptcsidecarv1.ToMessagesRequest
	if err := protojson.Unmarshal([]byte(`{"history":`+string(raw)+`}`), &req); err != nil {
		t.Fatal(err)
	}
	return req.GetHistory()
}

// Every field of every part comes back as it was sent.
func TestPartsRoundTripOverGRPC(t *testing.T) {
	client := sidecarClient(t)
	h := partsHistory(t)
	h[1].Parts[0].Width, h[1].Parts[0].Height, h[1].Parts[0].Pages, h[1].Parts[0].DurationMs = 3, 4, 5, 6
	h[1].Parts[0].Detail, h[1].Parts[0].FileId, h[1].Parts[0].Url = "low", "file-1", "https://example.com/x"
	resp, err := client.ToMessages(context.Background(), &ptcsidecarv1.ToMessagesRequest{
		History: h,
		Options: &ptcsidecarv1.Options{Strategy: "token-budget", MaxTokens: i32(1_000_000)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.GetMessages()) != len(h) {
		t.Fatalf("%d messages back, sent %d", len(resp.GetMessages()), len(h))
	}
	for i, m := range resp.GetMessages() {
		if !proto.Equal(m, h[i]) {
			t.Errorf("message %d changed:\n%v\n%v", i, m, h[i])
		}
	}
	st := resp.GetStats()
	if st.GetPartTokens() == 0 || st.GetPartsEstimated() == 0 {
		t.Errorf("stats count no parts: %v", st)
	}
}

func TestPartErrorNamesTheField(t *testing.T) {
	client := sidecarClient(t)
	h := partsHistory(t)
	h[3].Parts = append(h[3].Parts, &ptcsidecarv1.ContentPart{Type: "hologram"})
	_, err := client.ToMessages(context.Background(), &ptcsidecarv1.ToMessagesRequest{
		History: h, Options: &ptcsidecarv1.Options{Strategy: "loop-slice"},
	})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "history[3].parts[1].type") {
		t.Errorf("got %v, want INVALID_ARGUMENT naming history[3].parts[1].type", err)
	}
}
