package server

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// dialLoopback serves a Service on a loopback TCP port, so the benchmarks
// pay for the real transport (HTTP/2 framing, syscalls), as a caller in
// the same pod does.
func dialLoopback(b *testing.B) ptcsidecarv1.SidecarServiceClient {
	b.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := grpc.NewServer()
	ptcsidecarv1.RegisterSidecarServiceServer(srv, New(Config{Limits: lisp.DefaultLimits()}))
	go srv.Serve(lis)
	b.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	return ptcsidecarv1.NewSidecarServiceClient(conn)
}

// catalogueProgram makes n tool calls, each depending on nothing but its
// index, and sums a field of their results.
func catalogueProgram(n int) string {
	var b strings.Builder
	b.WriteString("(+ 0")
	for i := range n {
		fmt.Fprintf(&b, " (:price (tool/get-item {:id %d}))", i)
	}
	b.WriteString(")")
	return b.String()
}

// itemAnswer is what the caller's get-item tool returns for a call.
func itemAnswer(call *ptcsidecarv1.ToolCall) *ptcsidecarv1.ToolResult {
	return &ptcsidecarv1.ToolResult{
		Index: call.GetIndex(), Name: call.GetName(), Args: call.GetArgs(), DurationMs: 1,
		Result: edn(fmt.Sprintf(`{:id %d, :name "item %d", :price 2, :tags ["audio" "wireless"]}`, call.GetIndex(), call.GetIndex())),
	}
}

// evalReplay runs one evaluation with the replay protocol, as a caller
// does: n pending answers, then the turn, n+1 round trips.
func evalReplay(ctx context.Context, client ptcsidecarv1.SidecarServiceClient, base *ptcsidecarv1.EvalTurnRequest) (*ptcsidecarv1.Turn, error) {
	req := proto.CloneOf(base)
	for {
		resp, err := client.EvalTurn(ctx, req)
		if err != nil {
			return nil, err
		}
		if turn := resp.GetTurn(); turn != nil {
			return turn, nil
		}
		for _, call := range resp.GetPending().GetCalls() {
			req.ToolResults = append(req.ToolResults, itemAnswer(call))
		}
	}
}

// evalStream runs one evaluation over EvalTurnStream: one stream, one
// exchange per tool call, then the turn and the end of the stream.
func evalStream(ctx context.Context, client ptcsidecarv1.SidecarServiceClient, req *ptcsidecarv1.EvalTurnRequest) (*ptcsidecarv1.Turn, error) {
	stream, err := client.EvalTurnStream(ctx)
	if err != nil {
		return nil, err
	}
	start := &ptcsidecarv1.EvalTurnStreamRequest{Message: &ptcsidecarv1.EvalTurnStreamRequest_Start{Start: req}}
	if err := stream.Send(start); err != nil {
		return nil, err
	}
	for {
		msg, err := stream.Recv()
		if err != nil {
			return nil, err
		}
		if turn := msg.GetTurn(); turn != nil {
			if _, err := stream.Recv(); err != io.EOF {
				return nil, fmt.Errorf("after the turn: %v, want the end of the stream", err)
			}
			return turn, nil
		}
		answer := &ptcsidecarv1.EvalTurnStreamRequest{Message: &ptcsidecarv1.EvalTurnStreamRequest_ToolResult{ToolResult: itemAnswer(msg.GetToolCall())}}
		if err := stream.Send(answer); err != nil {
			return nil, err
		}
	}
}

// BenchmarkEvalTurnRoundTrips measures one whole evaluation of a program
// that makes n tool calls, from the caller's first request to the Turn,
// over loopback TCP: the unary replay protocol (n+1 round trips, each
// re-running the program and carrying every answer so far) against the
// stream (one evaluation, n exchanges). The caller's tools answer at once,
// so the figures are the protocols' own cost.
func BenchmarkEvalTurnRoundTrips(b *testing.B) {
	client := dialLoopback(b)
	ctx := context.Background()
	protocols := []struct {
		name string
		eval func(context.Context, ptcsidecarv1.SidecarServiceClient, *ptcsidecarv1.EvalTurnRequest) (*ptcsidecarv1.Turn, error)
	}{
		{"replay", evalReplay},
		{"stream", evalStream},
	}
	for _, calls := range []int{0, 1, 3, 10} {
		req := &ptcsidecarv1.EvalTurnRequest{
			Program: catalogueProgram(calls),
			Tools:   []*ptcsidecarv1.ToolSpec{{Name: "get-item"}},
		}
		for _, p := range protocols {
			b.Run(fmt.Sprintf("calls=%d/%s", calls, p.name), func(b *testing.B) {
				turn, err := p.eval(ctx, client, req)
				if err != nil {
					b.Fatal(err)
				}
				if want := fmt.Sprint(2 * calls); !turn.GetSuccess() || turn.GetResult().GetEdn() != want || len(turn.GetToolCalls()) != calls {
					b.Fatalf("turn: success=%v result=%v calls=%d error=%v; want result %s", turn.GetSuccess(), turn.GetResult(), len(turn.GetToolCalls()), turn.GetError(), want)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.eval(ctx, client, req); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
