// Command loadbench measures the sidecar over gRPC against the transport's
// limit on the same machine.
//
// It builds and starts two server processes on loopback: the real
// ptc-sidecar binary (A) and bench/cmd/echoserver (B), a gRPC server of the
// same grpc-go that reads the request bytes without decoding them and
// answers with a response of the sidecar's response size. For each
// workload and each concurrency level it alternates timed phases A, B, A,
// B, ... (so that a change in the machine's load hits both sides alike),
// sending the same marshalled request bytes to both, and prints per phase
// and as medians over the rounds:
//
//   - requests per second, p50 and p99 latency, seen by the clients;
//   - CPU per request of the server process (utime+stime from /proc/PID/stat);
//   - the peak RSS of the server process (VmHWM from /proc/PID/status);
//   - the ratios A/B, and the sidecar's CPU per request beyond echo's (A-B):
//     what the sidecar's own work costs on top of the transport.
//
// Before any load it reports each server's idle RSS and the latency of the
// sidecar's first ToMessages call. Workloads: "tomessages" (the 20-turn
// fixture of bench/fixture) and "evalturn" (a typical data-exploring
// program). The run is bounded: phases of -duration each, at most
// -max-requests timed calls per phase.
//
// The sidecar runs with its default flags plus those of -server-args (it
// must keep logging at info, where the harness reads its address), e.g. to
// compare stream limits:
//
//	go run ./bench/cmd/loadbench -clients 1,8,64 -duration 3s -rounds 3
//	go run ./bench/cmd/loadbench -workloads tomessages -clients 64 -server-args '--max-concurrent-streams 8'
//
// With -pool it measures a pool instead (pool.go): -replicas sidecars, the
// memo's hit rate and their CPU per call under -runs concurrent agent runs,
// spread round-robin against kept on one replica each:
//
//	go run ./bench/cmd/loadbench -pool -runs 20 -turns 12 -rounds 5
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/ptc-sidecar/ptc-sidecar/bench/fixture"
	"github.com/ptc-sidecar/ptc-sidecar/bench/rawcodec"
	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

type config struct {
	clients     []int
	workloads   []string
	duration    time.Duration
	warmup      time.Duration
	rounds      int
	conns       int
	maxRequests int
	sidecarBin  string
	baseline    string
	serverArgs  []string
	// The pool measurement (see pool.go) instead of the comparison.
	pool                  bool
	replicas, runs, turns int
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "loadbench: %v\n", err)
		os.Exit(2)
	}
	run := run
	if cfg.pool {
		run = runPool
	}
	if err := run(context.Background(), cfg, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "loadbench: %v\n", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (config, error) {
	fs := flag.NewFlagSet("loadbench", flag.ContinueOnError)
	clients := fs.String("clients", "1,8,64", "comma-separated concurrency `levels` (callers in flight)")
	workloads := fs.String("workloads", "tomessages,evalturn", "comma-separated `workloads`: tomessages, evalturn")
	cfg := config{}
	fs.DurationVar(&cfg.duration, "duration", 3*time.Second, "timed `duration` of each phase")
	fs.DurationVar(&cfg.warmup, "warmup", 500*time.Millisecond, "untimed warm-up before each phase")
	fs.IntVar(&cfg.rounds, "rounds", 3, "A/B alternations per workload and level")
	fs.IntVar(&cfg.conns, "conns", 1, "client connections per server (0: one per caller)")
	fs.IntVar(&cfg.maxRequests, "max-requests", 500_000, "most timed calls per phase")
	fs.StringVar(&cfg.sidecarBin, "sidecar", "", "prebuilt ptc-sidecar `binary` (empty: go build ./cmd/ptc-sidecar)")
	fs.BoolVar(&cfg.pool, "pool", false, "measure the memo and CPU per call of -replicas replicas, balanced round-robin against by run (ignores -clients, -workloads, -duration)")
	fs.IntVar(&cfg.replicas, "replicas", 3, "replicas of the pool measurement")
	fs.IntVar(&cfg.runs, "runs", 20, "concurrent agent runs of the pool measurement")
	fs.IntVar(&cfg.turns, "turns", 12, "turns of each run of the pool measurement")
	fs.StringVar(&cfg.baseline, "baseline", "", "a second ptc-sidecar `binary` (another release) to run in place of the echo server, with the same requests and flags")
	serverArgs := fs.String("server-args", "", "extra space-separated `flags` for 'ptc-sidecar serve', e.g. '--max-concurrent-streams 8'")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	for s := range strings.SplitSeq(*clients, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 1024 {
			return cfg, fmt.Errorf("-clients: want levels from 1 to 1024, got %q", s)
		}
		cfg.clients = append(cfg.clients, n)
	}
	for w := range strings.SplitSeq(*workloads, ",") {
		w = strings.TrimSpace(w)
		if w != "tomessages" && w != "evalturn" {
			return cfg, fmt.Errorf("-workloads: unknown workload %q (want tomessages, evalturn)", w)
		}
		cfg.workloads = append(cfg.workloads, w)
	}
	switch {
	case cfg.duration <= 0 || cfg.duration > 5*time.Minute:
		return cfg, fmt.Errorf("-duration: want 0 < d <= 5m, got %v", cfg.duration)
	case cfg.warmup < 0 || cfg.warmup > time.Minute:
		return cfg, fmt.Errorf("-warmup: want 0 <= d <= 1m, got %v", cfg.warmup)
	case cfg.rounds < 1 || cfg.rounds > 100:
		return cfg, fmt.Errorf("-rounds: want 1 to 100, got %d", cfg.rounds)
	case cfg.conns < 0 || cfg.conns > 1024:
		return cfg, fmt.Errorf("-conns: want 0 to 1024, got %d", cfg.conns)
	case cfg.replicas < 1 || cfg.replicas > 16:
		return cfg, fmt.Errorf("-replicas: want 1 to 16, got %d", cfg.replicas)
	case cfg.runs < 1 || cfg.runs > 1024:
		return cfg, fmt.Errorf("-runs: want 1 to 1024, got %d", cfg.runs)
	case cfg.turns < 1 || cfg.turns > 100:
		return cfg, fmt.Errorf("-turns: want 1 to 100, got %d", cfg.turns)
	case cfg.maxRequests < 1:
		return cfg, fmt.Errorf("-max-requests: want at least 1, got %d", cfg.maxRequests)
	}
	cfg.serverArgs = strings.Fields(*serverArgs)
	return cfg, nil
}

// workload is a request for the sidecar, marshalled once, and what its
// answer must look like.
type workload struct {
	name    string
	method  string
	request proto.Message
	check   func(cc *grpc.ClientConn) (respBytes int, err error)
}

func workloadOf(name string) workload {
	switch name {
	case "evalturn":
		req := fixture.EvalTurn()
		return workload{name, ptcsidecarv1.SidecarService_EvalTurn_FullMethodName, req, func(cc *grpc.ClientConn) (int, error) {
			resp, err := ptcsidecarv1.NewSidecarServiceClient(cc).EvalTurn(context.Background(), req)
			if err != nil {
				return 0, err
			}
			if t := resp.GetTurn(); t == nil || !t.GetSuccess() || !t.GetReturned() {
				return 0, fmt.Errorf("evalturn fixture did not return successfully: %v", resp)
			}
			return proto.Size(resp), nil
		}}
	default:
		req := fixture.ToMessages()
		return workload{"tomessages", ptcsidecarv1.SidecarService_ToMessages_FullMethodName, req, func(cc *grpc.ClientConn) (int, error) {
			resp, err := ptcsidecarv1.NewSidecarServiceClient(cc).ToMessages(context.Background(), req)
			if err != nil {
				return 0, err
			}
			if len(resp.GetMessages()) != 2 || resp.GetStats().GetTurnsCompressed() != 20 {
				return 0, fmt.Errorf("tomessages fixture: want [SYSTEM, USER] over 20 turns, got %d messages, stats %v", len(resp.GetMessages()), resp.GetStats())
			}
			return proto.Size(resp), nil
		}}
	}
}

// run builds and starts both servers and writes the report to out.
func run(ctx context.Context, cfg config, out io.Writer) error {
	dir, err := os.MkdirTemp("", "loadbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	sidecarBin, err := sidecarBinary(cfg, dir)
	if err != nil {
		return err
	}
	echoBin := filepath.Join(dir, "echoserver")
	if cfg.baseline == "" {
		if err := goBuild(echoBin, modulePath+"/bench/cmd/echoserver"); err != nil {
			return err
		}
	}

	sidecar, err := start(ctx, "ptc-sidecar", sidecarBin, append([]string{"serve", "--listen", "127.0.0.1:0"}, cfg.serverArgs...)...)
	if err != nil {
		return err
	}
	defer sidecar.stop()
	var echo *process
	if cfg.baseline != "" {
		// Two releases side by side: B answers as A does, so the ratios
		// compare the sidecar's whole cost, not its cost beyond echo's.
		echo, err = start(ctx, "baseline", cfg.baseline, append([]string{"serve", "--listen", "127.0.0.1:0"}, cfg.serverArgs...)...)
	} else {
		echo, err = start(ctx, "echoserver", echoBin, "--listen", "127.0.0.1:0")
	}
	if err != nil {
		return err
	}
	defer echo.stop()

	printMachine(out)
	time.Sleep(500 * time.Millisecond) // let both runtimes settle before reading idle RSS
	for _, p := range []*process{sidecar, echo} {
		rss, _, err := p.memory()
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "idle RSS %-12s %6.1f MB\n", p.name, mb(rss))
	}

	checkConn, err := grpc.NewClient(sidecar.addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20), grpc.MaxCallSendMsgSize(64<<20)))
	if err != nil {
		return err
	}
	defer checkConn.Close()

	for i, name := range cfg.workloads {
		w := workloadOf(name)
		reqBytes, err := proto.Marshal(w.request)
		if err != nil {
			return err
		}
		first := time.Now()
		respBytes, err := w.check(checkConn)
		if err != nil {
			return err
		}
		if i == 0 {
			took := time.Since(first)
			rss, _, err := sidecar.memory()
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "first call of the process (%s): %v; RSS after it %.1f MB\n", name, took.Round(10*time.Microsecond), mb(rss))
		}
		fmt.Fprintf(out, "\nworkload %s: request %d bytes, response %d bytes\n", name, len(reqBytes), respBytes)
		a := &target{proc: sidecar, method: w.method}
		b := &target{proc: echo, method: rawcodec.EchoFullMethod, md: metadata.Pairs(rawcodec.ResponseBytesHeader, strconv.Itoa(respBytes))}
		if cfg.baseline != "" {
			b = &target{proc: echo, method: w.method}
		}
		for _, clients := range cfg.clients {
			if err := compare(ctx, out, cfg, reqBytes, clients, a, b); err != nil {
				return fmt.Errorf("%s with %d clients: %w", name, clients, err)
			}
		}
	}
	printLoad(out, "at the end")
	return nil
}

// compare runs the A/B rounds of one workload at one concurrency level and
// prints them.
func compare(ctx context.Context, out io.Writer, cfg config, req []byte, clients int, a, b *target) error {
	conns := cfg.conns
	if conns == 0 {
		conns = clients
	}
	for _, t := range []*target{a, b} {
		if err := t.dial(conns); err != nil {
			return err
		}
		defer t.close()
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "clients=%d conns=%d\tround\trps\tp50\tp99\tcpu/req\tpeak RSS\terrors\t\n", clients, conns)
	var as, bs []phase
	for round := 1; round <= cfg.rounds; round++ {
		for _, t := range []*target{a, b} {
			ph, err := t.run(ctx, req, clients, cfg.warmup, cfg.duration, cfg.maxRequests)
			if err != nil {
				return err
			}
			if ph.errors > 0 {
				fmt.Fprintf(os.Stderr, "%s: %d failed calls, first: %v\n", t.proc.name, ph.errors, ph.firstErr)
			}
			fmt.Fprintf(tw, "%s\t%d\t%.0f\t%s\t%s\t%s\t%.1f MB\t%d\t\n", t.proc.name, round, ph.rps(),
				ms(ph.p50), ms(ph.p99), ms(ph.cpuPerRequest()), mb(ph.peakRSS), ph.errors)
			if t == a {
				as = append(as, ph)
			} else {
				bs = append(bs, ph)
			}
		}
	}
	tw.Flush()
	// spread is the median (min-max) over the rounds of f of the round's
	// sidecar and echo phases.
	spread := func(format string, f func(a, b phase) float64) string {
		var vs []float64
		for i := range as {
			vs = append(vs, f(as[i], bs[i]))
		}
		slices.Sort(vs)
		return fmt.Sprintf(format+" ("+format+"-"+format+")", vs[len(vs)/2], vs[0], vs[len(vs)-1])
	}
	ratio := func(f func(phase) float64) string {
		return spread("%.2f", func(a, b phase) float64 { return f(a) / f(b) })
	}
	fmt.Fprintf(out, "ratios sidecar/%s, median (min-max) of %d rounds: rps %s, p50 %s, p99 %s, cpu/req %s; sidecar peak RSS %.1f MB\n",
		b.proc.name, cfg.rounds,
		ratio(func(p phase) float64 { return p.rps() }),
		ratio(func(p phase) float64 { return float64(p.p50) }),
		ratio(func(p phase) float64 { return float64(p.p99) }),
		ratio(func(p phase) float64 { return float64(p.cpuPerRequest()) }),
		mb(slices.MaxFunc(as, func(x, y phase) int { return int(x.peakRSS - y.peakRSS) }).peakRSS))
	// What the sidecar's own work costs: its CPU per request less what
	// the transport alone costs the echo server for the same bytes.
	fmt.Fprintf(out, "sidecar CPU per request beyond %s, median (min-max) of %d rounds: %s ms; %s's own %s ms\n",
		b.proc.name, cfg.rounds,
		spread("%.3f", func(a, b phase) float64 { return msf(a.cpuPerRequest() - b.cpuPerRequest()) }),
		b.proc.name, spread("%.3f", func(_, b phase) float64 { return msf(b.cpuPerRequest()) }))
	printLoad(out, "")
	return nil
}

// sidecarBinary is -sidecar, else the sidecar built into dir.
func sidecarBinary(cfg config, dir string) (string, error) {
	if cfg.sidecarBin != "" {
		return cfg.sidecarBin, nil
	}
	bin := filepath.Join(dir, "ptc-sidecar")
	return bin, goBuild(bin, modulePath+"/cmd/ptc-sidecar")
}

// modulePath prefixes the packages the harness builds, so that it runs
// from any directory of the module (its own test runs in its package's).
const modulePath = "github.com/ptc-sidecar/ptc-sidecar"

// goBuild builds pkg as `make build` does the binary that ships: static,
// without grpc-go's x/net/trace (grpcnotrace),
// stripped, with trimmed paths, so that its size and idle RSS are the
// shipped binary's.
func goBuild(out, pkg string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-tags", "grpcnotrace", "-ldflags=-s -w", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s (run loadbench inside the module): %w", pkg, err)
	}
	return nil
}

func printMachine(out io.Writer) {
	model := "unknown"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	fmt.Fprintf(out, "machine: %d CPUs, %s, %s/%s, %s, %s\n", runtime.NumCPU(), model, runtime.GOOS, runtime.GOARCH,
		runtime.Version(), time.Now().UTC().Format(time.RFC3339))
	printLoad(out, "at start")
}

func printLoad(out io.Writer, when string) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return
	}
	f := strings.Fields(string(b))
	if len(f) >= 3 {
		fmt.Fprintf(out, "load average %s %s %s %s\n", f[0], f[1], f[2], when)
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", msf(d)) }

func msf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func mb(b int64) float64 { return float64(b) / (1 << 20) }
