package main_test

// A twenty-first pass of attacks of issue 33's classes on the interpreter,
// on classes the earlier passes did not try: limits caught by try, catch
// and finally, and exceptions that carry what caused them; numbers at
// their edges; records, protocols, multimethods and hierarchies by the
// tens of thousands; walkers and text builders over shared structure;
// metadata on every kind; and lazy sequences taken apart by
// destructuring, for and doseq. Each attack is sent three times over
// each listener to a server of its own and judged as the input attacks
// are (runInputAttack).

import (
	"fmt"
	"strings"
	"testing"
)

// twentyFirstPassAttacks are the attacks of the twenty-first pass.
func twentyFirstPassAttacks() []inputAttack {
	// forms is n copies of format, each given its index.
	forms := func(n int, format string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, format, i)
		}
		return b.String()
	}
	const dag = `(let [d (reduce (fn [a _] [a a]) 1 (range 22))] `
	const chain = `(let [e (reduce (fn [e i] (ex-info (str i) {:a e :b e})) (ex-info "root" {}) (range 40))] `
	const nat = `(defn nat [n] (lazy-seq (cons n (nat (inc n))))) `
	prog := programAttack
	return []inputAttack{
		// Limits caught: each ends the turn with its own type.
		prog("a step limit caught by Throwable", "step_limit", `(try (loop [i 0] (recur (inc i))) (catch Throwable e :caught))`),
		prog("a step limit caught by Exception", "step_limit", `(try (loop [i 0] (recur (inc i))) (catch Exception e :caught))`),
		prog("a memory limit caught, its message returned", "memory_limit", `(try (reduce (fn [a _] (str a a)) "x" (range 40)) (catch Throwable e (ex-message e)))`),
		prog("a depth limit caught", "depth_limit", `(defn f [n] (inc (f n))) (try (f 1) (catch Throwable e :caught))`),
		prog("a limit caught in a loop that retries", "step_limit", `(loop [i 0] (if (< i 1000) (recur (try (vec (range 1e8)) (catch Throwable e (inc i)))) i))`),
		prog("a finally that loops after a step limit", "step_limit", `(try (loop [i 0] (recur (inc i))) (finally (loop [i 0] (recur (inc i)))))`),
		prog("a finally that builds after a step limit", "step_limit", `(try (loop [i 0] (recur (inc i))) (finally (vec (range 1e8))))`),
		prog("ex-info of a megabyte message", "step_limit", `(throw (ex-info (apply str (repeat 500000 "xy")) {}))`),
		prog("ex-info holding 200,000 numbers, thrown", "execution_error", `(throw (ex-info "m" {:v (vec (range 200000))}))`),
		prog("ex-info chained 100,000 deep by cause", "memory_limit", `(throw (reduce (fn [e i] (ex-info (str i) {} e)) (ex-info "root" {}) (range 100000)))`),
		prog("ex-info chained 10,000 deep, thrown", "execution_error", `(throw (reduce (fn [e i] (ex-info (str i) {} e)) (ex-info "root" {}) (range 10000)))`),
		prog("ex-info chained 10,000 deep, printed", "ok", `(count (str (reduce (fn [e i] (ex-info (str i) {} e)) (ex-info "root" {}) (range 10000))))`),
		prog("ex-data shared 2^40 times by tree view, printed", "ok", chain+`(count (pr-str (ex-data e))))`),
		prog("ex-data shared 2^40 times by tree view, hashed and walked", "ok", chain+`[(hash (ex-data e)) (count (tree-seq map? vals (ex-data e)))])`),
		prog("ex-data shared 2^40 times by tree view, returned", "validation_error", chain+`(ex-data e))`),
		// Numbers at the edges.
		prog("bit-shift-left by 1e9", "ok", `(bit-shift-left 1 1000000000)`),
		prog("bit-shift-left of a big integer", "type_error", `(bit-shift-left (bigint 1) 1000000000)`),
		prog("a factorial of 100,000 by *'", "step_limit", `(count (str (reduce *' 1N (range 1 100000))))`),
		prog("squaring by *' 40 times", "step_limit", `(loop [x 2N i 0] (if (< i 40) (recur (*' x x) (inc i)) (count (str x))))`),
		prog("format widths of 1e9", "execution_error", `[(format "%1000000000d" 5) (format "%.1000000000f" 1.5) (format "%-1000000000s|" "a")]`),
		// Records, protocols, multimethods and hierarchies at scale.
		prog("a record of 10,000 fields", "ok", `(defrecord R [`+forms(10_000, "f%d ")+`]) (count (keys (map->R {})))`),
		prog("10,000 record types", "memory_limit", forms(10_000, "(defrecord R%d [a]) ")+"1"),
		prog("3,000 records implementing a protocol", "memory_limit", "(defprotocol P (p [x])) "+forms(3_000, "(defrecord R%[1]d [a] P (p [x] %[1]d)) ")+"1"),
		prog("a protocol of 30,000 methods", "memory_limit", "(defprotocol P "+forms(30_000, "(p%d [x]) ")+") 1"),
		prog("20,000 protocols", "memory_limit", forms(20_000, "(defprotocol P%[1]d (p%[1]d [x])) ")+"1"),
		prog("30,000 multimethods", "memory_limit", forms(30_000, "(defmulti m%d identity) ")+"1"),
		prog("100,000 methods of one multimethod", "step_limit", "(defmulti f identity) "+forms(100_000, "(defmethod f %[1]d [x] %[1]d) ")+"(f 99999)"),
		prog("60,000 prefer-methods", "step_limit", "(defmulti m identity) (defmethod m 1 [x] x) "+forms(60_000, "(prefer-method m %d :x) ")+"(m 1)"),
		prog("30,000 extend-types of one record", "step_limit", "(defprotocol P (p [x])) (defrecord R [a]) "+forms(30_000, "(extend-type R P (p [x] %d)) ")+"1"),
		prog("a protocol method of 50,000 arities", "ok", "(defprotocol P (p "+forms(50_000, "[x%d] ")+")) 1"),
		prog("a hierarchy derived 100,000 deep", "memory_limit", `(def h (reduce (fn [h i] (derive h (keyword (str "k" (inc i))) (keyword (str "k" i)))) (make-hierarchy) (range 100000))) (isa? h :k100000 :k0)`),
		prog("a multimethod removing its own method while it runs", "ok", `(defmulti f identity) (defmethod f :a [x] (remove-method f :a) (f x)) (defmethod f :default [x] :d) (f :a)`),
		prog("records nested 100,000 deep", "memory_limit", `(defrecord R [a]) (let [r (reduce (fn [r i] (->R r)) nil (range 100000))] (count (pr-str r)))`),
		prog("a record shared 2^40 times by tree view, compared and hashed", "memory_limit", `(defrecord R [a b]) (let [r (reduce (fn [r i] (->R r r)) nil (range 40))] [(= r r) (hash r)])`),
		// Walkers and text builders over shared structure.
		prog("postwalk of a vector shared 2^22 times", "memory_limit", dag+`(count (clojure.walk/postwalk identity d)))`),
		prog("tree-seq of a vector shared 2^22 times", "step_limit", dag+`(count (tree-seq vector? seq d)))`),
		prog("flatten of a vector shared 2^22 times", "memory_limit", dag+`(count (flatten d)))`),
		prog("pr-str of a vector shared 2^22 times", "step_limit", dag+`(count (pr-str d)))`),
		prog("prewalk of a vector shared 2^22 times, compared", "memory_limit", dag+`(= d (clojure.walk/prewalk identity d)))`),
		prog("a vector shared 2^22 times, returned", "emit_limit", dag+`d)`),
		prog("a vector shared 2^60 times, walked", "memory_limit", `(let [d (reduce (fn [a _] [a a]) 1 (range 60))] (clojure.walk/postwalk identity d))`),
		prog("replace by a function on 200 KB", "memory_limit", `(count (clojure.string/replace (apply str (repeat 100000 "ab")) #"a" (fn [m] (apply str (repeat 100 m)))))`),
		prog("re-seq of an empty match on a megabyte", "step_limit", `(count (re-seq #"" (apply str (repeat 1000000 "a"))))`),
		prog("split by an empty regex on a megabyte", "step_limit", `(count (clojure.string/split (apply str (repeat 1000000 "a")) #""))`),
		prog("join of 100,000 lazy sequences", "memory_limit", `(count (clojure.string/join (map (fn [i] (map inc (range 10))) (range 100000))))`),
		// Metadata on every kind.
		prog("with-meta 100,000 times on a lazy sequence", "memory_limit", `(meta (reduce (fn [l i] (with-meta l {:i i})) (lazy-seq [1]) (range 100000)))`),
		prog("vary-meta 100,000 times on a function, called", "memory_limit", `(let [f (reduce (fn [f i] (vary-meta f assoc :i i)) inc (range 100000))] (f 1))`),
		prog("vary-meta 100,000 times on a sorted set", "memory_limit", `(let [s (reduce (fn [s i] (vary-meta s assoc i i)) (sorted-set 1) (range 100000))] (count (meta s)))`),
		prog("metadata holding the value 30 deep, printed with *print-meta*", "memory_limit", `(let [v (reduce (fn [v i] (with-meta [v] {:m v})) [] (range 30))] (binding [*print-meta* true] (count (pr-str v))))`),
		prog("metadata holding the value 30 deep, returned", "ok", `(reduce (fn [v i] (with-meta [v] {:m v})) [] (range 30))`),
		// Lazy sequences taken apart by destructuring, for and doseq.
		prog("a lazy sequence destructured", "ok", nat+`[(let [[a b & r] (nat 0)] [a b (take 2 r)]) (let [[a b] (lazy-seq [1 2])] [a b]) ((fn [[a b]] b) (iterate inc 5))]`),
		prog("a map pattern of a lazy sequence and of a vector", "ok", `(let [{:keys [a]} (lazy-seq [:a 1]) {x 0 y 1} [5 6]] [a x y])`),
		prog("a for ended by :while over endless sequences", "ok", nat+`[(for [x (iterate inc 0) :while (< x 3)] x) (for [x (nat 0) :when (odd? x) :while (< x 9)] x)]`),
		prog("a for over an endless sequence a :while never ends", "step_limit", `(count (for [x (range) :while true] x))`),
		prog("a for over an endless lazy-seq with no :while", "memory_limit", nat+`(count (for [x (nat 0)] x))`),
		// Each step's rest is a drop charged as it is made, and 100,000 of
		// them pass the 10 MiB budget: linear, not the square of the count.
		prog("a loop destructuring an endless sequence", "memory_limit", `(loop [[x & xs] (range) acc 0] (if (< x 100000) (recur xs (+ acc x)) acc))`),
		prog("a map pattern of an endless sequence", "type_error", `(let [{:keys [a]} (range)] a)`),
		prog("a for over three infinite sequences", "type_error", `(first (for [a (range) b (range) c (range) :when (> c 1e9)] a))`),
	}
}

// TestAttacksTwentyFirstPass sends every attack of the twenty-first pass
// three times over both listeners, each to a server of its own.
func TestAttacksTwentyFirstPass(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, twentyFirstPassAttacks())
}
