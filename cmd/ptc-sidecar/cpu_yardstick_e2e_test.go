package main_test

// A bound on the server's CPU time for a request is set on a quiet
// machine, but the same work does not always take the same CPU time: with
// the machine's other core busy (two hyperthreads of one core, a shared
// cache and memory bus), it takes up to about twice as long. A sending
// within its bound passes as it is. One past it is judged again against a
// yardstick: a request of fixed work, sent alternately with it to the same
// server, so that both meet the same load. The work passes if, in one of
// three pairs, it took no more times the yardstick's CPU than its bound is
// times the yardstick's on the quiet machine. Work that grows faster than
// its input still fails: its ratio grows with it.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// yardstickQuiet is the least server CPU time of yardstickRequest, on a
// quiet machine of the kind the bounds were set on (2 cores).
const yardstickQuiet = 350 * time.Millisecond

// yardstickRequest is 2.7 MB of words of random letters, slow to
// tokenize, through token-budget. Each seed gives other words; the server
// remembers the texts it counted, so a seed sent again costs it a tenth.
func yardstickRequest(seed uint64) *ptcsidecarv1.ToMessagesRequest {
	r := rand.New(rand.NewPCG(seed, 19))
	var history []*ptcsidecarv1.ChatMessage
	for i := range 180 {
		var b strings.Builder
		for b.Len() < 15_000 {
			for range 1 + r.IntN(20) {
				b.WriteByte(byte('a' + r.IntN(26)))
			}
			b.WriteByte(' ')
		}
		history = append(history, &ptcsidecarv1.ChatMessage{Role: "user", Content: b.String()},
			&ptcsidecarv1.ChatMessage{Role: "assistant", Content: fmt.Sprintf("read %d", i)})
	}
	return &ptcsidecarv1.ToMessagesRequest{History: history,
		Options: &ptcsidecarv1.Options{Strategy: "token-budget", MaxTokens: proto.Int32(50_000), MaxResponseBytes: proto.Int32(4 * mib)}}
}

// yardstickCPU sends the yardstick, of a random seed, to p and
// returns the server's CPU time for it.
func yardstickCPU(t *testing.T, p *process) time.Duration {
	t.Helper()
	req := yardstickRequest(rand.Uint64())
	pid := p.cmd.Process.Pid
	cpu := serverCPUTime(t, pid)
	if _, err := ptcsidecarv1.NewSidecarServiceClient(p.client()).ToMessages(testContext(t), req,
		grpc.MaxCallRecvMsgSize(8*mib)); err != nil {
		t.Fatalf("the yardstick: %v", err)
	}
	return serverCPUTime(t, pid) - cpu
}

// checkCPU judges work that took least of the server's CPU against bound.
// Past it, resend sends the work again and returns the server's CPU for
// it, which is paired with the yardstick's (see the file's comment).
func checkCPU(t *testing.T, p *process, what string, least, bound time.Duration, resend func() time.Duration) {
	t.Helper()
	bound *= raceSlowdown
	if least <= bound {
		return
	}
	ratio := math.Inf(1)
	var pairs []string
	for range 3 {
		yard := yardstickCPU(t, p)
		work := resend()
		ratio = min(ratio, float64(work)/float64(max(yard, clockTick)))
		pairs = append(pairs, fmt.Sprintf("%v to the yardstick's %v", work, yard))
	}
	allowed := float64(bound) / float64(yardstickQuiet)
	t.Logf("%s: %v of the server's CPU, over %v; sent again beside the yardstick: %s", what, least, bound, strings.Join(pairs, ", "))
	if ratio > allowed {
		t.Errorf("%s took %.2f times the yardstick's CPU at least, over %.2f (%v to its %v on a quiet machine)",
			what, ratio, allowed, bound, yardstickQuiet)
	}
}

// TestYardstickDoesWork: the yardstick costs the server about the CPU time
// it is taken to cost. One that cost little (remembered, or no longer
// tokenized) would fail every bound it judges; one that cost much more
// (a slower tokenizer) would pass work far past its bound.
func TestYardstickDoesWork(t *testing.T) {
	skipIfShort(t) // seconds of tokenizing
	p := start(t, "--listen", "127.0.0.1:0")
	least := time.Duration(math.MaxInt64)
	for range 5 {
		least = min(least, yardstickCPU(t, p))
	}
	t.Logf("the yardstick: %v of the server's CPU, the least of five sendings", least)
	if least < yardstickQuiet/4 || least > 4*yardstickQuiet*raceSlowdown {
		t.Errorf("the yardstick took %v of CPU, not within four times the %v it is taken to take", least, yardstickQuiet)
	}
}
