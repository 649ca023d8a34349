package main_test

// An eighth pass of attacks of issue 33's classes, aimed at what the last
// release added (namespaced maps in programs and on the wire, type errors
// carrying Java classes, *print-meta*, format's conversions, the extraction
// charge of raw responses, keys that hold collections) and at what the
// seventh pass left open (hashing a key holding collections allocated
// about twice its charge). Each attack is sent three times over each
// listener to a server of its own and judged as the input attacks are
// (runInputAttack): a limit, not the clock, must end it, the same way
// every time.

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// eighthPassAttacks are the attacks of the eighth pass, all with a 1 s
// timeout.
func eighthPassAttacks() []inputAttack {
	prog, raw := programAttack, rawResponseAttack
	value := func(name, expect, program, edn string) inputAttack {
		return inputAttack{attack{name: name, method: "EvalTurn", expect: expect, kind: kindValues, req: func() proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{Program: program, Limits: evalLimits(), PreviousResults: []*ptcsidecarv1.Value{{Edn: edn}}}
		}}, 2 * (evalTimeoutMs*time.Millisecond + 250*time.Millisecond)}
	}
	return []inputAttack{
		// Type errors caught by the million: each failing call builds an
		// error (messages naming Java classes, the refused value described)
		// that a catch makes a value.
		prog("190,000 caught type errors kept in a vector", "memory_limit",
			`(count (mapv (fn [i] (try (+ "a" i) (catch Exception e e))) (range 190000)))`),
		prog("the messages of 100,000 caught type errors, printed", "memory_limit",
			`(count (pr-str (mapv (fn [i] (try (+ "a" i) (catch Exception e (ex-message e)))) (range 100000))))`),
		prog("150,000 caught Integer/parseInt errors, by class", "memory_limit",
			`(count (mapv (fn [i] (try (Integer/parseInt (str "x" i)) (catch NumberFormatException e e))) (range 150000)))`),
		prog("240,000 ex-infos kept in a vector", "memory_limit", `(count (mapv (fn [i] (ex-info "a" {})) (range 240000)))`),
		// Keys holding collections: hashed with walks and orderings.
		prog("distinct over 100,000 maps keyed by vectors of sets", "memory_limit", `(count (distinct (map (fn [i] {[i] #{[i]}}) (range 100000))))`),
		prog("frequencies of 100,000 sets of sets and maps", "memory_limit", `(count (frequencies (map (fn [i] #{#{i} #{(str i)} {:a [i]}}) (range 100000))))`),
		prog("a set of 100,000 sets nested four deep", "memory_limit", `(count (set (map (fn [i] #{#{#{#{i}}}}) (range 100000))))`),
		// Namespaced maps, in programs and on the wire.
		prog("a namespaced map nested 5,000 deep, printed", "ok", `(count (pr-str (reduce (fn [m i] {:a/x m}) {} (range 5000))))`),
		value("#:a{} nested 100,000 deep in #:b{} as an earlier result", "INVALID_ARGUMENT", "(count *1)",
			strings.Repeat("#:a{:x #:b{:y ", 50_000)+"1"+strings.Repeat("}", 100_000)),
		// A namespaced map was read as a plain map, then built again with
		// its keys qualified: 300,000 keys ended ok alone and at the clock
		// under load. Under its read cost, it reads; over it, it is refused.
		value("a namespaced map of 100,000 keys as an earlier result", "ok", "(count *1)", namespacedMap(100_000)),
		value("a namespaced map of 1,000,000 keys as an earlier result", "RESOURCE_EXHAUSTED", "(count *1)", namespacedMap(1_000_000)),
		// *print-meta*: metadata shared by thousands of values, printed.
		prog("*print-meta* over 3,000 references to one value with 2,000 items of metadata", "memory_limit",
			`(binding [*print-meta* true] (count (pr-str (let [m (with-meta [1] {:m (vec (range 2000))})] (vec (repeat 3000 m))))))`),
		// Sorting by String/CASE_INSENSITIVE_ORDER.
		prog("500,000 strings sorted by String/CASE_INSENSITIVE_ORDER", "step_limit", `(count (sort String/CASE_INSENSITIVE_ORDER (map str (range 500000))))`),
		// format's conversions at their widest, 100,000 times.
		prog("format of 100,000 %1$.9999e", "memory_limit", `(count (format (apply str (repeat 100000 "%1$.9999e")) 1.5))`),
		prog("format of 100,000 %1$9999c", "memory_limit", `(count (format (apply str (repeat 100000 "%1$9999c")) \a))`),
		// Extraction: a language tag of megabytes.
		raw("raw_response whose fence carries a 12 MB language tag", "no_program", "```"+strings.Repeat("clojure", 1_800_000)+"\n(+ 1 2)\n```"),
	}
}

// namespacedMap is #:user{:k0 0 :k1 1 ...} of n keys.
func namespacedMap(n int) string {
	var b strings.Builder
	b.WriteString("#:user{")
	for i := range n {
		b.WriteString(":k" + strconv.Itoa(i) + " " + strconv.Itoa(i) + " ")
	}
	b.WriteString("}")
	return b.String()
}

// TestAttacksEighthPass sends every attack of the eighth pass three times
// over both listeners, each to a server of its own.
func TestAttacksEighthPass(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, eighthPassAttacks())
}

// TestAttackSharedCaughtErrorsAndNamespacedMaps: functions that fail and
// catch (type errors carrying Java classes, ex-data of them), functions
// with metadata, namespaced maps, and maps keyed by sets of collections,
// sent as an earlier result and as a memory binding, which the server
// reads once and remembers for every caller that sends the same text.
// Every caller, 40 at once over both listeners, twice, must get what the
// first caller alone got.
func TestAttackSharedCaughtErrorsAndNamespacedMaps(t *testing.T) {
	skipIfShort(t)
	runSharedValueCases(t, []sharedValueCase{
		{`(fn [x] (try (+ "a" x) (catch ClassCastException e [(ex-message e) (ex-data e)])))`, `[(s 1) (s 2)]`, false},
		{`(with-meta (fn [n] (* n n)) {:doc "sq" :m [1 2 3]})`, `[(s 7) (meta s) (binding [*print-meta* true] (pr-str (meta s)))]`, false},
		{`#:user{:a 1 :b #:other{:c [1 2]}}`, `[(pr-str s) (:user/a s) (get-in s [:user/b :other/c])]`, false},
		{`{#{[1] #{2}} :a #{{:x [3]} [4]} :b}`, `[(get s #{#{2} [1]}) (frequencies (keys s)) (count (group-by count (keys s)))]`, false},
	}, 40, 2)
}
