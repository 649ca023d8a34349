package main_test

// Attacks on the compression strategies' newer work on request-sized
// histories and runs: token-budget's ledger of dropped values and its
// cut search, clear-tool-results' list of the paths a cleared result
// held, loop-slice's notes of multi-line values and paths, cache-stable's
// value lists of identifiers, the summarize strategy and the tool-call
// program form. Each history is one an attacker would send: results that
// are all paths, all identifiers, all near-duplicates, JSON of deep or
// wide objects, one result of megabytes of path-like or id-like tokens,
// edit arguments of megabytes of lines, tool-call ids that collide.
// Each is sent three times over each listener to a server of its own and
// judged as the input attacks are (runInputAttack): peak RSS within its
// multiple of the request plus 32 MiB, the server's CPU within its bound,
// the same outcome each time.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// toolLoops is a chat of n tool loops: a question, one call whose id,
// arguments and result are id(i), args(i) and result(i), and an answer.
func toolLoops(n int, id, args, result func(i int) string) []*ptcsidecarv1.ChatMessage {
	msgs := make([]*ptcsidecarv1.ChatMessage, 0, 4*n)
	for i := range n {
		msgs = append(msgs,
			&ptcsidecarv1.ChatMessage{Role: "user", Content: fmt.Sprintf("step %d", i)},
			&ptcsidecarv1.ChatMessage{Role: "assistant", ToolCalls: []*ptcsidecarv1.ChatToolCall{{Id: id(i), Name: "edit", Arguments: args(i)}}},
			&ptcsidecarv1.ChatMessage{Role: "tool", ToolCallId: id(i), Content: result(i)},
			&ptcsidecarv1.ChatMessage{Role: "assistant", Content: fmt.Sprintf("done %d", i)})
	}
	return msgs
}

// tokenLines is n lines, line j being token(j).
func tokenLines(n int, token func(j int) string) string {
	var b strings.Builder
	for j := range n {
		b.WriteString(token(j))
		b.WriteByte('\n')
	}
	return b.String()
}

// wideJSON is a JSON object of n keys whose values are identifiers.
func wideJSON(i, n int) string {
	var b strings.Builder
	b.WriteByte('{')
	for j := range n {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"field_%d": "ORD-%06d-%03d"`, j, i, j)
	}
	b.WriteByte('}')
	return b.String()
}

// first is a tool loop's result: text for the first loop, "ok" after.
func first(text string) func(i int) string {
	return func(i int) string {
		if i == 0 {
			return text
		}
		return "ok"
	}
}

// strategyHistoryAttacks are histories of n tool loops (the giant ones
// three loops, the first of one result or argument of megabytes) through the chat
// strategies.
func strategyHistoryAttacks(n int) []inputAttack {
	callID := func(i int) string { return fmt.Sprintf("call_%d", i) }
	pathArgs := func(i int) string { return fmt.Sprintf(`{"path": "/srv/app/mod%d/main.go"}`, i) }
	budget := int32(20_000)
	history := func(strategy string, msgs func() []*ptcsidecarv1.ChatMessage) func() proto.Message {
		return func() proto.Message {
			o := &ptcsidecarv1.Options{Strategy: strategy}
			if strategy == "token-budget" {
				o.MaxTokens = &budget
			}
			return &ptcsidecarv1.ToMessagesRequest{History: msgs(), Options: o}
		}
	}
	// Each shape goes to the strategies whose newer work reads what it
	// holds; every strategy reads the one-result shapes.
	const all = "token-budget clear-tool-results loop-slice turn-aware summarize"
	shapes := []struct {
		name, strategies string
		msgs             func() []*ptcsidecarv1.ChatMessage
	}{
		{fmt.Sprintf("%d results of 50 distinct paths", n), "token-budget clear-tool-results loop-slice", func() []*ptcsidecarv1.ChatMessage {
			return toolLoops(n, callID, pathArgs, func(i int) string {
				return tokenLines(50, func(j int) string { return fmt.Sprintf("/srv/app/mod%d/pkg%d/file.go", i, j) })
			})
		}},
		{fmt.Sprintf("%d results of one path repeated", n), "token-budget clear-tool-results", func() []*ptcsidecarv1.ChatMessage {
			return toolLoops(n, callID, func(int) string { return `{"path": "/srv/app/main.go"}` }, func(i int) string {
				return tokenLines(50, func(int) string { return "/srv/app/main.go" })
			})
		}},
		{fmt.Sprintf("%d results of 50 near-duplicate identifiers", n), "token-budget loop-slice", func() []*ptcsidecarv1.ChatMessage {
			return toolLoops(n, callID, pathArgs, func(i int) string {
				return tokenLines(50, func(j int) string { return fmt.Sprintf("value_aaaaaaaaaaaaaaaa%d", i*50+j) })
			})
		}},
		{fmt.Sprintf("%d results of JSON objects of 50 identifiers", n), "token-budget loop-slice", func() []*ptcsidecarv1.ChatMessage {
			return toolLoops(n, callID, pathArgs, func(i int) string { return wideJSON(i, 50) })
		}},
		{fmt.Sprintf("%d arguments and results of JSON 300 deep", n/2), "token-budget clear-tool-results loop-slice", func() []*ptcsidecarv1.ChatMessage {
			deep := strings.Repeat(`{"a":`, 300) + `"/srv/x.go"` + strings.Repeat("}", 300)
			return toolLoops(n/2, callID, func(int) string { return deep }, func(int) string { return deep })
		}},
		{fmt.Sprintf("%d edits of 80-line arguments", n), "token-budget clear-tool-results loop-slice", func() []*ptcsidecarv1.ChatMessage {
			return toolLoops(n, callID, func(i int) string {
				return fmt.Sprintf(`{"file_path": "/srv/a%d.go", "old_string": %q, "new_string": %q}`, i,
					tokenLines(40, func(j int) string { return fmt.Sprintf("old line %d of /srv/a%d.go", j, i) }),
					tokenLines(40, func(j int) string { return fmt.Sprintf("new line %d of /srv/a%d.go", j, i) }))
			}, func(int) string { return "ok" })
		}},
		{fmt.Sprintf("%d calls of one id", n), "token-budget clear-tool-results summarize", func() []*ptcsidecarv1.ChatMessage {
			return toolLoops(n, func(int) string { return "call_1" }, pathArgs, func(i int) string { return fmt.Sprintf("/srv/b%d.go", i) })
		}},
		{fmt.Sprintf("one result of %d lines of paths", n*100), "token-budget clear-tool-results loop-slice", func() []*ptcsidecarv1.ChatMessage {
			return toolLoops(3, callID, pathArgs, first(tokenLines(n*100, func(j int) string { return fmt.Sprintf("/srv/app/m%d/f%d.go", j%977, j) })))
		}},
		{fmt.Sprintf("one result of %d identifiers", n*100), "token-budget clear-tool-results loop-slice", func() []*ptcsidecarv1.ChatMessage {
			return toolLoops(3, callID, pathArgs, first(tokenLines(n*100, func(j int) string { return fmt.Sprintf("ID%08d", j) })))
		}},
		{fmt.Sprintf("one result of %d one-letter lines", n*2000), all, func() []*ptcsidecarv1.ChatMessage {
			return toolLoops(3, callID, pathArgs, first(strings.Repeat("a\n", n*2000)))
		}},
		{fmt.Sprintf("one result of one line of %d characters", n*2500), all, func() []*ptcsidecarv1.ChatMessage {
			return toolLoops(3, callID, pathArgs, first("/srv/"+strings.Repeat("é", n*1250)))
		}},
		{fmt.Sprintf("one result of one path on %d lines", n*200), "token-budget clear-tool-results loop-slice", func() []*ptcsidecarv1.ChatMessage {
			return toolLoops(3, callID, pathArgs, first(strings.Repeat("/srv/app/main.go\n", n*200)))
		}},
		{fmt.Sprintf("one edit argument of %d lines", n*100), all, func() []*ptcsidecarv1.ChatMessage {
			arg := fmt.Sprintf(`{"file_path": "/srv/a.go", "old_string": %q}`, tokenLines(n*100, func(j int) string { return fmt.Sprintf("line /srv/y%d.go %d", j, j) }))
			return toolLoops(3, callID, func(i int) string {
				if i == 0 {
					return arg
				}
				return pathArgs(i)
			}, func(int) string { return "ok" })
		}},
	}
	var out []inputAttack
	for _, s := range shapes {
		for _, st := range strings.Fields(s.strategies) {
			// summarize's answer holds what it asks the caller's model to
			// summarize again: the HTTP path decodes it once
			// (unmarshalSharing), and it is judged as the other histories.
			out = append(out, inputAttack{attack{name: s.name + ", " + st, method: "ToMessages", expect: "ok", kind: kindHistory,
				req: history(st, s.msgs)}, 4 * time.Second})
		}
	}
	return out
}

// strategyTurnAttacks are PTC runs of n turns whose calls and results are
// wide maps of identifiers and paths, and one map of n*100 entries sent
// as three turns' results and a binding, through cache-stable and full in
// both program forms.
func strategyTurnAttacks(n int) []inputAttack {
	wideMap := func(i, k int) string {
		var b strings.Builder
		b.WriteByte('{')
		for j := range k {
			fmt.Fprintf(&b, `:id%d "ORD-%d-%d" :p%d "/srv/x%d/y%d.go" `, j, i, j, j, i, j)
		}
		b.WriteByte('}')
		return b.String()
	}
	wide := func(form string) func() proto.Message {
		return func() proto.Message {
			turns := make([]*ptcsidecarv1.Turn, n)
			bindings := make([]*ptcsidecarv1.Binding, n)
			for i := range turns {
				v := &ptcsidecarv1.Value{Edn: wideMap(i, 40)}
				turns[i] = &ptcsidecarv1.Turn{Number: int32(i + 1), Program: fmt.Sprintf("(def v%d (tool/get {:i %d}))", i, i), Success: true, Result: v,
					ToolCalls: []*ptcsidecarv1.ToolCall{{Name: "get", Args: v, Result: v}}, Defined: []string{fmt.Sprintf("v%d", i)}}
				bindings[i] = &ptcsidecarv1.Binding{Name: fmt.Sprintf("v%d", i), Value: v, Turn: int32(i + 1)}
			}
			return &ptcsidecarv1.ToMessagesRequest{Turns: turns, Memory: &ptcsidecarv1.Memory{Bindings: bindings},
				Options: &ptcsidecarv1.Options{Strategy: "cache-stable", ProgramForm: form}}
		}
	}
	giant := func(strategy, form string) func() proto.Message {
		return func() proto.Message {
			v := &ptcsidecarv1.Value{Edn: wideMap(0, n*50)}
			turns := make([]*ptcsidecarv1.Turn, 3)
			for i := range turns {
				turns[i] = &ptcsidecarv1.Turn{Number: int32(i + 1), Program: "(tool/get {})", Success: true, Result: v,
					ToolCalls: []*ptcsidecarv1.ToolCall{{Name: "get", Args: &ptcsidecarv1.Value{Edn: "{}"}, Result: v}}}
			}
			return &ptcsidecarv1.ToMessagesRequest{Turns: turns, Memory: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "v", Value: v, Turn: 1}}},
				Options: &ptcsidecarv1.Options{Strategy: strategy, ProgramForm: form}}
		}
	}
	var out []inputAttack
	for _, form := range []string{"fenced", "tool_call"} {
		out = append(out, inputAttack{attack{name: fmt.Sprintf("%d turns of maps of 80 identifiers and paths, cache-stable, %s", n, form), method: "ToMessages",
			expect: "ok", kind: kindValues, req: wide(form)}, 4 * time.Second})
		for _, st := range []string{"cache-stable", "full"} {
			out = append(out, inputAttack{attack{name: fmt.Sprintf("one map of %d identifiers and paths in three turns, %s, %s", n*100, st, form), method: "ToMessages",
				expect: "ok", kind: kindValues, req: giant(st, form)}, 4 * time.Second})
		}
	}
	return out
}

// chatStrategies are the strategies of a chat history.
var chatStrategies = strings.Fields("token-budget clear-tool-results loop-slice turn-aware summarize")

// partAttacks are chat histories whose size is in what the newer message
// kinds carry, through every chat strategy: thousands of content parts,
// an image and a PDF document inline as megabytes of base64, reasoning
// and a thinking block of megabytes, and for summarize a summary of
// megabytes sent back. size is the bytes of each giant text.
func partAttacks(size int) []inputAttack {
	callID := func(i int) string { return fmt.Sprintf("call_%d", i) }
	pathArgs := func(i int) string { return fmt.Sprintf(`{"path": "/srv/app/mod%d/main.go"}`, i) }
	// base64 of bytes that are no image: the strategies count an inline
	// image from its header where they can, from its size otherwise.
	data := strings.Repeat("QUJD", size/4)
	budget := int32(20_000)
	loops := func(first ...*ptcsidecarv1.ChatMessage) []*ptcsidecarv1.ChatMessage {
		return append(first, toolLoops(3, callID, pathArgs, func(int) string { return "ok" })...)
	}
	shapes := []struct {
		name string
		msgs func() []*ptcsidecarv1.ChatMessage
	}{
		{fmt.Sprintf("one message of %d text parts", size/500), func() []*ptcsidecarv1.ChatMessage {
			parts := make([]*ptcsidecarv1.ContentPart, size/500)
			for i := range parts {
				parts[i] = &ptcsidecarv1.ContentPart{Type: "text", Text: fmt.Sprintf("part %d of /srv/x%d.go", i, i)}
			}
			return loops(&ptcsidecarv1.ChatMessage{Role: "user", Parts: parts})
		}},
		{fmt.Sprintf("an image of %d bytes of base64", size), func() []*ptcsidecarv1.ChatMessage {
			return loops(&ptcsidecarv1.ChatMessage{Role: "user", Parts: []*ptcsidecarv1.ContentPart{
				{Type: "text", Text: "what is in it?"}, {Type: "image", Data: data, MediaType: "image/png"}}})
		}},
		{fmt.Sprintf("a PDF document of %d bytes of base64", size), func() []*ptcsidecarv1.ChatMessage {
			return loops(&ptcsidecarv1.ChatMessage{Role: "user", Parts: []*ptcsidecarv1.ContentPart{
				{Type: "text", Text: "summarise it"}, {Type: "document", Data: "JVBERi0xLjQK" + data, MediaType: "application/pdf"}}})
		}},
		{fmt.Sprintf("reasoning of %d characters", size), func() []*ptcsidecarv1.ChatMessage {
			return append(toolLoops(2, callID, pathArgs, func(int) string { return "ok" }),
				&ptcsidecarv1.ChatMessage{Role: "user", Content: "go on"},
				&ptcsidecarv1.ChatMessage{Role: "assistant", Content: "done", Reasoning: strings.Repeat("I think /srv/a.go\n", size/18)})
		}},
		{fmt.Sprintf("a thinking block of %d characters", size), func() []*ptcsidecarv1.ChatMessage {
			return append(toolLoops(2, callID, pathArgs, func(int) string { return "ok" }),
				&ptcsidecarv1.ChatMessage{Role: "user", Content: "go on"},
				&ptcsidecarv1.ChatMessage{Role: "assistant", Parts: []*ptcsidecarv1.ContentPart{
					{Type: "thinking", Text: strings.Repeat("I think /srv/a.go\n", size/18), Signature: strings.Repeat("c2ln", 1000)},
					{Type: "text", Text: "done"}}})
		}},
	}
	var out []inputAttack
	for _, s := range shapes {
		for _, st := range chatStrategies {
			out = append(out, inputAttack{attack{name: s.name + ", " + st, method: "ToMessages", expect: "ok", kind: kindHistory,
				req: func() proto.Message {
					o := &ptcsidecarv1.Options{Strategy: st}
					if st == "token-budget" {
						o.MaxTokens = &budget
					}
					return &ptcsidecarv1.ToMessagesRequest{History: s.msgs(), Options: o}
				}}, 4 * time.Second})
		}
	}
	// A summary of megabytes sent back, with the digest of what it covers.
	out = append(out, inputAttack{attack{name: fmt.Sprintf("a summary of %d characters sent back, summarize", size), method: "ToMessages", expect: "ok", kind: kindHistory,
		req: func() proto.Message {
			history := toolLoops(4, callID, pathArgs, func(int) string { return "ok" })
			plain := make([]strategies.ChatMessage, len(history))
			for i, m := range history {
				plain[i] = strategies.ChatMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallId}
				for _, tc := range m.ToolCalls {
					plain[i].ToolCalls = append(plain[i].ToolCalls, strategies.ChatToolCall{ID: tc.Id, Name: tc.Name, Arguments: tc.Arguments})
				}
			}
			return &ptcsidecarv1.ToMessagesRequest{History: history, Options: &ptcsidecarv1.Options{Strategy: "summarize"},
				Summary: &ptcsidecarv1.Summary{Text: strings.Repeat("The user asked for /srv/a.go.\n", size/30), Through: 8, AskedAt: 12,
					Digest: strategies.SummaryDigest(plain, 8, 12)}}
		}}, 4 * time.Second})
	return out
}

// programAttacks are PTC runs of three turns whose programs, or the tool
// description or signature the prompt renders (and the tool_call form
// turns into a JSON schema), are megabytes, through every turn strategy
// in both program forms.
func programAttacks(size int) []inputAttack {
	program := "(def notes \"" + strings.Repeat("a line of /srv/a.go\\n", size/21) + "\")"
	turns := func(program string) []*ptcsidecarv1.Turn {
		out := make([]*ptcsidecarv1.Turn, 3)
		for i := range out {
			p := "(tool/get {})"
			if i == 0 {
				p = program
			}
			out[i] = &ptcsidecarv1.Turn{Number: int32(i + 1), Program: p, Success: true, Result: &ptcsidecarv1.Value{Edn: "1"}}
		}
		return out
	}
	var out []inputAttack
	for _, st := range strings.Fields("full cache-stable single-user-coalesced summarize-turns") {
		for _, form := range []string{"fenced", "tool_call"} {
			out = append(out,
				inputAttack{attack{name: fmt.Sprintf("a program of %d characters, %s, %s", size, st, form), method: "ToMessages", expect: "ok", kind: kindRendered,
					req: func() proto.Message {
						return &ptcsidecarv1.ToMessagesRequest{Turns: turns(program), Options: &ptcsidecarv1.Options{Strategy: st, ProgramForm: form}}
					}}, 4 * time.Second},
				inputAttack{attack{name: fmt.Sprintf("a tool description of %d characters, %s, %s", size, st, form), method: "ToMessages", expect: "ok", kind: kindRendered,
					req: func() proto.Message {
						return &ptcsidecarv1.ToMessagesRequest{Turns: turns("(tool/get {})"), Options: &ptcsidecarv1.Options{Strategy: st, ProgramForm: form,
							Tools: []*ptcsidecarv1.ToolSpec{{Name: "get", Signature: "(path :string) -> :string", Description: strings.Repeat("Reads /srv/a.go. ", size/17)}}}}
					}}, 4 * time.Second},
				inputAttack{attack{name: fmt.Sprintf("a tool signature of %d parameters, %s, %s", size/20, st, form), method: "ToMessages", expect: "ok", kind: kindRendered,
					req: func() proto.Message {
						var sig strings.Builder
						sig.WriteString("(q {")
						for i := range size / 20 {
							if i > 0 {
								sig.WriteString(", ")
							}
							fmt.Fprintf(&sig, "p%d :string", i)
						}
						sig.WriteString("}) -> :string")
						return &ptcsidecarv1.ToMessagesRequest{Turns: turns("(tool/get {})"), Options: &ptcsidecarv1.Options{Strategy: st, ProgramForm: form,
							Tools: []*ptcsidecarv1.ToolSpec{{Name: "get", Signature: sig.String(), Description: "Reads a file."}}}}
					}}, 4 * time.Second})
		}
	}
	return out
}

// TestAttacksStrategies sends every strategy attack three times over both
// listeners, each to a server of its own.
func TestAttacksStrategies(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory and CPU against its bound, on a server of its own")
	attacks := append(strategyHistoryAttacks(2000), strategyTurnAttacks(300)...)
	attacks = append(attacks, partAttacks(5_000_000)...)
	runInputAttacks(t, append(attacks, programAttacks(5_000_000)...))
}
