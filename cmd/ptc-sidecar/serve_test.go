package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ptc-sidecar/ptc-sidecar/server"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// stuckService's handler ignores its context, as an evaluation deep in a
// builtin does until it next looks at it.
func stuckService(entered chan<- struct{}, release <-chan struct{}) *grpc.ServiceDesc {
	return &grpc.ServiceDesc{
		ServiceName: "ptcsidecar.test.Stuck",
		HandlerType: (*any)(nil),
		Streams: []grpc.StreamDesc{{
			StreamName: "Hang",
			Handler: func(any, grpc.ServerStream) error {
				entered <- struct{}{}
				<-release
				return nil
			},
			ServerStreams: true,
		}},
	}
}

// TestStopServerEndsOnTimeWithAStuckHandler: the shutdown returns, not
// before its timeout, although a handler never returns. (That it returns
// by the timeout plus handlerGrace is logged: a busy machine stretches the
// wall clock.)
func TestStopServerEndsOnTimeWithAStuckHandler(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a shutdown timeout; runs without -short")
	}
	entered, release := make(chan struct{}, 1), make(chan struct{})
	defer close(release) // lets the stuck handler go once the test is over
	srv := grpc.NewServer()
	srv.RegisterService(stuckService(entered, release), struct{}{})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()

	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stream, err := conn.NewStream(context.Background(), &grpc.StreamDesc{ServerStreams: true}, "/ptcsidecar.test.Stuck/Hang")
	if err != nil {
		t.Fatal(err)
	}
	stream.CloseSend()
	select {
	case <-entered:
	case <-time.After(hangGuard):
		t.Fatal("the handler was not called")
	}

	var logs syncBuffer
	const timeout = 200 * time.Millisecond
	began := time.Now()
	stopped := make(chan error, 1)
	go func() {
		stopped <- stopServer(srv, nil, server.New(server.Config{}), served, timeout, slog.New(slog.NewJSONHandler(&logs, nil)))
	}()
	select {
	case err := <-stopped:
		if err != nil {
			t.Errorf("stopServer: %v", err)
		}
	case <-time.After(hangGuard):
		t.Fatalf("stopServer has not returned after %v", hangGuard)
	}
	took := time.Since(began)
	t.Logf("stopServer returned after %v (timeout %v, grace %v)", took, timeout, handlerGrace)
	if took < timeout {
		t.Errorf("stopServer returned after %v, before its timeout of %v", took, timeout)
	}
	if !strings.Contains(logs.String(), "exiting without them") {
		t.Errorf("the log does not say handlers were left behind:\n%s", logs.String())
	}
}

// A server that stops by itself while it drains ends the drain with its
// error, rather than leaving the shutdown to wait out the delay.
func TestDrainEndsWhenTheServerStops(t *testing.T) {
	served := make(chan error, 1)
	served <- net.ErrClosed
	if err := drain(time.Hour, served, slog.New(slog.DiscardHandler)); err != net.ErrClosed {
		t.Errorf("drain = %v, want the server's error %v", err, net.ErrClosed)
	}
	if err := drain(0, nil, slog.New(slog.DiscardHandler)); err != nil {
		t.Errorf("no delay: drain = %v, want nil at once", err)
	}
}

// TestStopBeforeServeIsClean: a signal in the first moments of start-up
// stops the server before its Serve begins; that Serve's
// grpc.ErrServerStopped is the stop that was asked for, and the process
// exits 0. Any other error from Serve is still one.
func TestStopBeforeServeIsClean(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	srv := grpc.NewServer()
	srv.GracefulStop()
	served := make(chan error, 1)
	served <- srv.Serve(lis)
	if err := stopResult(served); err != nil {
		t.Errorf("Serve after the stop: %v, want a clean stop", err)
	}
	failed := errors.New("accept: too many open files")
	served <- failed
	if err := stopResult(served); !errors.Is(err, failed) {
		t.Errorf("Serve's own error: got %v, want it passed on", err)
	}
}
