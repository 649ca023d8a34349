package main_test

// Load and shutdown under load, against the real binary on loopback. The
// load runs PTC_LOAD_SECONDS (default 3) so that `make test` stays quick;
// `make load` runs the full 60 seconds.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

const (
	loadClients = 64
	// maxCallsPerClient bounds the load by count as well as by time.
	maxCallsPerClient = 200_000
	rpcTimeout        = hangGuard // a hang only: the load judges errors, not time
)

func loadDuration(t *testing.T) time.Duration {
	v := os.Getenv("PTC_LOAD_SECONDS")
	if v == "" {
		return 3 * time.Second
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("PTC_LOAD_SECONDS=%q: want a whole number of seconds", v)
	}
	return time.Duration(n) * time.Second
}

// loadRequest is a ToMessages request of realistic size: three turns with
// data, prints and tool calls.
func loadRequest() *ptcsidecarv1.ToMessagesRequest {
	req := &ptcsidecarv1.ToMessagesRequest{
		Options: &ptcsidecarv1.Options{
			Mission: "Find the cheapest product in stock and notify ops.",
			Data:    ednValue(`{:products [{:name "Laptop" :price 1200 :stock 3} {:name "Mouse" :price 25 :stock 0} {:name "Desk" :price 300 :stock 7}]}`),
			Tools:   []*ptcsidecarv1.ToolSpec{{Name: "notify", Signature: "(to :string, message :string) -> :bool"}},
		},
		Memory: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "in-stock", Value: ednValue(`[{:name "Laptop" :price 1200} {:name "Desk" :price 300}]`), Turn: 2}}},
	}
	for i := 1; i <= 3; i++ {
		req.Turns = append(req.Turns, &ptcsidecarv1.Turn{Number: int32(i), Program: "(def in-stock (filter (fn [p] (pos? (:stock p))) data/products))",
			Prints: []string{fmt.Sprintf("turn %d: 2 in stock", i)}, Result: ednValue("2"), Success: true,
			ToolCalls: []*ptcsidecarv1.ToolCall{{Name: "notify", Args: ednValue(`{:to "ops" :message "x"}`), Result: ednValue("true")}}})
	}
	return req
}

// toolProgram calls a tool twice: EvalTurn needs three rounds of replay,
// EvalTurnStream two answers.
const toolProgram = `(let [a (tool/price {:sku "A"}) b (tool/price {:sku "B"})] (println "sum" (+ a b)) (+ a b))`

// mixedCall makes the i-th call of a client: ToMessages, EvalTurn with tool
// replay, EvalTurnStream, ListStrategies in turn.
func mixedCall(ctx context.Context, c ptcsidecarv1.SidecarServiceClient, i int, tm *ptcsidecarv1.ToMessagesRequest) error {
	ctx, cancel := context.WithTimeout(ctx, rpcTimeout)
	defer cancel()
	switch i % 4 {
	case 0:
		resp, err := c.ToMessages(ctx, tm)
		if err == nil && len(resp.GetMessages()) != 2 {
			err = fmt.Errorf("ToMessages: %d messages", len(resp.GetMessages()))
		}
		return err
	case 1:
		return evalWithReplay(ctx, c)
	case 2:
		return evalStream(ctx, c, nil)
	default:
		_, err := c.ListStrategies(ctx, &ptcsidecarv1.ListStrategiesRequest{})
		return err
	}
}

func evalWithReplay(ctx context.Context, c ptcsidecarv1.SidecarServiceClient) error {
	req := &ptcsidecarv1.EvalTurnRequest{Program: toolProgram, Tools: []*ptcsidecarv1.ToolSpec{{Name: "price"}}}
	for range 3 {
		resp, err := c.EvalTurn(ctx, req)
		if err != nil {
			return err
		}
		if turn := resp.GetTurn(); turn != nil {
			if !turn.GetSuccess() || turn.GetResult().GetEdn() != "30" {
				return fmt.Errorf("EvalTurn: turn %v", turn)
			}
			return nil
		}
		call := resp.GetPending().GetCalls()[0]
		req.ToolResults = append(req.ToolResults, &ptcsidecarv1.ToolResult{Index: call.GetIndex(), Name: call.GetName(), Args: call.GetArgs(), Result: ednValue(strconv.Itoa(10 * (len(req.ToolResults) + 1)))})
	}
	return errors.New("EvalTurn: no turn after three rounds")
}

// evalStream runs toolProgram on a stream. When held is not nil, it is
// called once the server has sent the first tool call (the RPC is then
// certainly in flight on the server) and must return before the answer goes.
func evalStream(ctx context.Context, c ptcsidecarv1.SidecarServiceClient, held func()) error {
	s, err := c.EvalTurnStream(ctx)
	if err != nil {
		return err
	}
	start := &ptcsidecarv1.EvalTurnRequest{Program: toolProgram, Tools: []*ptcsidecarv1.ToolSpec{{Name: "price"}}}
	if err := s.Send(&ptcsidecarv1.EvalTurnStreamRequest{Message: &ptcsidecarv1.EvalTurnStreamRequest_Start{Start: start}}); err != nil {
		return err
	}
	for n := 1; ; n++ {
		msg, err := s.Recv()
		if err != nil {
			return fmt.Errorf("EvalTurnStream: %w", err)
		}
		if turn := msg.GetTurn(); turn != nil {
			if !turn.GetSuccess() || turn.GetResult().GetEdn() != "30" {
				return fmt.Errorf("EvalTurnStream: turn %v", turn)
			}
			if _, err := s.Recv(); err != io.EOF {
				return fmt.Errorf("EvalTurnStream: after the turn: %v", err)
			}
			return nil
		}
		if n == 1 && held != nil {
			held()
		}
		call := msg.GetToolCall()
		answer := &ptcsidecarv1.ToolResult{Index: call.GetIndex(), Name: call.GetName(), Args: call.GetArgs(), Result: ednValue(strconv.Itoa(10 * n))}
		if err := s.Send(&ptcsidecarv1.EvalTurnStreamRequest{Message: &ptcsidecarv1.EvalTurnStreamRequest_ToolResult{ToolResult: answer}}); err != nil {
			return err
		}
	}
}

func dial(t *testing.T, addr string) *grpc.ClientConn {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// rssSampler records the peak RSS of a process until stopped.
type rssSampler struct {
	peak atomic.Int64
	stop chan struct{}
	done chan struct{}
}

func sampleRSS(t *testing.T, pid int) *rssSampler {
	s := &rssSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
				s.peak.Store(max(s.peak.Load(), parseRSS(string(b))))
			}
			select {
			case <-s.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

func (s *rssSampler) finish() int64 {
	close(s.stop)
	<-s.done
	return s.peak.Load()
}

func parseRSS(status string) int64 {
	var kb int64
	for line := range strings.Lines(status) {
		if _, err := fmt.Sscanf(line, "VmRSS: %d kB", &kb); err == nil {
			return kb << 10
		}
	}
	return 0
}

func TestLoad(t *testing.T) {
	skipIfShort(t)
	duration := loadDuration(t)
	p := start(t, "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0")
	baseline := goroutines(t, p.metricsAddr)
	rss := sampleRSS(t, p.cmd.Process.Pid)
	tm := loadRequest()

	var (
		mu        sync.Mutex
		latencies []time.Duration
		failures  []string
		errCount  int
		wg        sync.WaitGroup
	)
	deadline := time.Now().Add(duration)
	began := time.Now()
	for client := range loadClients {
		wg.Go(func() {
			conn := dial(t, p.addr)
			defer conn.Close()
			c := ptcsidecarv1.NewSidecarServiceClient(conn)
			var mine []time.Duration
			offset := rand.IntN(4)
			for i := 0; i < maxCallsPerClient && time.Now().Before(deadline); i++ {
				t0 := time.Now()
				err := mixedCall(context.Background(), c, i+offset, tm)
				mine = append(mine, time.Since(t0))
				if err != nil {
					mu.Lock()
					errCount++
					if len(failures) < 10 {
						failures = append(failures, fmt.Sprintf("client %d call %d: %v", client, i, err))
					}
					mu.Unlock()
				}
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			mu.Unlock()
		})
	}
	peakGoroutines := 0
	for time.Now().Before(deadline) {
		peakGoroutines = max(peakGoroutines, goroutines(t, p.metricsAddr))
		time.Sleep(500 * time.Millisecond)
	}
	wg.Wait()
	elapsed := time.Since(began)
	checkGoroutinesReturn(t, p.metricsAddr, baseline)
	peakRSS := rss.finish()

	slices.Sort(latencies)
	pct := func(q float64) time.Duration { return latencies[int(q*float64(len(latencies)-1))] }
	// A call is one of the four kinds mixedCall makes in turn; an EvalTurn
	// call is three RPCs (two tool replays), so RPCs = calls * 6 / 4.
	t.Logf("load: %d clients for %v: %d calls (%.0f/s), latency p50 %v p99 %v max %v, %d errors; server RSS peak %d MiB, goroutines baseline %d peak %d",
		loadClients, elapsed.Round(time.Millisecond), len(latencies), float64(len(latencies))/elapsed.Seconds(),
		pct(0.5).Round(time.Microsecond), pct(0.99).Round(time.Microsecond), latencies[len(latencies)-1].Round(time.Microsecond),
		errCount, peakRSS>>20, baseline, peakGoroutines)
	if errCount > 0 {
		t.Errorf("%d RPCs failed under load; first ones:\n%v", errCount, failures)
	}
	if peakRSS > maxServerRSS*raceSlowdown {
		t.Errorf("server RSS peaked at %d MiB under load, over the %d MiB bound", peakRSS>>20, maxServerRSS>>20)
	}
	if code := p.terminate(); code != 0 {
		t.Errorf("exit code %d after the load", code)
	}
}

// TestShutdownUnderLoad sends SIGTERM while 64 clients each hold an
// EvalTurnStream the server is in the middle of (it has sent a tool call
// and waits for the answer) and 16 more keep sending unary RPCs.
//
// In flight means the server has begun the RPC. Every such RPC completes
// with OK: the held streams get their answers after the signal and finish
// their turns. An RPC the server has not begun when the signal arrives may
// be refused, and only with UNAVAILABLE (the listener is closed), so a
// client can retry it elsewhere; no RPC ends with any other error. The
// process exits 0 without reaching its shutdown timeout.
func TestShutdownUnderLoad(t *testing.T) {
	skipIfShort(t)
	p := start(t, "--listen", "127.0.0.1:0", "--shutdown-timeout", "30s")
	tm := loadRequest()
	var (
		held     sync.WaitGroup // streams the server is in the middle of
		release  = make(chan struct{})
		streams  sync.WaitGroup
		mu       sync.Mutex
		problems []string
		refused  atomic.Int64
		ok       atomic.Int64
	)
	report := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(problems) < 10 {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	held.Add(loadClients)
	for client := range loadClients {
		streams.Go(func() {
			conn := dial(t, p.addr)
			defer conn.Close()
			c := ptcsidecarv1.NewSidecarServiceClient(conn)
			for i := range 8 { // some load before the stream that is held
				if err := mixedCall(context.Background(), c, client+i, tm); err != nil {
					report("before the signal: %v", err)
				}
			}
			err := evalStream(context.Background(), c, func() { held.Done(); <-release })
			if err != nil {
				report("held stream %d: %v", client, err)
				return
			}
			ok.Add(1)
		})
	}
	stopBackground := make(chan struct{})
	var background sync.WaitGroup
	for range 16 {
		background.Go(func() {
			conn := dial(t, p.addr)
			defer conn.Close()
			c := ptcsidecarv1.NewSidecarServiceClient(conn)
			for i := 0; ; i++ {
				select {
				case <-stopBackground:
					return
				default:
				}
				err := mixedCall(context.Background(), c, i, tm)
				switch status.Code(err) {
				case codes.OK:
				case codes.Unavailable:
					refused.Add(1)
					time.Sleep(10 * time.Millisecond) // as a client backs off before retrying
				default:
					report("background: %v", err)
				}
			}
		})
	}

	held.Wait()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the server is now draining
	close(release)
	streams.Wait()
	code := p.wait()
	close(stopBackground)
	background.Wait()

	t.Logf("shutdown under load: %d held streams completed OK after SIGTERM, %d later RPCs refused with UNAVAILABLE, exit code %d",
		ok.Load(), refused.Load(), code)
	if len(problems) > 0 {
		t.Errorf("RPCs failed around the shutdown:\n%v", problems)
	}
	if ok.Load() != loadClients {
		t.Errorf("%d of %d in-flight streams completed", ok.Load(), loadClients)
	}
	if code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	if log := p.log(); strings.Contains(log, "shutdown timeout reached") || strings.Contains(log, "panic") {
		t.Errorf("the shutdown was not clean:\n%s", log)
	}
}
