package main_test

// Attacks on what definitions and small collections hold against what
// they are charged: many definitions of values and of functions, vars
// kept in a vector, small maps kept by the hundred thousand, and the
// cells and functions a program makes and keeps. Each attack is sent
// three times over each listener to a server of its own and judged as
// the input attacks are (runInputAttack): the same outcome each time,
// RSS within the budget and 32 MiB.

import (
	"fmt"
	"strings"
	"testing"
)

// repeatedForms is n forms made by form from 0 to n-1, then last.
func repeatedForms(n int, form func(i int) string, last string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(form(i))
		b.WriteByte('\n')
	}
	return b.String() + last
}

// definitionAttacks are the attacks on what definitions and kept values
// hold.
func definitionAttacks() []inputAttack {
	prog := programAttack
	return []inputAttack{
		prog("30,000 defns", "step_limit", repeatedForms(30_000, func(i int) string { return fmt.Sprintf("(defn f%d [x] (+ x %d))", i, i) }, "1")),
		prog("30,000 defs", "memory_limit", repeatedForms(30_000, func(i int) string { return fmt.Sprintf("(def a%d %d)", i, i) }, "1")),
		prog("30,000 defonces with docstrings", "memory_limit", repeatedForms(30_000, func(i int) string { return fmt.Sprintf(`(defonce b%d "d" %d)`, i, i) }, "1")),
		prog("a definition redefined 100,000 times", "ok", `(dotimes [i 100000] (def a i)) a`),
		prog("2 MiB of #'inc in a vector", "step_limit", "(count ["+strings.Repeat("#'inc ", 2<<20/6)+"])"),
		prog("100,000 small array-maps kept in a vector", "memory_limit", `(count (mapv (fn [i] (array-map :a i)) (range 100000)))`),
		prog("100,000 small hash-maps kept in a vector", "memory_limit", `(count (mapv (fn [i] (hash-map :a i :b i)) (range 100000)))`),
		prog("100,000 transducers kept in a vector", "memory_limit", `(count (mapv (fn [i] (take i)) (range 100000)))`),
		prog("100,000 volatiles kept in a vector", "memory_limit", `(count (mapv volatile! (range 100000)))`),
		prog("100,000 closures kept in a vector", "memory_limit", `(count (mapv (fn [i] (fn [] i)) (range 100000)))`),
		prog("100,000 eductions of two kept in a vector", "memory_limit", `(count (mapv (fn [i] (eduction (map inc) [i i])) (range 100000)))`),
	}
}

// TestAttacksDefinitionsHeld sends every attack on what definitions hold
// three times over both listeners, each to a server of its own.
func TestAttacksDefinitionsHeld(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, definitionAttacks())
}
