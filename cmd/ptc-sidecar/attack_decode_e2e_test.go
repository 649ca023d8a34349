package main_test

// Decoding under load: a request whose values are refused for what they
// would cost once read must be refused the same way whatever else the
// server is doing. The reader counts what it builds against a budget
// derived from the request's bytes, never against a clock, so the answer
// cannot depend on the machine's speed.

import (
	"strings"
	"sync"
	"testing"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// decodeAttacks are the interpreter's attacks whose outcome is decided by
// decoding their values.
func decodeAttacks() []attack {
	var out []attack
	for _, a := range interpreterAttacks() {
		if a.kind == kindValues {
			out = append(out, a)
		}
	}
	return out
}

// TestDecodeAttacksUnderLoad sends each decoding attack three times at
// once while other callers keep every evaluation slot busy with programs
// that run to their timeout: all three end as the attack alone does. The
// queue wait is long enough that every request gets its slot however busy
// the machine: a request refused a slot (RESOURCE_EXHAUSTED, retryable)
// is the admission's answer to overload, not what its values decode to.
func TestDecodeAttacksUnderLoad(t *testing.T) {
	skipIfShort(t) // seconds of load per attack
	p := start(t, "--listen", "127.0.0.1:0", "--max-concurrent-evals", "2", "--eval-queue-wait", "4m")
	client := ptcsidecarv1.NewSidecarServiceClient(p.client())
	busy := &ptcsidecarv1.EvalTurnRequest{Program: "(loop [i 0] (recur (inc i)))",
		Limits: &ptcsidecarv1.Limits{TimeoutMs: 2000, MaxSteps: 2_000_000_000}}
	for _, a := range decodeAttacks() {
		t.Run(a.name, func(t *testing.T) {
			alone, _ := sendAttack(t, p, "gRPC", a)
			if !matches(a.expect, alone.got) {
				t.Fatalf("alone it ended with %s (%.300s), want %s", alone.got, alone.message, a.expect)
			}
			stop := keepBusy(t, client, busy, 2)
			got := make([]attackOutcome, 3)
			var runs sync.WaitGroup
			for i := range got {
				runs.Go(func() { got[i], _ = sendAttack(t, p, "gRPC", a) })
			}
			runs.Wait()
			stop()
			for i, out := range got {
				t.Logf("run %d under load: %s (%.120s)", i+1, out.got, out.message)
				if out.got != alone.got {
					t.Errorf("run %d under load ended with %s (%.300s), alone with %s", i+1, out.got, out.message, alone.got)
				}
				if strings.Contains(out.message, "timeout") {
					t.Errorf("run %d was judged by a clock: %.300s", i+1, out.message)
				}
			}
		})
	}
}
