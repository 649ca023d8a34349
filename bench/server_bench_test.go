package bench

import (
	"context"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/bench/fixture"
	"github.com/ptc-sidecar/ptc-sidecar/server"
)

// BenchmarkServerToMessages is one ToMessages call of the load harness's
// fixture without the transport: wire decoding of turns, memory and data,
// the strategy, and the wire response.
func BenchmarkServerToMessages(b *testing.B) {
	svc := server.New(server.Config{})
	req := fixture.ToMessages()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := svc.ToMessages(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkServerEvalTurn is one EvalTurn call of the load harness's
// fixture without the transport.
func BenchmarkServerEvalTurn(b *testing.B) {
	svc := server.New(server.Config{})
	req := fixture.EvalTurn()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := svc.EvalTurn(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
