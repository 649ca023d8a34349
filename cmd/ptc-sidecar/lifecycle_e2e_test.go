package main_test

// The lifecycle of evaluations against the real binary: admission under a
// crowd of callers that each burn their step budget, streams that never
// start, and a shutdown that ends on time while evaluations still run.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// busyLoop burns whatever step budget it is given.
const busyLoop = "(loop [i 0] (recur (inc i)))"

const (
	crowdCallers     = 200
	crowdConnections = 8 // 25 callers each, within --max-concurrent-streams
	crowdDuration    = 3 * time.Second
)

// TestHealthAnswersWhileACrowdBurnsItsBudgets: 200 callers each run
// programs that use up the whole step budget, over and over. Health
// checks on their own connection keep answering SERVING (how fast is
// logged: a busy machine slows them), and every call either ends as
// step_limit or is refused with RESOURCE_EXHAUSTED after the queue wait:
// no evaluation times out because it waited behind the others.
func TestHealthAnswersWhileACrowdBurnsItsBudgets(t *testing.T) {
	skipIfShort(t)
	p := start(t, "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0")
	var (
		mu       sync.Mutex
		outcomes = map[string]int{}
		health   []time.Duration
		wg       sync.WaitGroup
	)
	deadline := time.Now().Add(crowdDuration)
	for range crowdConnections {
		conn := dial(t, p.addr)
		defer conn.Close()
		client := ptcsidecarv1.NewSidecarServiceClient(conn)
		for range crowdCallers / crowdConnections {
			wg.Go(func() {
				for time.Now().Before(deadline) {
					ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
					resp, err := client.EvalTurn(ctx, &ptcsidecarv1.EvalTurnRequest{Program: busyLoop})
					cancel()
					outcome := "turn " + resp.GetTurn().GetError().GetType()
					if err != nil {
						outcome = status.Code(err).String()
					}
					mu.Lock()
					outcomes[outcome]++
					mu.Unlock()
					if err != nil {
						time.Sleep(50 * time.Millisecond) // a client's backoff
					}
				}
			})
		}
	}
	probe := healthpb.NewHealthClient(p.client())
	for time.Now().Before(deadline) {
		began := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		resp, err := probe.Check(ctx, &healthpb.HealthCheckRequest{})
		cancel()
		if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("health check under load: %v %v", resp, err)
		}
		health = append(health, time.Since(began))
		time.Sleep(50 * time.Millisecond)
	}
	wg.Wait()

	slices.Sort(health)
	t.Logf("%d callers for %v: outcomes %v; health checks %d, p50 %v, max %v",
		crowdCallers, crowdDuration, outcomes, len(health), health[len(health)/2].Round(time.Microsecond), health[len(health)-1].Round(time.Microsecond))
	for outcome := range outcomes {
		if outcome != "turn step_limit" && outcome != codes.ResourceExhausted.String() {
			t.Errorf("%d calls ended as %s; want only step_limit turns and RESOURCE_EXHAUSTED", outcomes[outcome], outcome)
		}
	}
	if outcomes["turn step_limit"] == 0 {
		t.Errorf("no call completed: %v", outcomes)
	}
	metrics := scrape(t, p.metricsAddr)
	for _, want := range []string{
		fmt.Sprintf("ptc_sidecar_evaluations_refused_total %d\n", outcomes[codes.ResourceExhausted.String()]),
		"ptc_sidecar_evaluations_running 0\n",
		"ptc_sidecar_evaluations_waiting 0\n",
		fmt.Sprintf("ptc_sidecar_evaluations_limit %d\n", runtime.GOMAXPROCS(0)),
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if code := p.terminate(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// TestStreamsWithoutStartEnd: streams that never send start end with
// DEADLINE_EXCEEDED after --stream-start-timeout, and their goroutines go.
func TestStreamsWithoutStartEnd(t *testing.T) {
	skipIfShort(t)
	p := start(t, "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--stream-start-timeout", "200ms")
	conn := p.client()
	checkHealth(t, conn, "", healthpb.HealthCheckResponse_SERVING) // the connection is up before the baseline
	baseline := goroutines(t, p.metricsAddr)
	client := ptcsidecarv1.NewSidecarServiceClient(conn)
	var wg sync.WaitGroup
	var ended atomic.Int64
	for range 50 {
		wg.Go(func() {
			stream, err := client.EvalTurnStream(testContext(t))
			if err != nil {
				t.Error(err)
				return
			}
			_, err = stream.Recv()
			if st := status.Convert(err); st.Code() == codes.DeadlineExceeded && strings.HasPrefix(st.Message(), "start: no message within 200ms") {
				ended.Add(1)
			} else {
				t.Errorf("a stream without start: %v, want DEADLINE_EXCEEDED naming start", err)
			}
		})
	}
	wg.Wait()
	if ended.Load() != 50 {
		t.Errorf("%d of 50 streams ended", ended.Load())
	}
	checkGoroutinesReturn(t, p.metricsAddr, baseline)
}

// TestShutdownEndsOnTimeWhileEvaluationsRun: SIGTERM while evaluations
// run that would go on far longer than the shutdown timeout, one in a loop
// that sees its cancellation and one inside a builtin doing a long piece
// of work. The process exits, saying the shutdown timeout cut them off
// (after --shutdown-timeout plus the handler grace, 500ms: logged, not
// judged, since a busy machine stretches the wall clock).
func TestShutdownEndsOnTimeWhileEvaluationsRun(t *testing.T) {
	skipIfShort(t)
	const shutdownTimeout = time.Second
	p := start(t, "--listen", "127.0.0.1:0", "--shutdown-timeout", shutdownTimeout.String(),
		"--max-steps", "2147483647", "--eval-timeout", "none", "--max-concurrent-evals", "4")
	client := ptcsidecarv1.NewSidecarServiceClient(p.client())
	programs := []string{
		busyLoop,
		// identical? on vectors that share all but one element.
		"(let [v (vec (repeat 60 (vec (repeat 1000 (vec (range 1000)))))) w (conj (pop v) (peek v))] (dotimes [i 100] (identical? v w)) :done)",
	}
	var wg sync.WaitGroup
	codesSeen := make([]string, len(programs))
	for i, program := range programs {
		wg.Go(func() {
			_, err := client.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: program})
			codesSeen[i] = status.Code(err).String()
		})
	}
	time.Sleep(500 * time.Millisecond) // both evaluations are under way
	began := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code := p.wait()
	took := time.Since(began)
	wg.Wait()
	t.Logf("exit %v after SIGTERM with --shutdown-timeout %v; the evaluations ended with %v", took.Round(time.Millisecond), shutdownTimeout, codesSeen)
	if code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	if !strings.Contains(p.log(), "shutdown timeout reached") {
		t.Errorf("the log does not say the timeout cut the evaluations off")
	}
}

// uninterruptible is a program whose work cannot be interrupted for
// stretches: regex matches at the longest the sandbox allows, each one
// run to its end before the clock is read again.
var uninterruptible = `(let [s "` + strings.Repeat("abcd", 333) + `"] (loop [] (re-find (re-pattern "(\\w+\\s*){1000}x") s) (recur)))`

// TestShutdownAnswersWaitingStreams: SIGTERM while streams wait for their
// tools' answers, over gRPC and over HTTP, and while evaluations do work
// that cannot be interrupted for stretches. At the shutdown timeout every
// waiting stream is answered UNAVAILABLE, saying which tool call it
// waited for, and the process exits (after --shutdown-timeout plus the
// handler grace: logged, not judged).
func TestShutdownAnswersWaitingStreams(t *testing.T) {
	const shutdownTimeout = time.Second
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--shutdown-timeout", shutdownTimeout.String(),
		"--eval-timeout", "none", "--max-steps", "none", "--max-concurrent-evals", "2")
	client := ptcsidecarv1.NewSidecarServiceClient(p.client())
	waitingFor := func(index int, tool string) string {
		return fmt.Sprintf("the server is shutting down and stopped this call while it waited for the answer to tool call %d (tool/%s)", index, tool)
	}
	start := &ptcsidecarv1.EvalTurnRequest{Program: `[(tool/a {}) (tool/b {})]`, Tools: []*ptcsidecarv1.ToolSpec{{Name: "a"}, {Name: "b"}}}
	var grpcStreams []ptcsidecarv1.SidecarService_EvalTurnStreamClient
	for i := range 8 {
		stream, err := client.EvalTurnStream(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if err := stream.Send(&ptcsidecarv1.EvalTurnStreamRequest{Message: &ptcsidecarv1.EvalTurnStreamRequest_Start{Start: start}}); err != nil {
			t.Fatal(err)
		}
		if _, err := stream.Recv(); err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 { // half of them wait for their second call
			tr := &ptcsidecarv1.ToolResult{Index: 0, Name: "a", Result: &ptcsidecarv1.Value{Edn: "1"}}
			stream.Send(&ptcsidecarv1.EvalTurnStreamRequest{Message: &ptcsidecarv1.EvalTurnStreamRequest_ToolResult{ToolResult: tr}})
			if msg, err := stream.Recv(); err != nil || msg.GetToolCall().GetName() != "b" {
				t.Fatalf("second call: %v %v", msg, err)
			}
		}
		grpcStreams = append(grpcStreams, stream)
	}
	var httpStreams []*bufio.Reader
	for range 4 {
		body, send := io.Pipe()
		t.Cleanup(func() { send.Close() })
		go send.Write(frame(0, []byte(`{"start": {"program": "(tool/a {})", "tools": [{"name": "a"}]}}`)))
		resp := post(t, httpClients()["HTTP/2"], p.httpAddr, "ptcsidecar.v1.SidecarService/EvalTurnStream", "application/connect+json", body)
		received := bufio.NewReader(resp.Body)
		if flags, msg := readFrame(t, received); flags != 0 || !strings.Contains(string(msg), "toolCall") {
			t.Fatalf("HTTP stream's first message (flags %#x): %s", flags, msg)
		}
		httpStreams = append(httpStreams, received)
	}
	evalErrs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := client.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: uninterruptible})
			evalErrs <- err
		}()
	}
	time.Sleep(300 * time.Millisecond) // both evaluations are under way

	began := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for i, stream := range grpcStreams {
		_, err := stream.Recv()
		want := waitingFor(i%2, map[int]string{0: "a", 1: "b"}[i%2])
		if st := status.Convert(err); st.Code() != codes.Unavailable || !strings.HasPrefix(st.Message(), want) {
			t.Errorf("gRPC stream %d: %v, want UNAVAILABLE %q", i, err, want)
		}
	}
	for i, received := range httpStreams {
		flags, msg := readFrame(t, received)
		var end struct {
			Error struct{ Code, Message string }
		}
		json.Unmarshal(msg, &end)
		if flags != 0x02 || end.Error.Code != "unavailable" || !strings.HasPrefix(end.Error.Message, waitingFor(0, "a")) {
			t.Errorf("HTTP stream %d: end (flags %#x) %s, want unavailable", i, flags, msg)
		}
	}
	// An evaluation in flight is answered by the sidecar if its match
	// ends within the grace, else cut off with its connection (a match
	// takes several times longer under the race detector): UNAVAILABLE
	// either way.
	for range 2 {
		if err := <-evalErrs; status.Code(err) != codes.Unavailable {
			t.Errorf("an evaluation in flight: %v, want UNAVAILABLE", err)
		}
	}
	code := p.wait()
	took := time.Since(began)
	t.Logf("exit %v after SIGTERM with --shutdown-timeout %v (documented: within %v on an idle machine), %d streams waiting for tools answered",
		took.Round(time.Millisecond), shutdownTimeout, shutdownTimeout+handlerGraceDocumented, len(grpcStreams)+len(httpStreams))
	if code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
}

// handlerGraceDocumented is how long after --shutdown-timeout the process
// is gone, as docs/OPERATIONS.md states (on a machine with a core free).
const handlerGraceDocumented = 500 * time.Millisecond
