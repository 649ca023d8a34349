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

// TestRenderRSSPeakUnderLoad: a ToMessages request of a tool signature of
// 250,000 parameters (3.9 MB, rendered as a tool's JSON schema), sent three
// times alone and three times with four busy threads a core to one
// server. Each render's garbage is collected as it ends, so the next does
// not build on top of it: the peak RSS over the idle server, least of
// three servers, stays within 16 times the request and 32 MiB whatever
// the load (it had reached +103 MiB against 95 under such a hog).
func TestRenderRSSPeakUnderLoad(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "peak RSS, which the race detector's shadow memory distorts")
	const name = "a tool signature of 250000 parameters, cache-stable, tool_call"
	var signature attack
	for _, a := range programAttacks(5_000_000) {
		if a.name == name {
			signature = a.attack
		}
	}
	if signature.req == nil {
		t.Fatalf("no attack %q", name)
	}
	least, size := int64(1<<62), 0
	var peaks []int64
	for range 3 {
		p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
		before := peakRSSBytes(t, p.cmd.Process.Pid)
		for _, perCore := range []int{0, 4} {
			stop := spinCores(perCore)
			for range 3 {
				out, n := sendAttack(t, p, "gRPC", signature)
				if out.got != signature.expect {
					t.Errorf("with %d busy threads a core: %s (%.200s), want %s", perCore, out.got, out.message, signature.expect)
				}
				size = n
			}
			stop()
		}
		peak := peakRSSBytes(t, p.cmd.Process.Pid) - before
		peaks, least = append(peaks, peak/mib), min(least, peak)
		p.terminate()
	}
	bound := int64(kindRendered.grpc*float64(size)) + attackOverhead
	t.Logf("a %d-byte request: peak RSS +%d MiB, least of three %v (bound %d MiB)", size, least/mib, peaks, bound/mib)
	if least > bound {
		t.Errorf("peak RSS rose %d MiB, over 16 times the request plus %d MiB", least/mib, attackOverhead/mib)
	}
}
