package server

import (
	"fmt"
	"strconv"
	"testing"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
)

// tinyBindingsRequest is the request of the attack of 90,000 one-line
// memory bindings through cache-stable (cmd/ptc-sidecar's input attacks):
// many values of a few bytes each, every one decoded and rendered.
func tinyBindingsRequest(n int) *ptcsidecarv1.ToMessagesRequest {
	bindings := make([]*ptcsidecarv1.Binding, n)
	for i := range bindings {
		bindings[i] = &ptcsidecarv1.Binding{Name: fmt.Sprintf("b%d", i), Value: &ptcsidecarv1.Value{Edn: strconv.Itoa(i)}, Turn: 1}
	}
	return &ptcsidecarv1.ToMessagesRequest{Memory: &ptcsidecarv1.Memory{Bindings: bindings},
		Options: &ptcsidecarv1.Options{Strategy: "cache-stable"},
		Turns:   []*ptcsidecarv1.Turn{{Number: 1, Program: "(def b0 0)", Success: true, Result: &ptcsidecarv1.Value{Edn: "0"}}}}
}

// BenchmarkToMessagesTinyBindings decodes and renders the 90,000 bindings
// from the wire; its bytes per operation are the memory the request costs
// beyond its own bytes. The server refuses the request for what it
// decodes to (counts.go); the benchmark lifts that bound to measure what
// serving it costs.
func BenchmarkToMessagesTinyBindings(b *testing.B) {
	svc := New(Config{Memo: memo.New(48 << 20)})
	svc.limits.slack = 1 << 30
	frames, size := wireFrames(b, tinyBindingsRequest(90_000))
	benchToMessagesFrom(b, svc, frames, size)
}

// tinyPartsRequest is the request of the attack of 10,000 history messages
// of 9 one-word content parts through loop-slice (cmd/ptc-sidecar's input
// attacks): many parts of a few bytes each, decoded and sent back.
func tinyPartsRequest(n int) *ptcsidecarv1.ToMessagesRequest {
	msgs := make([]*ptcsidecarv1.ChatMessage, n)
	for i := range msgs {
		parts := make([]*ptcsidecarv1.ContentPart, 9)
		for j := range parts {
			parts[j] = &ptcsidecarv1.ContentPart{Type: "text", Text: strconv.Itoa(i*10 + j)}
		}
		msgs[i] = &ptcsidecarv1.ChatMessage{Role: []string{"user", "assistant"}[i%2], Parts: parts}
	}
	return &ptcsidecarv1.ToMessagesRequest{History: msgs, Options: &ptcsidecarv1.Options{Strategy: "loop-slice"}}
}

// BenchmarkToMessagesTinyParts decodes the 90,000 parts from the wire and
// renders them as the gRPC server does (Wire, which lets the request go as
// it is converted); refused by the server, served here as the bindings
// are.
func BenchmarkToMessagesTinyParts(b *testing.B) {
	svc := New(Config{Memo: memo.New(48 << 20)})
	svc.limits.slack = 1 << 30
	frames, size := wireFrames(b, tinyPartsRequest(10_000))
	benchToMessagesBy(b, svc, svc.Wire(), frames, size)
}
