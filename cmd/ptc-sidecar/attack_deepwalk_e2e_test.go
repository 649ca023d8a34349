package main_test

// Attacks on the arguments a builtin reads whole before it runs: lookups
// keyed by large values, whose search for lazy sequences inside them must
// be avoided or charged, and builders given a lazy sequence that never
// ends, which they must store unread as Clojure does.

import "testing"

// deepWalkAttacks are programs whose arguments are large values or
// endless lazy sequences held by a builder.
func deepWalkAttacks() []inputAttack {
	const nat = `(defn nat [n] (lazy-seq (cons n (nat (inc n))))) `
	lookups := func(rows, calls string) string {
		return `(let [rows ` + rows + `] (loop [i 0] (if (< i ` + calls + `) (do (get "b" rows) (recur (inc i))) :done)))`
	}
	return programRows([]programRow{
		// 1.2-1.7 ms of walking for one step: 50,000 of them ended on
		// the clock. A vector of plain vectors is known to hold no lazy
		// sequence and is not walked.
		{"50,000 lookups keyed by a 400x400 vector", lookups(`(mapv (fn [i] (vec (range 400))) (range 400))`, "50000"), "ok"},
		// Program-built maps are walked, a step per part.
		{"100,000 lookups keyed by 2,000 built maps", lookups(`(mapv (fn [i] {:i i}) (range 2000))`, "100000"), "step_limit"},
		{"an endless lazy-seq in a hash-map", nat + `(first (:a (hash-map :a (nat 0))))`, "ok"},
		{"an endless lazy-seq as a map's value", nat + `(first (:a (assoc {} :a (nat 0))))`, "ok"},
		{"an endless lazy-seq repeated", nat + `(first (first (repeat 3 (nat 0))))`, "ok"},
		{"an endless lazy-seq in an atom's old and new values", nat + `(first (second (reset-vals! (atom 1) (nat 0))))`, "ok"},
		{"an endless lazy-seq in a vector and a list", nat + `[(first (first (vector (nat 0)))) (ffirst (list (nat 0)))]`, "ok"},
		// Sent back, a held lazy sequence is read as the list it reads
		// as, on every path: an endless one ends at the budget.
		{"an endless lazy-seq held and returned", nat + `(return (conj [] (nat 0)))`, "memory_limit"},
		{"an endless lazy-seq held and defined", nat + `(def held (assoc {} :a (nat 0))) 1`, "memory_limit"},
	})
}

// TestAttacksDeepWalk sends each attack three times over each listener,
// each to a server of its own.
func TestAttacksDeepWalk(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, deepWalkAttacks())
}
