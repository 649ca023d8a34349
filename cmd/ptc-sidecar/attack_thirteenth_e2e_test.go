package main_test

// A thirteenth pass of attacks of issue 33's classes on the interpreter,
// aimed at what the earlier passes did not stress: the Go stack that
// evaluating and analyzing deep code grows (a function whose body nests
// hundreds of levels, recursing; threading macros of thousands of steps),
// the walks over deeply nested results, clojure.string on megabyte texts,
// destructuring and apply over huge or infinite sequences, hierarchies
// and multimethods grown in loops, function builders nested 100,000 deep,
// memoize caches, atoms, transients, printing. Each attack is sent three
// times over each listener to a server of its own and judged as the input
// attacks are (runInputAttack): a limit, not the clock, must end it, the
// same way every time, within its memory bound.

import (
	"strconv"
	"strings"
	"testing"
)

// thirteenthPassAttacks are the attacks of the thirteenth pass.
func thirteenthPassAttacks() []inputAttack {
	prog := programAttack
	// big is a text of 2^doublings copies of s, built in as many steps.
	big := func(s string, doublings int) string {
		return `(loop [s "` + s + `" i 0] (if (< i ` + strconv.Itoa(doublings) + `) (recur (str s s) (inc i)) s))`
	}
	// deep is a value nesting n levels, each level made by wrap of v.
	deep := func(n int, wrap string) string {
		return `(loop [v [] i 0] (if (< i ` + strconv.Itoa(n) + `) (recur ` + wrap + ` (inc i)) v))`
	}
	steps := func(n int, step string) string { return strings.Repeat(step+" ", n) }
	var methods strings.Builder
	methods.WriteString("(defmulti f identity) ")
	for i := range 100_000 {
		methods.WriteString("(defmethod f " + strconv.Itoa(i) + " [x] x) ")
	}
	methods.WriteString("(f 5)")
	var dispatch strings.Builder
	dispatch.WriteString("(defmulti f identity) ")
	for i := range 5000 {
		dispatch.WriteString("(defmethod f :u/b" + strconv.Itoa(i) + " [x] 1) ")
	}
	dispatch.WriteString("(derive :u/x :u/b4999) (loop [i 0] (if (= 1 (f :u/x)) (recur (inc i)) i))")
	return []inputAttack{
		// The Go stack: a call counted once against the depth limit
		// however deep its body nests, and threading macros nesting
		// their expansion a level a step past the source's nesting limit.
		prog("a function of a 900-level body recursing 190 calls deep", "depth_limit",
			`(defn f [n] (if (zero? n) 0 `+strings.Repeat("(inc ", 900)+`(f (dec n))`+strings.Repeat(")", 900)+`)) (f 190)`),
		prog("-> of 1,900 steps in a function recursing 190 calls deep", "depth_limit",
			`(defn f [n] (if (zero? n) 0 (-> (f (dec n)) `+steps(1900, "inc")+`))) (f 190)`),
		prog("-> of 9,000 steps in a function recursing 190 calls deep", "depth_limit",
			`(defn f [n] (if (zero? n) 0 (-> (f (dec n)) `+steps(9000, "inc")+`))) (f 190)`),
		prog("-> of 40,000 steps", "depth_limit", `(-> 1 `+steps(40_000, "inc")+`)`),
		prog("->> of 40,000 steps", "depth_limit", `(->> 1 `+steps(40_000, "(+ 1)")+`)`),
		prog("some-> of 20,000 steps", "depth_limit", `(some-> 1 `+steps(20_000, "inc")+`)`),
		prog("some->> of 20,000 steps", "depth_limit", `(some->> 1 `+steps(20_000, "(+ 1)")+`)`),
		// Results and printed values nested 100,000 levels: the walk
		// that reads their lazy sequences recursed once per level.
		prog("a vector nested 100,000 levels returned", "depth_limit", deep(100_000, "[v]")),
		prog("a list nested 100,000 levels returned", "depth_limit", deep(100_000, "(list v)")),
		prog("pr-str of a vector nested 100,000 levels", "depth_limit", `(count (pr-str `+deep(100_000, "[v]")+`))`),
		prog("println of a vector nested 100,000 levels", "depth_limit", `(println `+deep(100_000, "[v]")+`)`),
		prog("= of two vectors nested 100,000 levels", "memory_limit", `(= `+deep(100_000, "[v]")+` `+deep(100_000, "[v]")+`)`),
		// What held: clojure.string on megabyte texts.
		prog("replace with a function over 1 MB", "memory_limit", `(count (clojure.string/replace `+big("a", 20)+` #"a" (fn [m] "bb")))`),
		prog("split-lines of 1 M newlines", "memory_limit", `(count (clojure.string/split-lines `+big(`\n`, 20)+`))`),
		prog("escape of 1 MB in a loop", "step_limit", `(let [s `+big("a", 20)+`] (loop [i 0] (if (string? (clojure.string/escape s {\b "c"})) (recur (inc i)) i)))`),
		prog("triml of 1 MB of spaces in a loop", "step_limit", `(let [s (str `+big(" ", 20)+` "x")] (loop [i 0] (if (= 1 (count (clojure.string/triml s))) (recur (inc i)) i)))`),
		prog("last-index-of in 1 MB in a loop", "step_limit", `(let [s `+big("a", 20)+`] (loop [i 0] (if (nil? (clojure.string/last-index-of s "b")) (recur (inc i)) i)))`),
		prog("subs at the end of 500,000 non-ASCII characters in a loop", "step_limit", `(let [s `+big("é", 19)+`] (loop [i 0] (if (string? (subs s 524280 524285)) (recur (inc i)) i)))`),
		prog("join of (range)", "type_error", `(count (clojure.string/join "," (range)))`),
		// Destructuring and apply over huge or infinite sequences.
		prog(":keys with :or of a 100,000-key map", "memory_limit", `(let [{:keys [a b] :or {a 1}} (zipmap (range 100000) (range))] a)`),
		prog("keyword arguments applied from (cycle [:a 1])", "type_error", `(defn f [& {:keys [a]}] a) (apply f (cycle [:a 1]))`),
		prog("apply + over (range)", "type_error", `(apply + (range))`),
		// Hierarchies and multimethods grown in loops.
		prog("a derive chain 100,000 long", "memory_limit", `(loop [h (make-hierarchy) i 0] (if (< i 100000) (recur (derive h (keyword (str "a" i)) (keyword (str "a" (inc i)))) (inc i)) (count (ancestors h :a0))))`),
		prog("100,000 defmethods", "step_limit", methods.String()),
		prog("dispatch through 5,000 methods in a loop", "memory_limit", dispatch.String()),
		// Function builders, caches and state.
		prog("comp nested 100,000 deep", "memory_limit", `((reduce (fn [f _] (comp f inc)) identity (range 100000)) 0)`),
		prog("every-pred nested 100,000 deep", "memory_limit", `((reduce (fn [f _] (every-pred f)) pos? (range 100000)) 1)`),
		prog("a memoize cache grown in a loop", "memory_limit", `(let [f (memoize (fn [x] (str x x x x x x x x x x)))] (loop [i 0] (f i) (recur (inc i))))`),
		prog("an atom swapped with a doubling text", "memory_limit", `(let [a (atom "x")] (loop [i 0] (swap! a str @a) (recur (inc i))))`),
		prog("a transient grown in a loop", "memory_limit", `(loop [t (transient []) i 0] (recur (conj! t i) (inc i)))`),
		prog("distinct of (repeat 1), second element", "memory_limit", `(first (drop 1 (distinct (repeat 1))))`),
		prog("concat nested 100,000 times", "memory_limit", `(first (reduce concat [] (map vector (range 100000))))`),
		prog("a delay chain 40,000 long", "depth_limit", `(force (reduce (fn [d _] (delay (force d))) (delay 1) (range 40000)))`),
		prog("a vector shared 60 times over returned", "memory_limit", `(reduce (fn [v _] [v v]) [] (range 60))`),
		prog("prn of 300,000 numbers", "output_limit", `(prn (vec (range 300000)))`),
		// Errors that echo what the program made or wrote: the turn
		// carries them within the emit limit.
		prog("error echo: ex-info of a 1 MB message", "execution_error", `(throw (ex-info `+big("a", 20)+` {}))`),
		prog("error echo: assert of a 1 MB message", "execution_error", `(assert false `+big("a", 20)+`)`),
		prog("error echo: fail of a 1 MB reason", "fail", `(fail `+big("a", 20)+`)`),
		prog("error echo: fail of a 1 MB map", "fail", `(fail {:why `+big("a", 20)+`})`),
		prog("error echo: an undefined symbol of 1.5 MB", "undefined_symbol", `(`+strings.Repeat("x", 1_500_000)+` 1)`),
		prog("error echo: a 1.5 MB keyword called with four arguments", "arity_error", `(:`+strings.Repeat("x", 1_500_000)+` 1 2 3 4)`),
	}
}

// TestAttacksThirteenthPass sends every attack of the thirteenth pass
// three times over both listeners, each to a server of its own.
func TestAttacksThirteenthPass(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, thirteenthPassAttacks())
}
