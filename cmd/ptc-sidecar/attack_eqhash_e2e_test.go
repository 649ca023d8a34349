package main_test

// Attacks on equality and hashing: loops that compare or hash keywords
// and symbols of a megabyte, built from a string by (keyword s) and
// (symbol s), through every row that tests equality or looks a key up.
// Each is charged by the bytes it reads, a step per 64, so the step
// budget ends it, the same way three times over each listener, long
// before the clock.

import "testing"

// megabyteNames defines k and k2, two equal keywords of a MiB built
// apart, y and y2 the same as symbols, and s a MiB string.
const megabyteNames = `(def s (reduce (fn [s _] (str s s)) "a" (range 20)))
(def k (keyword s)) (def k2 (keyword (str s)))
(def y (symbol s)) (def y2 (symbol (str s)))
`

// loopOver is a program that evaluates body until a budget ends it.
func loopOver(body string) string {
	return megabyteNames + `(loop [i 0] (if (< i 100000000) (do ` + body + ` (recur (inc i))) i))`
}

// equalityAttacks are the loops of equality and hashing on long names.
func equalityAttacks() []inputAttack {
	prog := budgetedAttack
	return []inputAttack{
		prog("(= k k2) of two MiB keywords in a loop", "step_limit", loopOver(`(= k k2)`)),
		prog("(compare y y2) of two MiB symbols in a loop", "step_limit", loopOver(`(compare y y2)`)),
		prog("(isa? [k] [k2]) in a loop", "step_limit", loopOver(`(isa? [k] [k2])`)),
		prog("(contains? #{k} k2) in a loop", "step_limit", loopOver(`(contains? #{k} k2)`)),
		prog("(case k2 ...) in a loop", "step_limit", loopOver(`(case k2 :a 1 2)`)),
		prog("(hash k2) in a loop", "step_limit", loopOver(`(hash k2)`)),
		prog("(clojure.data/diff [k] [k2]) in a loop", "step_limit", loopOver(`(clojure.data/diff [k] [k2])`)),
		prog("a multimethod dispatching on a MiB keyword in a loop", "step_limit",
			megabyteNames+`(defmulti f identity) (defmethod f k [x] 1) (defmethod f :b [x] 2)
(loop [i 0] (if (< i 100000000) (do (f k2) (recur (inc i))) i))`),
	}
}

// TestAttacksEqualityAndHashing sends every attack on equality and
// hashing three times over both listeners, each to a server of its own.
func TestAttacksEqualityAndHashing(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, equalityAttacks())
}
