package main_test

// Attacks on the features the last releases added: JSON text built and
// read by programs, dates, exceptions, introspection over the request's
// tools, :pre/:post conditions and namespaced destructuring; the program
// call of the tool-call form; content parts and their media sniffing,
// cleared reasoning, the summarize strategy and the tool-call rendering of
// turns. Each is sent three times over each listener to a server of its
// own and judged as the input attacks are (runInputAttack): the server
// alive, the same outcome each time, its peak RSS and its own CPU time
// within the bounds of docs/RELIABILITY.md, an EvalTurn's turn within the
// emit limit and received by a default gRPC client.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// featureAttacks are the attacks on what the last releases added.
func featureAttacks() []inputAttack {
	evalCPU := 2 * (evalTimeoutMs*time.Millisecond + 250*time.Millisecond)
	history := func(msgs []*ptcsidecarv1.ChatMessage, opts *ptcsidecarv1.Options) func() proto.Message {
		return func() proto.Message { return &ptcsidecarv1.ToMessagesRequest{History: msgs, Options: opts} }
	}
	user := func(parts ...*ptcsidecarv1.ContentPart) *ptcsidecarv1.ChatMessage {
		return &ptcsidecarv1.ChatMessage{Role: "user", Parts: parts}
	}
	keep := func(n int32) *int32 { return &n }
	// A PNG's signature and header (13 bytes of IHDR), base64.
	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x04\x00\x00\x00\x03\x00\x08\x02\x00\x00\x00\x00\x00\x00\x00"))
	call := func(id, args string) func() proto.Message {
		return func() proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{ProgramCall: &ptcsidecarv1.ChatToolCall{Id: id, Name: "run_ptc_lisp", Arguments: args}, Limits: evalLimits()}
		}
	}
	return []inputAttack{
		// JSON text: written whole before it was charged.
		{attack{name: "json/generate-string of 60 MB of print weight", method: "EvalTurn", expect: "failed", kind: kindPrograms, req: program(
			bigVector + "(count (json/generate-string v)))")}, evalCPU},
		{attack{name: "json/parse-string of its own text, 20,000 times", method: "EvalTurn", expect: "step_limit", kind: kindPrograms, req: budgeted(
			`(let [s (json/generate-string (vec (range 20000)))] (dotimes [i 20000] (json/parse-string s)) :done)`)}, evalCPU},
		// JSON text sent as data and read by the program: the value was
		// built whole before the allocation budget was charged for it.
		// The decoder's set-up, tokens and bytes are charged in steps
		// (lisp/json.go), which end these before the memory budget.
		{attack{name: "json/parse-string of 4 MB of numbers from data", method: "EvalTurn", expect: "step_limit", kind: kindValues,
			req: jsonData("[" + strings.Repeat("1,", 2_000_000) + "1]")}, evalCPU},
		{attack{name: "json/parse-string of 9 MB of objects from data", method: "EvalTurn", expect: "step_limit", kind: kindValues,
			req: jsonData("[" + strings.Repeat(`{"a":1,"b":2},`, 650_000) + "1]")}, evalCPU},
		{attack{name: "json/parse-lines of 1.5 million lines from data", method: "EvalTurn", expect: "step_limit", kind: kindValues,
			req: func() proto.Message {
				r := jsonData(strings.Repeat("{}\n", 1_500_000))().(*ptcsidecarv1.EvalTurnRequest)
				r.Program = "(count (json/parse-lines data/s))"
				return r
			}}, evalCPU},
		// Exceptions: their message and data travel back in the turn's error.
		{attack{name: "an uncaught ex-info of a 9 MB message", method: "EvalTurn", expect: "failed", kind: kindPrograms, req: program(
			`(throw (ex-info (apply str (repeat 9000 (apply str (repeat 1000 "x")))) {}))`)}, evalCPU},
		{attack{name: "an uncaught ex-info whose data prints as 60 MB", method: "EvalTurn", expect: "failed", kind: kindPrograms, req: program(
			bigVector + "(throw (ex-info \"boom\" {:v v})))")}, evalCPU},
		{attack{name: ":pre failing on a 100 KB form, 100,000 times", method: "EvalTurn", expect: "failed", kind: kindPrograms, req: program(
			`(defn f [x] {:pre [(= x "` + strings.Repeat("y", 100_000) + `")]} x) (dotimes [i 100000] (try (f 1) (catch Exception e nil))) :done`)}, evalCPU},
		{attack{name: "namespaced destructuring of 100,000 keys", method: "EvalTurn", expect: "any", kind: kindPrograms, req: func() proto.Message {
			var b strings.Builder
			b.WriteString("(let [{:a/keys [")
			for i := range 100_000 {
				fmt.Fprintf(&b, "k%d ", i)
			}
			b.WriteString("]} {:a/k0 1}] k0)")
			return &ptcsidecarv1.EvalTurnRequest{Program: b.String(), Limits: evalLimits()}
		}}, evalCPU},
		{attack{name: "a million LocalDates and Instants kept", method: "EvalTurn", expect: "failed", kind: kindPrograms, req: program(
			`(count (mapv (fn [i] [(java.time.LocalDate/parse "2024-01-01") (java.time.Instant/parse "2024-01-01T00:00:00Z")]) (range 1000000)))`)}, evalCPU},
		// Introspection lists the request's tools on each call.
		{attack{name: "apropos by regex over 10,000 tools of 1 KB names", method: "EvalTurn", expect: "failed", kind: kindTexts, req: func() proto.Message {
			tools := make([]*ptcsidecarv1.ToolSpec, 10_000)
			for i := range tools {
				tools[i] = &ptcsidecarv1.ToolSpec{Name: fmt.Sprintf("%06d%s", i, strings.Repeat("a", 1000))}
			}
			return &ptcsidecarv1.EvalTurnRequest{Program: `(dotimes [i 100000] (apropos #"(a|aa)*b")) :done`, Tools: tools, Limits: evalLimits()}
		}}, evalCPU},
		{attack{name: "dir of 10,000 tools, 100,000 times", method: "EvalTurn", expect: "failed", kind: kindTexts, req: func() proto.Message {
			tools := make([]*ptcsidecarv1.ToolSpec, 10_000)
			for i := range tools {
				tools[i] = &ptcsidecarv1.ToolSpec{Name: fmt.Sprintf("t%d", i)}
			}
			return &ptcsidecarv1.EvalTurnRequest{Program: `(dotimes [i 100000] (with-out-str (dir "tool"))) :done`, Tools: tools, Limits: evalLimits()}
		}}, evalCPU},
		{attack{name: "doc of a tool with a 10 MB description, 1,000 times", method: "EvalTurn", expect: "failed", kind: kindTexts, req: func() proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{Program: `(dotimes [i 1000] (with-out-str (doc tool/t))) :done`,
				Tools: []*ptcsidecarv1.ToolSpec{{Name: "t", Signature: "(t [x :int])", Description: strings.Repeat("d", 10_000_000)}}, Limits: evalLimits()}
		}}, evalCPU},
		// The program call of the tool-call form: what the turn echoes, and
		// its JSON read before the evaluation.
		{attack{name: "program call with a 12 MB id", method: "EvalTurn", expect: "INVALID_ARGUMENT", kind: kindValues,
			req: call(strings.Repeat("i", 12_000_000), `{"program": "(+ 1 2)"}`)}, evalCPU},
		{attack{name: "program call with a 12 MB name", method: "EvalTurn", expect: "INVALID_ARGUMENT", kind: kindValues,
			req: func() proto.Message {
				return &ptcsidecarv1.EvalTurnRequest{ProgramCall: &ptcsidecarv1.ChatToolCall{Id: "c", Name: strings.Repeat("n", 12_000_000), Arguments: `{"program": "1"}`}, Limits: evalLimits()}
			}}, evalCPU},
		{attack{name: "program call arguments of a million keys", method: "EvalTurn", expect: "ok", kind: kindValues, req: func() proto.Message {
			var b strings.Builder
			b.WriteString(`{"program": "(+ 1 2)"`)
			for i := range 1_000_000 {
				fmt.Fprintf(&b, `,"k%d":[]`, i)
			}
			b.WriteString("}")
			return call("c", b.String())()
		}}, evalCPU},
		// Decoding its 9 MB of escapes is charged as the request's reading
		// (server/programcall.go): past what a 1 s timeout reads.
		{attack{name: "program call of 4.5 million escaped forms", method: "EvalTurn", expect: "RESOURCE_EXHAUSTED", kind: kindPrograms,
			req: call("c", `{"program": "`+strings.Repeat(`1\n`, 4_500_000)+`"}`)}, evalCPU},
		{attack{name: "raw_response of 12 MB prose and a small block", method: "EvalTurn", expect: "ok", kind: kindPrograms,
			req: func() proto.Message {
				return &ptcsidecarv1.EvalTurnRequest{RawResponse: strings.Repeat("words ", 2_000_000) + "\n```clojure\n(+ 1 2)\n```\n", Limits: evalLimits()}
			}}, evalCPU},
		// A tokenizer's estimate over text of every script at once.
		{attack{name: "claude-estimate over 12 MB of mixed scripts", method: "ToMessages", expect: "ok", kind: kindTexts, req: func() proto.Message {
			return &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Tokenizer: "claude-estimate",
				Mission: strings.Repeat("é字 ж\u00a0🙂x1.\n", 600_000)}}
		}}, 4 * time.Second}, // linear: 0.2 s a MiB, o200k_base's rate
		// Unknown fields are kept as they came; groups in them nest. Not a
		// protobuf message: refused naming the field, as any such bytes.
		{attack{name: "an unknown field of groups nested 4 million deep", method: "ToMessages", expect: "INVALID_ARGUMENT", kind: kindLists, grpcOnly: true,
			wire: func() []byte {
				var b []byte
				for range 4_000_000 {
					b = protowire.AppendTag(b, 99, protowire.StartGroupType)
				}
				return b
			}}, 2 * time.Second},
		// Content parts: each part's media is sniffed from its data. A
		// part is 66 bytes on the wire and three messages once decoded:
		// more than the size rule allows (twice the bytes plus 3 MiB), so
		// the request is refused before any part is sniffed.
		{attack{name: "99,000 PNG image parts", method: "ToMessages", expect: "INVALID_ARGUMENT", kind: kindValues, req: func() proto.Message {
			parts := make([]*ptcsidecarv1.ContentPart, 99_000)
			for i := range parts {
				parts[i] = &ptcsidecarv1.ContentPart{Type: "image", Data: png, MediaType: "image/png"}
			}
			return history([]*ptcsidecarv1.ChatMessage{user(parts...)}, &ptcsidecarv1.Options{Strategy: "clear-tool-results", Tokenizer: "claude-estimate"})()
		}}, 2 * time.Second},
		{attack{name: "a 12 MB PDF of page objects", method: "ToMessages", expect: "ok", kind: kindTexts, req: func() proto.Message {
			pdf := "%PDF-1.7\n" + strings.Repeat("/Type /Page\n/Type\t\t/Pages ", 400_000)
			return history([]*ptcsidecarv1.ChatMessage{user(&ptcsidecarv1.ContentPart{Type: "document", MediaType: "application/pdf",
				Data: base64.StdEncoding.EncodeToString([]byte(pdf))})}, &ptcsidecarv1.Options{Strategy: "turn-aware", Tokenizer: "gemma3"})()
		}}, 2 * time.Second},
		{attack{name: "5,000 reasoning turns of 2 KB cleared", method: "ToMessages", expect: "ok", kind: kindTexts, req: func() proto.Message {
			msgs := []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "go"}}
			for i := range 4_999 {
				msgs = append(msgs, &ptcsidecarv1.ChatMessage{Role: "assistant", Parts: []*ptcsidecarv1.ContentPart{
					{Type: "thinking", Text: fmt.Sprintf("t%d %s", i, strings.Repeat("th ", 700)), Signature: "s"}, {Type: "text", Text: "a"}}},
					&ptcsidecarv1.ChatMessage{Role: "user", Content: "more"})
			}
			return history(msgs, &ptcsidecarv1.Options{Strategy: "loop-slice", KeepThinkingTurns: keep(0), Provider: "anthropic"})()
		}}, 2 * time.Second},
		{attack{name: "summary asked for over 10,000 messages of 1 KB", method: "ToMessages", expect: "ok", kind: kindRendered, req: func() proto.Message {
			var msgs []*ptcsidecarv1.ChatMessage
			for i := range 5_000 {
				msgs = append(msgs, &ptcsidecarv1.ChatMessage{Role: "user", Content: fmt.Sprintf("q%d %s", i, strings.Repeat("w ", 500))},
					&ptcsidecarv1.ChatMessage{Role: "assistant", Content: fmt.Sprintf("a%d", i)})
			}
			return history(msgs, &ptcsidecarv1.Options{Strategy: "summarize", SummaryTrigger: keep(1), SummaryKeep: keep(1)})()
		}}, 2 * time.Second},
		{attack{name: "5,000 compaction items", method: "ToMessages", expect: "ok", kind: kindTexts, req: func() proto.Message {
			var msgs []*ptcsidecarv1.ChatMessage
			for i := range 5_000 {
				msgs = append(msgs, &ptcsidecarv1.ChatMessage{Role: "user", Content: fmt.Sprintf("q%d", i)},
					&ptcsidecarv1.ChatMessage{Role: "assistant", Parts: []*ptcsidecarv1.ContentPart{{Type: "compaction", Data: "enc"}}})
			}
			return history(msgs, &ptcsidecarv1.Options{Strategy: "token-budget", Provider: "openai", MaxTokens: keep(1000)})()
		}}, 2 * time.Second},
		{attack{name: "1,000 turns of 10 KB in tool-call form", method: "ToMessages", expect: "ok", kind: kindTexts, req: func() proto.Message {
			turns := make([]*ptcsidecarv1.Turn, 1000)
			for i := range turns {
				turns[i] = &ptcsidecarv1.Turn{Number: int32(i + 1), Program: "(str \"" + strings.Repeat("p", 4000) + "\")", Success: true,
					ProgramCallId: fmt.Sprintf("call_%d", i), Prints: []string{strings.Repeat("l\n", 1000)},
					Result: &ptcsidecarv1.Value{Edn: `"` + strings.Repeat("r", 4000) + `"`}}
			}
			return &ptcsidecarv1.ToMessagesRequest{Turns: turns, Options: &ptcsidecarv1.Options{Strategy: "full", ProgramForm: "tool_call"}}
		}}, 2 * time.Second},
	}
}

// jsonData is an EvalTurn attack: text as data/s, which the program reads
// as JSON, with the server's whole timeout, so that the allocation budget
// stops it on a loaded machine too.
func jsonData(text string) func() proto.Message {
	return func() proto.Message {
		edn, _ := json.Marshal(text) // a JSON string is an EDN string here: no \u escapes in text
		return &ptcsidecarv1.EvalTurnRequest{Program: "(count (json/parse-string data/s))", Limits: &ptcsidecarv1.Limits{TimeoutMs: budgetTimeoutMs},
			Data: &ptcsidecarv1.Value{Edn: "{:s " + string(edn) + "}"}}
	}
}

// TestAttacksOnFeatures sends every feature attack three times over both
// listeners, each to a server of its own.
func TestAttacksOnFeatures(t *testing.T) {
	skipIfShort(t) // a server per attack and listener
	skipIfRace(t, "each attack's server CPU and peak RSS, one request at a time")
	for _, a := range featureAttacks() {
		for _, listener := range []string{"gRPC", "HTTP"} {
			if a.grpcOnly && listener == "HTTP" {
				continue
			}
			t.Run(a.name+"/"+listener, func(t *testing.T) { runInputAttack(t, a, listener) })
		}
	}
}
