package main

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRunReport runs the whole harness, briefly: it builds and starts the
// real ptc-sidecar and echo servers, drives both workloads with one caller
// for one round of 300 ms, and checks that the report has the lines a
// reader relies on, with plausible numbers.
func TestRunReport(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts two servers")
	}
	cfg, err := parseFlags([]string{"-clients", "1", "-duration", "300ms", "-warmup", "100ms", "-rounds", "1",
		"-server-args", "--max-concurrent-streams 4"})
	if err != nil {
		t.Fatal(err)
	}
	// No deadline of its own: on a busy machine the builds and the
	// servers' start take what they take, and go test's -timeout is the
	// backstop of a run that hangs.
	var out bytes.Buffer
	if err := run(t.Context(), cfg, &out); err != nil {
		t.Fatalf("run: %v\nreport so far:\n%s", err, &out)
	}
	report := out.String()
	t.Logf("report:\n%s", report)

	number := func(s string) float64 {
		t.Helper()
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return f
	}
	for _, server := range []string{"ptc-sidecar", "echoserver"} {
		m := regexp.MustCompile(`(?m)^idle RSS ` + server + ` +([0-9.]+) MB$`).FindStringSubmatch(report)
		if m == nil || number(m[1]) < 1 || number(m[1]) > 500 {
			t.Errorf("idle RSS of %s: got %v, want a line with 1 to 500 MB", server, m)
		}
	}
	if !regexp.MustCompile(`(?m)^first call of the process \(tomessages\): [0-9.]+m?s; RSS after it [0-9.]+ MB$`).MatchString(report) {
		t.Error("no first-call line")
	}

	// One block per workload: the request size, one row per server and
	// round, the ratios and the CPU beyond echo.
	block := regexp.MustCompile(`(?s)workload (\w+): request (\d+) bytes, response (\d+) bytes\n` +
		`.*?clients=1 conns=1 +round +rps +p50 +p99 +cpu/req +peak RSS +errors *\n` +
		` *ptc-sidecar +1 +(\d+) +([0-9.]+) ms +([0-9.]+) ms +([0-9.]+) ms +([0-9.]+) MB +(\d+) *\n` +
		` *echoserver +1 +(\d+) +([0-9.]+) ms +([0-9.]+) ms +([0-9.]+) ms +([0-9.]+) MB +(\d+) *\n` +
		`ratios sidecar/echoserver, median \(min-max\) of 1 rounds: rps ([0-9.]+) \([0-9.]+-[0-9.]+\), p50 ([0-9.]+) .*?; sidecar peak RSS ([0-9.]+) MB\n` +
		`sidecar CPU per request beyond echoserver, median \(min-max\) of 1 rounds: (-?[0-9.]+) \(-?[0-9.]+--?[0-9.]+\) ms; echoserver's own ([0-9.]+) \(`)
	blocks := block.FindAllStringSubmatch(report, -1)
	if len(blocks) != 2 || blocks[0][1] != "tomessages" || blocks[1][1] != "evalturn" {
		t.Fatalf("want a tomessages and an evalturn block, found %d", len(blocks))
	}
	for _, b := range blocks {
		name := b[1]
		if number(b[2]) < 1000 || number(b[3]) < 1000 {
			t.Errorf("%s: request %s bytes, response %s bytes; the fixtures are larger", name, b[2], b[3])
		}
		for i, server := range []string{"ptc-sidecar", "echoserver"} {
			row := b[4+6*i : 10+6*i]
			rps, p50, p99, cpu, peak, errs := number(row[0]), number(row[1]), number(row[2]), number(row[3]), number(row[4]), number(row[5])
			if rps <= 0 || p50 <= 0 || p99 < p50 || peak < 1 || errs != 0 {
				t.Errorf("%s %s: rps %v, p50 %v ms, p99 %v ms, peak RSS %v MB, errors %v", name, server, rps, p50, p99, peak, errs)
			}
			if server == "ptc-sidecar" && cpu <= 0 {
				t.Errorf("%s: sidecar CPU per request %v ms, want > 0", name, cpu)
			}
		}
		if r := number(b[16]); r <= 0 {
			t.Errorf("%s: rps ratio %v", name, r)
		}
		if r := number(b[17]); r <= 0 {
			t.Errorf("%s: p50 ratio %v", name, r)
		}
		if number(b[18]) != number(b[8]) {
			t.Errorf("%s: ratio line's sidecar peak RSS %s MB, its row's %s MB", name, b[18], b[8])
		}
		// The CPU beyond echo is the difference of the two rows' CPU
		// per request (the printed values are rounded to 3 decimals).
		if beyond, want := number(b[19]), number(b[7])-number(b[13]); beyond-want > 0.002 || want-beyond > 0.002 {
			t.Errorf("%s: CPU beyond echo %v ms, rows say %v ms", name, beyond, want)
		}
		if number(b[20]) != number(b[13]) {
			t.Errorf("%s: echo's own CPU %s ms, its row's %s ms", name, b[20], b[13])
		}
	}
}

// TestPoolReport runs the pool measurement briefly: three replicas, two
// runs of three turns, one round of each balancing. The memo's hit rates
// come from the replicas' counters, so they are checked as the counts
// they are: a run kept on one replica reads each of its programs once
// (two hits of three calls), and round-robin can only do as well or worse.
func TestPoolReport(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts three servers twice")
	}
	cfg, err := parseFlags([]string{"-pool", "-runs", "2", "-turns", "3", "-rounds", "1"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := runPool(t.Context(), cfg, &out); err != nil {
		t.Fatalf("runPool: %v\nreport so far:\n%s", err, &out)
	}
	report := out.String()
	t.Logf("report:\n%s", report)
	rows := regexp.MustCompile(`(?m)^ *(round-robin|by-run) +1 +(\d+) +([0-9.]+)% +([0-9.]+)% +([0-9.]+)% +([0-9.]+)% +([0-9.]+) ms +(\d+)-(\d+) *$`).FindAllStringSubmatch(report, -1)
	if len(rows) != 2 {
		t.Fatalf("want a round-robin and a by-run row, found %d", len(rows))
	}
	rate := map[string]float64{}
	for _, r := range rows {
		calls, _ := strconv.Atoi(r[2])
		programs, _ := strconv.ParseFloat(r[5], 64)
		cpu, _ := strconv.ParseFloat(r[7], 64)
		idlest, _ := strconv.Atoi(r[8])
		busiest, _ := strconv.Atoi(r[9])
		// Per turn: three EvalTurn calls (two tool calls answered by replay) and one ToMessages.
		if calls != 2*3*4 || cpu <= 0 || idlest > busiest || busiest > calls {
			t.Errorf("%s: calls %d (want 24), CPU per call %v ms, calls per replica %d-%d", r[1], calls, cpu, idlest, busiest)
		}
		rate[r[1]] = programs
	}
	if rate["by-run"] != 66.7 || rate["round-robin"] > rate["by-run"] {
		t.Errorf("programs hit rate: by-run %v%% (want 66.7: each read once of three calls), round-robin %v%%", rate["by-run"], rate["round-robin"])
	}
	if !strings.Contains(report, "by-run, median (min-max) of 1 rounds: memo hit rate") {
		t.Error("no by-run summary line")
	}
}
