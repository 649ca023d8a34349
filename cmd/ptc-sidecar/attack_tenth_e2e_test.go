package main_test

// A tenth pass of attacks of issue 33's classes, aimed at what the last
// release added: format with Java's flags, widths, precisions and indexed
// arguments; function builders that fail only when called, nested deep
// and over huge argument lists; symbols called as functions; hash sets in
// Clojure's order and the views of them (rest, drop, butlast, take-last);
// padded partitions; partials of thousands of fixed arguments;
// clojure.string functions over collections; $n group references;
// namespaced map printing; unchecked 32-bit arithmetic and the unsigned
// and digit statics; cache-stable's references to output printed again.
// Each attack is sent three times over each listener to a server of its
// own and judged as the input attacks are (runInputAttack): a limit, not
// the clock, must end it, the same way every time.

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// tenthPassAttacks are the attacks of the tenth pass, all with a 1 s
// timeout.
func tenthPassAttacks() []inputAttack {
	prog := programAttack
	// A view of a set of 20,000 numbers taken 100,000 times: each view
	// once walked the whole set for its weight, work no step counted.
	setViews := func(view string) inputAttack {
		return prog("(first "+view+") of a set of 20,000, 100,000 times", "memory_limit",
			"(let [s (set (range 20000)) ss (apply sorted-set (range 20000))] (reduce (fn [n i] (+ n (first "+view+"))) 0 (range 100000)))")
	}
	// cache-stable over turns that print the same long lines again, and
	// lines that differ from the earlier turn's only at their end.
	repeats := func(name string, line func(turn, i int) string) inputAttack {
		return inputAttack{attack{name: name, method: "ToMessages", expect: "ok", kind: kindHistory, req: func() proto.Message {
			turns := make([]*ptcsidecarv1.Turn, 400)
			for k := range turns {
				var b strings.Builder
				for i := range 60 {
					b.WriteString(line(k, i))
					b.WriteByte('\n')
				}
				turns[k] = &ptcsidecarv1.Turn{Number: int32(k + 1), Program: `(println notes)`, Success: true,
					Prints: []string{b.String()}, Result: &ptcsidecarv1.Value{Edn: "nil"}}
			}
			return &ptcsidecarv1.ToMessagesRequest{Turns: turns, Options: &ptcsidecarv1.Options{Strategy: "cache-stable"}}
		}}, 4 * time.Second}
	}
	long := strings.Repeat("a line of /srv/a.go that a model prints again ", 4)
	return []inputAttack{
		setViews("(rest s)"),
		setViews("(next s)"),
		setViews("(drop 1 s)"),
		setViews("(butlast s)"),
		setViews("(take-last 19999 s)"),
		setViews("(rest ss)"),
		// format: widths and precisions past the limit, indexed arguments,
		// and wide fields repeated until the allocation charge.
		prog("format widths and precisions of 999,999,999", "execution_error", `[(format "%999999999d" 1) (format "%.99999999f" 1.5M) (format "%1$999999999s" "a")]`),
		prog("format of 100,000 %1$10000s of one argument", "memory_limit", `(count (apply format (apply str (repeat 100000 "%1$10000s")) [1]))`),
		prog("format of 100,000 %1$.10000f of a decimal", "memory_limit", `(count (apply format (apply str (repeat 100000 "%1$.10000f")) [1.5M]))`),
		prog("format of 50,000 %50000$s", "ok", `(count (apply format (apply str (repeat 50000 "%50000$s")) (range 50000)))`),
		prog("format %.5s of a 100,000-item vector 100,000 times", "step_limit", `(count (apply format (apply str (repeat 100000 "%1$.5s")) [(vec (range 100000))]))`),
		// Function builders nested deep, over huge argument lists, and
		// called.
		prog("comp nested 400,000 deep", "memory_limit", `(let [f (reduce (fn [f _] (comp inc f)) identity (range 400000))] (f 1))`),
		prog("partial nested 50,000 deep, called", "depth_limit", `(let [f (reduce (fn [f _] (partial f 1)) (fn [& xs] (count xs)) (range 50000))] (f 1))`),
		prog("every-pred nested 50,000 deep, called", "depth_limit", `(let [f (reduce (fn [f _] (every-pred f)) odd? (range 50000))] (f 1))`),
		prog("juxt doubled 40 times", "memory_limit", `(let [f (reduce (fn [f _] (juxt f f)) inc (range 40))] (count (str (f 1))))`),
		prog("comp of 900,000 functions", "memory_limit", `((apply comp (repeat 900000 inc)) 1)`),
		prog("a 50,000-deep comp printed", "depth_limit", `(let [f (reduce (fn [f _] (comp inc f)) identity (range 50000))] (str f))`),
		// A padded partition copied its whole pad on every call, and a
		// partial's call its fixed arguments, work nothing charged.
		prog("a padded partition with a pad of 200,000, 100,000 times", "memory_limit",
			`(let [p (vec (range 200000))] (reduce (fn [n i] (+ n (count (partition 1.5 1 p [1])))) 0 (range 100000)))`),
		prog("a partial of 40,000 fixed arguments called 100,000 times", "step_limit",
			`(let [g (apply partial (constantly 1) (range 40000))] (reduce (fn [n i] (+ n (g i))) 0 (range 100000)))`),
		prog("a symbol called over a map of 200,000 symbols", "memory_limit", `(('a (zipmap (map symbol (map str (range 200000))) (range))) 1)`),
		// Hash order over huge elements.
		prog("first of a set of three 1 MB strings, 100,000 times", "step_limit",
			`(let [x (apply str (repeat 1000000 "x")) s (set (map #(str % x) (range 3)))] (reduce (fn [n i] (+ n (count (first s)))) 0 (range 100000)))`),
		// clojure.string over collections, $n references.
		prog("upper-case of a 10,000-item vector 100,000 times", "memory_limit",
			`(let [v (vec (range 10000))] (reduce (fn [n i] (+ n (count (clojure.string/upper-case v)))) 0 (range 100000)))`),
		prog("includes? of 100,000 nested vectors", "step_limit", `(clojure.string/includes? (vec (repeat 100000 (vec (range 10)))) "x")`),
		prog("a replacement of 5,000 $1$2 over 100,000 matches", "memory_limit",
			`(count (clojure.string/replace (apply str (repeat 100000 "ab")) #"(a)(b)" (apply str (repeat 5000 "$1$2"))))`),
		// Namespaced maps, 32-bit arithmetic, unsigned and digit statics.
		prog("a namespaced map of 60,000 keys", "memory_limit", `(into {} (map (fn [i] [(keyword "a" (str i)) i]) (range 60000)))`),
		prog("a namespaced map 900 deep printed", "ok", `(count (pr-str (reduce (fn [m i] {(keyword "a" (str i)) m}) {} (range 900))))`),
		prog("Long/toUnsignedString over 300,000 numbers", "memory_limit", `(count (mapv #(Long/toUnsignedString %) (range -1 -300000 -1)))`),
		prog("Character/forDigit over 900,000 numbers", "memory_limit", `(count (apply str (map #(Character/forDigit (mod % 36) 36) (range 900000))))`),
		// cache-stable's references to output printed again.
		repeats("cache-stable over 400 turns printing the same 60 long lines", func(_, i int) string { return long + strconv.Itoa(i) }),
		repeats("cache-stable over 400 turns of lines differing at their end", func(k, i int) string { return long + strconv.Itoa(i) + "." + strconv.Itoa(k) }),
		repeats("cache-stable over 400 turns of one line and blank lines", func(k, i int) string {
			if i%2 == 1 {
				return "   "
			}
			return long + strconv.Itoa(k%2)
		}),
	}
}

// TestAttacksTenthPass sends every attack of the tenth pass three times
// over both listeners, each to a server of its own.
func TestAttacksTenthPass(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, tenthPassAttacks())
}

// TestAttackSharedHashOrder: hash sets and hash maps of scalars, whose
// Clojure order is computed once and cached on the value, sent as an
// earlier result and as a memory binding that the server reads once and
// remembers for every caller; 40 callers at once over both listeners,
// twice, take their first, last, rest and reverse, and must get what the
// first caller alone got.
func TestAttackSharedHashOrder(t *testing.T) {
	skipIfShort(t)
	var set, m strings.Builder
	set.WriteString("#{")
	m.WriteString("{")
	for i := range 2000 {
		set.WriteString(strconv.Itoa(i*7919) + " :k" + strconv.Itoa(i) + " ")
		m.WriteString(":a/k" + strconv.Itoa(i) + " " + strconv.Itoa(i) + " ")
	}
	set.WriteString("}")
	m.WriteString("}")
	runSharedValueCases(t, []sharedValueCase{
		{set.String(), `[(first s) (last s) (take 3 (rest s)) (take 3 (reverse s)) (count (drop 5 s)) (first (butlast s)) (take 2 (conj (vec (rest s)) :z))]`, false},
		{m.String(), `[(first s) (last s) (take 2 (rest s)) (count (keys s)) (take 2 (vals s)) (subs (pr-str (select-keys s [:a/k1 :a/k2])) 0 12)]`, false},
	}, 40, 2)
}
