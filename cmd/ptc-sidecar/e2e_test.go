package main_test

// End-to-end tests: they build the real binary, start it as a separate
// process and talk to it with a real gRPC client, as a deployment would.
// Each server listens on port 0 and the test reads the bound address from
// the server's "serving" log line, so parallel runs never race for a port.

import (
	"bufio"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	reflectionv1alphapb "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/testenv"
)

// hangGuard bounds a wait that only a hang reaches: a call, a shutdown, a
// metric to appear. It is no measure of speed (tests judge outcomes, or
// the server's own CPU time, never the wall clock), so it is generous
// enough for the busiest machine; make test's go test -timeout is the
// backstop of the whole run.
const hangGuard = 5 * time.Minute

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds ptc-sidecar once per test run and returns its path. Under
// -short the test skips: the inner loop builds no binary, and every test
// that starts one is end-to-end.
func binary(t *testing.T) string {
	t.Helper()
	testenv.SkipShort(t, "a build of the binary (go build), end to end")
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ptc-sidecar-e2e")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "ptc-sidecar")
		out, err := exec.Command("go", append(append([]string{"build"}, buildFlags...), "-o", binPath, ".")...).CombinedOutput()
		if err != nil {
			buildErr = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// skipIfShort skips a slow end-to-end test under -short: one that drives
// the real binary for seconds (a crowd of callers, a load, a shutdown
// timeout), so it runs alone, not in parallel with the others. make test
// runs it. (Under -short binary skips every end-to-end test anyway; this
// marks the slow ones where they are written.)
func skipIfShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short (make test)")
	}
}

// skipIfRace skips a test whose subject is the server's memory per request
// size, under the race detector: its instrumented binary's shadow memory
// is what such a test would measure, and its many large requests take it
// several times longer. make test runs it; the code it covers has its unit
// tests under -race.
func skipIfRace(t *testing.T, measures string) {
	t.Helper()
	if raceSlowdown > 1 {
		t.Skip("measures " + measures + ", which the race detector's overhead distorts: runs without -race (make test)")
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// process is a running ptc-sidecar.
type process struct {
	t           *testing.T
	cmd         *exec.Cmd
	addr        string // gRPC address, as a grpc.NewClient target
	metricsAddr string
	httpAddr    string // --http-listen's bound address
	stdout      *lockedBuffer
	exited      chan struct{}
	exitCode    int

	mu   sync.Mutex
	logs []string // stderr lines
}

// start runs the binary with args and waits until it logs that it serves.
func start(t *testing.T, args ...string) *process {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Env = append(os.Environ(), "PTC_SIDECAR_LOG_LEVEL=debug")
	stdout := new(lockedBuffer)
	cmd.Stdout = stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{t: t, cmd: cmd, stdout: stdout, exited: make(chan struct{})}
	ready := make(chan struct{})
	go p.readLogs(stderr, ready)
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			cmd.Process.Kill()
			<-p.exited
		}
		if t.Failed() {
			t.Logf("server log:\n%s", p.log())
		}
	})
	// The server logs serving once it is ready, however busy the machine,
	// or it exits: the wait has no deadline of its own (go test -timeout
	// is the backstop of one that hangs).
	select {
	case <-ready:
		return p
	case <-p.exited:
		t.Fatalf("server exited with code %d before serving:\n%s", p.exitCode, p.log())
	}
	return nil
}

// readLogs records stderr, fills in the addresses from the log lines and
// closes ready at the "serving" line.
func (p *process) readLogs(r io.Reader, ready chan struct{}) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		var rec struct{ Msg, Network, Addr string }
		json.Unmarshal([]byte(line), &rec)
		p.mu.Lock()
		p.logs = append(p.logs, line)
		switch rec.Msg {
		case "metrics listening":
			p.metricsAddr = rec.Addr
		case "HTTP listening":
			p.httpAddr = rec.Addr
		case "serving":
			p.addr = rec.Addr
			if rec.Network == "unix" {
				p.addr = "unix:" + rec.Addr
			}
			close(ready)
		}
		p.mu.Unlock()
	}
	p.cmd.Wait()
	p.exitCode = p.cmd.ProcessState.ExitCode()
	close(p.exited)
}

func (p *process) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.logs, "\n")
}

// client connects to the server.
func (p *process) client() *grpc.ClientConn {
	conn, err := grpc.NewClient(p.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { conn.Close() })
	return conn
}

// terminate sends SIGTERM and returns the exit code.
func (p *process) terminate() int {
	p.t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		p.t.Fatal(err)
	}
	return p.wait()
}

func (p *process) wait() int {
	p.t.Helper()
	select {
	case <-p.exited:
		return p.exitCode
	case <-time.After(hangGuard):
		p.t.Fatalf("server still running %v after SIGTERM:\n%s", hangGuard, p.log())
		return -1
	}
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	t.Cleanup(cancel)
	return ctx
}

func checkHealth(t *testing.T, conn *grpc.ClientConn, service string, want healthpb.HealthCheckResponse_ServingStatus) {
	t.Helper()
	resp, err := healthpb.NewHealthClient(conn).Check(testContext(t), &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		t.Fatalf("health check %q: %v", service, err)
	}
	if resp.GetStatus() != want {
		t.Fatalf("health %q = %v, want %v", service, resp.GetStatus(), want)
	}
}

// listServices asks the reflection service (v1) for the service names.
func listServices(t *testing.T, conn *grpc.ClientConn) []string {
	t.Helper()
	stream, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	err = stream.Send(&reflectionpb.ServerReflectionRequest{
		MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{},
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	stream.CloseSend()
	slices.Sort(names)
	return names
}

func TestServeTCP(t *testing.T) {
	t.Parallel()
	p := start(t, "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0")
	conn := p.client()
	ctx := testContext(t)

	checkHealth(t, conn, "", healthpb.HealthCheckResponse_SERVING)
	checkHealth(t, conn, "ptcsidecar.v1.SidecarService", healthpb.HealthCheckResponse_SERVING)

	got := listServices(t, conn)
	want := []string{
		"grpc.health.v1.Health",
		"grpc.reflection.v1.ServerReflection",
		"grpc.reflection.v1alpha.ServerReflection",
		"ptcsidecar.v1.SidecarService",
	}
	if !slices.Equal(got, want) {
		t.Errorf("reflection lists %v, want %v", got, want)
	}
	// Older clients speak v1alpha; it must describe the product's service.
	alpha, err := reflectionv1alphapb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	alpha.Send(&reflectionv1alphapb.ServerReflectionRequest{
		MessageRequest: &reflectionv1alphapb.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: "ptcsidecar.v1.SidecarService"},
	})
	if resp, err := alpha.Recv(); err != nil || len(resp.GetFileDescriptorResponse().GetFileDescriptorProto()) == 0 {
		t.Errorf("v1alpha reflection of ptcsidecar.v1.SidecarService: %v, %v", resp, err)
	}
	alpha.CloseSend()

	sidecar := ptcsidecarv1.NewSidecarServiceClient(conn)
	if _, err := sidecar.ListStrategies(ctx, &ptcsidecarv1.ListStrategiesRequest{}); err != nil {
		t.Errorf("ListStrategies: %v", err)
	}
	// The same data twice: read once, then found remembered.
	withData := &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Mission: "count",
		Data: &ptcsidecarv1.Value{Edn: "{:orders [1 2 3 4 5 6 7 8 9 10]}"}}}
	for range 2 {
		if _, err := sidecar.ToMessages(ctx, withData); err != nil {
			t.Fatalf("ToMessages: %v", err)
		}
	}

	// Over --large-request-bytes (256 KiB), a request waits for an
	// evaluation slot before it is decoded.
	large := &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Mission: strings.Repeat("count ", 50_000)}}
	if _, err := sidecar.ToMessages(ctx, large); err != nil {
		t.Fatalf("ToMessages of 300 KB: %v", err)
	}

	_, err = sidecar.ToMessages(ctx, &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Strategy: "no-such-strategy"}})
	if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.HasPrefix(st.Message(), "options.strategy: ") {
		t.Errorf("ToMessages: %v, want INVALID_ARGUMENT naming options.strategy", err)
	}

	metrics := scrape(t, p.metricsAddr)
	for _, want := range []string{
		`ptc_sidecar_memo_hits_total{table="values"} 1`,
		`ptc_sidecar_memo_misses_total{table="values"} 1`,
		`ptc_sidecar_memo_entries{table="values"} 1`,
		`ptc_sidecar_memo_entries{table="token_counts"} `,
		"ptc_sidecar_memo_budget_bytes 5.0331648e+07",
		"ptc_sidecar_large_requests_total 1",
		"ptc_sidecar_evaluations_refused_total 0",
		`grpc_server_handled_total{grpc_code="OK",grpc_method="ListStrategies",grpc_service="ptcsidecar.v1.SidecarService",grpc_type="unary"} 1`,
		`grpc_server_handled_total{grpc_code="InvalidArgument",grpc_method="ToMessages",grpc_service="ptcsidecar.v1.SidecarService",grpc_type="unary"} 1`,
		`grpc_server_handled_total{grpc_code="OK",grpc_method="EvalTurn",grpc_service="ptcsidecar.v1.SidecarService",grpc_type="unary"} 0`,
		"go_goroutines ",
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}

	// A watcher sees the server turn NOT_SERVING as soon as the signal
	// arrives, while the server still waits for in-flight RPCs (the watch).
	watchCtx, stopWatch := context.WithCancel(ctx)
	watch, err := healthpb.NewHealthClient(conn).Watch(watchCtx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := watch.Recv(); err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("first watch update: %v, %v; want SERVING", resp, err)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if resp, err := watch.Recv(); err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("watch update after SIGTERM: %v, %v; want NOT_SERVING", resp, err)
	}
	stopWatch()
	if code := p.wait(); code != 0 {
		t.Errorf("exit code after SIGTERM = %d, want 0", code)
	}
	if !strings.Contains(p.log(), `"msg":"stopped"`) {
		t.Errorf("no clean stop in the log")
	}
	checkRequestLog(t, p.log()) // after the stop: request lines are written in batches
}

// checkRequestLog checks the request log of TestServeTCP's calls: one line
// per RPC at a level that fits its outcome, and no lines for health probes.
func checkRequestLog(t *testing.T, log string) {
	t.Helper()
	levels := map[string]string{} // method -> level of its log line
	for line := range strings.Lines(log) {
		var rec struct {
			Level   string
			Msg     string
			Service string `json:"grpc.service"`
			Method  string `json:"grpc.method"`
			Code    string `json:"grpc.code"`
		}
		if json.Unmarshal([]byte(line), &rec) != nil || rec.Msg != "finished call" {
			continue
		}
		if rec.Service == "grpc.health.v1.Health" {
			t.Errorf("health probe logged: %s", line)
		}
		levels[rec.Method] = rec.Level + " " + rec.Code
	}
	for method, want := range map[string]string{
		"ListStrategies": "INFO OK",
		"ToMessages":     "INFO InvalidArgument",
	} {
		if levels[method] != want {
			t.Errorf("request log for %s: %q, want %q", method, levels[method], want)
		}
	}
}

func scrape(t *testing.T, addr string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d, %v", resp.StatusCode, err)
	}
	return string(body)
}

// scrapeUntil scrapes the metrics endpoint until every line of want is in
// it or hangGuard passes, and returns the last scrape. Counters that a
// wrapper of the handler increments after it returns (the HTTP request
// counts) may trail the response the client has already read.
func scrapeUntil(t *testing.T, addr string, want ...string) string {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		m := scrape(t, addr)
		missing := slices.ContainsFunc(want, func(w string) bool { return !strings.Contains(m, w) })
		if !missing || time.Now().After(deadline) {
			return m
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestServeUnixSocket(t *testing.T) {
	t.Parallel()
	sock := filepath.Join(t.TempDir(), "ptc.sock")
	p := start(t, "--listen", "unix:"+sock)
	conn := p.client()
	checkHealth(t, conn, "", healthpb.HealthCheckResponse_SERVING)
	if _, err := ptcsidecarv1.NewSidecarServiceClient(conn).ListStrategies(testContext(t), &ptcsidecarv1.ListStrategiesRequest{}); err != nil {
		t.Errorf("ListStrategies over the socket: %v", err)
	}
	if code := p.terminate(); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket file left behind after shutdown: %v", err)
	}
}

func TestServeReplacesStaleSocket(t *testing.T) {
	t.Parallel()
	sock := filepath.Join(t.TempDir(), "ptc.sock")
	first := start(t, "--listen", "unix:"+sock)
	first.cmd.Process.Kill() // dies without cleaning up its socket
	first.wait()
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("expected a stale socket: %v", err)
	}
	second := start(t, "--listen", "unix:"+sock)
	checkHealth(t, second.client(), "", healthpb.HealthCheckResponse_SERVING)
	second.terminate()
}

func TestOversizedRequestIsResourceExhausted(t *testing.T) {
	t.Parallel()
	p := start(t, "--listen", "127.0.0.1:0", "--max-recv-bytes", "1KiB")
	sidecar := ptcsidecarv1.NewSidecarServiceClient(p.client())
	ctx := testContext(t)

	big := &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Mission: strings.Repeat("x", 2048)}}
	_, err := sidecar.ToMessages(ctx, big)
	if code := status.Code(err); code != codes.ResourceExhausted {
		t.Errorf("2 KiB request with a 1 KiB limit: %v, want RESOURCE_EXHAUSTED", err)
	}
	// Just under the limit passes the size check and reaches the handler.
	small := &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Mission: strings.Repeat("x", 1000)}}
	_, err = sidecar.ToMessages(ctx, small)
	if err != nil {
		t.Errorf("1000-byte request with a 1 KiB limit: %v, want it handled", err)
	}
	if code := p.terminate(); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
}

// TestShutdownTimeoutBoundsInFlightRPCs keeps a health watch open through
// SIGTERM: graceful stop waits for it, and the shutdown timeout cuts it off.
func TestShutdownTimeoutBoundsInFlightRPCs(t *testing.T) {
	t.Parallel()
	p := start(t, "--listen", "127.0.0.1:0", "--shutdown-timeout", "300ms")
	watch, err := healthpb.NewHealthClient(p.client()).Watch(testContext(t), &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := watch.Recv(); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if code := p.terminate(); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
	if took := time.Since(began); took < 300*time.Millisecond {
		t.Errorf("exited after %v, before the 300ms shutdown timeout despite an open RPC", took)
	}
	if !strings.Contains(p.log(), "shutdown timeout reached") {
		t.Errorf("log does not say the timeout cut RPCs off")
	}
}

// TestSecondSignalStopsAtOnce: an operator who signals twice does not wait
// for the shutdown timeout.
func TestSecondSignalStopsAtOnce(t *testing.T) {
	t.Parallel()
	p := start(t, "--listen", "127.0.0.1:0", "--shutdown-timeout", "1m")
	watch, err := healthpb.NewHealthClient(p.client()).Watch(testContext(t), &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := watch.Recv(); err != nil {
		t.Fatal(err)
	}
	p.cmd.Process.Signal(syscall.SIGINT)
	if resp, err := watch.Recv(); err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("watch update after SIGINT: %v, %v; want NOT_SERVING", resp, err)
	}
	p.cmd.Process.Signal(syscall.SIGINT)
	p.wait() // fails the test if the process outlives the wait
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("after a second SIGINT: %v, want killed by SIGINT", p.cmd.ProcessState)
	}
}

func TestSIGINTStopsCleanly(t *testing.T) {
	t.Parallel()
	p := start(t, "--listen", "127.0.0.1:0")
	p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(); code != 0 {
		t.Errorf("exit code after SIGINT = %d, want 0", code)
	}
}

func TestBadConfigurationExitsWithCode2(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		env     string
		wantErr string
	}{
		{args: []string{"--listen", "localhost"}, wantErr: "-listen"},
		{args: []string{"serve"}, env: "PTC_SIDECAR_MAX_RECV_BYTES=many", wantErr: "PTC_SIDECAR_MAX_RECV_BYTES"},
		{args: []string{"serve", "--max-concurrent-streams=-1"}, wantErr: "-max-concurrent-streams"},
		{args: []string{"serve", "--max-depth", "none"}, wantErr: "-max-depth"},
		{args: []string{"launch"}, wantErr: `unknown command "launch"`},
	} {
		cmd := exec.Command(binary(t), tc.args...)
		cmd.Env = append(os.Environ(), tc.env)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Errorf("%v %s: %v, want exit code 2", tc.args, tc.env, err)
		}
		if !strings.Contains(string(out), tc.wantErr) {
			t.Errorf("%v %s: output %q does not mention %q", tc.args, tc.env, out, tc.wantErr)
		}
	}
}

// The version is the module version the build recorded: a pseudo-version
// from the commit when go build stamped version control information
// (-buildvcs, the default in a clone), else dev.
func TestVersion(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	want := info.Main.Version
	if want == "" || want == "(devel)" {
		want = "dev"
	}
	if prefix := "ptc-sidecar " + want + " (" + info.GoVersion + " "; !strings.HasPrefix(string(out), prefix) {
		t.Errorf("version output %q, want it to start with %q", out, prefix)
	}
}

// The soft memory limit the runtime runs with, as the serving line reports
// it: the default, the flag's, none, and GOMEMLIMIT's when the flag is not
// given or is 0 (the default). The serving line writes none as 0.
func TestMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		gomemlimit string
		args       []string
		want       string
	}{
		{want: `"memory_limit":134217728`},
		{args: []string{"--memory-limit", "64MiB"}, want: `"memory_limit":67108864`},
		{args: []string{"--memory-limit", "none"}, want: `"memory_limit":0`},
		{args: []string{"--memory-limit", "0"}, want: `"memory_limit":134217728`},
		{gomemlimit: "200MiB", args: []string{"--memory-limit", "0"}, want: `"memory_limit":209715200`},
		{gomemlimit: "200MiB", want: `"memory_limit":209715200`},
		{gomemlimit: "200MiB", args: []string{"--memory-limit", "64MiB"}, want: `"memory_limit":67108864`},
	} {
		t.Run(tc.gomemlimit+strings.Join(tc.args, " "), func(t *testing.T) {
			if tc.gomemlimit != "" {
				t.Setenv("GOMEMLIMIT", tc.gomemlimit)
			}
			p := start(t, append([]string{"--listen", "127.0.0.1:0"}, tc.args...)...)
			if !strings.Contains(p.log(), tc.want) {
				t.Errorf("the serving line does not report %s:\n%s", tc.want, p.log())
			}
		})
	}
}
