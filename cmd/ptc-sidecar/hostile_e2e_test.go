package main_test

// The hostile corpus: programs an LLM (or an attacker writing as one) could
// send to EvalTurn, each meant to escape a limit of the sandbox. Every one
// must end with the typed error its header names, inside twice the
// evaluation time limit, while the server's memory stays bounded and its
// goroutines return to where they started.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// hostileProgram is one entry of testdata/hostile.txtar.
type hostileProgram struct {
	name     string // group/name
	source   string // with {{repeat N "text"}} expanded
	expect   string // an error kind, "ok", or a gRPC code name
	limits   *ptcsidecarv1.Limits
	tools    []*ptcsidecarv1.ToolSpec
	answers  []*ptcsidecarv1.ToolResult // given up front; otherwise pending calls are answered by echoing
	data     *ptcsidecarv1.Value
	previous []*ptcsidecarv1.Value // earlier results, as EDN or as source
}

var repeatDirective = regexp.MustCompile(`\{\{repeat (\d+) "((?:[^"\\]|\\.)*)"\}\}`)

// readHostileCorpus reads the corpus, a txtar archive with a file per
// program. Header lines of each program (";; expect: ...", ";; limits: k=v
// ...", ";; tools: a b", ";; answer: name ARGS => RESULT", ";; data: EDN",
// ";; previous: TEXT") configure its request and stay in the program as
// comments.
func readHostileCorpus(t *testing.T, path string) []hostileProgram {
	t.Helper()
	archive, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var progs []hostileProgram
	for _, f := range archive.Files {
		prog := hostileProgram{name: f.Name}
		for line := range strings.Lines(string(f.Data)) {
			key, val, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(line, ";; "), "\n"), ": ")
			if !ok || !strings.HasPrefix(line, ";; ") {
				continue
			}
			switch key {
			case "expect":
				prog.expect = val
			case "tools":
				for _, n := range strings.Fields(val) {
					prog.tools = append(prog.tools, &ptcsidecarv1.ToolSpec{Name: n})
				}
			case "limits":
				prog.limits = parseLimits(t, prog.name, val)
			case "data":
				prog.data = ednValue(val)
			case "previous":
				prog.previous = append(prog.previous, ednValue(expandRepeats(t, prog.name, val)))
			case "answer":
				name, rest, _ := strings.Cut(val, " ")
				args, result, ok := strings.Cut(rest, " => ")
				if !ok {
					t.Fatalf("%s: answer %q: want NAME ARGS => RESULT", prog.name, val)
				}
				prog.answers = append(prog.answers, &ptcsidecarv1.ToolResult{Index: int32(len(prog.answers)), Name: name,
					Args: ednValue(args), Result: ednValue(result)})
			}
		}
		if prog.expect == "" {
			t.Fatalf("%s: no ;; expect: line", prog.name)
		}
		prog.source = expandRepeats(t, prog.name, string(f.Data))
		progs = append(progs, prog)
	}
	return progs
}

// expandRepeats expands the {{repeat N "text"}} directives of s.
func expandRepeats(t *testing.T, name, s string) string {
	return repeatDirective.ReplaceAllStringFunc(s, func(m string) string {
		sub := repeatDirective.FindStringSubmatch(m)
		n, _ := strconv.Atoi(sub[1])
		text, err := strconv.Unquote(`"` + sub[2] + `"`)
		if err != nil {
			t.Fatalf("%s: repeat text %q: %v", name, sub[2], err)
		}
		return strings.Repeat(text, n)
	})
}

func parseLimits(t *testing.T, name, spec string) *ptcsidecarv1.Limits {
	l := &ptcsidecarv1.Limits{}
	for _, kv := range strings.Fields(spec) {
		k, v, _ := strings.Cut(kv, "=")
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("%s: limits %q", name, kv)
		}
		switch k {
		case "max_steps":
			l.MaxSteps = n
		case "max_alloc_bytes":
			l.MaxAllocBytes = n
		case "max_depth":
			l.MaxDepth = int32(n)
		case "max_output_bytes":
			l.MaxOutputBytes = int32(n)
		case "max_tool_calls":
			l.MaxToolCalls = int32(n)
		case "timeout_ms":
			l.TimeoutMs = n
		case "max_emit_bytes":
			l.MaxEmitBytes = n
		default:
			t.Fatalf("%s: unknown limit %q", name, k)
		}
	}
	return l
}

// hostileOutcome is how one program ended.
type hostileOutcome struct {
	got     string        // error kind, "ok", or gRPC code name
	message string        // the error message, for the failure report
	slowest time.Duration // the longest single EvalTurn
	rounds  int           // EvalTurn calls, replay rounds included
}

// runHostile drives the replay protocol for one program: pending calls are
// answered by echoing their arguments, until a Turn or an RPC error.
func runHostile(t *testing.T, client ptcsidecarv1.SidecarServiceClient, p hostileProgram) hostileOutcome {
	req := &ptcsidecarv1.EvalTurnRequest{Program: p.source, Tools: p.tools, Limits: p.limits, ToolResults: p.answers, Data: p.data,
		PreviousResults: p.previous}
	var out hostileOutcome
	for out.rounds < 200 {
		out.rounds++
		began := time.Now()
		resp, err := client.EvalTurn(testContext(t), req)
		out.slowest = max(out.slowest, time.Since(began))
		if err != nil {
			st := status.Convert(err)
			out.got, out.message = strings.ToUpper(codeName(st.Code())), st.Message()
			return out
		}
		if turn := resp.GetTurn(); turn != nil {
			if turn.GetSuccess() {
				out.got = "ok"
			} else {
				out.got, out.message = turn.GetError().GetType(), turn.GetError().GetMessage()
			}
			return out
		}
		for _, c := range resp.GetPending().GetCalls() {
			req.ToolResults = append(req.ToolResults, &ptcsidecarv1.ToolResult{Index: c.GetIndex(), Name: c.GetName(), Args: c.GetArgs(), Result: c.GetArgs()})
		}
	}
	out.got = "too many replay rounds"
	return out
}

// codeName is the canonical name of a gRPC code (FAILED_PRECONDITION).
func codeName(c codes.Code) string {
	var b strings.Builder
	for i, r := range c.String() {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// evalTimeout is the server's evaluation time limit in the corpus run.
const evalTimeout = 2 * time.Second * raceSlowdown

func TestHostileCorpus(t *testing.T) {
	skipIfShort(t)
	progs := readHostileCorpus(t, filepath.Join("testdata", "hostile.txtar"))
	if len(progs) < 100 {
		t.Errorf("the corpus has %d programs, want at least 100", len(progs))
	}
	p := start(t, "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--eval-timeout", evalTimeout.String())
	client := ptcsidecarv1.NewSidecarServiceClient(p.client())
	if _, err := client.EvalTurn(testContext(t), &ptcsidecarv1.EvalTurnRequest{Program: "(+ 1 2)"}); err != nil {
		t.Fatal(err)
	}
	// The timeout group must be stopped by the clock alone. Against the
	// default step budget it races the clock, and a fast machine finishes
	// the steps first; its own server has a step ceiling out of reach.
	clock := start(t, "--listen", "127.0.0.1:0", "--eval-timeout", evalTimeout.String(), "--max-steps", "2147483647")
	clockClient := ptcsidecarv1.NewSidecarServiceClient(clock.client())
	baseline := goroutines(t, p.metricsAddr)
	startRSS := rssBytes(t, p.cmd.Process.Pid)

	var (
		mu       sync.Mutex
		peakRSS  = startRSS
		outcomes = map[string]int{}
		wg       sync.WaitGroup
		work     = make(chan hostileProgram)
	)
	const workers = 2
	for range workers {
		wg.Go(func() {
			for prog := range work {
				c, pid := client, p.cmd.Process.Pid
				if prog.expect == "timeout" {
					c, pid = clockClient, clock.cmd.Process.Pid
				}
				cpu := serverCPUTime(t, pid)
				out := runHostile(t, c, prog)
				cpu = serverCPUTime(t, pid) - cpu
				rss := rssBytes(t, p.cmd.Process.Pid)
				mu.Lock()
				peakRSS = max(peakRSS, rss)
				outcomes[out.got]++
				mu.Unlock()
				if out.got != prog.expect {
					t.Errorf("%s: ended with %s (%s), want %s", prog.name, out.got, out.message, prog.expect)
				}
				limit, allowed := evalTimeout, 2*evalTimeout
				if ms := prog.limits.GetTimeoutMs(); ms > 0 {
					// The clock is read every 1024 steps, and steps run
					// slower under the race detector.
					limit = time.Duration(ms) * time.Millisecond
					allowed = 2 * limit * raceSlowdown
				}
				// A busy machine stretches the wall clock while an
				// evaluation waits for a core; the server's CPU time
				// over the program's rounds (the other worker's calls
				// included) tells an evaluation that ran on from one
				// that waited.
				if out.slowest > allowed && cpu > allowed*time.Duration(out.rounds) {
					t.Errorf("%s: an EvalTurn took %v, more than twice its %v time limit, and the server %v of CPU time over %d rounds",
						prog.name, out.slowest, limit, cpu, out.rounds)
				}
				if testing.Verbose() {
					t.Logf("%-50s %-20s rounds=%-3d slowest=%-8v rss=%dMiB", prog.name, out.got, out.rounds, out.slowest.Round(time.Millisecond), rss>>20)
				}
			}
		})
	}
	for _, prog := range progs {
		work <- prog
	}
	close(work)
	wg.Wait()

	checkGoroutinesReturn(t, p.metricsAddr, baseline)
	t.Logf("%d hostile programs; outcomes %v; RSS %d MiB at start, peak %d MiB", len(progs), outcomes, startRSS>>20, peakRSS>>20)
	if peakRSS > maxServerRSS*raceSlowdown {
		t.Errorf("server RSS peaked at %d MiB, over the %d MiB bound", peakRSS>>20, maxServerRSS>>20)
	}
	if code := p.terminate(); code != 0 {
		t.Errorf("exit code %d after the corpus", code)
	}
	if code := clock.terminate(); code != 0 {
		t.Errorf("exit code %d of the timeout group's server", code)
	}
}

// maxServerRSS bounds the server's resident memory under hostile programs
// and load: each evaluation may charge 10 MiB, and Go's heap holds a few
// times what is live before it collects.
const maxServerRSS int64 = 512 << 20

// rssBytes reads a process's resident set size from /proc.
func rssBytes(t *testing.T, pid int) int64 { return procStatusBytes(t, pid, "VmRSS") }

// procStatusBytes reads a size in kB from a line of /proc/pid/status:
// VmRSS, or VmHWM, the peak resident set size.
func procStatusBytes(t *testing.T, pid int, key string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc on this system: %v", err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("%s line %q", key, line)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc status", key)
	return 0
}

// clockTick is a tick of /proc's CPU times (USER_HZ), 100 per second on
// every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// serverCPUTime reads the CPU time a process has used, user and system,
// all threads, from /proc/pid/stat. Tests judge a server by it, not by the
// wall clock: on a busy machine a call waits for a core, but the CPU time
// the server spends on it is its own.
func serverCPUTime(t *testing.T, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Skipf("no /proc on this system: %v", err)
	}
	// The command name, field 2, is in parentheses and may hold spaces
	// and parentheses: the fields after it are counted from the last ')'.
	end := strings.LastIndexByte(string(b), ')')
	fields := strings.Fields(string(b[end+1:]))
	if end < 0 || len(fields) < 13 {
		t.Fatalf("/proc/%d/stat: %q", pid, b)
	}
	var ticks int64
	for _, f := range fields[11:13] { // utime and stime, fields 14 and 15
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			t.Fatalf("/proc/%d/stat: %q", pid, b)
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick
}

// TestServerCPUTime: what serverCPUTime reads of this process agrees with
// what the kernel reports to it through getrusage, after a spell of work.
func TestServerCPUTime(t *testing.T) {
	own := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	before := serverCPUTime(t, os.Getpid())
	for start := own(); own()-start < 200*time.Millisecond; {
		for i := range 1_000_000 {
			_ = i * i
		}
	}
	after, want := serverCPUTime(t, os.Getpid()), own()
	if after-before < 150*time.Millisecond {
		t.Errorf("serverCPUTime rose %v over 200ms of work", after-before)
	}
	if d := want - after; d < -2*clockTick || d > 2*clockTick+50*time.Millisecond {
		t.Errorf("serverCPUTime %v, getrusage %v", after, want)
	}
}

// goroutines reads the server's go_goroutines gauge from /metrics.
func goroutines(t *testing.T, metricsAddr string) int {
	t.Helper()
	for line := range strings.Lines(scrape(t, metricsAddr)) {
		if v, ok := strings.CutPrefix(line, "go_goroutines "); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatalf("go_goroutines %q", v)
			}
			return n
		}
	}
	t.Fatal("/metrics has no go_goroutines")
	return 0
}

// checkGoroutinesReturn waits, up to hangGuard, for the server's goroutine
// count to come back to the baseline (the same client connection is still
// open).
func checkGoroutinesReturn(t *testing.T, metricsAddr string, baseline int) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		n := goroutines(t, metricsAddr)
		if n <= baseline {
			t.Logf("goroutines: baseline %d, now %d", baseline, n)
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("goroutines: %d, still above the baseline of %d after %v", n, baseline, hangGuard)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestHostilePeakRSS measures, for each program of the corpus alone on a
// fresh server, the server's peak resident memory (VmHWM) above what it
// held when it started serving: the memory one hostile evaluation costs.
// It measures rather than checks, so it runs only when
// PTC_SIDECAR_MEASURE_RSS names a group prefix ("budgets/", or "" for all).
func TestHostilePeakRSS(t *testing.T) {
	prefix, ok := os.LookupEnv("PTC_SIDECAR_MEASURE_RSS")
	if !ok {
		t.Skip("set PTC_SIDECAR_MEASURE_RSS to a group prefix to measure")
	}
	for _, prog := range readHostileCorpus(t, filepath.Join("testdata", "hostile.txtar")) {
		if !strings.HasPrefix(prog.name, prefix) {
			continue
		}
		args := []string{"--listen", "127.0.0.1:0", "--eval-timeout", evalTimeout.String()}
		if prog.expect == "timeout" {
			args = append(args, "--max-steps", "2147483647")
		}
		p := start(t, args...)
		client := ptcsidecarv1.NewSidecarServiceClient(p.client())
		before := peakRSSBytes(t, p.cmd.Process.Pid)
		out := runHostile(t, client, prog)
		t.Logf("%-45s %-14s slowest=%-8v peak RSS +%d MiB", prog.name, out.got, out.slowest.Round(time.Millisecond),
			(peakRSSBytes(t, p.cmd.Process.Pid)-before)>>20)
		p.terminate()
	}
}

// peakRSSBytes reads a process's peak resident set size (VmHWM).
func peakRSSBytes(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc on this system: %v", err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM line %q", line)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}
