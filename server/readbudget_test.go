package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// largeValueExpr is an expression of a large value of a random kind, up
// to the emit limit and past it: dense vectors of tiny tokens and of
// small collections, maps, strings of escapes, and the kinds sent as
// source (symbols, constructed keywords, regexes, functions).
func largeValueExpr(r *rand.Rand) string {
	n := 1 + r.IntN(400_000)
	parts := []string{"1", ":k", `""`, `\a`, "nil", "[]", "{}", "#{}", "1.5", "1N", "(list)"}
	switch r.IntN(9) {
	case 0:
		return fmt.Sprintf("(vec (range %d))", n)
	case 1:
		return fmt.Sprintf("(vec (repeat %d %s))", n, parts[r.IntN(len(parts))])
	case 2:
		return fmt.Sprintf("(mapv (fn [i] [i]) (range %d))", n/2)
	case 3:
		return fmt.Sprintf("(zipmap (map keyword (map str (range %d))) (range))", n/4)
	case 4:
		return fmt.Sprintf("(apply str (repeat %d \"\\n\"))", n*2)
	case 5:
		return fmt.Sprintf("(mapv (fn [i] (symbol (str \"s\" i))) (range %d))", n/20)
	case 6:
		return fmt.Sprintf("(mapv (fn [i] (keyword (str \"a b\" i))) (range %d))", n/20)
	case 7:
		return fmt.Sprintf("(vec (repeat %d (re-pattern \"a\")))", n/100)
	default:
		return fmt.Sprintf("(vec (repeat %d [%s %s]))", n/4, parts[r.IntN(len(parts))], parts[r.IntN(len(parts))])
	}
}

// TestEmittedValuesReadBackAtTheShortestTimeout is the property: every
// value a turn emits, under a long timeout, is accepted back by every
// field of the next request at the shortest timeout a request can ask
// for (1 ms), as at any other: what a request may read never falls below
// lisp.ReadWorkFloor, and a turn emits nothing that takes more to read
// back (else the turn ends emit_limit, naming why). Before, EvalTurn's
// read budget was 24 MiB a second of timeout, 24 KiB at 1 ms, and a
// result of 600,000 tiny tokens emitted under the default 5 s was refused
// RESOURCE_EXHAUSTED by every field of EvalTurn at 100 ms.
func TestEmittedValuesReadBackAtTheShortestTimeout(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 18))
	runs := 12
	if testing.Short() {
		runs = 6
	}
	cfg := DefaultConfig()
	cfg.Limits.MaxSteps, cfg.Limits.MaxAllocBytes = 10_000_000, 256<<20
	svc := New(cfg)
	shortest := &ptcsidecarv1.Limits{TimeoutMs: 1}
	emitted, refused, dear := 0, 0, 0
	for range runs {
		expr := largeValueExpr(r)
		resp, err := svc.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: "{:v " + expr + "}"})
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		turn := resp.GetTurn()
		if !turn.GetSuccess() {
			// Refused when emitted: by what it would take to read back, or
			// cost once read (validation_error), never sent and refused.
			if e := turn.GetError(); e.GetType() != "emit_limit" && e.GetType() != "validation_error" {
				t.Fatalf("%s: the program fails: %v", expr, e)
			}
			refused++
			t.Logf("%s: refused when emitted: %.120s", expr, turn.GetError().GetMessage())
			continue
		}
		emitted++
		text := turn.GetResult().GetEdn()
		if lisp.ReadWork(text, false) > 24<<10 {
			dear++ // past what 1 ms allowed before
		}
		answers, history := throughEveryFieldAt(svc, turn.GetResult(), shortest)
		// The echoed arguments come with the earlier result the program
		// makes its call with: the value twice in one request, which the
		// floor bounds together (docs/RELIABILITY.md says what is left).
		answers = slices.DeleteFunc(answers, func(a fieldAnswer) bool { return a.field == "tool_results.args" })
		sameAnswer(t, fmt.Sprintf("%s (%d bytes)", expr, len(text)), answers, history, "")
		if t.Failed() {
			t.FailNow()
		}
	}
	t.Logf("%d values emitted and read back at 1 ms (%d of them dearer than the 24 KiB a 1 ms timeout read before), %d refused when emitted", emitted, dear, refused)
	if dear < emitted/2 || refused == 0 {
		t.Errorf("%d of %d emitted values were dear to read, %d refused: the generator misses the bound", dear, emitted, refused)
	}
}

// TestReadBudgetHasAFloor: a request's values are refused by the same
// read work at every timeout up to a second, the least any request may
// read, and a value over it is refused naming that floor.
func TestReadBudgetHasAFloor(t *testing.T) {
	svc := New(DefaultConfig())
	tiny := func(n int) *ptcsidecarv1.Value { return edn("[" + strings.Repeat("1 ", n) + "]") }
	for _, ms := range []int64{1, 100, 1000} {
		limits := &ptcsidecarv1.Limits{TimeoutMs: ms}
		if _, err := svc.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: "1", Limits: limits,
			PreviousResults: []*ptcsidecarv1.Value{tiny(600_000)}}); err != nil {
			t.Errorf("600,000 tiny tokens at %d ms: %v, want read", ms, err)
		}
		_, err := svc.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: "1", Limits: limits,
			PreviousResults: []*ptcsidecarv1.Value{tiny(2_000_000)}})
		if got := answerOf(err); !strings.HasPrefix(got, "ResourceExhausted: "+readWorkRefusal) || !strings.Contains(got, "24 MiB whatever the timeout") {
			t.Errorf("2,000,000 tiny tokens at %d ms: %s, want RESOURCE_EXHAUSTED by the floor's read work", ms, got)
		}
	}
}
