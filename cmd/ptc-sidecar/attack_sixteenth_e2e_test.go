package main_test

// A sixteenth pass of attacks of issue 33's classes, aimed at what the
// server keeps between requests (its memo of read values and programs),
// EvalTurnStream's sequencing, the transports and the strategies.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// regexLiterals is a vector of n regex literals of 90 KB each once
// compiled, all different, named by tag: a text of n times 20 bytes.
func regexLiterals(tag string, n int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		fmt.Fprintf(&b, `#"\pL{1000}%s_%d" `, tag, i)
	}
	b.WriteString("]")
	return b.String()
}

// rememberedAttacks are requests that each leave the memo an entry of a
// few hundred bytes of text holding megabytes, distinct by tag: programs
// of 40 regex literals, a program in a raw response of 2 MB, a prelude
// function holding 16 regex literals.
func rememberedAttacks(tag string) []attack {
	return []attack{
		{name: "a program of 40 regex literals", method: "EvalTurn", expect: "ok",
			req: func() proto.Message {
				return &ptcsidecarv1.EvalTurnRequest{Program: "(count " + regexLiterals(tag, 40) + ")", Limits: compileLimits()}
			}},
		{name: "a program in a raw response of 2 MB", method: "EvalTurn", expect: "ok",
			req: func() proto.Message {
				return &ptcsidecarv1.EvalTurnRequest{Limits: evalLimits(),
					RawResponse: strings.Repeat("x", 2<<20) + "\n```clojure\n(count \"" + tag + "\")\n```\n"}
			}},
		// A value's source is read within 4 MiB: 16 literals, charged
		// 180 KB each, fit.
		{name: "a prelude function of 16 regex literals", method: "EvalTurn", expect: "ok",
			req: func() proto.Message {
				return &ptcsidecarv1.EvalTurnRequest{Program: "(count (f))", Limits: compileLimits(),
					Prelude: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "f", IsFn: true,
						Value: &ptcsidecarv1.Value{Edn: "(fn [] " + regexLiterals(tag, 16) + ")"}}}}}
			}},
	}
}

// compileLimits ask for the server's timeout: compiling 40 regexes of
// 1,000 instructions takes a loaded machine more than a second.
func compileLimits() *ptcsidecarv1.Limits { return &ptcsidecarv1.Limits{TimeoutMs: 5000} }

// TestAttackRememberedHoldsItsBudget: distinct requests that each leave
// the memo an entry holding far more than its text (a regex literal of 20
// bytes compiles to 90 KB; a program cut from a raw response was a slice
// of it) do not grow what the server holds between requests past its
// memory limit: three rounds of 20 of each, over each listener to a
// server of its own with a memo of 4 MiB and a memory limit of 48 MiB,
// the least RSS after a round within the limit plus 32 MiB.
func TestAttackRememberedHoldsItsBudget(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "the server's RSS against its bound")
	const memoryLimit = 48 * mib
	for _, listener := range []string{"gRPC", "HTTP"} {
		t.Run(listener, func(t *testing.T) {
			p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0",
				"--memo-bytes", fmt.Sprint(4*mib), "--memory-limit", fmt.Sprint(memoryLimit))
			pid := p.cmd.Process.Pid
			least, failed := int64(-1), 0
			for round := range 3 {
				for i := range 20 {
					for _, a := range rememberedAttacks(fmt.Sprintf("r%di%d", round, i)) {
						if out, _ := sendAttack(t, p, listener, a); out.got != a.expect {
							if failed++; failed == 1 {
								t.Errorf("%s: %s (%.300s), want %s", a.name, out.got, out.message, a.expect)
							}
						}
					}
				}
				rss := rssBytes(t, pid)
				t.Logf("after round %d: RSS %d MiB", round+1, rss/mib)
				if least < 0 || rss < least {
					least = rss
				}
			}
			if failed > 0 {
				t.Errorf("%d of 180 requests did not end ok", failed)
			}
			if bound := int64(memoryLimit + attackOverhead); least > bound {
				t.Errorf("the server holds %d MiB after 60 requests of each kind, over its memory limit of %d MiB plus 32 MiB",
					least/mib, memoryLimit/mib)
			}
		})
	}
}

// sixteenthPassAttacks are the single requests of the pass: each of the
// remembered attacks alone; JSON bodies that no protojson would write (a
// field twice, once in each spelling, an int32 of 1e999999, a lone
// surrogate in the JSON and one escaped in a PTC-Lisp string); and a chat history whose tool call ids and names are
// control characters, a NUL, 10,000 characters of CJK, or ids that all
// sanitize alike, for every chat strategy.
func sixteenthPassAttacks() []inputAttack {
	const evalCPU = 2 * (5000*time.Millisecond + 250*time.Millisecond)
	var out []inputAttack
	for _, a := range rememberedAttacks("alone") {
		a.kind = kindPrograms
		out = append(out, inputAttack{a, evalCPU})
	}
	body := func(s string) func() []byte { return func() []byte { return []byte(s) } }
	for _, j := range []struct{ name, body, expect string }{
		{"program twice", `{"program":"1","program":"2"}`, "INVALID_ARGUMENT"},
		{"raw_response in both spellings", "{\"rawResponse\":\"```clojure\\n1\\n```\",\"raw_response\":\"```clojure\\n2\\n```\"}", "INVALID_ARGUMENT"},
		{"turn_number of 1e999999", `{"program":"1","turnNumber":1e999999}`, "INVALID_ARGUMENT"},
		{"turn_number of 1e2", `{"program":"1","turnNumber":1e2}`, "ok"},
		{"a program of a lone surrogate", `{"program":"\ud800"}`, "INVALID_ARGUMENT"},
		{"a string of an escaped lone surrogate", `{"program":"\"\\ud800\""}`, "ok"},
	} {
		out = append(out, inputAttack{attack{name: "JSON: " + j.name, method: "EvalTurn", expect: j.expect, kind: kindValues,
			json: body(j.body), httpOnly: true}, time.Second}) // the JSON bodies are the attack
	}
	long := strings.Repeat("名", 10_000)
	ids := []string{"\x00", "\x01\x02\x7f", "\n\r\t", long, "a b", "a.b", "a/b", "é", "\u2028", "_", "-"}
	names := []string{"\x00", "tool\nname", long, "get status", "\u202eevil", "read_file"}
	for _, strategy := range []string{"loop-slice", "turn-aware", "clear-tool-results", "token-budget"} {
		out = append(out, inputAttack{attack{name: "hostile tool ids and names through " + strategy, method: "ToMessages", expect: "ok", kind: kindHistory,
			req: func() proto.Message {
				msgs := []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "go"}}
				for i, id := range ids {
					msgs = append(msgs,
						&ptcsidecarv1.ChatMessage{Role: "assistant", ToolCalls: []*ptcsidecarv1.ChatToolCall{{Id: id, Name: names[i%len(names)],
							Arguments: []string{"{}", "not json\x00", `{"a":"` + long + `"}`}[i%3]}}},
						&ptcsidecarv1.ChatMessage{Role: "tool", ToolCallId: id, Content: "answer " + id})
				}
				msgs = append(msgs, &ptcsidecarv1.ChatMessage{Role: "user", Content: "and now?"})
				return &ptcsidecarv1.ToMessagesRequest{History: msgs, Options: &ptcsidecarv1.Options{Strategy: strategy, MaxTokens: proto.Int32(100_000), Provider: "anthropic"}}
			}}, 2 * time.Second})
	}
	return out
}

// TestAttacksSixteenthPass sends every attack of the sixteenth pass three
// times over both listeners, each to a server of its own.
func TestAttacksSixteenthPass(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, sixteenthPassAttacks())
}
