package main_test

// A seventeenth pass of attacks of issue 33's classes on the interpreter,
// on classes the earlier passes did not try: shared structure of
// exponential logical size (a vector holding the same vector twice, 60
// levels deep) walked by every builtin that walks values; cycles through
// mutable cells (an atom holding itself, a delay or lazy sequence that
// needs its own value, swap! inside swap!, a memoized function calling
// itself); comparators and callbacks that throw, return what is not a
// number or change what they sort; errors that carry big or shared data,
// caught and thrown again; text builders that grow; and error messages
// about megabyte texts, keywords and symbols, made thousands of times.
// Each attack is sent three times over each listener to a server of its
// own and judged as the input attacks are (runInputAttack).

import (
	"strconv"
	"testing"
)

// seventeenthPassAttacks are the attacks of the seventeenth pass.
func seventeenthPassAttacks() []inputAttack {
	// dag is a vector holding the same vector twice, levels deep: 2^levels
	// leaves in a few hundred bytes.
	dag := func(levels int) string {
		return `(reduce (fn [x _] [x x]) 1 (range ` + strconv.Itoa(levels) + `))`
	}
	// mb is a text of 2^20 characters.
	const mb = `(loop [s "x" i 0] (if (< i 20) (recur (str s s) (inc i)) s))`
	// caught calls expr over and over, catching what it throws, until a
	// budget ends the loop: each error message shows x.
	caught := func(x, expr string) string {
		return `(let [x ` + x + `] (loop [i 0] (recur (do (try ` + expr + ` (catch Throwable e (ex-message e))) (inc i)))))`
	}
	prog := programAttack
	return []inputAttack{
		// Shared structure of exponential logical size: refused when built
		// past 64 MB of text, walked at a step a node below it.
		prog("a vector of itself 60 levels deep", "memory_limit", dag(60)),
		prog("= of two DAGs of 2^23 leaves built apart", "step_limit", `(= `+dag(23)+` `+dag(23)+`)`),
		prog("compare of two DAGs in a loop", "step_limit", `(let [a `+dag(21)+` b `+dag(21)+`] (loop [i 0] (if (compare a b) (recur (inc i)) i)))`),
		prog("hash of a DAG", "step_limit", `(hash `+dag(23)+`)`),
		prog("a DAG as a set element, looked up in a loop", "step_limit", `(let [a `+dag(21)+` b `+dag(21)+`] (loop [i 0] (if (contains? #{a} b) (recur (inc i)) i)))`),
		prog("distinct, frequencies and group-by of DAGs", "step_limit", `[(count (distinct [`+dag(21)+` `+dag(21)+`])) (frequencies [`+dag(21)+`]) (group-by identity [`+dag(21)+`])]`),
		prog("flatten of a DAG", "memory_limit", `(count (flatten `+dag(23)+`))`),
		prog("tree-seq of a DAG", "step_limit", `(count (tree-seq vector? identity `+dag(23)+`))`),
		prog("postwalk of a DAG", "memory_limit", `(count (clojure.walk/postwalk identity `+dag(23)+`))`),
		prog("str and format of a DAG", "step_limit", `[(count (str `+dag(23)+`)) (count (format "%s" `+dag(23)+`))]`),
		prog("sort of DAGs", "step_limit", `(sort [`+dag(23)+` `+dag(23)+`])`),
		prog("= of an atom's DAG and another", "step_limit", `(let [a (atom `+dag(23)+`)] (= @a `+dag(23)+`))`),
		// Records are maps a program builds, which carry no mark that they
		// hold no lazy sequence: the search for one before the result is
		// emitted walks the DAG's 2^21 parts by its tree view, a step each,
		// and ends at the step limit before the printer's emit limit.
		prog("a DAG of records returned", "step_limit", `(defrecord R [a]) (reduce (fn [x _] (->R [x x])) 1 (range 20))`),
		prog("a DAG of functions returned", "emit_limit", `(let [f (fn [] 1)] (reduce (fn [x _] [x x f]) 1 (range 19)))`),
		prog("a DAG of repeats 60 levels deep", "memory_limit", `(hash (reduce (fn [x _] (repeat 2 x)) 1 (range 60)))`),
		// Cycles through mutable cells.
		prog("an atom holding a vector of itself, printed and compared", "ok", `(let [a (atom nil)] (reset! a [a a]) [(pr-str a) (= @a @a) (count (flatten @a))])`),
		prog("an atom holding itself returned", "validation_error", `(let [a (atom nil)] (reset! a [a]) @a)`),
		prog("a delay that derefs itself", "execution_error", `(def s (delay @s)) @s`),
		prog("a delay that derefs itself through an atom", "execution_error", `(let [a (atom nil) d (delay (inc (deref @a)))] (reset! a d) @d)`),
		prog("a delay that catches its own deref", "ok", `(def d (delay (try @d (catch Throwable e :caught)))) [@d @d (realized? d)]`),
		prog("swap! inside its own swap! in a loop", "memory_limit", `(let [a (atom 0)] (loop [i 0] (swap! a (fn [x] (swap! a inc) x)) (recur (inc i))))`),
		prog("a watch that swaps its own atom", "depth_limit", `(let [a (atom 0)] (add-watch a :k (fn [k r o n] (swap! r inc))) (swap! a inc))`),
		prog("a memoized function of itself", "depth_limit", `(def f (memoize (fn [n] (f n)))) (f 1)`),
		prog("a lazy sequence of itself, printed", "step_limit", `(def s (lazy-seq (cons 1 s))) (str s)`),
		prog("a lazy sequence holding itself, compared", "depth_limit", `(def s (lazy-seq (cons s nil))) (= s (first s))`),
		prog("fib as a lazy sequence of itself, far out", "step_limit", `(def fib (lazy-cat [0 1] (map +' fib (rest fib)))) (count (str (nth fib 100000)))`),
		// Comparators and callbacks that misbehave.
		prog("a comparator that throws", "execution_error", `(sort (fn [a b] (throw (ex-info "x" {}))) (range 1000))`),
		prog("a comparator that answers a keyword", "type_error", `(sort (fn [a b] :x) (range 1000))`),
		prog("a comparator always true over 100,000", "step_limit", `(sort (fn [a b] true) (range 100000))`),
		prog("a comparator that refills the atom it sorts", "memory_limit", `(let [a (atom (vec (range 1000)))] (sort (fn [x y] (reset! a (vec (range 100000))) (compare x y)) @a))`),
		prog("a sorted set whose comparator says all are equal", "ok", `(let [s (into (sorted-set-by (fn [a b] 0)) (range 10000))] [(count s) (s 5)])`),
		prog("max-key of ##NaN", "ok", `(apply max-key (fn [x] ##NaN) (range 1000))`),
		prog("transduce that throws half way through (range)", "execution_error", `(transduce (map (fn [x] (if (= x 5000) (throw (ex-info "mid" {:x x})) x))) + (range))`),
		// Errors that carry data.
		prog("ex-info of a megabyte message caught in a loop", "memory_limit", `(let [s `+mb+`] (loop [i 0] (if (try (throw (ex-info s {:s s})) (catch Exception e (ex-message e))) (recur (inc i)) i)))`),
		prog("an exception thrown with a megabyte message", "execution_error", `(throw (Exception. `+mb+`))`),
		prog("100,000 exceptions each caused by the last", "memory_limit", `(loop [e (ex-info "a" {}) i 0] (if (< i 100000) (recur (try (throw (ex-info "w" {:prev e} e)) (catch Exception x x)) (inc i)) (throw e)))`),
		prog("ex-data of exceptions shared 60 levels deep", "ok", `(loop [e (ex-info "a" {}) i 0] (if (< i 60) (recur (ex-info "w" {:a e :b e}) (inc i)) [(str e) (hash (ex-data e))]))`),
		prog("ex-info of a DAG thrown", "memory_limit", `(throw (ex-info "x" {:d `+dag(40)+`}))`),
		prog("fail of a DAG of 2^22 leaves", "emit_limit", `(fail {:d `+dag(22)+`})`),
		// Error messages about megabyte texts, made in a loop: each shows
		// 40 characters, and looked at the whole text (3.5 ms a message).
		prog("(+ 1 s) of a megabyte string, caught in a loop", "memory_limit", caught(mb, `(+ 1 x)`)),
		prog("(inc k) of a megabyte keyword, caught in a loop", "memory_limit", caught(`(keyword `+mb+`)`, `(inc x)`)),
		prog("(+ 1 k) of a megabyte namespaced keyword, caught in a loop", "memory_limit", caught(`(keyword "a" `+mb+`)`, `(+ 1 x)`)),
		prog("(- 1 y) of a megabyte symbol, caught in a loop", "memory_limit", caught(`(symbol `+mb+`)`, `(- 1 x)`)),
		prog("(+ 1 l) of a list of a megabyte string, caught in a loop", "memory_limit", caught(`(list `+mb+`)`, `(+ 1 x)`)),
		prog("(* 2 s) of a megabyte of é, caught in a loop", "step_limit", caught(`(apply str (repeat 500000 "é"))`, `(* 2 x)`)),
		prog("(nth s 1e9) and (subs s 5 2) of a megabyte, caught in a loop", "step_limit", caught(mb, `[(nth x 1e9) (subs x 5 2)]`)),
		// Text builders that grow.
		prog("replace whose function returns a growing text", "memory_limit", `(let [a (atom "x")] (count (clojure.string/replace (apply str (repeat 100000 "a")) #"a" (fn [_] (swap! a str @a)))))`),
		prog("join of nested lazy sequences", "memory_limit", `(count (clojure.string/join "," (map (fn [i] (range i)) (range 3000))))`),
		prog("format of its own output in a loop", "memory_limit", `(loop [i 0 s ""] (if (< i 100000) (recur (inc i) (format "%s%s" s i)) (count s)))`),
		prog("pr-str of functions, regexes, records, cells and infinite sequences", "ok", `(count (pr-str [(fn [] 1) #"a+" (defrecord R [a]) (->R 1) (atom 1) (delay 1) (range) (iterate inc 1)]))`),
	}
}

// TestAttacksSeventeenthPass sends every attack of the seventeenth pass
// three times over both listeners, each to a server of its own.
func TestAttacksSeventeenthPass(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, seventeenthPassAttacks())
}
