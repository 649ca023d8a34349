package main_test

// A fifth pass of attacks of issue 33's classes, aimed at big integers
// (their conversion to and from decimal text is superlinear in the
// digits), at what the fourth pass left open (a value of a million
// entries read outside the evaluation's clock) and at the headers a
// caller sends. Each is sent three times over each listener to a server
// of its own and judged as the input attacks are (runInputAttack).

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// bigDigits is an integer of n decimal digits, none of them 0, the same
// for every call with the same n and seed.
func bigDigits(n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 5))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('1' + r.IntN(9))
	}
	return string(b)
}

// fifthPassAttacks are the attacks of the fifth pass.
func fifthPassAttacks() []inputAttack {
	evalCPU := 2 * (evalTimeoutMs*time.Millisecond + 250*time.Millisecond)
	prog, budgetedProg := programAttack, budgetedAttack
	value := func(name, expect, program string, v *ptcsidecarv1.Value) inputAttack {
		return inputAttack{attack{name: name, method: "EvalTurn", expect: expect, kind: kindValues, req: func() proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{Program: program, Limits: evalLimits(), PreviousResults: []*ptcsidecarv1.Value{v}}
		}}, evalCPU}
	}
	data := func(name, expect, program string, v *ptcsidecarv1.Value) inputAttack {
		return inputAttack{attack{name: name, method: "EvalTurn", expect: expect, kind: kindValues, req: func() proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{Program: program, Limits: evalLimits(), Data: v}
		}}, evalCPU}
	}
	big := bigDigits(100_000, 1)
	// 150 of them are 15 MB: 2-3 s of conversion, past the 1 s timeout
	// however loaded the machine.
	manyBig := strings.TrimSuffix(strings.Repeat(big+" ", 150), " ")
	const square = `(fn [x] (*' x x))`
	return []inputAttack{
		// Reading: the clock starts when the request's work does.
		value("a map of a million keys as an earlier result, a 1 s timeout", "RESOURCE_EXHAUSTED", "(count *1)",
			&ptcsidecarv1.Value{Edn: "{" + wideRecord(1_000_000)[len("#user.W{"):]}),
		value("a record of a million fields as an earlier result, a 1 s timeout", "RESOURCE_EXHAUSTED", "(count *1)",
			&ptcsidecarv1.Value{Edn: wideRecord(1_000_000)}),
		value("150 integers of 100,000 digits as an earlier result (EDN)", "RESOURCE_EXHAUSTED", "(count *1)",
			&ptcsidecarv1.Value{Edn: "[" + manyBig + "]"}),
		data("150 integers of 100,000 digits as data (JSON)", "RESOURCE_EXHAUSTED", "(count data/xs)",
			&ptcsidecarv1.Value{Json: `{"xs": [` + strings.ReplaceAll(manyBig, " ", ",") + `]}`}),
		prog("a program of 150 integer literals of 100,000 digits", "failed", "(count ["+manyBig+"])"),
		// Big integers built, converted and kept.
		budgetedProg("bigint of a 100,000-digit string, 1,000 times", "failed", `(let [s "`+big+`"] (dotimes [i 1000] (bigint s)) 1)`),
		budgetedProg("biginteger of a 50,000-digit string, 1,000 times", "failed", `(let [s "`+big[:50_000]+`"] (dotimes [i 1000] (biginteger s)) 1)`),
		budgetedProg("*' squaring 30 times", "failed", "(count (str (nth (iterate "+square+" 3N) 30)))"),
		budgetedProg("the product of 1 to 100,000 with *'", "failed", `(count (str (reduce *' 1 (range 1 100000))))`),
		budgetedProg("str of a 38,000-digit integer, 100,000 times", "failed", "(let [x (nth (iterate "+square+" 3N) 16)] (dotimes [i 100000] (str x)) 1)"),
		budgetedProg("format %d of a 9,000-digit biginteger, 100,000 times", "failed", `(let [x (biginteger (reduce *' 1N (range 1 3000)))] (dotimes [i 100000] (format "%d" x)) 1)`),
		budgetedProg("300,000 big integers as map keys", "failed", `(count (into {} (map (fn [i] [(+' 100000000000000000000N i) i]) (range 300000))))`),
		budgetedProg("quot of a 100,000-digit integer, a million times", "failed", "(let [x "+big+"N] (dotimes [i 1000000] (quot x 7)) 1)"),
		budgetedProg("bigint of the largest double, a million times", "failed", `(dotimes [i 1000000] (bigint 1.7976931348623157E308)) 1`),
		budgetedProg("big integers in every collection kind, printed", "any",
			`(let [x (nth (iterate `+square+` 3N) 12)] (count (pr-str [x #{x} {x x} (list x) (sorted-set x) (sorted-map x x) (map identity [x]) (atom x)])))`),
	}
}

// wideRecord is a record literal of n fields, :f0 0 to :f(n-1) (n-1).
func wideRecord(n int) string {
	return "#user.W{" + repeated(n, "", ":f%[1]d %[1]d ", "}")
}

// TestAttacksFifthPass sends every attack of the fifth pass three times
// over both listeners, each to a server of its own.
func TestAttacksFifthPass(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, fifthPassAttacks())
}

// TestAttackLargeHeaders: a caller's headers (gRPC metadata) are bounded
// on each listener at 1 MiB, not grpc-go's 16 MiB a stream; past it the
// call is refused and the server serves on.
func TestAttackLargeHeaders(t *testing.T) {
	skipIfShort(t)
	p := start(t, "--listen", "127.0.0.1:0")
	client := ptcsidecarv1.NewSidecarServiceClient(p.client())
	// 3 MiB of binary metadata in 3 KB values, which HPACK cannot index
	// away: each is different.
	md := metadata.MD{}
	for i := range 1000 {
		md.Append("x-pad-bin", bigDigits(3000, uint64(i)))
	}
	ctx, cancel := context.WithTimeout(metadata.NewOutgoingContext(testContext(t), md), 30*time.Second)
	defer cancel()
	_, err := client.EvalTurn(ctx, &ptcsidecarv1.EvalTurnRequest{Program: "1"})
	if code := status.Code(err); code == codes.OK {
		t.Errorf("3 MiB of headers were accepted, want a refusal")
	}
	if resp, err := client.EvalTurn(testContext(t), &ptcsidecarv1.EvalTurnRequest{Program: "(+ 1 2)"}); err != nil || resp.GetTurn().GetResult().GetEdn() != "3" {
		t.Errorf("the server does not serve after it: %v %v", resp, err)
	}
}
