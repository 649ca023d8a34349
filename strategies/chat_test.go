package strategies

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestValidateHistory(t *testing.T) {
	call := []ChatToolCall{{ID: "a", Name: "t"}}
	for _, c := range []struct {
		msg   ChatMessage
		field string
	}{
		{ChatMessage{Role: ""}, "role"},
		{ChatMessage{Role: "developer"}, "role"},
		{ChatMessage{Role: RoleUser, Source: "email"}, "source"},
		{ChatMessage{Role: RoleUser, ToolCalls: call}, "tool_calls"},
		{ChatMessage{Role: RoleTool}, "tool_call_id"},
		{ChatMessage{Role: RoleUser, ToolCallID: "a"}, "tool_call_id"},
		{ChatMessage{Role: RoleAssistant, ToolCalls: []ChatToolCall{{Name: "t"}}}, "tool_calls[0].id"},
		{ChatMessage{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "a", Name: "t"}, {ID: "b"}}}, "tool_calls[1].name"},
		{ChatMessage{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "a", Name: "t"}, {ID: "a", Name: "u"}}}, "tool_calls[1].id"},
	} {
		h := []ChatMessage{{Role: RoleUser, Content: "fine"}, c.msg}
		for _, name := range chatStrategyNames {
			opts := chatDefaults()
			opts.MaxTokens = 100
			s, _ := Lookup(name)
			_, err := s.Render(&Request{History: h, Options: opts})
			var he *HistoryError
			if !errors.As(err, &he) || he.Index != 1 || he.Field != c.field {
				t.Errorf("%s, %+v: got %v, want a HistoryError for history[1].%s", name, c.msg, err, c.field)
			}
		}
	}
}

// A bad chat option is refused by Normalize, before any strategy runs, and
// token-budget refuses to run without a budget; either way the error names
// the option.
func TestChatOptionErrors(t *testing.T) {
	for _, c := range []struct {
		strategy, option string
		set              func(*RawOptions)
	}{
		{"loop-slice", "scan_window", func(r *RawOptions) { r.ScanWindow = new(0) }},
		{"turn-aware", "scan_window", func(r *RawOptions) { r.ScanWindow = new(-1) }},
		{"loop-slice", "nudge_attempt", func(r *RawOptions) { r.NudgeAttempt = new(0) }},
		{"turn-aware", "tokenizer", func(r *RawOptions) { r.Tokenizer = "gpt2" }},
		{"loop-slice", "tokenizer", func(r *RawOptions) { r.Tokenizer = "gpt2" }},
		{"clear-tool-results", "trigger", func(r *RawOptions) { r.Trigger = new(-1) }},
		{"clear-tool-results", "keep", func(r *RawOptions) { r.Keep = new(-1) }},
		{"clear-tool-results", "clear_at_least", func(r *RawOptions) { r.ClearAtLeast = new(-5) }},
		{"clear-tool-results", "tokenizer", func(r *RawOptions) { r.Tokenizer = "gpt2" }},
		{"token-budget", "max_tokens", func(*RawOptions) {}},
		{"token-budget", "max_tokens", func(r *RawOptions) { r.MaxTokens = new(0) }},
		{"token-budget", "max_tokens", func(r *RawOptions) { r.MaxTokens = new(-3) }},
		{"token-budget", "tokenizer", func(r *RawOptions) { r.MaxTokens, r.Tokenizer = new(10), "gpt2" }},
		{"summarize", "summary_request_form", func(r *RawOptions) { r.SummaryRequestForm = "both" }},
		{"summarize", "max_response_bytes", func(r *RawOptions) { r.MaxResponseBytes = new(0) }},
		{"loop-slice", "max_response_bytes", func(r *RawOptions) { r.MaxResponseBytes = new(-1) }},
	} {
		raw := RawOptions{Strategy: c.strategy}
		c.set(&raw)
		opts, err := Normalize(raw)
		if err == nil {
			_, err = Render(&Request{History: []ChatMessage{{Role: RoleUser, Content: "hi"}}, Options: opts})
		}
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Option != c.option {
			t.Errorf("%s with bad %s: got %v", c.strategy, c.option, err)
		}
	}
}

// TestChatStrategyDocs checks what ListStrategies shows: every chat strategy
// is registered, reads history, and documents each option it honours.
func TestChatStrategyDocs(t *testing.T) {
	want := map[string][]string{
		"loop-slice":         {"scan_window", "nudge_attempt", "nudge_messages", "window_only", "provider", "tokenizer", "keep_thinking_turns"},
		"turn-aware":         {"scan_window", "nudge_attempt", "nudge_messages", "snapshot_tool_prefixes", "window_only", "provider", "tokenizer", "keep_thinking_turns"},
		"clear-tool-results": {"trigger", "keep", "clear_at_least", "exclude_tools", "clear_tool_inputs", "placeholder", "trigger_fraction", "nudge_attempt", "nudge_messages", "provider", "tokenizer", "keep_thinking_turns"},
		"token-budget":       {"max_tokens", "trim_to", "max_tokens_fraction", "nudge_attempt", "nudge_messages", "provider", "tokenizer", "keep_thinking_turns"},
	}
	for name, options := range want {
		options = append(options, "pricing", "cache_read_rate", "cache_write_rate", "model", "min_cacheable_tokens", "max_response_bytes")
		s, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if s.Input() != InputHistory || s.Description() == "" {
			t.Errorf("%s: input %q, description %q", name, s.Input(), s.Description())
		}
		var got []string
		for _, d := range s.Options() {
			if d.Default == "" || d.Description == "" {
				t.Errorf("%s: option %s lacks a default or description", name, d.Name)
			}
			got = append(got, d.Name)
		}
		if !reflect.DeepEqual(got, options) {
			t.Errorf("%s documents %v, want %v", name, got, options)
		}
	}
}

// An assistant message that keeps its text when its only call, a stale
// snapshot, is dropped stays as a plain assistant message.
func TestTurnAwareKeepsTextOfCompactedCall(t *testing.T) {
	h := []ChatMessage{
		{Role: RoleUser, Content: "go"},
		{Role: RoleAssistant, Content: "Checking first.", ToolCalls: []ChatToolCall{{ID: "1", Name: "get_status", Arguments: "{}"}}},
		{Role: RoleTool, ToolCallID: "1", Content: "old"},
		{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "2", Name: "get_status", Arguments: "{}"}}},
		{Role: RoleTool, ToolCallID: "2", Content: "new"},
	}
	opts := chatDefaults()
	opts.WindowOnly = true // snapshots are compacted under seed 002's rule only
	resp, err := turnAware{}.Render(&Request{History: h, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	want := []ChatMessage{h[0], {Role: RoleAssistant, Content: "Checking first."}, h[3], h[4]}
	if !reflect.DeepEqual(resp.Messages, want) {
		t.Errorf("got\n%s", formatLog(resp.Messages))
	}
	if h[1].ToolCalls == nil {
		t.Error("input modified")
	}
}

// Clearing tool inputs copies the calls: the caller's history is untouched.
func TestClearToolInputsLeavesHistoryAlone(t *testing.T) {
	big := strings.Repeat("data ", 200)
	h := []ChatMessage{
		{Role: RoleUser, Content: "go"},
		{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "1", Name: "fetch", Arguments: `{"url": "https://example.com/a/long/path"}`}}},
		{Role: RoleTool, ToolCallID: "1", Content: big},
		{Role: RoleAssistant, Content: "done"},
	}
	opts := chatDefaults()
	opts.Trigger, opts.Keep, opts.ClearToolInputs = 10, 0, true
	resp, err := clearToolResults{}.Render(&Request{History: h, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Messages[1].ToolCalls[0].Arguments; got != "{}" {
		t.Errorf("arguments %q, want {}", got)
	}
	if h[1].ToolCalls[0].Arguments == "{}" || h[2].Content != big {
		t.Error("input modified")
	}
	if resp.Stats.ToolUsesCleared != 1 || resp.Stats.TokensCleared < 200 {
		t.Errorf("stats %+v", resp.Stats)
	}
}

// A clearing under a pricing that caches waits until it repays its
// rewrite: not on a conversation two calls long whose cleared result is
// small beside what follows it, but as the conversation goes on; without
// caching it clears at the trigger.
func TestClearingPaysForItself(t *testing.T) {
	h := []ChatMessage{
		{Role: RoleUser, Content: "go"},
		{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "1", Name: "fetch", Arguments: `{"url": "a"}`}}},
		{Role: RoleTool, ToolCallID: "1", Content: strings.Repeat("data ", 20)},
		{Role: RoleAssistant, Content: strings.Repeat("Reading it again, more slowly. ", 10)},
	}
	render := func(h []ChatMessage, pricing string) *Response {
		t.Helper()
		opts := chatDefaults()
		opts.Trigger, opts.Keep = 10, 0
		opts.Pricing, _ = resolvePricing(pricing, nil, nil)
		resp, err := clearToolResults{}.Render(&Request{History: h, Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if st := render(h, "anthropic").Stats; st.ToolUsesCleared != 0 {
		t.Errorf("anthropic: cleared %d results on a clearing that cannot pay back", st.ToolUsesCleared)
	}
	if st := render(h, "none").Stats; st.ToolUsesCleared != 1 {
		t.Errorf("none: cleared %d results, want 1 at the trigger", st.ToolUsesCleared)
	}
	// The same conversation, forty calls on: the old results are worth
	// clearing now, and the bill stays below the raw history's.
	long := slices.Clone(h)
	for i := range 40 {
		id := fmt.Sprint(i + 2)
		long = append(long,
			ChatMessage{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: id, Name: "fetch", Arguments: `{"url": "b"}`}}},
			ChatMessage{Role: RoleTool, ToolCallID: id, Content: strings.Repeat(fmt.Sprintf("row %d ", i), 40)})
	}
	if st := render(long, "anthropic").Stats; st.ToolUsesCleared == 0 {
		t.Error("anthropic: nothing cleared after 41 calls")
	}
}

func TestNudgeFor(t *testing.T) {
	for attempt, want := range map[int]struct {
		text      string
		exhausted bool
	}{1: {defaultNudges[0], false}, 2: {defaultNudges[1], false}, 3: {defaultNudges[2], false}, 4: {defaultNudges[2], true}, 9: {defaultNudges[2], true}} {
		m, exhausted := nudgeFor(&Options{NudgeAttempt: attempt})
		if m.Content != want.text || exhausted != want.exhausted || m.Role != RoleUser || m.Source != SourceSystem {
			t.Errorf("attempt %d: %+v exhausted=%v", attempt, m, exhausted)
		}
	}
	m, exhausted := nudgeFor(&Options{NudgeAttempt: 2, Nudges: []string{"a"}})
	if m.Content != "a" || !exhausted {
		t.Errorf("one custom wording, attempt 2: %q exhausted=%v", m.Content, exhausted)
	}
}

// A prompt in the window means no nudge, whatever nudge_attempt says.
func TestNoNudgeWithPrompt(t *testing.T) {
	opts := chatDefaults()
	opts.NudgeAttempt = 7
	h := []ChatMessage{{Role: RoleUser, Content: "hi"}}
	for _, s := range []Strategy{loopSlice{}, turnAware{}} {
		resp, err := s.Render(&Request{History: h, Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Stats.SyntheticNudge || resp.Stats.NudgesExhausted || len(resp.Messages) != 1 {
			t.Errorf("%s: %+v", s.Name(), resp)
		}
	}
}

// TestSendableArgumentsWrapLikeMarshal: an argument that is no JSON object
// is wrapped exactly as json.Marshal of {"unparsed_arguments": args}
// wrote it (HTML characters, control bytes, U+2028/9 and invalid UTF-8
// included), over random texts built from the characters that escape.
func TestSendableArgumentsWrapLikeMarshal(t *testing.T) {
	pieces := []string{"a", "é", "中", "\"", "\\", "<", ">", "&", "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f",
		"\u2028", "\u2029", "\xff", "\xe4\xb8", "[", "{", " ", "\U0001F600"}
	r := rand.New(rand.NewPCG(12, 12))
	for range 20_000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		args := b.String()
		if trimmed := strings.TrimSpace(args); trimmed == "" || trimmed[0] == '{' {
			continue // sent as they are
		}
		want, _ := json.Marshal(map[string]string{"unparsed_arguments": args})
		got, ok := sendableArguments(args)
		if ok || got != string(want) {
			t.Fatalf("%q: %q, %v; want %q", args, got, ok, want)
		}
	}
}
