package main_test

// What a request may read does not move with its timeout or with what
// other callers do (docs/RELIABILITY.md, "A read budget that does not
// move with the clock or the load"): a value a turn emitted under a long
// timeout is read back at a short one, a value past what any request may
// read is refused the same at every timeout, and a value of source reads
// the same with every evaluation slot taken as alone.

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// shortTimeoutMs is the timeout of the requests that send values back:
// a tenth of the harness's, as a client with a short default asks.
const shortTimeoutMs = 100

func readBudgetAttacks() []inputAttack {
	cpu := 2 * (evalTimeoutMs*time.Millisecond + 250*time.Millisecond)
	short := func() *ptcsidecarv1.Limits { return &ptcsidecarv1.Limits{TimeoutMs: shortTimeoutMs} }
	vector := func(n int, part string) string { return "[" + strings.Repeat(part+" ", n) + "]" }
	// What (vec (repeat 600000 1)) emits under the default timeout: 20 M
	// units of read work and cost, under the 24 MiB every request reads.
	emitted := vector(600_000, "1")
	eval := func(name, expect string, req func() *ptcsidecarv1.EvalTurnRequest) inputAttack {
		return inputAttack{attack{name: name, method: "EvalTurn", expect: expect, kind: kindValues, req: func() proto.Message { return req() }}, cpu}
	}
	functions := vector(2_000, "(fn [] 1)")
	return []inputAttack{
		eval("an emitted result of 600,000 tiny tokens sent back at 100 ms", "ok", func() *ptcsidecarv1.EvalTurnRequest {
			return &ptcsidecarv1.EvalTurnRequest{Program: "(count *1)", Limits: short(), PreviousResults: []*ptcsidecarv1.Value{{Edn: emitted}}}
		}),
		eval("the same as data at 100 ms", "ok", func() *ptcsidecarv1.EvalTurnRequest {
			return &ptcsidecarv1.EvalTurnRequest{Program: "(count data/m)", Limits: short(), Data: &ptcsidecarv1.Value{Edn: "{:m " + emitted + "}"}}
		}),
		eval("the same as a prelude binding at 100 ms", "ok", func() *ptcsidecarv1.EvalTurnRequest {
			return &ptcsidecarv1.EvalTurnRequest{Program: "(count m)", Limits: short(),
				Prelude: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "m", Value: &ptcsidecarv1.Value{Edn: emitted}, Turn: 1}}}}
		}),
		eval("2,000 functions of source as an earlier result at 100 ms", "ok", func() *ptcsidecarv1.EvalTurnRequest {
			return &ptcsidecarv1.EvalTurnRequest{Program: "(count *1)", Limits: short(), PreviousResults: []*ptcsidecarv1.Value{{Edn: functions}}}
		}),
		eval("2,000,000 tiny tokens, past what any request reads, at 100 ms", "RESOURCE_EXHAUSTED", func() *ptcsidecarv1.EvalTurnRequest {
			return &ptcsidecarv1.EvalTurnRequest{Program: "(count *1)", Limits: short(), PreviousResults: []*ptcsidecarv1.Value{{Edn: vector(2_000_000, "1")}}}
		}),
		{attack{name: "2,000 functions of source as a turn's result", method: "ToMessages", expect: "ok", kind: kindValues, req: func() proto.Message {
			return &ptcsidecarv1.ToMessagesRequest{Turns: []*ptcsidecarv1.Turn{{Number: 1, Program: "(def m 1)", Success: true, Result: &ptcsidecarv1.Value{Edn: functions}}}}
		}}, cpu},
		eval("a value of source as data, then a bad tool_timeout_ms", "INVALID_ARGUMENT", func() *ptcsidecarv1.EvalTurnRequest {
			return &ptcsidecarv1.EvalTurnRequest{Program: "1", Data: &ptcsidecarv1.Value{Edn: "{:f " + functions + "}"},
				Limits: &ptcsidecarv1.Limits{TimeoutMs: evalTimeoutMs, ToolTimeoutMs: -1}}
		}),
	}
}

// TestAttacksReadBudget sends each read-budget attack three times over
// each listener to a server of its own (runInputAttack).
func TestAttacksReadBudget(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, readBudgetAttacks())
}

// TestReadBudgetOutcomeWithEverySlotTaken sends each read-budget attack
// that needs no evaluation slot (every one but an evaluation, which
// waits for one as --eval-queue-wait says) three times alone and three
// times while eight callers keep the server's two evaluation slots busy
// and its queue full, alternating the listeners, to a server that
// remembers nothing and to one that remembers: the same outcome, the
// expected one, every time. Before, reading a value of source waited for
// a slot and was refused RESOURCE_EXHAUSTED under the load, where alone
// (or remembered) it read.
func TestReadBudgetOutcomeWithEverySlotTaken(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "outcomes under load, which the race detector's slowdown would hand to the clock")
	for _, memo := range []string{"none", "64MiB"} {
		p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--memo-bytes", memo,
			"--max-concurrent-evals", "2", "--eval-queue-wait", "100ms", "--max-steps", "none")
		for _, a := range readBudgetAttacks() {
			if a.method == "EvalTurn" && a.expect == "ok" {
				continue
			}
			t.Run(a.name+"/memo "+memo, func(t *testing.T) {
				var got []string
				sendThrice := func(when string) {
					for _, listener := range []string{"gRPC", "HTTP", "gRPC"} {
						out, _ := sendAttack(t, p, listener, a.attack)
						got = append(got, when+" over "+listener+": "+out.got)
						if out.got != a.expect {
							t.Errorf("%s, over %s: %s (%.200s), want %s", when, listener, out.got, out.message, a.expect)
						}
					}
				}
				sendThrice("alone")
				stop := takeEverySlot(p, 8)
				defer stop()
				sendThrice("with every slot taken")
				t.Log(got)
			})
		}
	}
}

// takeEverySlot keeps callers evaluating a loop that runs to its 300 ms
// timeout, each sending the next as its last ends, until stop.
func takeEverySlot(p *process, callers int) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	client := ptcsidecarv1.NewSidecarServiceClient(p.client())
	req := &ptcsidecarv1.EvalTurnRequest{Program: "(loop [i 0] (recur (inc i)))", Limits: &ptcsidecarv1.Limits{TimeoutMs: 300}}
	for range callers {
		wg.Go(func() {
			for ctx.Err() == nil {
				_, _ = client.EvalTurn(ctx, req) // the load's outcome is not judged
			}
		})
	}
	time.Sleep(100 * time.Millisecond) // every slot taken, callers queued
	return func() { cancel(); wg.Wait() }
}
