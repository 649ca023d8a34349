package main_test

// Same outcome under load: attacks whose outcome a clock once decided on
// a loaded machine (a 1 s timeout reached before the charge that should
// end them, or extended-precision math charged far below its CPU), each
// sent three times with the clock far away and three times with the
// default clock while the test's own goroutines keep every core busy.
// Their charges, not the clock, must end them: the same error type every
// time (docs/RELIABILITY.md, "Same outcome under load").

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// farClockMs is a clock no charged attack comes near: ten minutes. The
// other clock is the server's default (budgetTimeoutMs), the least the
// outcomes here are stated for.
const farClockMs = 600_000

// clockedAttacks are the sample: programs a budget ends, with the error
// type it ends them with, and programs that end by themselves, ok.
func clockedAttacks() []attack {
	prog := func(name, expect, src string) attack {
		return attack{name: name, method: "EvalTurn", expect: expect, kind: kindPrograms, req: program(src)}
	}
	return []attack{
		// Ended once by the clock over HTTP at load 20-27 (TestAttacksOnTheInterpreter).
		prog("frequencies of 100,000 plain elements, 1000 times", "step_limit",
			"(let [r (vec (repeat 100000 1))] (dotimes [i 1000] (frequencies r)) :done)"),
		// Ended once by the clock (TestAttacksEighthPass).
		prog("*print-meta* over 3,000 references to one value with 2,000 items of metadata", "memory_limit",
			`(binding [*print-meta* true] (count (pr-str (let [m (with-meta [1] {:m (vec (range 2000))})] (vec (repeat 3000 m))))))`),
		// Peaked once at its RSS bound (TestAttacksSixthPass): 90 ms of CPU to
		// its limit, now 40.
		prog("sin, exp and log10 of every integer below 100,000", "step_limit",
			`(reduce + (map (fn [i] (+ (Math/sin i) (math/exp (/ i 1e5)) (math/log10 (inc i)))) (range 100000)))`),
		// pow was one step a call for 22-25 µs of extended precision: 3.1 s
		// of CPU to the step limit, the clock first at any timeout below it.
		prog("Math/pow of a fractional exponent in a loop of two million", "step_limit",
			`(loop [i 0 s 0.0] (if (< i 2000000) (recur (inc i) (+ s (Math/pow 1.0001 (+ i 0.5)))) s))`),
		prog("math/pow of an integral exponent past 1024 in a loop of two million", "step_limit",
			`(loop [i 0 s 0.0] (if (< i 2000000) (recur (inc i) (+ s (math/pow 1.0001 (+ i 2000)))) s))`),
		// log was one step per 0.5 µs of its work: 0.42 s of CPU.
		prog("Math/log in a loop of two million", "step_limit",
			`(loop [i 0 s 0.0] (if (< i 2000000) (recur (inc i) (+ s (Math/log (+ i 1.5)))) s))`),
		prog("Math/tan of the largest double, 100,000 times", "step_limit", `(dotimes [i 100000] (Math/tan 1.7976931348623157E308))`),
		prog("distinct over 100,000 maps keyed by vectors of sets", "memory_limit", `(count (distinct (map (fn [i] {[i] #{[i]}}) (range 100000))))`),
		prog("500,000 strings sorted by String/CASE_INSENSITIVE_ORDER", "step_limit", `(count (sort String/CASE_INSENSITIVE_ORDER (map str (range 500000))))`),
		// Ended once by a 1 s clock at load 10-16 (TestAttacksTenthPass):
		// 30-50 ms of CPU, and two collections of a heap that is a chain
		// of 50,000 closures, which the collector marks one link at a time.
		prog("a 50,000-deep comp printed", "depth_limit", `(let [f (reduce (fn [f _] (comp inc f)) identity (range 50000))] (str f))`),
		// An ok program's outcome is its own run time, stated for the
		// default clock: ended once by a 1 s clock under a CPU hog
		// (TestAttacksSixthPass), 50-60 ms of CPU.
		prog("a regex literal matched in a loop of 100,000", "ok", `(count (filter (fn [i] (re-find #"7" (str i))) (range 100000)))`),
	}
}

// withClock is a with its evaluation timeout set to ms.
func withClock(a attack, ms int64) attack {
	req := a.req
	a.req = func() proto.Message {
		r := proto.Clone(req()).(*ptcsidecarv1.EvalTurnRequest)
		r.Limits = &ptcsidecarv1.Limits{TimeoutMs: ms}
		return r
	}
	return a
}

// spinAllCores keeps every core busy with goroutines of the test process
// until the returned stop is called: the server's evaluations then get a
// share of a core, as on a loaded CI machine.
func spinAllCores() (stop func()) { return spinCores(1) }

// spinCores is spinAllCores with perCore busy threads for each core: the
// server then gets about one part in perCore+1 of the machine, as on a
// machine at load average perCore times its cores.
func spinCores(perCore int) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	n := perCore * runtime.NumCPU()
	was := runtime.GOMAXPROCS(max(n+1, runtime.GOMAXPROCS(0))) // room for the test's client besides
	for range n {
		wg.Go(func() {
			for !done.Load() { // the runtime preempts it for the test's client
			}
		})
	}
	return func() { done.Store(true); wg.Wait(); runtime.GOMAXPROCS(was) }
}

// TestSameOutcomeUnderLoad sends each clocked attack three times alone
// with a ten-minute clock and three times at the default clock with every
// core kept busy, alternating the listeners: the same error type, the
// expected one, each time.
func TestSameOutcomeUnderLoad(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "outcomes under load, which the race detector's slowdown would hand to the clock")
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--eval-timeout", "10m")
	for _, a := range clockedAttacks() {
		t.Run(a.name, func(t *testing.T) {
			sameOutcomeUnderLoad(t, p, withClock(a, farClockMs), "with a ten-minute clock", withClock(a, budgetTimeoutMs), 1)
		})
	}
}

// sameOutcomeUnderLoad sends alone three times, then loaded three times
// with perCore busy threads a core (spinCores), alternating the listeners,
// and expects each's outcome every time; aloneIs says how alone is sent.
func sameOutcomeUnderLoad(t *testing.T, p *process, alone attack, aloneIs string, loaded attack, perCore int) {
	t.Helper()
	listeners := []string{"gRPC", "HTTP", "gRPC"}
	var got []string
	for _, listener := range listeners {
		out, _ := sendAttack(t, p, listener, alone)
		got = append(got, aloneIs+" over "+listener+": "+out.got+" ("+out.took.Round(time.Millisecond).String()+")")
		if out.got != alone.expect {
			t.Errorf("%s over %s: %s (%.200s), want %s", aloneIs, listener, out.got, out.message, alone.expect)
		}
	}
	stop := spinCores(perCore)
	defer stop()
	for _, listener := range listeners {
		out, _ := sendAttack(t, p, listener, loaded)
		got = append(got, "loaded over "+listener+": "+out.got+" ("+out.took.Round(time.Millisecond).String()+", server CPU "+out.cpu.String()+")")
		if out.got != loaded.expect {
			t.Errorf("with %d busy threads a core, over %s: %s (%.200s), want %s", perCore, listener, out.got, out.message, loaded.expect)
		}
	}
	t.Log(got)
}

// readAttacks are requests whose values are the dearest a 1 s timeout
// lets through (read work and cost near its 24 MiB), and past it: what
// they read to is decided by that counted work, not by how fast the
// machine reads them (docs/RELIABILITY.md, "Reading decided by work").
func readAttacks() []attack {
	earlier := func(name, expect, edn string) attack {
		return attack{name: name, method: "EvalTurn", expect: expect, kind: kindValues, req: func() proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{Program: "(count *1)", Limits: evalLimits(), PreviousResults: []*ptcsidecarv1.Value{{Edn: edn}}}
		}}
	}
	vector := func(n int, part string) string { return "[" + strings.Repeat(part+" ", n) + "]" }
	return []attack{
		// 15 M units: ended once by the reading's clock at load 17-20.
		earlier("5 integers of 100,000 digits as an earlier result", "ok", vector(5, strings.Repeat("7", 100_000))),
		earlier("2 radix-36 literals of 100,000 digits as an earlier result", "ok", vector(2, "36r"+strings.Repeat("Z", 100_000))),
		earlier("600,000 tiny tokens as an earlier result", "ok", vector(600_000, "1")),
		earlier("12,000 functions of source as an earlier result", "ok", vector(12_000, "(fn [] 1)")),
		{name: "600,000 tiny tokens as data", method: "EvalTurn", expect: "ok", kind: kindValues, req: func() proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{Program: "(count data/m)", Limits: evalLimits(), Data: &ptcsidecarv1.Value{Edn: "{:m " + vector(600_000, "1") + "}"}}
		}},
		earlier("10 integers of 100,000 digits as an earlier result", "RESOURCE_EXHAUSTED", vector(10, strings.Repeat("7", 100_000))),
		earlier("2,000,000 tiny tokens as an earlier result", "RESOURCE_EXHAUSTED", vector(2_000_000, "1")),
	}
}

// TestSameReadingOutcomeUnderLoad sends each read attack three times
// alone and three times with twelve busy threads a core (a machine at
// load average 24 or more), with the 1 s timeout, alternating the
// listeners, to a server that remembers no value: the same outcome, the
// expected one, every time.
func TestSameReadingOutcomeUnderLoad(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "outcomes under load, which the race detector's slowdown would hand to the clock")
	// Nothing remembered: every sending reads its values.
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--memo-bytes", "none")
	for _, a := range readAttacks() {
		t.Run(a.name, func(t *testing.T) { sameOutcomeUnderLoad(t, p, a, "alone", a, 12) })
	}
}

// TestRSSPeakUnderLoad sends the derivation attack whose peak once moved
// past its bound with the machine's load (a million nested filters) three
// times alone and three times with four busy threads a core, over both
// listeners, to one server: memory_limit every time, and the server's
// peak RSS within the allocation budget plus 32 MiB
// (docs/RELIABILITY.md, "RSS peaks that moved with load").
func TestRSSPeakUnderLoad(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "peak RSS, which the race detector's shadow memory distorts")
	var filters attack
	for _, a := range derivationAttacks() {
		if a.name == "a million nested filters" {
			filters = a
		}
	}
	p := start(t, append([]string{"--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--max-steps", "none"}, budgetTimeoutFlag()...)...)
	before := peakRSSBytes(t, p.cmd.Process.Pid)
	sameOutcomeUnderLoad(t, p, filters, "alone", filters, 4)
	if peak, bound := peakRSSBytes(t, p.cmd.Process.Pid)-before, int64(allocBudget+attackOverhead); peak > bound {
		t.Errorf("peak RSS rose %d MiB, over the allocation budget plus %d MiB", peak/mib, attackOverhead/mib)
	} else {
		t.Logf("peak RSS +%d MiB", peak/mib)
	}
}
