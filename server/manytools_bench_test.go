package server

import (
	"fmt"
	"strings"
	"testing"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
)

// manyToolsRequest is the request of the attack of thousands of tools of
// long signatures (cmd/ptc-sidecar's scaling attacks): the tool section
// is the whole prompt.
func manyToolsRequest(n, params int) *ptcsidecarv1.ToMessagesRequest {
	names := make([]string, params)
	for i := range names {
		names[i] = fmt.Sprintf("p%d :int", i)
	}
	signature := "(" + strings.Join(names, ", ") + ") -> {a :int, b [:string]}"
	tools := make([]*ptcsidecarv1.ToolSpec, n)
	for i := range tools {
		tools[i] = &ptcsidecarv1.ToolSpec{Name: fmt.Sprintf("t%d", i), Signature: signature}
	}
	return &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Tools: tools}}
}

// BenchmarkToMessagesManyTools decodes and renders 9,000 tools of 40
// parameters each from the wire, as the gRPC server does.
func BenchmarkToMessagesManyTools(b *testing.B) {
	svc := New(Config{Memo: memo.New(48 << 20)})
	frames, size := wireFrames(b, manyToolsRequest(9000, 40))
	benchToMessagesBy(b, svc, svc.Wire(), frames, size)
}
