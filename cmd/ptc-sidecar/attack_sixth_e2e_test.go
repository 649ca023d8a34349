package main_test

// A sixth pass of attacks of issue 33's classes, aimed at what the last
// release added (decimals, whose aligning, stripping and digit counting
// are superlinear in their digits; the Java math functions computed in
// extended precision) and at what the fifth pass left open (values whose
// reading the clock decided: long integers, source). Each piece of work
// was charged as one step, or not at all, so the outcome depended on the
// machine's load. Each attack is sent three times over each listener to a
// server of its own and judged as the input attacks are (runInputAttack):
// a limit, not the clock, must end it, the same way every time.

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// sixthPassAttacks are the attacks of the sixth pass, all with a 1 s
// timeout but those that a budget must stop (5 s).
func sixthPassAttacks() []inputAttack {
	evalCPU := 2 * (evalTimeoutMs*time.Millisecond + 250*time.Millisecond)
	prog, budgetedProg := programAttack, budgetedAttack
	value := func(name, expect, program, edn string) inputAttack {
		return inputAttack{attack{name: name, method: "EvalTurn", expect: expect, kind: kindValues, req: func() proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{Program: program, Limits: evalLimits(), PreviousResults: []*ptcsidecarv1.Value{{Edn: edn}}}
		}}, evalCPU}
	}
	data := func(name, expect, program, json string) inputAttack {
		return inputAttack{attack{name: name, method: "EvalTurn", expect: expect, kind: kindValues, req: func() proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{Program: program, Limits: evalLimits(), Data: &ptcsidecarv1.Value{Json: json}}
		}}, evalCPU}
	}
	// A decimal of 99,001 digits, the same value as 1E+99000M at a scale
	// of its own.
	const long = `(.setScale 1E+99000M 0)`
	big := bigDigits(100_000, 6)
	bigs := func(n int, sep string) string { return strings.TrimSuffix(strings.Repeat(big+sep, n), sep) }
	vector := func(n int, item string) string {
		return "[" + strings.TrimSuffix(strings.Repeat(item+" ", n), " ") + "]"
	}
	return []inputAttack{
		// Decimals: each operation on long ones charged as one step.
		prog("a 99,001-digit decimal as a map key, 10,000 times", "step_limit",
			`(let [x `+long+`] (dotimes [i 10000] (get {x 1} 1E+99000M)) 1)`),
		prog("= of two 99,001-digit decimals at different scales, 100,000 times", "step_limit",
			`(let [x `+long+`] (dotimes [i 100000] (= x 1E+99000M)) 1)`),
		prog("compare and max of long decimals, 100,000 times", "step_limit",
			`(let [x `+long+`] (dotimes [i 100000] (max x (compare x 1E+99000M))) 1)`),
		prog("quot of 1E+99999M, 1,000 times", "step_limit", `(dotimes [i 1000] (quot 1E+99999M 7))`),
		prog("rem and mod of 1E+99999M, 1,000 times", "step_limit", `(dotimes [i 1000] (+ (rem 1E+99999M 7) (mod 1E+99999M 7)))`),
		prog("bigint of 1E+99999M, 1,000 times", "step_limit", `(dotimes [i 1000] (bigint 1E+99999M))`),
		// hash visits its argument whole: charged for its top items.
		prog("hash of a vector holding 200,000 items, 1,000 times", "step_limit", `(let [v [(vec (range 200000))]] (dotimes [i 1000] (hash v)) 1)`),
		// The Java math functions computed in extended precision.
		prog("Math/tan of the largest double, 100,000 times", "step_limit", `(dotimes [i 100000] (Math/tan 1.7976931348623157E308))`),
		prog("sin, exp and log10 of every integer below 100,000", "step_limit",
			`(reduce + (map (fn [i] (+ (Math/sin i) (math/exp (/ i 1e5)) (math/log10 (inc i)))) (range 100000)))`),
		// Regexes: compiled for one step and their pattern's bytes.
		budgetedProg("100,000 regexes compiled and kept", "memory_limit", `(count (mapv (fn [i] (re-pattern (str "a" i))) (range 100000)))`),
		prog("a program of 100,000 regex literals", "step_limit", "(count "+vector(100_000, `#"a"`)+")"),
		prog("a regex literal matched in a loop of 100,000", "ok", `(count (filter (fn [i] (re-find #"7" (str i))) (range 100000)))`),
		// Values the clock, not their cost, refused under load.
		value("60 integers of 100,000 digits as an earlier result (EDN)", "RESOURCE_EXHAUSTED", "(count *1)", "["+bigs(60, " ")+"]"),
		data("60 integers of 100,000 digits as data (JSON)", "RESOURCE_EXHAUSTED", "(count data/xs)", `{"xs": [`+bigs(60, ",")+`]}`),
		value("5 integers of 100,000 digits as an earlier result", "ok", "(count *1)", "["+bigs(5, " ")+"]"),
		value("a million (atom 0) as an earlier result", "RESOURCE_EXHAUSTED", "(count *1)", vector(1_000_000, "(atom 0)")),
		value("10,000 (atom 0) as an earlier result", "INVALID_ARGUMENT", "(count *1)", vector(10_000, "(atom 0)")),
		value("100,000 regex literals as an earlier result", "RESOURCE_EXHAUSTED", "(count *1)", vector(100_000, `#"a"`)),
	}
}

// programAttack is an EvalTurn attack of a program alone, allowed twice a
// 1 s timeout and 250 ms of the server's CPU time. It asks for the
// server's default timeout (budgeted): its outcome is stated for any clock
// at or above the default. An outcome a budget decides (step_limit,
// memory_limit, depth_limit) must not depend on the clock, and a 1 s clock
// on a machine at load 25 is less CPU than the dearest work per step takes
// to reach the limit; an ok program's outcome is its own run time, which
// no charge decides, so it too is stated for the default clock
// (docs/RELIABILITY.md, "Same outcome under load"). The CPU bound stays
// that of a 1 s timeout, so work left uncharged still fails it.
func programAttack(name, expect, src string) inputAttack {
	return inputAttack{attack{name: name, method: "EvalTurn", expect: expect, kind: kindPrograms, req: budgeted(src)},
		2 * (evalTimeoutMs*time.Millisecond + 250*time.Millisecond)}
}

// budgetedAttack is programAttack with the server's whole timeout
// (budgeted), for a program a budget must stop.
func budgetedAttack(name, expect, src string) inputAttack {
	return inputAttack{attack{name: name, method: "EvalTurn", expect: expect, kind: kindPrograms, req: budgeted(src)},
		2 * (budgetTimeoutMs*time.Millisecond + 250*time.Millisecond)}
}

// TestAttacksSixthPass sends every attack of the sixth pass three times
// over both listeners, each to a server of its own.
func TestAttacksSixthPass(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, sixthPassAttacks())
}
