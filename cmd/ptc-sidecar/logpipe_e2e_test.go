package main_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// stuckGuard bounds a call or an exit that only a server blocked on its
// log reaches: such a server never answers or exits at all.
const stuckGuard = time.Minute

// A server whose stderr is a pipe no one reads (its buffer, shrunk to one
// page, fills after a few lines) goes on answering calls, counts the log
// lines it drops, and exits 0 on SIGTERM: no call and no step of the
// shutdown waits for the log (docs/OPERATIONS.md, "Logs").
func TestUnreadStderrBlocksNothing(t *testing.T) {
	t.Parallel()
	unread, stderr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer unread.Close() // open, never read: writes block once the pipe is full
	// F_SETPIPE_SZ: the smallest pipe Linux makes, one page.
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, stderr.Fd(), 1031, 4096); errno != 0 {
		t.Logf("pipe size left at its default (F_SETPIPE_SZ: %v): more calls fill it", errno)
	}
	metricsAddr := freeAddr(t)
	sock := filepath.Join(t.TempDir(), "ptc.sock")
	cmd := exec.Command(binary(t), "serve", "--listen", "unix:"+sock, "--metrics-listen", metricsAddr,
		"--shutdown-timeout", "1s", "--log-level", "debug")
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stderr.Close() // the server holds the only writer
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})

	conn, err := grpc.NewClient("unix:"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	waitServing(t, conn, exited)
	client := ptcsidecarv1.NewSidecarServiceClient(conn)
	// Every call logs a line; a few dozen fill a pipe of one page, and
	// the queue behind it (256 KiB) a thousand or so more.
	dropped := 0
	for calls := 0; dropped == 0; calls++ {
		if calls == 20_000 {
			t.Fatalf("%d calls answered and no log line dropped", calls)
		}
		ctx, cancel := context.WithTimeout(context.Background(), stuckGuard)
		resp, err := client.EvalTurn(ctx, &ptcsidecarv1.EvalTurnRequest{Program: "(+ 1 " + strconv.Itoa(calls) + ")"})
		cancel()
		if err != nil || !resp.GetTurn().GetSuccess() {
			t.Fatalf("call %d with stderr unread: %v, %v", calls, resp, err)
		}
		if calls%100 == 99 {
			dropped = droppedLogLines(t, metricsAddr)
		}
	}
	t.Logf("%d log lines dropped while every call was answered", dropped)

	began := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		t.Logf("exit after SIGTERM in %v with stderr unread: %v", time.Since(began).Round(time.Millisecond), err)
		if err != nil {
			t.Errorf("exit: %v, want status 0", err)
		}
	case <-time.After(stuckGuard):
		t.Fatalf("still running %v after SIGTERM with stderr unread", stuckGuard)
	}
}

// freeAddr returns a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	return lis.Addr().String()
}

// waitServing waits until the server's health is SERVING, failing if it
// exits first.
func waitServing(t *testing.T, conn *grpc.ClientConn, exited chan error) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("server exited before serving: %v", err)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
		cancel()
		if err == nil && resp.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("server not serving")
}

// droppedLogLines reads ptc_sidecar_log_lines_dropped_total.
func droppedLogLines(t *testing.T, metricsAddr string) int {
	t.Helper()
	for line := range strings.Lines(scrape(t, metricsAddr)) {
		if v, ok := strings.CutPrefix(line, "ptc_sidecar_log_lines_dropped_total "); ok {
			n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatalf("ptc_sidecar_log_lines_dropped_total %q", v)
			}
			return int(n)
		}
	}
	t.Fatal("/metrics has no ptc_sidecar_log_lines_dropped_total")
	return 0
}
