package main_test

// A ninth pass of attacks of issue 33's classes, aimed at what the last
// release added: number literals of every radix and size, in programs and
// on the wire; chains of lazy derivations and eductions; casts, symbols,
// vars, paths and thrown values of megabytes; arity errors of functions of
// thousands of parameters; the bill's statistics over thousands of turns.
// Each attack is sent three times over each listener to a server of its
// own and judged as the input attacks are (runInputAttack): a limit, not
// the clock, must end it, the same way every time, and the turn (its
// error included) must fit the emit limit.

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// ninthPassAttacks are the attacks of the ninth pass, all with a 1 s
// timeout.
func ninthPassAttacks() []inputAttack {
	prog := programAttack
	value := func(name, expect, program, edn string) inputAttack {
		return inputAttack{attack{name: name, method: "EvalTurn", expect: expect, kind: kindValues, req: func() proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{Program: program, Limits: evalLimits(), PreviousResults: []*ptcsidecarv1.Value{{Edn: edn}}}
		}}, 2 * (evalTimeoutMs*time.Millisecond + 250*time.Millisecond)}
	}
	params := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(" a" + strconv.Itoa(i))
		}
		return b.String()
	}
	// A tool result of megabytes that the earlier call kept and this one
	// clears: the bill's stable prefix compares the two texts token by
	// token, and a text of control characters is a token per byte.
	cleared := func(tokenizer string) func() proto.Message {
		return func() proto.Message {
			keep, trigger := int32(1), int32(1000)
			call := func(id string) *ptcsidecarv1.ChatMessage {
				return &ptcsidecarv1.ChatMessage{Role: "assistant", ToolCalls: []*ptcsidecarv1.ChatToolCall{{Id: id, Name: "get", Arguments: "{}"}}}
			}
			return &ptcsidecarv1.ToMessagesRequest{History: []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "go"},
				call("c1"), {Role: "tool", ToolCallId: "c1", Content: strings.Repeat("\x01", 2_500_000)},
				call("c2"), {Role: "tool", ToolCallId: "c2", Content: "ok"}},
				Options: &ptcsidecarv1.Options{Strategy: "clear-tool-results", Keep: &keep, Trigger: &trigger, Tokenizer: tokenizer}}
		}
	}
	mbString := `"` + strings.Repeat("x", 3_000_000) + `"`
	return []inputAttack{
		// The bill's statistics over a cleared result of 2.5 MB.
		{attack{name: "a cleared tool result of 2.5 MB of control characters", method: "ToMessages", expect: "ok", kind: kindHistory,
			req: cleared("")}, 2 * time.Second},
		{attack{name: "a cleared tool result of 2.5 MB, gemma3 tokens", method: "ToMessages", expect: "ok", kind: kindHistory,
			req: cleared("gemma3")}, 2 * time.Second},
		// Number literals of millions of digits, in a program.
		prog("a hexadecimal literal of 10 M digits", "step_limit", "(count (str 0x"+strings.Repeat("F", 10_000_000)+"))"),
		prog("an octal literal of 10 M digits", "step_limit", "(count (str 0"+strings.Repeat("7", 10_000_000)+"))"),
		prog("a radix-36 literal of 10 M digits", "step_limit", "(count (str 36r"+strings.Repeat("Z", 10_000_000)+"))"),
		prog("a radix-7 literal of 1 M digits", "step_limit", "(count (str 7r"+strings.Repeat("6", 1_000_000)+"))"),
		prog("a big integer literal of 10 M digits with N", "step_limit", "(count (str "+strings.Repeat("9", 10_000_000)+"N))"),
		prog("a decimal literal of 10 M digits", "parse_error", "(count (str "+strings.Repeat("9", 10_000_000)+"M))"),
		prog("an invalid number of 10 M characters", "parse_error", "(count (str 1.5."+strings.Repeat("5", 10_000_000)+"))"),
		prog("a radix-2 literal of 10 M digits with a bad digit", "step_limit", "(count (str 2r"+strings.Repeat("1", 10_000_000)+"2))"),
		prog("exponents beyond every range, printed", "ok", "[1e999999999 -1e999999999 1.5e999999999M 1.5e-999999999M (+ 1e99999M 1M)]"),
		// The same literals on the wire: refused by their read cost before
		// any digit is converted.
		value("a hexadecimal literal of 10 M digits as an earlier result", "RESOURCE_EXHAUSTED", "(count (str *1))", "0x"+strings.Repeat("F", 10_000_000)),
		value("a radix-36 literal of 5 M digits as an earlier result", "RESOURCE_EXHAUSTED", "(count (str *1))", "36r"+strings.Repeat("Z", 5_000_000)),
		value("a decimal literal of 10 M digits as an earlier result", "RESOURCE_EXHAUSTED", "(count (str *1))", strings.Repeat("9", 10_000_000)+"M"),
		value("50,000 radix-36 literals of 60 digits as an earlier result", "ok", "(count *1)", "["+strings.Repeat("36r"+strings.Repeat("Z", 60)+" ", 50_000)+"]"),
		// Lazy derivations.
		prog("12,000 filters over (range)", "depth_limit", `(first (reduce (fn [s i] (filter odd? s)) (range) (range 12000)))`),
		prog("200,000 kept derivations of (range)", "memory_limit", `(count (reduce (fn [acc i] (conj acc (map inc (range)))) [] (range 200000)))`),
		prog("a map of 300,000 lazy values of (range) emitted", "memory_limit", `(into {} (map (fn [i] [i (map inc (range))]) (range 300000)))`),
		prog("for over two infinite bindings", "type_error", `(first (for [x (range) y (range) :when (= x 10)] [x y]))`),
		// Casts, symbols, vars, paths, throws of megabytes.
		prog("short over 900,000 numbers", "memory_limit", `(count (mapv short (range 900000)))`),
		prog("a symbol of 3 MB built", "step_limit", `(symbol (apply str (repeat 3000000 "a")))`),
		prog("a var inside 300,000 items emitted", "emit_limit", `(defn f [] 1) (vec (repeat 300000 (var f)))`),
		prog("(throw) of a 1.5 MB string built", "step_limit", `(throw (apply str (repeat 1500000 "x")))`),
		// Texts of megabytes from an earlier result, where building them
		// costs nothing: thrown, made a symbol, a keyword, a path, an
		// ex-info's message caught 100,000 times.
		value("(throw) of a 3 MB string", "type_error", "(throw *1)", mbString),
		value("(throw (ex-info)) of a 3 MB message", "execution_error", "(throw (ex-info *1 {:s *1}))", mbString),
		value("a symbol of 3 MB emitted", "emit_limit", "(symbol *1)", mbString),
		value("a symbol of 3 MB inside 100,000 items", "memory_limit", "(count (pr-str (vec (repeat 100000 (symbol *1)))))", mbString),
		// The map of the 3 MB key printed, once: the whole map, which
		// holds it twice, prints as 6 MB through buffers of 7.5 MB and
		// more, past the 10 MiB default budget.
		value("get-in and assoc-in with a path of a 3 MB key", "ok", "(count (pr-str (get (assoc-in {} [*1 *1] (get-in {} [*1])) *1)))", mbString),
		value("get-in and assoc-in with a path of a 3 MB key, printed whole", "memory_limit", "(count (pr-str (assoc-in {} [*1 *1] (get-in {} [*1]))))", mbString),
		value("an ex-info of a 3 MB message caught 100,000 times", "step_limit",
			"(reduce (fn [n i] (try (throw (ex-info *1 {:i i})) (catch Exception e (+ n (count (ex-message e)))))) 0 (range 100000))", mbString),
		value("a var inside a map keyed by a 3 MB string", "emit_limit", "(defn f [] 1) {*1 (var f)}", mbString),
		value("compare of a 3 MB string with itself 100,000 times", "any", "(reduce (fn [n _] (+ n (compare *1 *1))) 0 (range 100000))", mbString),
		value("sort of 2,000 references to a 3 MB string", "any", "(count (sort (repeat 2000 *1)))", mbString),
		value("hash of a 3 MB string 100,000 times", "any", "(reduce (fn [n _] (+ n (hash *1))) 0 (range 100000))", mbString),
		value("a sorted set of 100,000 vectors of a 3 MB string", "any", "(count (into (sorted-set) (map (fn [i] [*1 i]) (range 100000))))", mbString),
		value(".substring of a 3 MB string 100,000 times", "any", "(reduce (fn [n i] (+ n (count (.substring *1 i (+ i 5))))) 0 (range 100000))", mbString),
		value(".compareTo of a 3 MB string 100,000 times", "any", "(reduce (fn [n _] (+ n (.compareTo *1 *1))) 0 (range 100000))", mbString),
		value(".compareToIgnoreCase of a 3 MB string 100,000 times", "any", "(reduce (fn [n _] (+ n (.compareToIgnoreCase *1 *1))) 0 (range 100000))", mbString),
		prog("an arity error of a function of 200,000 parameters", "step_limit", "(defn f ["+params(200_000)+"] 1) (f 1)"),
		prog("20,000 atoms defined", "ok", strings.Repeat("(def a (atom 1)) ", 20_000)+"1"),
	}
}

// TestAttacksNinthPass sends every attack of the ninth pass three times
// over both listeners, each to a server of its own.
func TestAttacksNinthPass(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, ninthPassAttacks())
}

// TestAttackSharedLazyDerivations: lazy derivations of infinite sequences
// ((map ... (range)), eductions, iterate, cycle, a chain of 150 maps) held
// in a map and a set, sent as an earlier result and as a memory binding,
// which the server reads once and remembers for every caller that sends
// the same text. Every caller, 40 at once over both listeners, twice,
// reads them from their start and must get what the first caller alone
// got; each realises its own reading.
func TestAttackSharedLazyDerivations(t *testing.T) {
	skipIfShort(t)
	chain := strings.Repeat("(map inc ", 150) + "(range)" + strings.Repeat(")", 150)
	runSharedValueCases(t, []sharedValueCase{
		{`{:a (map inc (range)) :b (eduction (filter odd?) (map inc) (range)) :c (iterate inc 5) :d (cycle [1 2])}`,
			`[(take 3 (:a s)) (take 3 (:b s)) (nth (:c s) 1000) (take 5 (:d s)) (take 2 (drop 7 (:a s)))]`, false},
		{`#{(iterate inc 0) (cycle [1]) (map inc (range))}`, `[(count s) (sort (map #(nth % 3) s))]`, false},
		{chain, `[(nth s 100) (first s) (take 3 (drop 500 s))]`, false},
	}, 40, 2)
}
