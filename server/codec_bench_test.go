package server

import (
	"context"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/ptc-sidecar/ptc-sidecar/bench/fixture"
	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
)

// wireFrames is m marshalled and cut into 16 KiB pieces, the HTTP/2 frames
// in which the transport hands a request to the codec.
func wireFrames(b *testing.B, m proto.Message) (mem.BufferSlice, int) {
	wire, err := proto.Marshal(m)
	if err != nil {
		b.Fatal(err)
	}
	var frames mem.BufferSlice
	for at := 0; at < len(wire); at += 16 << 10 {
		frames = append(frames, mem.SliceBuffer(wire[at:min(at+16<<10, len(wire))]))
	}
	return frames, len(wire)
}

// BenchmarkToMessagesFromWire is what the sidecar does with each request of
// the load harness short of the transport: decode the frames with the
// server's codec, then the call. Its garbage (the decoded request) is
// collected in the measured time, as in the server.
func BenchmarkToMessagesFromWire(b *testing.B) {
	svc := New(Config{Memo: memo.New(48 << 20)})
	frames, size := wireFrames(b, fixture.ToMessages())
	benchToMessagesFrom(b, svc, frames, size)
}

func benchToMessagesFrom(b *testing.B, svc *Service, frames mem.BufferSlice, size int) {
	benchToMessagesBy(b, svc, svc, frames, size)
}

// benchToMessagesBy is benchToMessagesFrom with the call made by h (s
// itself, or s.Wire() as the gRPC server makes it).
func benchToMessagesBy(b *testing.B, svc *Service, h ptcsidecarv1.SidecarServiceServer, frames mem.BufferSlice, size int) {
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		req := new(ptcsidecarv1.ToMessagesRequest)
		if err := svc.codec().Unmarshal(frames, req); err != nil {
			b.Fatal(err)
		}
		if _, err := h.ToMessages(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvalTurnFromWire is the same for the harness's EvalTurn.
func BenchmarkEvalTurnFromWire(b *testing.B) {
	svc := New(Config{Memo: memo.New(48 << 20)})
	frames, size := wireFrames(b, fixture.EvalTurn())
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		req := new(ptcsidecarv1.EvalTurnRequest)
		if err := svc.codec().Unmarshal(frames, req); err != nil {
			b.Fatal(err)
		}
		if _, err := svc.EvalTurn(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
