package main_test

// The lifecycle of evaluations against the real binary: admission under a
// crowd of callers that each burn their step budget, streams that never
// start, and a shutdown that ends on time while evaluations still run.

import (
	"context"
	"fmt"
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
// checks on their own connection keep answering within a second, and
// every call either ends as step_limit or is refused with
// RESOURCE_EXHAUSTED after the queue wait: no evaluation times out
// because it waited behind the others.
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
					ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
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
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := probe.Check(ctx, &healthpb.HealthCheckRequest{})
		cancel()
		if err != nil {
			t.Errorf("health check under load: %v", err)
		}
		health = append(health, time.Since(began))
		time.Sleep(50 * time.Millisecond)
	}
	wg.Wait()

	slices.Sort(health)
	t.Logf("%d callers for %v: outcomes %v; health checks %d, p50 %v, max %v",
		crowdCallers, crowdDuration, outcomes, len(health), health[len(health)/2].Round(time.Microsecond), health[len(health)-1].Round(time.Microsecond))
	if worst := health[len(health)-1]; worst > time.Second {
		t.Errorf("a health check took %v under load, want under 1s", worst)
	}
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
// of work. The process exits within --shutdown-timeout plus the handler
// grace (500ms) and a little slack.
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
	if limit := shutdownTimeout + 500*time.Millisecond + time.Second*raceSlowdown/2; took > limit {
		t.Errorf("the process exited %v after SIGTERM, over %v", took, limit)
	}
	if code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	if !strings.Contains(p.log(), "shutdown timeout reached") {
		t.Errorf("the log does not say the timeout cut the evaluations off")
	}
}
