package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/types/known/emptypb"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/server"
)

// panicService is a service whose handlers panic, registered next to the
// real ones to prove that a panic in any handler is contained.
var panicService = grpc.ServiceDesc{
	ServiceName: "ptcsidecar.test.Panic",
	HandlerType: (*any)(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: "Unary",
		Handler: func(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
			in := new(emptypb.Empty)
			if err := dec(in); err != nil {
				return nil, err
			}
			handler := func(context.Context, any) (any, error) { panic("unary handler bug") }
			info := &grpc.UnaryServerInfo{Server: srv, FullMethod: "/ptcsidecar.test.Panic/Unary"}
			return interceptor(ctx, in, info, handler)
		},
	}},
	Streams: []grpc.StreamDesc{{
		StreamName:    "Stream",
		Handler:       func(any, grpc.ServerStream) error { panic("stream handler bug") },
		ServerStreams: true,
		ClientStreams: true,
	}},
}

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// serveInMemory serves srv over an in-memory connection and returns a
// client connected to it.
func serveInMemory(tb testing.TB, srv *grpc.Server) *grpc.ClientConn {
	tb.Helper()
	lis := bufconn.Listen(1 << 20)
	go srv.Serve(lis)
	tb.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///bufconn",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	return conn
}

func TestPanicBecomesInternalAndServerLives(t *testing.T) {
	var logs syncBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	srv, healthSrv := newGRPCServer(defaultServeConfig(), logger, logger, newGRPCMetrics(), newSidecar(defaultServeConfig(), nil))
	srv.RegisterService(&panicService, struct{}{})
	markServing(healthSrv)
	conn := serveInMemory(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()

	for i := range 2 { // twice: the first panic must leave the server able to serve
		err := conn.Invoke(ctx, "/ptcsidecar.test.Panic/Unary", &emptypb.Empty{}, &emptypb.Empty{})
		if st := status.Convert(err); st.Code() != codes.Internal || !strings.Contains(st.Message(), "internal error") {
			t.Errorf("unary panic %d: got %v, want INTERNAL", i, err)
		}
		stream, err := conn.NewStream(ctx, &panicService.Streams[0], "/ptcsidecar.test.Panic/Stream")
		if err != nil {
			t.Fatal(err)
		}
		err = stream.RecvMsg(&emptypb.Empty{})
		if st := status.Convert(err); st.Code() != codes.Internal {
			t.Errorf("stream panic %d: got %v, want INTERNAL", i, err)
		}
	}

	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("health after panics: %v, %v; want SERVING", resp, err)
	}
	out := logs.String()
	for _, want := range []string{`"msg":"panic in RPC handler"`, "unary handler bug", "stream handler bug", `"stack":"goroutine`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
	// The panic value stays in the log, never in the caller's status.
	err = conn.Invoke(ctx, "/ptcsidecar.test.Panic/Unary", &emptypb.Empty{}, &emptypb.Empty{})
	if strings.Contains(status.Convert(err).Message(), "handler bug") {
		t.Errorf("status leaks the panic value: %v", err)
	}
}

func TestHealthStartsNotServing(t *testing.T) {
	_, healthSrv := newGRPCServer(defaultServeConfig(), slog.New(slog.DiscardHandler), slog.New(slog.DiscardHandler), nil, newSidecar(defaultServeConfig(), nil))
	for _, name := range healthServices {
		resp, err := healthSrv.Check(context.Background(), &healthpb.HealthCheckRequest{Service: name})
		if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING {
			t.Errorf("health %q before markServing: %v, %v; want NOT_SERVING", name, resp, err)
		}
	}
}

// BenchmarkUnaryRPC measures what the server's plumbing (interceptors,
// metrics, request log) costs per unary RPC, with a handler that does
// almost nothing: ListStrategies over an in-memory connection. The "bare"
// case is a grpc.Server without interceptors, the transport's own cost.
func BenchmarkUnaryRPC(b *testing.B) {
	for _, bc := range []struct {
		name     string
		bare     bool
		logLevel slog.Level // info writes one line per RPC; warn writes none for OK calls
		metrics  bool
	}{
		{name: "bare", bare: true},
		{name: "log=warn/metrics=off", logLevel: slog.LevelWarn},
		{name: "log=warn/metrics=on", logLevel: slog.LevelWarn, metrics: true},
		{name: "log=info/metrics=on", logLevel: slog.LevelInfo, metrics: true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var srv *grpc.Server
			if bc.bare {
				srv = grpc.NewServer()
				ptcsidecarv1.RegisterSidecarServiceServer(srv, server.New(server.Config{}))
			} else {
				var metrics *grpcMetrics
				if bc.metrics {
					metrics = newGRPCMetrics()
				}
				logger := slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: bc.logLevel}))
				srv, _ = newGRPCServer(defaultServeConfig(), logger, logger, metrics, newSidecar(defaultServeConfig(), nil))
			}
			client := ptcsidecarv1.NewSidecarServiceClient(serveInMemory(b, srv))
			ctx := context.Background()
			req := &ptcsidecarv1.ListStrategiesRequest{}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := client.ListStrategies(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
