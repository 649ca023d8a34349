package main_test

// Attacks that walk a sequence step by step, by rest, next, nthnext,
// drop and destructuring: each step must cost the same, whatever the
// walk has passed, so a walk of n elements is linear in n, at constant
// depth, and holds no element it passed.

import (
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// restChainAttacks are walks of every kind of sequence, with Clojure
// 1.11's answer where it gives one, and endless walks that end at the
// budget.
func restChainAttacks() []inputAttack {
	const nat = `(defn nat [n] (lazy-seq (cons n (nat (inc n))))) `
	return programRows([]programRow{
		// Clojure: 100000. Before: memory_limit, each step a chain one
		// derivation longer.
		{"100,000 steps by rest over (range)", `(loop [s (range) n 0] (if (< n 100000) (recur (rest s) (inc n)) n))`, "ok"},
		// Clojure: 80000. Before: depth_limit, each step read a level
		// deeper. At 100,000 steps it ends at memory_limit: a step by next
		// is charged its drop and its place, 96 bytes.
		{"80,000 steps by next over a lazy-seq", `(loop [s (lazy-seq (range 80000)) n 0] (if (seq s) (recur (next s) (inc n)) n))`, "ok"},
		// Clojure: 50000. Before: step_limit after about 3,000, each step
		// read again from the start.
		{"50,000 steps by [x & xs] over (iterate inc 0)", `(loop [[x & xs] (iterate inc 0) n 0] (if (< n 50000) (recur xs (+ n 1)) n))`, "ok"},
		// Clojure: 100000. Before: memory_limit, the rest copied at each
		// step.
		{"100,000 steps by [x & xs] over a vector", `(loop [[x & xs] (vec (range 100000)) n 0] (if x (recur xs (inc n)) n))`, "ok"},
		// Clojure: 400000000.
		{"20,000 steps by next over a composition", `(loop [s (map inc (filter even? (iterate inc 0))) n 0 acc 0] (if (< n 20000) (recur (next s) (inc n) (+ acc (first s))) acc))`, "ok"},
		// Clojure: 49995000.
		{"10,000 steps by rest over a recursive lazy-seq", nat + `(loop [s (nat 0) n 0 acc 0] (if (< n 10000) (recur (rest s) (inc n) (+ acc (first s))) acc))`, "ok"},
		// Clojure: [79996 79998].
		{"40,000 steps by drop over concat", `(loop [s (concat [:a :b] (range)) n 0 x nil] (if (< n 40000) (recur (drop 2 s) (inc n) (first s)) [x (first s)]))`, "ok"},
		// Clojure: 100001.
		{"25,000 steps by nthnext over keep", `(loop [s (keep (fn [x] (when (odd? x) x)) (range)) n 0] (if (< n 25000) (recur (nthnext s 2) (inc n)) (first s)))`, "ok"},
		// Clojure: 799940004.
		{"20,000 steps by [a b & more] over lazy-cat", `(loop [[a b & more] (lazy-cat [1 2] (map inc (range))) n 0 acc 0] (if (< n 20000) (recur more (inc n) (+ acc a b)) acc))`, "ok"},
		// Endless walks end at the budget, each step charged alike.
		{"an endless walk by next that reads", `(loop [s (iterate inc 0) x 0] (recur (next s) (first s)))`, "memory_limit"},
		{"an endless walk by rest that reads nothing", `(loop [s (range)] (recur (rest s)))`, "memory_limit"},
		{"an endless walk by [x & xs]", `(loop [[x & xs] (map inc (range)) y 0] (recur xs x))`, "memory_limit"},
		// Endless walks that keep every step they make: a drop holds
		// about four times its 48-byte charge, within the 32 MiB over the
		// default budget (RELIABILITY.md, "Left open").
		{"an endless walk by rest that keeps every step", `(loop [s (range) v []] (recur (rest s) (conj v s)))`, "memory_limit"},
		{"an endless walk by next that keeps every step in a transient", `(loop [s (map inc (range)) v (transient [])] (recur (next s) (conj! v s)))`, "memory_limit"},
	})
}

// programRow is a program sent whole, the outcome it must have, and a
// name for it.
type programRow struct{ name, program, expect string }

// programRows are the rows as EvalTurn attacks with the default limits
// and the budgets' timeout, five seconds allowed each.
func programRows(rows []programRow) []inputAttack {
	out := make([]inputAttack, 0, len(rows))
	for _, a := range rows {
		program := a.program
		out = append(out, inputAttack{attack{name: a.name, method: "EvalTurn", expect: a.expect, kind: kindPrograms,
			req: func() proto.Message {
				return &ptcsidecarv1.EvalTurnRequest{Program: program, Limits: &ptcsidecarv1.Limits{TimeoutMs: budgetTimeoutMs}}
			}}, 5 * time.Second})
	}
	return out
}

// TestAttacksRestChain sends each attack three times over each listener,
// each to a server of its own.
func TestAttacksRestChain(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, restChainAttacks())
}
