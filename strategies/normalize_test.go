package strategies

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

func intp(n int) *int { return &n }

func TestNormalizeDefaults(t *testing.T) {
	o, err := Normalize(RawOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"strategy", o.Strategy, DefaultStrategy},
		{"max_turns", o.MaxTurns, 5},
		{"turns_left set", o.TurnsLeftSet, false},
		{"println_limit", o.PrintlnLimit, 15},
		{"tool_call_limit", o.ToolCallLimit, 20},
		{"sample_limit", o.SampleLimit, 3},
		{"sample_printable_limit", o.SamplePrintableLimit, 80},
		{"tokenizer", o.Tokenizer, "o200k_base"},
		{"scan_window", o.ScanWindow, 20},
		{"nudge_attempt", o.NudgeAttempt, 1},
		{"snapshot_tool_prefixes", strings.Join(o.SnapshotToolPrefixes, ","), "get_"},
		{"trigger", o.Trigger, 100000},
		{"keep", o.Keep, 3},
		{"clear_at_least", o.ClearAtLeast, 0},
		{"placeholder", o.Placeholder, "[cleared]"},
		{"max_tokens", o.MaxTokens, 0},
		{"nudges", len(o.Nudges), 0},
		{"data", o.Data == nil, true},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestNormalizeKeepsGivenValues(t *testing.T) {
	data := lisp.NewMapBuilder(1)
	data.Set(lisp.Keyword("a"), lisp.Int(1))
	o, err := Normalize(RawOptions{
		Strategy: "full", MaxTurns: intp(1), TurnsLeft: intp(0), PrintlnLimit: intp(0),
		ToolCallLimit: intp(0), SampleLimit: intp(10), SamplePrintableLimit: intp(200),
		Tokenizer: "cl100k_base", ScanWindow: intp(50), NudgeAttempt: intp(3),
		SnapshotToolPrefixes: []string{"view_"}, Nudges: []string{"a", "b"}, Trigger: intp(0),
		Keep: intp(0), ClearAtLeast: intp(10), Placeholder: "[gone]", MaxTokens: intp(4096),
		Data: data.Map(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if o.Strategy != "full" || o.MaxTurns != 1 || !o.TurnsLeftSet || o.TurnsLeft != 0 ||
		o.PrintlnLimit != 0 || o.ToolCallLimit != 0 || o.SampleLimit != 10 || o.SamplePrintableLimit != 200 ||
		o.Tokenizer != "cl100k_base" || o.ScanWindow != 50 || o.NudgeAttempt != 3 ||
		!slices.Equal(o.SnapshotToolPrefixes, []string{"view_"}) || len(o.Nudges) != 2 || o.Trigger != 0 ||
		o.Keep != 0 || o.ClearAtLeast != 10 || o.Placeholder != "[gone]" || o.MaxTokens != 4096 || o.Data.Len() != 1 {
		t.Errorf("given values not kept: %+v", o)
	}
}

func TestNormalizeRejects(t *testing.T) {
	cases := []struct {
		raw    RawOptions
		option string
	}{
		{RawOptions{Strategy: "nope"}, "strategy"},
		{RawOptions{MaxTurns: intp(0)}, "max_turns"},
		{RawOptions{MaxTurns: intp(1001)}, "max_turns"},
		{RawOptions{TurnsLeft: intp(-1)}, "turns_left"},
		{RawOptions{PrintlnLimit: intp(-1)}, "println_limit"},
		{RawOptions{ToolCallLimit: intp(-5)}, "tool_call_limit"},
		{RawOptions{SampleLimit: intp(-1)}, "sample_limit"},
		{RawOptions{SamplePrintableLimit: intp(100001)}, "sample_printable_limit"},
		{RawOptions{ScanWindow: intp(0)}, "scan_window"},
		{RawOptions{NudgeAttempt: intp(0)}, "nudge_attempt"},
		{RawOptions{Trigger: intp(-1)}, "trigger"},
		{RawOptions{Keep: intp(-1)}, "keep"},
		{RawOptions{ClearAtLeast: intp(-1)}, "clear_at_least"},
		{RawOptions{MaxTokens: intp(-1)}, "max_tokens"},
		{RawOptions{Tokenizer: "p50k_base"}, "tokenizer"},
		{RawOptions{Prompt: "short"}, "prompt"},
		{RawOptions{Data: lisp.String("x")}, "data"},
		{RawOptions{Signature: "(a :int"}, "signature"},
		{RawOptions{Tools: []ToolSpec{{Name: ""}}}, "tools[0].name"},
		{RawOptions{Tools: []ToolSpec{{Name: "a"}, {Name: "a"}}}, "tools[1].name"},
		{RawOptions{Tools: []ToolSpec{{Name: "a"}, {Name: "b", Signature: "-> :int"}}}, "tools[1].signature"},
	}
	for _, c := range cases {
		_, err := Normalize(c.raw)
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Option != c.option {
			t.Errorf("Normalize(%+v) = %v, want an OptionError on %s", c.raw, err, c.option)
		}
	}
}

func TestNormalizeDataNilIsAbsent(t *testing.T) {
	o, err := Normalize(RawOptions{Data: lisp.Nil})
	if err != nil || o.Data != nil {
		t.Errorf("nil data: %v, %v", o.Data, err)
	}
}
