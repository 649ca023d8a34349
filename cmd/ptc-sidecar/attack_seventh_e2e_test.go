package main_test

// A seventh pass of attacks of issue 33's classes, aimed at what the last
// release added (metadata, lazy-seq and lazy-cat, exception chains, hash
// sets and maps printed in Clojure's order, format's Java conversions)
// and at what the sixth pass left open (format's wide widths allocating
// more than they were charged; extracting the program of a raw_response
// bounded by the clock alone). Each attack is sent three times over each
// listener to a server of its own and judged as the input attacks are
// (runInputAttack): a limit, not the clock, must end it, the same way
// every time.

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// seventhPassAttacks are the attacks of the seventh pass, all with a 1 s
// timeout.
func seventhPassAttacks() []inputAttack {
	prog, raw := programAttack, rawResponseAttack
	return []inputAttack{
		// format: the padding of wide widths, built beside the text.
		prog("format of 100,000 %1$10000d", "memory_limit", `(count (format (apply str (repeat 100000 "%1$10000d")) 1))`),
		prog("format of 100,000 %1$.10000f", "memory_limit", `(count (format (apply str (repeat 100000 "%1$.10000f")) 1.5))`),
		// Extracting a program: bounded by its cost, not by the clock.
		raw("raw_response of 900,000 fenced blocks", "RESOURCE_EXHAUSTED", strings.Repeat("```clojure\n1\n```\n", 900_000)),
		raw("raw_response of one block and 8 million newlines", "ok", "```clojure\n(+ 1 2)\n```"+strings.Repeat("\n", 8_000_000)),
		raw("raw_response of 2 million fences on lines of text", "RESOURCE_EXHAUSTED", "```clojure\n(+ 1 2)\n```\n"+strings.Repeat("a ```\n", 2_000_000)),
		// Metadata: chains, wide and deep maps of it, lazy values in it.
		prog("with-meta chained 100,000 times, each holding the last", "memory_limit",
			`(loop [i 0 x []] (if (< i 100000) (recur (inc i) (with-meta x {:i i :m (meta x)})) (count (meta x))))`),
		prog("vary-meta growing a map of 200,000 keys", "memory_limit", `(let [m (reduce (fn [m i] (vary-meta m assoc i i)) {} (range 200000))] (count (meta m)))`),
		prog("alter-meta! of an atom 100,000 times", "memory_limit", `(let [a (atom [])] (dotimes [i 100000] (alter-meta! a assoc i (vec (range 10)))) (count (meta a)))`),
		prog("metadata holding an infinite range, printed", "ok", `(count (pr-str (with-meta [1] {:s (range)})))`),
		// Lazy sequences: self-referencing, deeply nested, realised under the budget.
		// Each addition of its wide integers is charged a step a word,
		// so the steps end it before the bytes do.
		prog("a lazy fib of big integers to its 50,000th", "step_limit", `(do (def fib (lazy-cat [0 1] (map +' fib (rest fib)))) (count (str (nth fib 50000))))`),
		prog("lazy-cat nested 100,000 deep", "memory_limit", `(count (reduce (fn [s i] (lazy-cat s [i])) [] (range 100000)))`),
		prog("lazy-seq consed a million deep", "step_limit", `(first (reduce (fn [s i] (lazy-seq (cons i s))) nil (range 1000000)))`),
		// Multimethods: thousands of defmethods and preferences.
		prog("20,000 defmethods and 10,000 prefer-methods", "memory_limit", wideMultimethod(20_000)),
		// Exceptions: chains of causes walked, printed and caught.
		prog("ex-info chained 100,000 deep, printed", "memory_limit",
			`(let [e (reduce (fn [c i] (ex-info (str i) {:i i} c)) nil (range 100000))] (count (pr-str e)))`),
		// Hash sets and maps printed in Clojure's order, and used as keys.
		prog("pr-str of a set of 300,000 integers", "memory_limit", `(count (pr-str (set (range 300000))))`),
		prog("30,000 sets of three parts as the keys of one set", "memory_limit", `(count (into #{} (map (fn [i] #{i (str i) [i]}) (range 30000))))`),
		prog("60,000 vector keys counted by frequencies", "memory_limit", `(count (frequencies (map (fn [i] [i [(str i)]]) (range 60000))))`),
	}
}

// rawResponseAttack is programAttack with the program sent as a model's
// reply (raw_response) to extract it from.
func rawResponseAttack(name, expect, response string) inputAttack {
	a := programAttack(name, expect, "")
	a.req = func() proto.Message {
		return &ptcsidecarv1.EvalTurnRequest{RawResponse: response, Limits: evalLimits()}
	}
	return a
}

// wideMultimethod is a program of one multimethod of n methods, each
// second preferred to the next, whose table is read 2,000 times.
func wideMultimethod(n int) string {
	var b strings.Builder
	b.WriteString("(defmulti f identity)\n")
	for i := range n {
		fmt.Fprintf(&b, "(defmethod f %d [x] %d)\n", i, i)
	}
	for i := 0; i < n; i += 2 {
		fmt.Fprintf(&b, "(prefer-method f %d %d)\n", i, i+1)
	}
	b.WriteString("(dotimes [i 2000] (count (methods f)) (get-method f 7) (f 5) (count (prefers f)))")
	return b.String()
}

// TestAttacksSeventhPass sends every attack of the seventh pass three
// times over both listeners, each to a server of its own.
func TestAttacksSeventhPass(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, seventhPassAttacks())
}

// TestAttackSharedMetadataAndLazyValues: functions that make values with
// metadata (maps of it holding lazy sequences and functions), lazy
// sequences that refer to themselves, chains of exceptions and hash sets
// printed in Clojure's order, sent as an earlier result and as a memory
// binding, which the server reads once and remembers for every caller
// that sends the same text. Every caller, 40 at once over both listeners,
// twice, must get what the first caller alone got.
func TestAttackSharedMetadataAndLazyValues(t *testing.T) {
	skipIfShort(t)
	runSharedValueCases(t, []sharedValueCase{
		// A value never carries metadata on the wire (it prints without
		// it, as Clojure's pr does), so one sent with it is refused; a
		// function that makes values with metadata is shared.
		{`^{:a 1} [1 2]`, `(meta s)`, true},
		{`(with-meta [1 2] {:l (map inc (range))})`, `(meta s)`, true},
		{`(fn [n] (with-meta [n] {:l (map inc (range n)) :f (fn [] n)}))`, `[(meta (vary-meta (s 3) assoc :b 2)) ((:f (meta (s 4)))) (count (:l (meta (s 1000))))]`, false},
		{`(let [l (map inc (range))] (fn [n] (with-meta [n] {:l l})))`, `[(nth (:l (meta (s 1))) 50) (take 3 (:l (meta (s 2))))]`, false},
		{`(let [fib (fn fib [a b] (lazy-seq (cons a (fib b (+' a b)))))] (fib 0 1))`, `[(nth s 90) (count (take-while #(< % 1000) s)) (nth s 30)]`, false},
		{`(lazy-cat [1 2] (map inc (range 3)))`, `[(vec s) (count s) (first s)]`, false},
		{`(ex-info "a" {:n 1} (ex-info "b" {:m 2} (ex-info "c" {})))`, `(ex-message (ex-cause s))`, true},
		{`(fn [] (ex-info "a" {:n 1} (ex-info "b" {:m 2} (ex-info "c" {}))))`, `(let [e (s)] [(ex-message (ex-cause e)) (ex-data (ex-cause (ex-cause e))) (instance? Exception e) (try (throw e) (catch clojure.lang.ExceptionInfo x (ex-message x)))])`, false},
		{`#{[1 2] #{3 4} {:a 1} "x" 7 :k}`, `[(pr-str s) (str s) (pr-str (conj s 8)) (hash s)]`, false},
		{`{:b #{2 1} :a {3 [4]} "c" (5 6)}`, `[(pr-str s) (pr-str (assoc s :z 1)) (keys s)]`, false},
	}, 40, 2)
}
