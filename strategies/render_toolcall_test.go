package strategies

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// toolCallRun is a run of three turns: one defining a long vector, one
// that failed, one that printed; the second-to-last carries its memory.
func toolCallRun(t *testing.T, strategy string) *Request {
	t.Helper()
	opts, err := Normalize(RawOptions{Strategy: strategy, Mission: "count the orders", ProgramForm: ProgramToolCall})
	if err != nil {
		t.Fatal(err)
	}
	elems := make([]lisp.Value, 100)
	for i := range elems {
		elems[i] = lisp.Int(i)
	}
	orders := lisp.NewVector(elems)
	mem := []Binding{{Name: "orders", Value: orders, Turn: 1}}
	return &Request{Options: opts, Memory: mem, Turns: []Turn{
		{Number: 1, Program: "(def orders (range 100))", Result: orders, Success: true, Defined: []string{"orders"}, ProgramCallID: "call_A1", RawResponse: "Loading the orders."},
		{Number: 2, Program: "(count ordrs)", Success: false, Error: &TurnError{Type: "name_error", Message: "ordrs is not defined", Hint: "did you mean orders?"}, Memory: mem, HasMemory: true},
		{Number: 3, Program: "(println (count orders))", Prints: []string{"100"}, Result: lisp.Nil, Success: true},
	}}
}

// TestToolCallTranscript: in tool-call form each turn is the assistant's
// call of run_ptc_lisp with {"program": ...} and a tool message answering
// it with a preview of the outcome; the memory and turns left follow.
func TestToolCallTranscript(t *testing.T) {
	req := toolCallRun(t, "single-user-coalesced")
	resp, err := Render(req)
	if err != nil {
		t.Fatal(err)
	}
	msgs := resp.Messages
	roles := make([]string, len(msgs))
	for i, m := range msgs {
		roles[i] = m.Role
	}
	want := []string{RoleSystem, RoleUser, RoleAssistant, RoleTool, RoleAssistant, RoleTool, RoleAssistant, RoleTool, RoleUser}
	if !slices.Equal(roles, want) {
		t.Fatalf("roles %v, want %v", roles, want)
	}
	for i, tr := range req.Turns {
		a, tm := msgs[2+2*i], msgs[3+2*i]
		if len(a.ToolCalls) != 1 || a.ToolCalls[0].Name != ProgramToolName {
			t.Fatalf("turn %d: assistant %+v is not one call of %s", i+1, a, ProgramToolName)
		}
		var args map[string]string
		if err := json.Unmarshal([]byte(a.ToolCalls[0].Arguments), &args); err != nil || args["program"] != tr.Program || len(args) != 1 {
			t.Errorf("turn %d: arguments %s do not carry the program %q (%v)", i+1, a.ToolCalls[0].Arguments, tr.Program, err)
		}
		if tm.ToolCallID != a.ToolCalls[0].ID || tm.ToolCallID == "" {
			t.Errorf("turn %d: tool message answers %q, the call is %q", i+1, tm.ToolCallID, a.ToolCalls[0].ID)
		}
	}
	if msgs[2].ToolCalls[0].ID != "call_A1" || msgs[2].Content != "Loading the orders." {
		t.Errorf("turn 1 from a tool call: id %q, text %q; want the LLM's", msgs[2].ToolCalls[0].ID, msgs[2].Content)
	}
	if msgs[4].ToolCalls[0].ID != "ptc_turn_2" || msgs[4].Content != "" {
		t.Errorf("turn 2 from a bare program: id %q, text %q", msgs[4].ToolCalls[0].ID, msgs[4].Content)
	}
	if c := msgs[3].Content; !strings.Contains(c, "(100 items, showing first 3)") || strings.Contains(c, " 99") {
		t.Errorf("turn 1's result is not previewed within sample_limit:\n%s", c)
	}
	if c := msgs[5].Content; !strings.Contains(c, "Error: ordrs is not defined") || !strings.Contains(c, "Hint: did you mean orders?") {
		t.Errorf("turn 2's error is not in its tool message:\n%s", c)
	}
	if c := msgs[7].Content; !strings.HasPrefix(c, ";; Output:\n100\n\n;; Result: nil") || !strings.HasSuffix(c, "\n\nTurns left: 2") {
		t.Errorf("turn 3's tool message:\n%s", c)
	}
	if c := msgs[8].Content; !strings.Contains(c, "orders") {
		t.Errorf("the last USER message does not list the memory:\n%s", c)
	}
	st := resp.Stats
	if st.ProgramTool == nil || st.ProgramTool.Name != ProgramToolName {
		t.Fatalf("stats carry no program tool: %+v", st.ProgramTool)
	}
	var schema map[string]any
	if err := json.Unmarshal([]byte(st.ProgramTool.Parameters), &schema); err != nil || schema["type"] != "object" {
		t.Errorf("program tool parameters are not an object schema: %s (%v)", st.ProgramTool.Parameters, err)
	}
	if st.TokensAfter >= st.TokensBefore {
		t.Errorf("the preview sends %d tokens, the whole values %d", st.TokensAfter, st.TokensBefore)
	}
	if want := (&Breakpoint{Message: 7, Offset: len(msgs[7].Content)}); *st.NextCacheBreakpoint != *want {
		t.Errorf("next breakpoint %+v, want the end of the last tool message %+v", *st.NextCacheBreakpoint, *want)
	}
}

// TestToolCallAppendOnly: the previous call's transcript comes back byte
// for byte, so its tokens are the stable prefix; only the last USER message
// is rewritten. The same holds for every turn strategy in tool-call form.
func TestToolCallAppendOnly(t *testing.T) {
	for _, name := range []string{"single-user-coalesced", "cache-stable", "full"} {
		req := toolCallRun(t, name)
		resp, err := Render(req)
		if err != nil {
			t.Fatal(err)
		}
		earlier := *req
		earlier.Turns = req.Turns[:2]
		earlier.Memory = req.Turns[1].Memory
		prev, err := Render(&earlier)
		if err != nil {
			t.Fatal(err)
		}
		kept := transcriptEnd(prev.Messages)
		if !slices.EqualFunc(prev.Messages[:kept], resp.Messages[:kept], func(a, b ChatMessage) bool {
			return a.Content == b.Content && a.ToolCallID == b.ToolCallID && slices.Equal(a.ToolCalls, b.ToolCalls)
		}) {
			t.Errorf("%s: the earlier call's transcript is not repeated", name)
		}
		tokens, err := CountMessageTokens(req.Options.Tokenizer, req.Options.Provider, prev.Messages[:kept])
		if err != nil {
			t.Fatal(err)
		}
		if st := resp.Stats; !st.StablePrefixKnown || st.StablePrefixTokens != tokens {
			t.Errorf("%s: stable prefix %d tokens (known %v), the earlier transcript is %d", name, st.StablePrefixTokens, st.StablePrefixKnown, tokens)
		}
	}
}

// TestToolCallHostPrelude: before the first turn the host's prelude is
// listed in a USER message after the task, which the next call rewrites.
func TestToolCallHostPrelude(t *testing.T) {
	o, err := Normalize(RawOptions{Mission: "m", ProgramForm: ProgramToolCall})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := Render(&Request{Options: o, Memory: []Binding{{Name: "list-sources", Fn: &Function{Params: []string{"kind"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := resp.Messages
	if len(msgs) != 3 || msgs[2].Role != RoleUser || !strings.Contains(msgs[2].Content, "(list-sources [kind])") {
		t.Fatalf("messages %+v", msgs)
	}
	if bp := resp.Stats.NextCacheBreakpoint; bp.Message != 1 {
		t.Errorf("next breakpoint %+v, want the end of the task message", *bp)
	}
}

// TestToolCallTurnInFencedForm: a turn whose program came in a tool call
// is rendered by full in fenced form with its text and its program.
func TestToolCallTurnInFencedForm(t *testing.T) {
	o, err := Normalize(RawOptions{Strategy: "full"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := Render(&Request{Options: o, Turns: []Turn{{Number: 1, Program: "(+ 1 2)", RawResponse: "Adding.", ProgramCallID: "c1", Success: true, Result: lisp.Int(3)}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Messages[2].Content; got != "Adding.\n\n```clojure\n(+ 1 2)\n```" {
		t.Errorf("assistant reply %q", got)
	}
}

// TestToolCallSystemPrompt: the built-in reference asks for the tool call
// instead of a fenced block; a caller's system prompt is sent as given.
func TestToolCallSystemPrompt(t *testing.T) {
	for _, raw := range []RawOptions{{ProgramForm: ProgramToolCall}, {ProgramForm: ProgramToolCall, Prompt: PromptFull}} {
		o, err := Normalize(raw)
		if err != nil {
			t.Fatal(err)
		}
		p := toolCallSystemPrompt(&o)
		if p == systemPrompt(&o) || !strings.Contains(p, toolCallAnswer) || strings.Contains(p, "fenced block") {
			t.Errorf("prompt %q: the answer format is not the tool call:\n%.600s", raw.Prompt, p)
		}
		if !strings.Contains(p, "\n\n## Rules") {
			t.Errorf("prompt %q: the rules are gone", raw.Prompt)
		}
	}
	o, err := Normalize(RawOptions{ProgramForm: ProgramToolCall, SystemPrompt: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	if p := toolCallSystemPrompt(&o); p != "mine" {
		t.Errorf("a caller's system prompt became %q", p)
	}
}

// TestProgramFormOption: fenced is the default and renders no program
// tool; another value is refused naming the option.
func TestProgramFormOption(t *testing.T) {
	o, err := Normalize(RawOptions{})
	if err != nil || o.ProgramForm != ProgramFenced {
		t.Fatalf("default program_form %q (%v)", o.ProgramForm, err)
	}
	resp, err := Render(&Request{Options: o})
	if err != nil || resp.Stats.ProgramTool != nil {
		t.Errorf("fenced form declares a tool: %+v (%v)", resp.Stats.ProgramTool, err)
	}
	_, err = Normalize(RawOptions{ProgramForm: "json"})
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Option != "program_form" {
		t.Errorf("program_form json: %v", err)
	}
	for _, s := range []string{"single-user-coalesced", "cache-stable", "full"} {
		st, _ := Lookup(s)
		if !slices.ContainsFunc(st.Options(), func(d OptionDoc) bool { return d.Name == "program_form" }) {
			t.Errorf("%s does not list program_form", s)
		}
	}
}

// TestToolCallPrintsBounded: a turn's tool message keeps its last
// println_limit prints and says how many there were.
func TestToolCallPrintsBounded(t *testing.T) {
	limit := 2
	o, err := Normalize(RawOptions{ProgramForm: ProgramToolCall, PrintlnLimit: &limit})
	if err != nil {
		t.Fatal(err)
	}
	req := &Request{Options: o, Turns: []Turn{{Number: 1, Success: true, Prints: []string{"a", "b", "c", "d"}}}}
	resp, err := Render(req)
	if err != nil {
		t.Fatal(err)
	}
	if c := resp.Messages[3].Content; !strings.HasPrefix(c, ";; Output (last 2 of 4 println calls):\nc\nd\n\n") {
		t.Errorf("tool message:\n%s", c)
	}
	if st := resp.Stats; st.PrintlnsTotal != 4 || st.PrintlnsShown != 2 || st.PrintlnsDropped != 2 {
		t.Errorf("prints total %d shown %d dropped %d", st.PrintlnsTotal, st.PrintlnsShown, st.PrintlnsDropped)
	}
}

// toolCallRecallFloors are the recall of each turn strategy in tool-call
// form on the recorded runs of a real model, as docs/STRATEGIES.md ("The
// program as a tool call") records it, on the whole set and on -short's
// sample, rounded down. The fenced forms hold TestRecallRecorded's floors.
var toolCallRecallFloors = map[string]recallFloor{
	"full tool_call":                  {0.865, 0.848},
	"single-user-coalesced tool_call": {0.992, 0.984},
	"cache-stable tool_call":          {0.992, 0.984},
}

// TestToolCallFormRecorded measures evidence recall, tokens and bill of the
// turn strategies in both program forms on each turn of the recorded runs
// of a real model (testdata/traces/real-*.txtar), against full in fenced
// form, and fails when a recall in tool-call form drops below its floor.
// go test -run TestToolCallFormRecorded -v prints the table.
func TestToolCallFormRecorded(t *testing.T) {
	var labels []string
	totals := map[string]*recallTotals{}
	for _, form := range []string{ProgramFenced, ProgramToolCall} {
		for _, name := range []string{"full", "single-user-coalesced", "cache-stable"} {
			label := name
			if form == ProgramToolCall {
				label += " tool_call"
			}
			labels = append(labels, label)
			totals[label] = &recallTotals{}
		}
	}
	runs := eachRecordedTurn(t, func(tr *trace, i int, req *Request, full *Response, ev []Evidence) {
		for _, label := range labels {
			resp := full
			if name, form, _ := strings.Cut(label, " "); label != "full" {
				resp = renderTurn(t, tr, i, req, name, cmp.Or(form, ProgramFenced))
			}
			totals[label].add(&resp.Stats, ev, resp.Messages)
		}
	})
	src := fmt.Sprintf("real PTC-Lisp runs (%d)", runs)
	t.Logf("\n%s", recallTable(src, "full", labels, totals))
	floors := maps.Clone(turnRecallFloors)
	maps.Copy(floors, toolCallRecallFloors)
	checkFloors(t, "PTC-Lisp", labels, totals, floors)
}
