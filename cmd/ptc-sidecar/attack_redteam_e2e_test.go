package main_test

// A third pass of attacks of issue 33's classes, aimed at what the last
// releases added and at what the earlier attack files do not try: value
// kinds kept in memory (atoms, volatiles, delays, transients, lazy
// sequences, regex matches, ex-info maps), derivations built inside
// iterate, trampoline, :or defaults and keyword arguments, text written
// from deep or wide values, work before the clock (literals, fences,
// declarations, forward references), output from warnings and errors,
// and request-sized inputs through the strategies and the trace. Each is
// sent three times over each listener to a server of its own and judged
// as the input attacks are (runInputAttack).

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// redTeamAttacks are the attacks of the third pass.
func redTeamAttacks() []inputAttack {
	evalCPU := 2 * (evalTimeoutMs*time.Millisecond + 250*time.Millisecond)
	budgetCPU := 2 * (budgetTimeoutMs*time.Millisecond + 250*time.Millisecond)
	prog := func(name, expect, src string) inputAttack {
		return inputAttack{attack{name: name, method: "EvalTurn", expect: expect, kind: kindPrograms, req: budgeted(src)}, budgetCPU}
	}
	defs := func(n int, form string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, form, i, i+1)
		}
		return b.String()
	}
	return []inputAttack{
		// Value kinds whose Go state grows as the program runs.
		prog("an atom of a growing vector", "failed", `(let [a (atom [])] (dotimes [i 3000000] (swap! a conj [i])) (count @a))`),
		prog("a volatile of a growing map", "failed", `(let [v (volatile! {})] (dotimes [i 3000000] (vswap! v assoc i [i])) (count @v))`),
		prog("a transient of three million vectors", "failed", `(loop [t (transient []) i 0] (if (< i 3000000) (recur (conj! t [i i]) (inc i)) (count (persistent! t))))`),
		prog("a million delays of vectors forced", "failed", `(count (mapv (fn [i] (let [d (delay (vec (range 50)))] @d d)) (range 1000000)))`),
		prog("re-seq over 8 MB of matches kept", "failed", `(count (vec (re-seq #"a" (apply str (repeat 8000000 "a")))))`),
		prog("ex-info maps of big data kept", "failed", `(count (mapv (fn [i] (try (throw (ex-info "x" {:v (vec (range 100))})) (catch Exception e (ex-data e)))) (range 1000000)))`),
		// Derivations built inside iterate, trampoline, defaults.
		prog("a lazy chain nested 100,000 deep by iterate", "failed", `(first (nth (iterate (fn [s] (map inc s)) (range)) 100000))`),
		prog("a lazy chain nested a million deep by trampoline", "failed", `(trampoline (fn f [s i] (if (< i 1000000) #(f (map inc s) (inc i)) (count (take 1 s)))) (range) 0)`),
		prog(":or defaults building 10,000-element vectors", "failed", `(defn f [& {:keys [a] :or {a (vec (range 10000))}}] a) (count (mapv (fn [i] (f)) (range 100000)))`),
		prog("keyword arguments of a million pairs", "failed", `(defn f [& {:as m}] (count m)) (f (interleave (range 2000000) (range 2000000)))`),
		prog("union of two half-million inputs", "failed", `(count (clojure.set/union (set (range 600000)) (vec (range 600000 1200000))))`),
		prog("pr-str of a value shared 40 levels deep", "failed", `(count (pr-str (reduce (fn [v i] [v v]) [] (range 40))))`),
		prog("format of a two-million-element vector", "failed", `(count (format "%s %s" (vec (range 2000000)) (vec (range 2000000))))`),
		prog("json/generate-string of a self-similar map", "failed", `(count (json/generate-string (reduce (fn [v i] {:a v :b v}) 1 (range 40))))`),
		prog("pr-str of an infinite lazy sequence", "any", `(count (pr-str (map inc (range))))`),
		prog("str of an infinite lazy sequence", "any", `(count (str (map inc (range))))`),
		prog("sort of three million", "failed", `(count (sort (range 3000000)))`),
		// Work before the clock: literals, fences, declarations.
		{attack{name: "a program of one 12 MB string literal", method: "EvalTurn", expect: "any", kind: kindPrograms,
			req: program(`(count "` + strings.Repeat("x", 12_000_000) + `")`)}, evalCPU},
		{attack{name: "a regex literal of 4 MB", method: "EvalTurn", expect: "failed", kind: kindPrograms,
			req: program(`(re-find #"` + strings.Repeat("(a|b)", 800_000) + `" "ab")`)}, evalCPU},
		// Extracting a program is charged against the request's read
		// bound (lisp.ExtractWork): over it, refused the same every time.
		{attack{name: "raw_response of 900,000 fenced blocks", method: "EvalTurn", expect: "RESOURCE_EXHAUSTED", kind: kindPrograms,
			req: func() proto.Message {
				return &ptcsidecarv1.EvalTurnRequest{RawResponse: strings.Repeat("```clojure\n1\n```\n", 900_000), Limits: evalLimits()}
			}}, evalCPU},
		{attack{name: "raw_response of a million unterminated fences", method: "EvalTurn", expect: "RESOURCE_EXHAUSTED", kind: kindPrograms,
			req: func() proto.Message {
				return &ptcsidecarv1.EvalTurnRequest{RawResponse: strings.Repeat("```clojure\n", 1_000_000), Limits: evalLimits()}
			}}, evalCPU},
		{attack{name: "100,000 functions each calling the next, undeclared", method: "EvalTurn", expect: "any", kind: kindPrograms,
			req: program(defs(100_000, "(defn f%d [] (f%d))\n"))}, evalCPU},
		{attack{name: "100,000 functions each calling the next, declared", method: "EvalTurn", expect: "any", kind: kindPrograms,
			req: program("(declare " + defs(100_000, "f%[2]d ") + ")\n" + defs(100_000, "(defn f%d [] (f%d))\n"))}, evalCPU},
		{attack{name: "200,000 declarations of one name", method: "EvalTurn", expect: "any", kind: kindPrograms,
			req: program(strings.Repeat("(declare x)\n", 200_000) + "1")}, evalCPU},
		// Output: warnings, errors and prints.
		{attack{name: "200,000 shadowing defs of builtins", method: "EvalTurn", expect: "any", kind: kindPrograms,
			req: program(defs(100_000, "(def map %d) (def filter %d)\n") + "1")}, evalCPU},
		// A warning per definition of an atom, each naming its own: 40,000
		// distinct warnings, each compared with those before it.
		{attack{name: "40,000 atoms defined, a warning each", method: "EvalTurn", expect: "step_limit", kind: kindPrograms,
			req: budgeted(defs(40_000, "(def a%d (atom %d))\n") + "1")}, budgetCPU},
		{attack{name: "30,000 atoms defined, a warning each", method: "EvalTurn", expect: "memory_limit", kind: kindPrograms,
			req: budgeted(defs(30_000, "(def a%d (atom %d))\n") + "1")}, budgetCPU},
		{attack{name: "100 atoms of 100 KB names defined", method: "EvalTurn", expect: "ok", kind: kindPrograms,
			req: budgeted(defs(100, "(def a"+strings.Repeat("n", 100_000)+"%d (atom %d))\n") + "1")}, budgetCPU},
		{attack{name: "an undefined symbol of 8 MB", method: "EvalTurn", expect: "failed", kind: kindPrograms,
			req: program("(" + strings.Repeat("u", 8_000_000) + " 1)")}, evalCPU},
		{attack{name: "a keyword of 8 MB called on a number", method: "EvalTurn", expect: "any", kind: kindPrograms,
			req: program("(:" + strings.Repeat("k", 8_000_000) + " 1 2 3)")}, evalCPU},
		prog("a type error quoting a 60 MB-weight value", "failed", bigVector+"(+ 1 v))"),
		prog("println of an 8 MB string, 100 times", "failed", `(let [s (apply str (repeat 8000000 "x"))] (dotimes [i 100] (println s)))`),
		prog("an assert message of 9 MB", "failed", `(assert (= 1 2) (apply str (repeat 9000000 "m")))`),
		// Errors that quote what the caller sent.
		quoted("a 12 MB role", "INVALID_ARGUMENT", func(s string) proto.Message {
			return &ptcsidecarv1.ToMessagesRequest{History: []*ptcsidecarv1.ChatMessage{{Role: s, Content: "x"}}, Options: &ptcsidecarv1.Options{Strategy: "loop-slice"}}
		}),
		quoted("two calls of one 6 MB id", "INVALID_ARGUMENT", func(s string) proto.Message {
			calls := []*ptcsidecarv1.ChatToolCall{{Id: s[:len(s)/2], Name: "t"}, {Id: s[:len(s)/2], Name: "t"}}
			return &ptcsidecarv1.ToMessagesRequest{History: []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "go"}, {Role: "assistant", ToolCalls: calls}},
				Options: &ptcsidecarv1.Options{Strategy: "loop-slice"}}
		}),
		quoted("a tool answer of a 12 MB unknown id", "ok", func(s string) proto.Message {
			return &ptcsidecarv1.ToMessagesRequest{History: []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "go"}, {Role: "tool", ToolCallId: s, Content: "x"}},
				Options: &ptcsidecarv1.Options{Strategy: "loop-slice"}}
		}),
		quoted("a 12 MB strategy name", "INVALID_ARGUMENT", func(s string) proto.Message {
			return &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Strategy: s}}
		}),
		quoted("a 12 MB tokenizer name", "INVALID_ARGUMENT", func(s string) proto.Message {
			return &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Tokenizer: s}}
		}),
		quoted("a 12 MB provider name", "INVALID_ARGUMENT", func(s string) proto.Message {
			return &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Provider: s, Strategy: "loop-slice"},
				History: []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "go"}}}
		}),
		quoted("a 12 MB content part type", "INVALID_ARGUMENT", func(s string) proto.Message {
			return &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Strategy: "loop-slice"},
				History: []*ptcsidecarv1.ChatMessage{{Role: "user", Parts: []*ptcsidecarv1.ContentPart{{Type: s, Text: "x"}}}}}
		}),
		quoted("a 12 MB media type", "ok", func(s string) proto.Message {
			return &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Strategy: "loop-slice"},
				History: []*ptcsidecarv1.ChatMessage{{Role: "user", Parts: []*ptcsidecarv1.ContentPart{{Type: "image", MediaType: s, Data: "aGk="}}}}}
		}),
		quoted("a 12 MB tool name twice", "INVALID_ARGUMENT", func(s string) proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{Program: "1", Tools: []*ptcsidecarv1.ToolSpec{{Name: s[:len(s)/2]}, {Name: s[:len(s)/2]}}}
		}),
		quoted("a 12 MB binding name that is not a name", "INVALID_ARGUMENT", func(s string) proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{Program: "1", Prelude: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "(" + s, Value: &ptcsidecarv1.Value{Edn: "1"}}}}}
		}),
		quoted("a tool answer of a 12 MB tool name", "FAILED_PRECONDITION", func(s string) proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{Program: "(tool/t)", Tools: []*ptcsidecarv1.ToolSpec{{Name: "t"}},
				ToolResults: []*ptcsidecarv1.ToolResult{{Name: s, Result: &ptcsidecarv1.Value{Edn: "1"}}}}
		}),
		quoted("a summary of a 12 MB digest", "INVALID_ARGUMENT", func(s string) proto.Message {
			return &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Strategy: "summarize"}, Summary: &ptcsidecarv1.Summary{Text: "s", Through: 1, Digest: s},
				History: []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "go"}, {Role: "assistant", Content: "ok"}}}
		}),
		// JSON that protojson refuses, quoting what it refuses.
		{attack{name: "JSON with an unknown field of a 12 MB name", method: "ToMessages", expect: "INVALID_ARGUMENT", kind: kindTexts, httpOnly: true,
			json: func() []byte { return []byte(`{"options": {"` + strings.Repeat("q", 12_000_000) + `": 1}}`) }}, 2 * time.Second},
		{attack{name: "JSON with a number of 12 MB of digits", method: "ToMessages", expect: "INVALID_ARGUMENT", kind: kindTexts, httpOnly: true,
			json: func() []byte { return []byte(`{"options": {"maxTurns": "` + strings.Repeat("9", 12_000_000) + `"}}`) }}, 2 * time.Second},
		// Request-sized inputs through the strategies and the trace.
		// The answer holds every tool's signature rendered: over HTTP its
		// JSON costs what the request does (kindRendered).
		{attack{name: "10,000 tools of 1 KB signatures", method: "ToMessages", expect: "ok", kind: kindRendered, req: func() proto.Message {
			return &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Tools: tools(10_000, 70)}}
		}}, 4 * time.Second},
		{attack{name: "10,000 tools of 1 KB signatures, EvalTurn", method: "EvalTurn", expect: "ok", kind: kindTexts, req: func() proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{Program: "1", Tools: tools(10_000, 70), Limits: evalLimits()}
		}}, evalCPU},
		{attack{name: "8,000 tool-call ids of 200 bytes alike", method: "ToMessages", expect: "any", kind: kindTexts, req: func() proto.Message {
			const n = 8000
			calls := make([]*ptcsidecarv1.ChatToolCall, n)
			msgs := []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "go"}, {Role: "assistant"}}
			for i := range calls {
				id := strings.Repeat("é", 100) + string(rune(0x4E00+i))
				calls[i] = &ptcsidecarv1.ChatToolCall{Id: id, Name: "t", Arguments: "{}"}
				msgs = append(msgs, &ptcsidecarv1.ChatMessage{Role: "tool", ToolCallId: id, Content: "ok"})
			}
			msgs[1].ToolCalls = calls
			return &ptcsidecarv1.ToMessagesRequest{History: msgs, Options: &ptcsidecarv1.Options{Strategy: "loop-slice"}}
		}}, 4 * time.Second},
		// One assistant message of many calls: each call's id was compared
		// with every call before it, and each answer's with every call.
		{attack{name: "60,000 calls in one message, 9,000 answered", method: "ToMessages", expect: "ok", kind: kindTexts, req: func() proto.Message {
			calls := make([]*ptcsidecarv1.ChatToolCall, 60_000)
			msgs := []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "go"}, {Role: "assistant", Content: "calling"}}
			for i := range calls {
				calls[i] = &ptcsidecarv1.ChatToolCall{Id: fmt.Sprintf("call_%036d", i), Name: "t", Arguments: "{}"}
				if i < 9000 {
					msgs = append(msgs, &ptcsidecarv1.ChatMessage{Role: "tool", ToolCallId: calls[i].Id, Content: "ok"})
				}
			}
			msgs[1].ToolCalls = calls
			msgs = append(msgs, &ptcsidecarv1.ChatMessage{Role: "user", Content: "next"})
			return &ptcsidecarv1.ToMessagesRequest{History: msgs, Options: &ptcsidecarv1.Options{Strategy: "clear-tool-results"}}
		}}, 2 * time.Second},
		{attack{name: "9,000 calls in one message answered, turn-aware", method: "ToMessages", expect: "ok", kind: kindTexts, req: func() proto.Message {
			calls := make([]*ptcsidecarv1.ChatToolCall, 9000)
			msgs := []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "go"}, {Role: "assistant", Content: "calling"}}
			for i := range calls {
				calls[i] = &ptcsidecarv1.ChatToolCall{Id: fmt.Sprintf("call_%036d", i), Name: "get_status", Arguments: fmt.Sprintf(`{"i": %d}`, i)}
				msgs = append(msgs, &ptcsidecarv1.ChatMessage{Role: "tool", ToolCallId: calls[i].Id, Content: "ok"})
			}
			msgs[1].ToolCalls = calls
			return &ptcsidecarv1.ToMessagesRequest{History: msgs, Options: &ptcsidecarv1.Options{Strategy: "turn-aware", SnapshotToolPrefixes: []string{"get_"}}}
		}}, 2 * time.Second},
		{attack{name: "RenderTrace of 1,000 turns of 10 KB", method: "RenderTrace", expect: "any", kind: kindRendered, req: func() proto.Message {
			turns := make([]*ptcsidecarv1.Turn, 1000)
			for i := range turns {
				turns[i] = &ptcsidecarv1.Turn{Number: int32(i + 1), Program: "(str \"" + strings.Repeat("p", 4000) + "\")", Success: true,
					Prints: []string{strings.Repeat("l\n", 1000)}, Result: &ptcsidecarv1.Value{Edn: `"` + strings.Repeat("r", 4000) + `"`}}
			}
			return &ptcsidecarv1.RenderTraceRequest{Turns: turns}
		}}, 4 * time.Second},
		{attack{name: "10,000 memory names of 1 KB", method: "EvalTurn", expect: "INVALID_ARGUMENT", kind: kindValues, req: func() proto.Message {
			bindings := make([]*ptcsidecarv1.Binding, 10_000)
			for i := range bindings {
				bindings[i] = &ptcsidecarv1.Binding{Name: fmt.Sprintf("%s%d", strings.Repeat("n", 1000), i), Value: &ptcsidecarv1.Value{Edn: "1"}}
			}
			return &ptcsidecarv1.EvalTurnRequest{Program: "1", Prelude: &ptcsidecarv1.Memory{Bindings: bindings}, Limits: evalLimits()}
		}}, evalCPU},
		{attack{name: "an earlier result of a 12 MB string, read 1,000 times", method: "EvalTurn", expect: "any", kind: kindValues, req: func() proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{Program: `(dotimes [i 1000] (count (str *1 "x"))) 1`, Limits: &ptcsidecarv1.Limits{TimeoutMs: budgetTimeoutMs},
				PreviousResults: []*ptcsidecarv1.Value{{Edn: `"` + strings.Repeat("s", 12_000_000) + `"`}}}
		}}, budgetCPU},
	}
}

// quoted is an attack of a request holding a 12 MB text where an error
// may quote it: it ends with expect, and no message or turn passes the
// emit limit. A 12 MB role quoted whole left a grpc-go client waiting
// for its answer until the test's guard (5 minutes), the server idle.
func quoted(name, expect string, req func(s string) proto.Message) inputAttack {
	s := strings.Repeat("q", 12_000_000)
	method := "ToMessages"
	if _, ok := req("").(*ptcsidecarv1.EvalTurnRequest); ok {
		method = "EvalTurn"
	}
	return inputAttack{attack{name: name, method: method, expect: expect, kind: kindTexts, req: func() proto.Message { return req(s) }}, 2 * time.Second}
}

// tools is n tools whose signatures take params parameters each.
func tools(n, params int) []*ptcsidecarv1.ToolSpec {
	names := make([]string, params)
	for i := range names {
		names[i] = fmt.Sprintf("p%d :int", i)
	}
	signature := "(" + strings.Join(names, ", ") + ") -> {a :int, b [:string]}"
	out := make([]*ptcsidecarv1.ToolSpec, n)
	for i := range out {
		out[i] = &ptcsidecarv1.ToolSpec{Name: fmt.Sprintf("t%d", i), Signature: signature}
	}
	return out
}

// scalingAttacks are request-sized inputs sent at two sizes, n and 2n:
// the server's CPU for the second must be about twice the first's.
func scalingAttacks(n int) []inputAttack {
	// ids is a history of one assistant message calling n tools whose ids
	// all sanitize to the same text, and their answers; taken are ids
	// already in the form a renamed one would take.
	ids := func(n int, id func(i int) string, strategy string) func() proto.Message {
		return func() proto.Message {
			calls := make([]*ptcsidecarv1.ChatToolCall, n)
			msgs := []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "go"}, {Role: "assistant"}}
			for i := range calls {
				calls[i] = &ptcsidecarv1.ChatToolCall{Id: id(i), Name: "t", Arguments: "{}"}
				msgs = append(msgs, &ptcsidecarv1.ChatMessage{Role: "tool", ToolCallId: id(i), Content: "ok"})
			}
			msgs[1].ToolCalls = calls
			return &ptcsidecarv1.ToMessagesRequest{History: msgs, Options: &ptcsidecarv1.Options{Strategy: strategy}}
		}
	}
	chat := func(n int, strategy string) func() proto.Message {
		return func() proto.Message {
			msgs := make([]*ptcsidecarv1.ChatMessage, 0, n)
			for i := range n / 3 {
				id := fmt.Sprintf("c%d", i)
				msgs = append(msgs, &ptcsidecarv1.ChatMessage{Role: "user", Parts: []*ptcsidecarv1.ContentPart{{Type: "text", Text: fmt.Sprintf("q%d %s", i, strings.Repeat("w ", 100))}}},
					&ptcsidecarv1.ChatMessage{Role: "assistant", Content: "a", ToolCalls: []*ptcsidecarv1.ChatToolCall{{Id: id, Name: "t", Arguments: `{"q": 1}`}}},
					&ptcsidecarv1.ChatMessage{Role: "tool", ToolCallId: id, Content: strings.Repeat("r ", 200)})
			}
			budget := int32(20_000)
			return &ptcsidecarv1.ToMessagesRequest{History: msgs, Options: &ptcsidecarv1.Options{Strategy: strategy, MaxTokens: &budget}}
		}
	}
	turns := func(n int, strategy string) func() proto.Message {
		return func() proto.Message {
			turns := make([]*ptcsidecarv1.Turn, n)
			for i := range turns {
				bindings := make([]*ptcsidecarv1.Binding, 40)
				for j := range bindings {
					bindings[j] = &ptcsidecarv1.Binding{Name: fmt.Sprintf("b%d", j), Value: &ptcsidecarv1.Value{Edn: fmt.Sprintf("[%d %d %s]", i, j, strings.Repeat("7 ", 150))}, Turn: int32(i + 1)}
				}
				turns[i] = &ptcsidecarv1.Turn{Number: int32(i + 1), Program: fmt.Sprintf("(def b%d %d)", i, i), Success: true,
					Result: &ptcsidecarv1.Value{Edn: "1"}, Memory: &ptcsidecarv1.Memory{Bindings: bindings}}
			}
			return &ptcsidecarv1.ToMessagesRequest{Turns: turns, Options: &ptcsidecarv1.Options{Strategy: strategy}}
		}
	}
	cpu := 4 * time.Second
	out := []inputAttack{
		{attack{name: fmt.Sprintf("%d tool-call ids of 200 bytes that sanitize alike", n), method: "ToMessages", expect: "any", kind: kindTexts,
			req: ids(n, func(i int) string { return strings.Repeat("é", 100) + string(rune(0x4E00+i)) }, "clear-tool-results")}, cpu},
		{attack{name: fmt.Sprintf("%d ids sanitizing to x beside x_2...", n), method: "ToMessages", expect: "any", kind: kindTexts,
			req: ids(n, func(i int) string {
				if i%2 == 0 {
					return fmt.Sprintf("x_%d", i/2+2)
				}
				return "x" + string(rune(0x4E00+i))
			}, "clear-tool-results")}, cpu},
		{attack{name: fmt.Sprintf("%d tools of long signatures", n), method: "ToMessages", expect: "ok", kind: kindTexts, req: func() proto.Message {
			return &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Tools: tools(n, 40)}}
		}}, cpu},
		{attack{name: fmt.Sprintf("dir over %d tools of long signatures", n), method: "EvalTurn", expect: "any", kind: kindTexts, req: func() proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{Program: `(count (with-out-str (dir "tool")))`, Tools: tools(n, 40), Limits: evalLimits()}
		}}, cpu},
		{attack{name: fmt.Sprintf("%d turns of 40 bindings, cache-stable", n/10), method: "ToMessages", expect: "any", kind: kindValues, req: turns(n/10, "cache-stable")}, cpu},
		{attack{name: fmt.Sprintf("%d turns of 40 bindings, full", n/10), method: "ToMessages", expect: "any", kind: kindValues, req: turns(n/10, "full")}, cpu},
		{attack{name: fmt.Sprintf("RenderTrace of %d turns of 40 bindings", n/10), method: "RenderTrace", expect: "any", kind: kindRendered, req: func() proto.Message {
			r := turns(n/10, "full")().(*ptcsidecarv1.ToMessagesRequest)
			return &ptcsidecarv1.RenderTraceRequest{Turns: r.Turns}
		}}, cpu},
	}
	for _, st := range []string{"turn-aware", "token-budget", "summarize", "loop-slice", "clear-tool-results"} {
		out = append(out, inputAttack{attack{name: fmt.Sprintf("%d chat messages, %s", n, st), method: "ToMessages", expect: "ok", kind: kindTexts, req: chat(n, st)}, cpu})
	}
	// One result of short lines and one edit argument of many lines: each
	// line was a string header in a list before it was read for paths, and
	// each note of the argument made it four bytes a character.
	budget := int32(20_000)
	for _, st := range []string{"token-budget", "loop-slice"} {
		out = append(out,
			inputAttack{attack{name: fmt.Sprintf("one result of %d one-letter lines, %s", n*500, st), method: "ToMessages", expect: "ok", kind: kindHistory,
				req: func() proto.Message {
					return &ptcsidecarv1.ToMessagesRequest{History: toolLoops(3, func(i int) string { return fmt.Sprintf("c%d", i) }, func(int) string { return "{}" },
						first(strings.Repeat("a\n", n*500))), Options: &ptcsidecarv1.Options{Strategy: st, MaxTokens: &budget}}
				}}, cpu},
			inputAttack{attack{name: fmt.Sprintf("one edit argument of %d lines, %s", n*20, st), method: "ToMessages", expect: "ok", kind: kindHistory,
				req: func() proto.Message {
					arg := fmt.Sprintf(`{"file_path": "/srv/a.go", "old_string": %q}`, tokenLines(n*20, func(j int) string { return fmt.Sprintf("line /srv/y%d.go %d", j, j) }))
					return &ptcsidecarv1.ToMessagesRequest{History: toolLoops(3, func(i int) string { return fmt.Sprintf("c%d", i) }, func(i int) string {
						if i == 0 {
							return arg
						}
						return "{}"
					}, func(int) string { return "ok" }), Options: &ptcsidecarv1.Options{Strategy: st, MaxTokens: &budget}}
				}}, cpu})
	}
	return out
}

// TestAttacksScaling sends each scaling attack at two sizes.
func TestAttacksScaling(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "CPU per request size")
	for _, n := range []int{4500, 9000} {
		for _, a := range scalingAttacks(n) {
			t.Run(a.name+"/gRPC", func(t *testing.T) { runInputAttack(t, a, "gRPC") })
		}
	}
}

// TestAttacksRedTeam sends every attack of the third pass three times over
// both listeners, each to a server of its own.
func TestAttacksRedTeam(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, redTeamAttacks())
}

// runInputAttacks runs each attack over the listeners it is for.
func runInputAttacks(t *testing.T, attacks []inputAttack) {
	for _, a := range attacks {
		for _, listener := range []string{"gRPC", "HTTP"} {
			if a.grpcOnly && listener == "HTTP" || a.httpOnly && listener == "gRPC" {
				continue
			}
			t.Run(a.name+"/"+listener, func(t *testing.T) { runInputAttack(t, a, listener) })
		}
	}
}

// TestAttackSharedMutableKinds: values that hold state a program changes
// (atoms, volatiles, transients, closures and memoized functions over an
// atom, sorted collections, exceptions' data) sent as an earlier result
// and as a memory binding, which the server reads once and remembers for
// every caller that sends the same text; the program changes them. Every
// caller, 100 at once over both listeners, three rounds, must get what
// the first caller alone got.
func TestAttackSharedMutableKinds(t *testing.T) {
	skipIfShort(t)
	// A value holding what lives only while a program runs is refused
	// (refused); the others may be read, alike for every caller.
	runSharedValueCases(t, []sharedValueCase{
		{`(atom 0)`, `(swap! s inc)`, true},
		{`(volatile! 0)`, `(vswap! s inc)`, true},
		{`(transient [])`, `(count (persistent! (conj! s 1)))`, true},
		{`(let [a (atom 0)] (fn [] (swap! a inc)))`, `(s)`, true},
		{`(let [a (atom 0)] (memoize (fn [x] (swap! a inc))))`, `[(s 1) (s 2) (s 1)]`, true},
		{`{:a (atom [])}`, `(do (swap! (:a s) conj 1) (count @(:a s)))`, true},
		{`(ex-info "x" {:n (atom 0)})`, `(swap! (:n (ex-data s)) inc)`, true},
		{`(map (memoize (fn [x] (* x x))) (range))`, `(reduce + (take 100 s))`, false},
		{`(delay (rand))`, `@s`, true},
		// Decimals and a hierarchy, hashed, compared and walked.
		{`[1.50M 1E+2M -3.25M]`, `[(hash (first s)) (get {1.5M :x} (first s)) (with-precision 3 (/ (peek s) 3)) (sort s)]`, false},
		{`{:parents {:c #{:b}, :b #{:a}}, :ancestors {:c #{:b :a}, :b #{:a}}, :descendants {:b #{:c}, :a #{:b :c}}}`, `[(isa? s :c :a) (ancestors s :c) (descendants s :a)]`, false},
		{`(let [m {:a [1 2 3]}] (fn [k] (conj (get m k) 4)))`, `(s :a)`, false},
		// A record read from text: its type is shared by the literals of
		// a value, and the program builds records and maps from it.
		{`[#user.R{:a [1 2]} #user.R{:a [3]}]`, `[(update-in s [0 :a] conj 4) (assoc (first s) :b 2) (dissoc (second s) :a) (record? (first s))]`, false},
	}, 100, 3)
}

// sharedValueCase is a value sent as text and a program that reads it as
// s; refused: the first caller's request is refused as INVALID_ARGUMENT.
type sharedValueCase struct {
	edn, program string
	refused      bool
}

// runSharedValueCases sends each case as an earlier result and as a
// memory binding, each way to a server of its own: first from one caller,
// then rounds times from callers at once over both listeners, each of
// whom must read what the first read.
func runSharedValueCases(t *testing.T, cases []sharedValueCase, callers, rounds int) {
	t.Helper()
	ways := map[string]func(edn, program string) proto.Message{
		"earlier result": func(edn, program string) proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{Program: "(let [s *1] " + program + ")", Limits: &ptcsidecarv1.Limits{TimeoutMs: budgetTimeoutMs},
				PreviousResults: []*ptcsidecarv1.Value{{Edn: edn}}}
		},
		"memory binding": func(edn, program string) proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{Program: program, Limits: &ptcsidecarv1.Limits{TimeoutMs: budgetTimeoutMs},
				Prelude: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "s", Value: &ptcsidecarv1.Value{Edn: edn}}}}}
		},
	}
	for way, request := range ways {
		t.Run(way, func(t *testing.T) {
			// The server's whole timeout, and a queue that waits for a
			// slot: what is judged is that every caller reads alike,
			// which a loaded machine (or the race detector) must not
			// decide.
			p := start(t, append([]string{"--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--max-concurrent-evals", "8",
				"--eval-queue-wait", "5m"}, budgetTimeoutFlag()...)...)
			for _, c := range cases {
				a := attack{name: c.edn, method: "EvalTurn", req: func() proto.Message { return request(c.edn, c.program) }}
				first, _ := sendAttack(t, p, "gRPC", a)
				want := answerOf(first)
				t.Logf("%-50s %-40s first caller: %.120s", c.edn, c.program, want)
				if refused := first.got == "INVALID_ARGUMENT"; refused != c.refused || !refused && first.got != "ok" {
					t.Errorf("%s: the first caller read %.200s", c.edn, want)
				}
				for round := range rounds {
					for what, n := range crowdReads(t, p, a, callers, want) {
						t.Errorf("%s, round %d: %d of %d callers read %.200s, the first %.200s", c.edn, round, n, callers, what, want)
					}
				}
			}
			endAliveAndRaceFree(t, p)
		})
	}
}

// answerOf is what a caller read: a turn's result, or how it failed.
func answerOf(out attackOutcome) string {
	if out.got == "ok" {
		return out.turn.GetResult().GetEdn()
	}
	return out.got + " " + out.message
}

// crowdReads sends a from n callers at once, alternating gRPC and HTTP,
// and counts the answers other than want, by listener and answer.
func crowdReads(t *testing.T, p *process, a attack, n int, want string) map[string]int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	wrong := map[string]int{}
	for i := range n {
		listener := []string{"gRPC", "HTTP"}[i%2]
		wg.Go(func() {
			out, _ := sendAttack(t, p, listener, a)
			if got := answerOf(out); got != want {
				mu.Lock()
				wrong[listener+" "+got]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return wrong
}
