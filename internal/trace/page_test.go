package trace

import (
	"slices"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

func TestWrap(t *testing.T) {
	for _, c := range []struct {
		name        string
		in          string
		first, rest int
		want        []string
	}{
		{"fits", "(+ 1 2)", 10, 10, []string{"(+ 1 2)"}},
		{"exact", "0123456789", 10, 10, []string{"0123456789"}},
		{"breaks at a space", "aaaa bbbb cccc", 10, 10, []string{"aaaa bbbb", "↪ cccc"}},
		{"space right at the limit", "aaaaaaaaaa bb", 10, 10, []string{"aaaaaaaaaa", "↪ bb"}},
		{"hard break without a late space", "a bbbbbbbbbbbbbbbbbb", 10, 10, []string{"a bbbbbbbb", "↪ bbbbbbbb", "↪ bb"}},
		{"keeps newlines", "one\ntwo", 10, 10, []string{"one", "two"}},
		{"empty lines stay", "one\n\ntwo", 10, 10, []string{"one", "", "two"}},
		{"first line narrower", "aaa bbb ccc", 5, 10, []string{"aaa", "↪ bbb ccc"}},
		{"tabs expand to stops of 4", "\tx\ty", 20, 20, []string{"    x   y"}},
		{"wide characters count two columns", "日本語のテキスト", 6, 10, []string{"日本語", "↪ のテキス", "↪ ト"}},
		{"combining marks take no column", "e\u0301e\u0301e\u0301", 3, 3, []string{"e\u0301e\u0301e\u0301"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := wrap(c.in, c.first, c.rest); !slices.Equal(got, c.want) {
				t.Errorf("wrap(%q, %d, %d) = %q, want %q", c.in, c.first, c.rest, got, c.want)
			}
		})
	}
}

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"plain":             "plain",
		"a\r\nb":            "a\nb",
		"bell\a":            `bell\x07`,
		"\x1b[2Jclear":      `\x1b[2Jclear`,
		"lone\rreturn":      `lone\x0dreturn`,
		"c1 \u009b control": `c1 \u009b control`,
		"bad \xff utf8":     "bad \uFFFD utf8",
		"tab\tand\nnewline": "tab\tand\nnewline",
		"emoji 🚀 and ünï":   "emoji 🚀 and ünï",
	} {
		if got := sanitize(in); got != want {
			t.Errorf("sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseView(t *testing.T) {
	for in, want := range map[string]View{"": ViewTurns, "turns": ViewTurns, "compressed": ViewCompressed} {
		if got, err := ParseView(in); err != nil || got != want {
			t.Errorf("ParseView(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseView("Turns"); err == nil || err.Error() != `view: unknown view "Turns" (known: turns, compressed)` {
		t.Errorf("ParseView(Turns): %v", err)
	}
}

// FuzzRenderLayout feeds arbitrary text where a run holds caller or LLM
// text and checks that the layout holds: every line inside a box, none
// wider than Width, no control character reaching the terminal.
func FuzzRenderLayout(f *testing.F) {
	f.Add("(+ 1 2)", "hello", "search", "boom", "")
	f.Add(strings.Repeat("x", 200), "a\nb\tc\x1b[31m", "日本語のツール", "\r\n", "\u200b\u0301")
	f.Add("", strings.Repeat("word ", 50), strings.Repeat("n", 120), strings.Repeat("🚀", 60), "\xff\xfe")
	f.Fuzz(func(t *testing.T, program, print, tool, message, raw string) {
		o, err := strategies.Normalize(strategies.RawOptions{SystemPrompt: raw + "s", Mission: message})
		if err != nil {
			t.Fatal(err)
		}
		req := &strategies.Request{
			Options: o,
			Turns: []strategies.Turn{
				{Number: 1, RawResponse: raw, Program: program, Prints: []string{print}, Success: true, Result: lisp.String(print),
					ToolCalls: []strategies.ToolCall{{Name: tool, Args: lisp.String(message), Error: message}}},
				{Number: 2, Program: program, Error: &strategies.TurnError{Type: tool, Message: message, Hint: print}},
			},
			Memory: []strategies.Binding{{Name: tool, Value: lisp.String(print)}, {Name: tool, Fn: &strategies.Function{Params: []string{message}, Docstring: raw}}},
		}
		chat := &strategies.Request{Options: o, History: []strategies.ChatMessage{
			{Role: tool, Content: program, Source: message, SenderID: print, Reasoning: raw,
				ToolCalls: []strategies.ChatToolCall{{ID: message, Name: tool, Arguments: print}}},
			{Role: strings.Repeat(tool, 40), Source: strings.Repeat(message, 40), SenderID: print, ToolCallID: raw},
		}}
		text, err := Render(chat, ViewTurns, false, false, Style{Color: true})
		if err != nil {
			t.Fatal(err)
		}
		checkLayout(t, text, true)
		for _, view := range []View{ViewTurns, ViewCompressed} {
			text, err := Render(req, view, true, false, Style{})
			if err != nil {
				t.Fatal(err)
			}
			checkLayout(t, text, false)
		}
	})
}

// Zero values everywhere (what a sparse JSON log decodes to) render.
func TestRenderZeroValues(t *testing.T) {
	o, err := strategies.Normalize(strategies.RawOptions{SystemPrompt: "s"})
	if err != nil {
		t.Fatal(err)
	}
	req := &strategies.Request{
		Options: o,
		Turns:   []strategies.Turn{{ToolCalls: []strategies.ToolCall{{}}}, {Success: true}},
		Memory:  []strategies.Binding{{}, {Fn: &strategies.Function{}}},
	}
	for _, view := range []View{ViewTurns, ViewCompressed} {
		text, err := Render(req, view, true, true, Style{})
		if err != nil {
			t.Fatal(err)
		}
		checkLayout(t, text, false)
		if view == ViewTurns && !strings.Contains(text, "│   #0 ()\n│     → nil\n") {
			t.Errorf("an empty tool call renders as:\n%s", text)
		}
	}
}

// A message's parts are shown by type, with what says which content each
// is, and their texts; inline data only by its length.
func TestRenderParts(t *testing.T) {
	o, err := strategies.Normalize(strategies.RawOptions{Strategy: "clear-tool-results"})
	if err != nil {
		t.Fatal(err)
	}
	req := &strategies.Request{Options: o, History: []strategies.ChatMessage{
		{Role: strategies.RoleUser, Parts: []strategies.ContentPart{
			{Type: strategies.PartText, Text: "What is on the screen?"},
			{Type: strategies.PartImage, Extra: &strategies.PartExtra{MediaType: "image/png", Data: "iVBORw0KGgo=", Width: 1280, Height: 800}},
		}},
		{Role: strategies.RoleAssistant, Parts: []strategies.ContentPart{
			{Type: strategies.PartThinking, Text: "A login form.", Extra: &strategies.PartExtra{Signature: "c2ln"}},
			{Type: strategies.PartText, Text: "A login form."},
		}},
	}}
	text, err := Render(req, ViewCompressed, false, false, Style{})
	if err != nil {
		t.Fatal(err)
	}
	checkLayout(t, text, false)
	for _, want := range []string{"Parts (2):", "image, image/png, 1280x800, 12 characters of data", "thinking, signed", "What is on the screen?"} {
		if !strings.Contains(text, want) {
			t.Errorf("the trace lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "iVBOR") {
		t.Errorf("the trace shows inline data:\n%s", text)
	}
}
