package main_test

// A nineteenth pass of attacks of issue 33's classes on the interpreter,
// on classes the earlier passes did not try: lazy sequences inside keys
// that reach a map or a set through every builder and lookup (conj, into,
// a map or set called, case, replace, transducers, keyword arguments);
// lazy sequences kept by builtins that only hold them (identity, an atom,
// reset!, swap!), endless ones among them; a
// lazy sequence reading the atom that holds it; comparators answering
// nil; infinite sequences given to every builtin that consumes its whole
// argument; apply and variadic calls of hundreds of thousands of
// arguments; function builders nested 100,000 deep, then called or
// printed; trampolines, letfn and memoize at depth; threading macros,
// case, condp and cond of 100,000 forms; and a for of 12 bindings. Each
// attack is sent three times over each listener to a server of its own
// and judged as the input attacks are (runInputAttack).

import (
	"strconv"
	"strings"
	"testing"
)

// nineteenthPassAttacks are the attacks of the nineteenth pass.
func nineteenthPassAttacks() []inputAttack {
	const keys = `(def x (lazy-seq [1 2])) (def l (list 1 2)) `
	const nat = `(defn nat [n] (lazy-seq (cons n (nat (inc n))))) `
	// forms is (head 0 form form ...) with n forms.
	forms := func(head, form string, n int) string {
		return "(" + head + " 0 " + strings.Repeat(form+" ", n) + ")"
	}
	// clauses is (head 99999 0 0 1 1 ... :none): 100,000 clauses.
	clauses := func(head string) string {
		var b strings.Builder
		b.WriteString("(" + head + " 99999 ")
		for i := range 100_000 {
			b.WriteString(strconv.Itoa(i) + " " + strconv.Itoa(i) + " ")
		}
		b.WriteString(":none)")
		return b.String()
	}
	// nested builds a function by applying builder 100,000 times.
	nested := func(builder, seed string) string {
		return `(reduce (fn [f _] ` + builder + `) ` + seed + ` (range 100000))`
	}
	prog := programAttack
	return []inputAttack{
		// Lazy sequences inside keys, through every builder and lookup.
		prog("a lazy key put into a map by into and conj", "ok", keys+`[(count (into {} [[[x] 1] [[l] 2]])) (count (conj {} [[x] 1] [[l] 2])) (count (into {} (map (fn [k] [k 1])) [[x] [l]]))]`),
		prog("a lazy key looked up by calling a map and a set", "ok", keys+`[({[l] 5} [x]) (#{[l]} [x])]`),
		prog("a lazy value dispatched on by case", "ok", keys+`[(case [x] [(1 2)] :a :b) (case (map inc [0 1]) [1 2] :a :b)]`),
		prog("lazy keys through replace, distinct, dedupe, update-keys and keyword arguments", "ok", keys+`[(replace {[l] :r} [[x]]) (into [] (distinct) [[x] [l]]) (into [] (dedupe) [[x] [l]]) (update-keys {1 2} (fn [_] [x])) ((fn [& {:as m}] (count m)) [x] 1 [l] 2)]`),
		prog("an endless lazy key put into a map by conj", "memory_limit", nat+`(conj {} [[(nat 0)] 1])`),
		prog("an endless lazy value dispatched on by case", "memory_limit", nat+`(case [(nat 0)] [1] :a :b)`),
		// Lazy sequences held, not read.
		prog("an atom holding a lazy sequence of itself", "ok", `(def a (atom nil)) (reset! a (lazy-seq (cons 1 @a))) (take 3 @a)`),
		prog("an endless lazy sequence kept by identity, atom, reset! and swap!", "ok", nat+`[(take 3 (identity (nat 0))) (take 3 @(atom (nat 0))) (let [a (atom nil)] (reset! a (nat 0)) (take 3 @a)) (take 3 (first (swap! (atom []) conj (nat 0))))]`),
		prog("an endless lazy sequence kept in an atom, returned", "memory_limit", nat+`(let [a (atom nil)] (reset! a (nat 0)) @a)`),
		prog("a lazy sequence stored before the atom it reads changes", "ok", `(let [b (atom 0) a (atom nil)] (reset! a (lazy-seq [@b])) (reset! b 7) (first @a))`),
		// Comparators that answer nil.
		prog("sort by a comparator answering nil", "type_error", `(sort (fn [a b] nil) (range 1000))`),
		prog("a sorted set by a comparator answering nil", "type_error", `(into (sorted-set-by (fn [a b] nil)) (range 1000))`),
		prog("a comparator answering nil, caught", "ok", `(try (sort-by - (fn [a b] (when (< a b) true)) (range 1000)) (catch NullPointerException e :npe))`),
		// Infinite sequences given to builtins that consume them whole.
		prog("sort, reverse, vec, set and into of infinite sequences", "type_error", `[(sort (range)) (reverse (iterate inc 0)) (vec (repeat 1)) (set (repeatedly (fn [] 1))) (into [] (cycle [1]))]`),
		prog("count of infinite derivations", "type_error", `(count (interleave (range) (range)))`),
		prog("frequencies, group-by and join of infinite sequences", "type_error", `[(frequencies (cycle [1 2])) (group-by even? (range)) (clojure.string/join "," (range))]`),
		prog("apply of an infinite sequence", "type_error", `(apply max (range))`),
		prog("zipmap of two infinite sequences", "type_error", `(zipmap (range) (range))`),
		prog("reduce and every? over (range)", "step_limit", `[(reduce + (range)) (every? number? (range))]`),
		prog("last and butlast of infinite sequences", "type_error", `[(last (range)) (butlast (iterate inc 0))]`),
		prog("mapcat over (range), counted", "type_error", `(count (mapcat (fn [x] [x x]) (range)))`),
		prog("an endless lazy-seq given to sort", "memory_limit", nat+`(sort (nat 0))`),
		// apply and variadic calls with huge argument lists.
		prog("apply max of 300,000", "ok", `(apply max (range 300000))`),
		prog("apply max-key of 300,000", "ok", `(apply max-key - (range 300000))`),
		prog("apply str of 200,000", "ok", `(count (apply str (range 200000)))`),
		prog("apply hash-map of 300,000", "memory_limit", `(count (apply hash-map (range 300000)))`),
		prog("apply merge of 100,000 maps", "memory_limit", `(count (apply merge (map (fn [i] {i i}) (range 100000))))`),
		prog("apply concat of 300,000", "memory_limit", `(count (apply concat (repeat 300000 [1])))`),
		prog("an arity error with 300,000 arguments", "arity_error", `(apply (fn [a] a) (range 300000))`),
		prog("an arity error of a builtin with 300,000 arguments", "arity_error", `(apply inc (range 300000))`),
		prog("an arity error with 300,000 arguments, caught and measured", "ok", `(try (apply (fn [a b] a) (range 300000)) (catch Exception e (count (ex-message e))))`),
		prog("rest destructuring of 300,000", "ok", `(let [[a & r] (range 300000)] (count r))`),
		prog("keyword arguments of 300,000", "memory_limit", `(apply (fn [& {:as m}] (count m)) (range 300000))`),
		// Function builders nested 100,000 deep, called or printed.
		prog("comp nested 100,000 deep, called", "memory_limit", `(`+nested(`(comp f inc)`, `identity`)+` 0)`),
		prog("partial nested 100,000 deep, called", "ok", `(`+nested(`(partial f)`, `+`)+` 1 2)`),
		prog("juxt nested 100,000 deep, called", "memory_limit", `(`+nested(`(juxt f)`, `inc`)+` 1)`),
		prog("complement nested 100,000 deep, called", "memory_limit", `(`+nested(`(complement f)`, `odd?`)+` 1)`),
		prog("fnil nested 100,000 deep, called", "memory_limit", `(`+nested(`(fnil f 0)`, `inc`)+` nil)`),
		prog("every-pred and some-fn nested 100,000 deep, called", "memory_limit", `[(`+nested(`(every-pred f)`, `odd?`)+` 1) (`+nested(`(some-fn f)`, `odd?`)+` 1)]`),
		prog("memoize nested 100,000 deep, called", "memory_limit", `(`+nested(`(memoize f)`, `inc`)+` 1)`),
		prog("comp nested 100,000 deep, printed", "memory_limit", `(str `+nested(`(comp f inc)`, `identity`)+`)`),
		prog("comp nested 100,000 deep, returned", "memory_limit", nested(`(comp f inc)`, `identity`)),
		prog("partial nested 100,000 deep, printed", "memory_limit", `(pr-str `+nested(`(partial f 1)`, `+`)+`)`),
		prog("juxt of itself twice, 30 levels, called", "memory_limit", `((reduce (fn [f _] (juxt f f)) inc (range 30)) 1)`),
		prog("comp of itself twice, 60 levels, called", "memory_limit", `((reduce (fn [f _] (comp f f)) inc (range 60)) 0)`),
		prog("trampoline returning itself forever", "step_limit", `(trampoline (fn f [] f))`),
		prog("trampoline returning new functions forever", "memory_limit", `(trampoline (fn f [] (fn [] (f))))`),
		prog("letfn mutual recursion 100,000 deep", "depth_limit", `(letfn [(ev? [n] (if (zero? n) true (od? (dec n)))) (od? [n] (if (zero? n) false (ev? (dec n))))] (ev? 100000))`),
		prog("letfn mutual recursion through trampoline", "memory_limit", `(letfn [(ev? [n] (if (zero? n) true #(od? (dec n)))) (od? [n] (if (zero? n) false #(ev? (dec n))))] (trampoline ev? 100000))`),
		prog("memoize of memoize of memoize over 100,000", "memory_limit", `(def f (memoize (memoize (memoize inc)))) (reduce + (map f (range 100000)))`),
		prog("memoize 1,000 deep, called 1,000 times", "depth_limit", `(let [f (reduce (fn [g _] (memoize g)) inc (range 1000))] (reduce + (map f (range 1000))))`),
		// Threading and macros at scale.
		prog("-> of 100,000 forms", "depth_limit", forms("->", "inc", 100_000)),
		prog("->> of 100,000 forms", "depth_limit", forms("->>", "inc", 100_000)),
		prog("some-> of 100,000 forms", "depth_limit", forms("some->", "inc", 100_000)),
		prog("some->> of 100,000 forms", "depth_limit", forms("some->>", "inc", 100_000)),
		prog("cond-> of 100,000 clauses", "step_limit", forms("cond->", "true inc", 100_000)),
		prog("as-> of 100,000 forms", "step_limit", "(as-> 0 x "+strings.Repeat("(inc x) ", 100_000)+")"),
		prog("-> of 10,000 nested ->", "depth_limit", forms("->", "(-> inc)", 10_000)),
		prog("cond->> of 60,000 clauses", "step_limit", forms("cond->>", "true inc", 60_000)),
		prog("doto of 100,000 forms", "step_limit", forms("doto", "inc", 100_000)),
		prog("let of 60,000 bindings", "step_limit", "(let ["+strings.Repeat("a 1 ", 60_000)+"] a)"),
		prog("letfn of 30,000 functions", "step_limit", "(letfn ["+strings.Repeat("(f [] 1) ", 30_000)+"] (f))"),
		prog("case of 100,000 clauses", "step_limit", clauses("case")),
		prog("condp of 100,000 clauses", "step_limit", clauses("condp =")),
		prog("a for of 12 bindings with :let, :when and :while", "step_limit", `(count (for [a (range 3) b (range 3) c (range 3) d (range 3) e (range 3) f (range 3) g (range 3) h (range 3) i (range 3) j (range 3) k (range 3) l (range 3) :let [s (+ a b c d e f g h i j k l)] :when (even? s) :while (< s 100)] s))`),
		prog("a for over three infinite sequences", "type_error", `(first (for [a (range) b (range) c (range) :when (> c 1e9)] a))`),
	}
}

// TestAttacksNineteenthPass sends every attack of the nineteenth pass
// three times over both listeners, each to a server of its own.
func TestAttacksNineteenthPass(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, nineteenthPassAttacks())
}
