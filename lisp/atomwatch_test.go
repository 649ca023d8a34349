package lisp

import "testing"

// TestAtomValidatorsAndWatches: an atom's validator refuses a new value
// with Clojure's IllegalStateException, keeping the old one, and its
// watches see each change. The values are Clojure 1.11.1's.
func TestAtomValidatorsAndWatches(t *testing.T) {
	for _, c := range []idiomCase{
		{Program: `(let [a (atom 10 :validator #(>= % 0))] (try (swap! a - 20) (catch IllegalStateException e [(ex-message e) @a])))`, Clojure: `["Invalid reference state" 10]`},
		{Program: `(let [a (atom 0) seen (atom [])] (add-watch a :log (fn [k r old new] (swap! seen conj [k old new]))) (swap! a inc) (reset! a 10) (remove-watch a :log) (swap! a inc) [@a @seen])`,
			Clojure: `[11 [[:log 0 1] [:log 1 10]]]`},
		{Program: `(let [a (atom 1)] (set-validator! a pos?) [(nil? (get-validator a)) (try (reset! a -1) (catch Exception e (class e))) @a])`, Clojure: `[false java.lang.IllegalStateException 1]`},
		{Program: `(try (atom -1 :validator pos?) (catch IllegalStateException e (ex-message e)))`, Clojure: `"Invalid reference state"`},
		{Program: `(let [a (atom 1)] (try (set-validator! a neg?) (catch IllegalStateException e :bad)))`, Clojure: `:bad`},
		{Program: `(let [a (atom 1 :meta {:x 1})] (swap! a inc))`, Clojure: `2`},
		{Program: `(let [a (atom 1 :validator (fn [x] (if (> x 5) (throw (ex-info "too big" {})) true)))] (try (reset! a 9) (catch Exception e [(ex-message e) @a])))`, Clojure: `["too big" 1]`},
		{Program: `(let [a (atom 1 :validator pos?)] (swap! a - 5))`, ClojureError: `java.lang.IllegalStateException: Invalid reference state`},
	} {
		c.ID = c.Program
		if outcome, got := idiomOutcome(t, c); outcome != "pass" {
			t.Errorf("%s: %s (%s), Clojure gives %s%s", c.Program, got, outcome, c.Clojure, c.ClojureError)
		}
	}
}
