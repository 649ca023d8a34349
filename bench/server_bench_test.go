package bench

import (
	"context"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ptc-sidecar/ptc-sidecar/bench/fixture"
	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/server"
)

// BenchmarkServerToMessages is one ToMessages call of the load harness's
// fixture without the transport: wire decoding of turns, memory and data,
// the strategy, and the wire response. The service remembers decoded
// values and token counts (internal/memo, the server's default budget), so
// this is the call of a running agent, which resends them.
func BenchmarkServerToMessages(b *testing.B) {
	benchToMessages(b, server.Config{Memo: memo.New(48 << 20)})
}

// BenchmarkServerToMessagesUncached is the same call remembering nothing:
// what the first call of a run costs, when every value and text is new.
func BenchmarkServerToMessagesUncached(b *testing.B) {
	benchToMessages(b, server.Config{})
}

func benchToMessages(b *testing.B, cfg server.Config) {
	svc := server.New(cfg)
	req := fixture.ToMessages()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := svc.ToMessages(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProtoUnmarshalToMessages is what any protobuf server pays for
// the fixture before its handler runs, and what the echo server of the
// load harness never pays: reading the 1.24 MB request into a message.
// server.BenchmarkToMessagesFromWire adds the call, through the server's
// codec.
func BenchmarkProtoUnmarshalToMessages(b *testing.B) {
	wire, err := proto.Marshal(fixture.ToMessages())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(wire)))
	b.ReportAllocs()
	for b.Loop() {
		var req ptcsidecarv1.ToMessagesRequest
		if err := proto.Unmarshal(wire, &req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkServerEvalTurn is one EvalTurn call of the load harness's
// fixture without the transport.
func BenchmarkServerEvalTurn(b *testing.B) {
	svc := server.New(server.Config{Memo: memo.New(48 << 20)})
	req := fixture.EvalTurn()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := svc.EvalTurn(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
