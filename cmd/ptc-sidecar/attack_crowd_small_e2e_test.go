package main_test

import (
	"bytes"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// TestAttackManySmallCallsAndResets: 2,000 tiny EvalTurns at once over
// one connection, 2,000 more over 200 connections, and 20,000 streams
// opened and reset at once on a raw connection (rapid reset), every
// header block passing through the gRPC listener's header reader. Every
// call ends ok or RESOURCE_EXHAUSTED (the evaluation queue), health
// checks made meanwhile on a connection of their own answer SERVING, and
// the server lives.
func TestAttackManySmallCallsAndResets(t *testing.T) {
	skipIfShort(t)
	p := start(t, "--listen", "127.0.0.1:0")
	var health sync.WaitGroup
	stop := make(chan struct{})
	var checks, serving atomic.Int64
	healthConn := p.client()
	health.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			resp, err := healthpb.NewHealthClient(healthConn).Check(testContext(t), &healthpb.HealthCheckRequest{})
			checks.Add(1)
			if err == nil && resp.Status == healthpb.HealthCheckResponse_SERVING {
				serving.Add(1)
			}
		}
	})
	var mu sync.Mutex
	outcomes := map[codes.Code]int{}
	var calls sync.WaitGroup
	call := func(conn *grpc.ClientConn) {
		_, err := ptcsidecarv1.NewSidecarServiceClient(conn).EvalTurn(testContext(t), &ptcsidecarv1.EvalTurnRequest{Program: "(+ 1 2)"})
		mu.Lock()
		outcomes[status.Code(err)]++
		mu.Unlock()
	}
	one := p.client()
	for range 2000 {
		calls.Go(func() { call(one) })
	}
	for range 200 {
		conn := p.client()
		for range 10 {
			calls.Go(func() { call(conn) })
		}
	}
	calls.Go(func() { rapidReset(t, p.addr, 20_000) })
	calls.Wait()
	close(stop)
	health.Wait()
	t.Logf("4,000 calls: %v; health %d of %d SERVING", outcomes, serving.Load(), checks.Load())
	for code, n := range outcomes {
		if code != codes.OK && code != codes.ResourceExhausted {
			t.Errorf("%d calls ended %v", n, code)
		}
	}
	if outcomes[codes.OK] == 0 {
		t.Error("no call was served")
	}
	if serving.Load() != checks.Load() || checks.Load() == 0 {
		t.Errorf("%d of %d health checks answered SERVING", serving.Load(), checks.Load())
	}
	checkHealth(t, p.client(), "", healthpb.HealthCheckResponse_SERVING)
	endAliveAndRaceFree(t, p)
}

// rapidReset opens n streams on a raw HTTP/2 connection to addr, each
// reset as soon as its headers are sent.
func rapidReset(t *testing.T, addr string, n int) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Error(err)
		return
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(hangGuard))
	go func() { // the server's frames are read and dropped
		buf := make([]byte, 64<<10)
		for {
			if _, err := conn.Read(buf); err != nil {
				return
			}
		}
	}()
	if _, err := conn.Write([]byte(http2.ClientPreface)); err != nil {
		t.Error(err)
		return
	}
	fr := http2.NewFramer(conn, nil)
	fr.WriteSettings()
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	for i := range n {
		block.Reset()
		for _, f := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":path", "/ptcsidecar.v1.SidecarService/EvalTurn"},
			{":authority", addr}, {"content-type", "application/grpc"}, {"te", "trailers"}} {
			enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
		}
		id := uint32(2*i + 1)
		if fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block.Bytes(), EndHeaders: true}) != nil ||
			fr.WriteRSTStream(id, http2.ErrCodeCancel) != nil {
			return // the server may end the connection: its answer to the attack
		}
	}
}
