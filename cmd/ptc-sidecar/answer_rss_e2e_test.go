package main_test

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// TestHTTPAnswerOfTextDearToEscape: a turn whose result is 1.9 MB of
// control characters, within the emit limit as EDN, is 11.4 MB of JSON
// over HTTP (each written \u0001). Sent over each listener to a server of
// its own, three times, the least peak RSS over the idle server stays
// within the allocation budget and 32 MiB, as every evaluation's must.
func TestHTTPAnswerOfTextDearToEscape(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "peak RSS, which the race detector's shadow memory distorts")
	program := fmt.Sprintf(`(apply str (repeat 19000 "%s"))`, strings.Repeat(`\u0001`, 100))
	a := attack{name: "a result of 1.9 MB of control characters", method: "EvalTurn", expect: "ok", req: func() proto.Message {
		return &ptcsidecarv1.EvalTurnRequest{Program: program}
	}}
	for _, listener := range []string{"gRPC", "HTTP"} {
		t.Run(listener, func(t *testing.T) {
			least := int64(1 << 62)
			for range 3 {
				p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
				before := peakRSSBytes(t, p.cmd.Process.Pid)
				out, _ := sendAttack(t, p, listener, a)
				if out.got != a.expect {
					t.Fatalf("ended %s (%.200s), want %s", out.got, out.message, a.expect)
				}
				if n := len(out.turn.GetResult().GetEdn()); n < 1_900_000 {
					t.Fatalf("the result's EDN is %d bytes, want the whole 1.9 MB text", n)
				}
				least = min(least, peakRSSBytes(t, p.cmd.Process.Pid)-before)
				p.terminate()
			}
			t.Logf("peak RSS +%d MiB, least of three", least/mib)
			if bound := int64(allocBudget + attackOverhead); least > bound {
				t.Errorf("peak RSS rose %d MiB, over the allocation budget plus %d MiB", least/mib, attackOverhead/mib)
			}
		})
	}
}
