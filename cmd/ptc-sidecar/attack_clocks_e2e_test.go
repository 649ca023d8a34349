package main_test

// Every attack at two clocks: each EvalTurn attack of every attack table,
// sent once with a clock no charge comes near (farClockMs) and once with a
// clock four times shorter than the one it states, as on a machine four
// times slower. An attack whose outcome the two clocks decide differently
// is decided by the clock, not by a charge: its work is charged below what
// it costs (docs/RELIABILITY.md, "Every attack at two clocks").

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// attackTable is a table of attacks under the name it is known by.
type attackTable struct {
	name    string
	attacks []attack
}

// attackTables are every attack table, at the sizes their tests send.
func attackTables() []attackTable {
	plain := func(in []inputAttack) []attack {
		out := make([]attack, len(in))
		for i, a := range in {
			out[i] = a.attack
		}
		return out
	}
	return []attackTable{
		{"requests", requestAttacks()},
		{"interpreter", interpreterAttacks()},
		{"derivations", derivationAttacks()},
		{"clocked", clockedAttacks()},
		{"reading", readAttacks()},
		{"input", plain(inputAttacks())},
		{"features", plain(featureAttacks())},
		{"red team", plain(redTeamAttacks())},
		{"fourth pass", plain(fourthPassAttacks())},
		{"fifth pass", plain(fifthPassAttacks())},
		{"sixth pass", plain(sixthPassAttacks())},
		{"seventh pass", plain(seventhPassAttacks())},
		{"eighth pass", plain(eighthPassAttacks())},
		{"ninth pass", plain(ninthPassAttacks())},
		{"tenth pass", plain(tenthPassAttacks())},
		{"eleventh pass", plain(eleventhPassAttacks())},
		{"twelfth pass", plain(twelfthPassAttacks(4_800_000))},
		{"thirteenth pass", plain(thirteenthPassAttacks())},
		{"fourteenth pass", plain(fourteenthPassAttacks(4_800_000))},
		{"fifteenth pass", plain(fifteenthPassAttacks())},
		{"sixteenth pass", plain(sixteenthPassAttacks())},
		{"seventeenth pass", plain(seventeenthPassAttacks())},
		{"eighteenth pass", plain(eighteenthPassAttacks())},
		{"nineteenth pass", plain(nineteenthPassAttacks())},
		{"twentieth pass", plain(twentiethPassAttacks())},
		{"twenty-first pass", plain(twentyFirstPassAttacks())},
		{"equality and hashing", plain(equalityAttacks())},
		{"twenty-second pass", plain(twentySecondPassAttacks())},
		{"twenty-third pass", plain(twentyThirdPassAttacks())},
		{"deep walk", plain(deepWalkAttacks())},
		{"rest chains", plain(restChainAttacks())},
		{"definitions held", plain(definitionAttacks())},
		{"read work", plain(readWorkAttacks())},
		{"read budget", plain(readBudgetAttacks())},
		{"history read work", plain(historyReadWorkAttacks())},
		{"strategy histories", plain(strategyHistoryAttacks(2000))},
		{"strategy turns", plain(strategyTurnAttacks(300))},
		{"parts", plain(partAttacks(5_000_000))},
		{"programs", plain(programAttacks(5_000_000))},
		{"scaling", plain(scalingAttacks(9000))},
	}
}

// notSwept are the attack tables attackTables leaves out, and why.
var notSwept = map[string]string{
	"decodeAttacks":     "a subset of interpreterAttacks",
	"rememberedAttacks": "a series sent to a server that remembers; the sweep remembers nothing",
	"programRows":       "builds the tables of other passes from their rows",
}

// TestEveryAttackTableIsSwept fails for a function of this package that
// returns a table of attacks and that attackTables neither calls nor
// names in notSwept: a new pass is swept at two clocks from its first run.
func TestEveryAttackTableIsSwept(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	tables := map[string]bool{}
	called := map[string]bool{}
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || fn.Type.Results == nil || len(fn.Type.Results.List) != 1 {
				continue
			}
			if result := types.ExprString(fn.Type.Results.List[0].Type); result == "[]attack" || result == "[]inputAttack" {
				tables[fn.Name.Name] = true
			}
			if fn.Name.Name == "attackTables" {
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					if call, ok := n.(*ast.CallExpr); ok {
						if id, ok := call.Fun.(*ast.Ident); ok {
							called[id.Name] = true
						}
					}
					return true
				})
			}
		}
	}
	if len(called) == 0 {
		t.Fatal("attackTables calls no function: the parse found nothing")
	}
	for name := range tables {
		if !called[name] && notSwept[name] == "" {
			t.Errorf("%s returns attacks that TestEveryAttackAtTwoClocks never sends: add it to attackTables, or to notSwept with the reason", name)
		}
	}
	for name := range notSwept {
		if !tables[name] {
			t.Errorf("notSwept names %s, which returns no attacks", name)
		}
	}
}

// evalTurnAttacks are the EvalTurn attacks of every table whose request
// can be sent at another clock, each once; fixed counts those sent as
// bytes of their own, whose clock is theirs.
func evalTurnAttacks() (attacks []attack, fixed int) {
	seen := map[string]bool{}
	for _, table := range attackTables() {
		for _, a := range table.attacks {
			if a.method != "EvalTurn" || seen[a.name] {
				continue
			}
			seen[a.name] = true
			if a.req == nil || a.wire != nil || a.json != nil {
				fixed++
				continue
			}
			a.name = table.name + ": " + a.name
			attacks = append(attacks, a)
		}
	}
	return attacks, fixed
}

// atClock is a with its evaluation timeout set to ms, its other limits
// kept.
func atClock(a attack, ms int64) attack {
	req := a.req
	a.req = func() proto.Message {
		r := proto.Clone(req()).(*ptcsidecarv1.EvalTurnRequest)
		if r.Limits == nil {
			r.Limits = &ptcsidecarv1.Limits{}
		}
		r.Limits.TimeoutMs = ms
		return r
	}
	return a
}

// followsTimeout reports whether an outcome is a refusal whose bound is
// set per second of the timeout asked for (the request's read budget):
// by design it follows the clock asked for, not the machine's speed.
func followsTimeout(out attackOutcome) bool {
	return out.got == "RESOURCE_EXHAUSTED" && strings.Contains(out.message, "limits.timeout_ms")
}

// heldAtMost is the most RSS a server of the clock sweep may hold over
// its start before an attack is sent to it.
const heldAtMost = 16 * mib

// clockRun is one sending of a clock sweep.
type clockRun struct {
	out   attackOutcome
	peak  int64 // the server's peak RSS rise over its peak at start
	bound int64
}

// sendMeasured sends a over listener with the server's peak RSS reset to
// its RSS first (clear_refs): the peak over base, the server's peak when
// it started, counts what the server holds and what this sending adds.
// What it holds may include garbage of the sendings before, so a peak
// over a's bound is measured again on a server of its own (peakAlone).
func sendMeasured(t *testing.T, p *process, listener string, a attack, base int64) clockRun {
	t.Helper()
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", p.cmd.Process.Pid), []byte("5"), 0); err != nil {
		t.Skipf("peak RSS cannot be reset: %v", err)
	}
	out, size := sendAttack(t, p, listener, a)
	return clockRun{out: out, peak: peakRSSBytes(t, p.cmd.Process.Pid) - base, bound: int64(a.kind.grpc*float64(size)) + attackOverhead + allocBudget}
}

// peakAlone is a's peak RSS rise on a server of its own started with
// args, the least of three sendings (peakOfRequest).
func peakAlone(t *testing.T, listener string, a attack, bound int64, args []string) int64 {
	t.Helper()
	p := start(t, args...)
	defer p.terminate()
	_, _, peak, _ := peakOfRequest(t, p, peakRSSBytes(t, p.cmd.Process.Pid), func(int) int64 { return bound }, func() (attackOutcome, int) {
		return sendAttack(t, p, listener, a)
	})
	return peak
}

// TestEveryAttackAtTwoClocks sends every EvalTurn attack of the attack
// tables to one server, in turn, with a ten-minute clock and with a
// quarter of the clock it states. It fails where the two outcomes differ
// while the server had CPU time for at least half the short clock (a
// starved server's timeout is the machine's, and is logged), where the
// far clock's charge took more of the server's CPU than the short clock
// (the attack's outcome is the clock's on a machine four times slower),
// or where the server's peak RSS rose past the allocation budget, the
// request's multiple and 32 MiB at either clock, the least of three
// sendings on a server of its own.
func TestEveryAttackAtTwoClocks(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "outcomes at a short clock and peak RSS, which the race detector's slowdown and shadow memory distort")
	attacks, fixed := evalTurnAttacks()
	// Nothing remembered: every sending reads its values.
	args := []string{"--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--eval-timeout", "10m", "--memo-bytes", "none"}
	p := start(t, args...)
	base := peakRSSBytes(t, p.cmd.Process.Pid)
	var differ, byTimeout, starved, measuredAlone, started int
	for _, a := range attacks {
		// A server that holds more than heldAtMost over its start (the
		// garbage of large requests it has not given back) is replaced,
		// so that the peaks measured are the attacks' own.
		if rssBytes(t, p.cmd.Process.Pid) > base+heldAtMost {
			p.terminate()
			p = start(t, args...)
			base = peakRSSBytes(t, p.cmd.Process.Pid)
			started++
		}
		listener := "gRPC"
		if a.httpOnly {
			listener = "HTTP"
		}
		short := requestTimeout(a) / 4
		clocks := []attack{atClock(a, farClockMs), atClock(a, short.Milliseconds())}
		farRun := sendMeasured(t, p, listener, clocks[0], base)
		shortRun := sendMeasured(t, p, listener, clocks[1], base)
		far, near := farRun.out, shortRun.out
		t.Logf("%-100.100s far %-18s CPU %6v +%3d MiB | %-7v %-18s CPU %6v +%3d MiB (bound %3d MiB)", a.name,
			far.got, far.cpu, farRun.peak/mib, short, near.got, near.cpu, shortRun.peak/mib, farRun.bound/mib)
		switch {
		case far.got == near.got:
			if far.got != "ok" && far.got != "timeout" && far.cpu > short {
				// The server's CPU while a request is answered includes
				// collecting the garbage of those before it: the least
				// of three sendings is the request's own.
				for range 2 {
					again, _ := sendAttack(t, p, listener, clocks[0])
					far.cpu = min(far.cpu, again.cpu)
				}
			}
			if far.got != "ok" && far.got != "timeout" && far.cpu > short {
				t.Errorf("%s: %s after %v of the server's CPU (least of three), more than its short clock %v: the clock's on a machine four times slower", a.name, far.got, far.cpu, short)
			}
		case followsTimeout(far) || followsTimeout(near):
			byTimeout++
		case near.cpu < short/2 && far.cpu <= short:
			starved++
			t.Logf("%s: %s at %v with %v of the server's CPU, %s with the far clock: the machine's load, not judged", a.name, near.got, short, near.cpu, far.got)
		default:
			differ++
			t.Errorf("%s: %s with a ten-minute clock (%v of CPU, %.150s), %s at %v (%v of CPU, %.150s)", a.name,
				far.got, far.cpu, far.message, near.got, short, near.cpu, near.message)
		}
		for i, run := range []clockRun{farRun, shortRun} {
			if run.peak <= run.bound {
				continue
			}
			measuredAlone++
			if peak := peakAlone(t, listener, clocks[i], run.bound, args); peak > run.bound {
				t.Errorf("%s at %dms: peak RSS rose %d MiB, the least of three on a server of its own, over its bound %d MiB",
					a.name, clocks[i].req().(*ptcsidecarv1.EvalTurnRequest).GetLimits().GetTimeoutMs(), peak/mib, run.bound/mib)
			} else {
				t.Logf("%s: peak RSS +%d MiB on a server of its own (+%d after other attacks), within its bound %d MiB", a.name, peak/mib, run.peak/mib, run.bound/mib)
			}
		}
		select {
		case <-p.exited:
			t.Fatalf("the server died at %s:\n%s", a.name, lastLines(p.log(), 40))
		default:
		}
	}
	t.Logf("%d EvalTurn attacks at two clocks (%d more are bytes of their own, sent at their clock by their tests): %d decided by the clock, %d refused for the timeout asked for by design, %d starved at the short clock; %d peaks measured again on a server of their own, %d servers replaced",
		len(attacks), fixed, differ, byTimeout, starved, measuredAlone, started)
}
