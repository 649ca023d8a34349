package strategies

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The golden files of testdata/chat/ are readable chat logs: a header of
// options, the input history, then the expected output messages and
// statistics (or the expected error). Run with -update-chat to rewrite the
// expected part from the current behaviour, then review the diff.
//
// A message is one line, "role attr=value...: content", with continuation
// lines indented by two spaces: "  | text" continues the content on a new
// line, "  call ID NAME ARGUMENTS" adds a tool call, "  reasoning: text"
// sets the reasoning. Attributes are source=, sender=, id= (the tool call a
// tool message answers) and name= (the participant's name).
var updateChat = flag.Bool("update-chat", false, "rewrite testdata/chat golden files")

type chatCase struct {
	header   []string // lines before "--- input", kept verbatim on update
	input    []string // lines of the input section, kept verbatim on update
	opts     Options
	history  []ChatMessage
	expected string // everything after the input section
}

// chatDefaults are the normalized defaults of the chat options.
func chatDefaults() Options {
	return Options{
		Tokenizer:            DefaultTokenizer,
		ScanWindow:           20,
		NudgeAttempt:         1,
		SnapshotToolPrefixes: []string{"get_"},
		Trigger:              100000,
		Keep:                 3,
		Placeholder:          "[cleared]",
	}
}

func TestChatGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/chat/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden files in testdata/chat")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			c, err := readChatCase(file)
			if err != nil {
				t.Fatal(err)
			}
			got := renderChatCase(c)
			if *updateChat {
				var b strings.Builder
				for _, l := range c.header {
					b.WriteString(l + "\n")
				}
				b.WriteString("--- input\n")
				for _, l := range c.input {
					b.WriteString(l + "\n")
				}
				b.WriteString(got)
				if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != c.expected {
				t.Errorf("%s: output differs (run go test -run TestChatGolden -update-chat and review the diff)\n--- got\n%s--- want\n%s", file, got, c.expected)
			}
		})
	}
}

// renderChatCase runs the case's strategy and formats what it returned.
func renderChatCase(c *chatCase) string {
	var b strings.Builder
	s, err := Lookup(c.opts.Strategy)
	if err != nil {
		return "--- error\n" + err.Error() + "\n"
	}
	resp, err := s.Render(&Request{History: c.history, Options: c.opts})
	if err != nil {
		return "--- error\n" + err.Error() + "\n"
	}
	b.WriteString("--- output\n")
	for _, m := range resp.Messages {
		b.WriteString(formatChatMessage(m))
	}
	st := resp.Stats
	b.WriteString("--- stats\n")
	fmt.Fprintf(&b, "messages: %d -> %d\n", st.MessagesBefore, st.MessagesAfter)
	fmt.Fprintf(&b, "chars: %d -> %d\n", st.CharsBefore, st.CharsAfter)
	fmt.Fprintf(&b, "tokens: %d -> %d (%s)\n", st.TokensBefore, st.TokensAfter, st.Tokenizer)
	if st.SyntheticNudge {
		b.WriteString("synthetic_nudge: true\n")
	}
	if st.NudgesExhausted {
		b.WriteString("nudges_exhausted: true\n")
	}
	if st.ToolUsesCleared != 0 || st.TokensCleared != 0 {
		fmt.Fprintf(&b, "tool_uses_cleared: %d\ntokens_cleared: %d\n", st.ToolUsesCleared, st.TokensCleared)
	}
	if st.PromptSource != "" {
		fmt.Fprintf(&b, "prompt_source: %s\n", st.PromptSource)
	}
	if st.MessagesDropped != 0 {
		fmt.Fprintf(&b, "dropped: %d messages, %d tokens, %d tool loops\n", st.MessagesDropped, st.TokensDropped, st.ToolLoopsDropped)
	}
	if st.MessagesRepaired != 0 {
		fmt.Fprintf(&b, "messages_repaired: %d\n", st.MessagesRepaired)
	}
	if st.ToolCallIDsRewritten != 0 {
		fmt.Fprintf(&b, "tool_call_ids_rewritten: %d\n", st.ToolCallIDsRewritten)
	}
	if st.TaskPinned {
		b.WriteString("task_pinned: true\n")
	}
	return b.String()
}

func formatChatMessage(m ChatMessage) string {
	var b strings.Builder
	b.WriteString(m.Role)
	if m.Source != "" {
		b.WriteString(" source=" + m.Source)
	}
	if m.SenderID != "" {
		b.WriteString(" sender=" + m.SenderID)
	}
	if m.ToolCallID != "" {
		b.WriteString(" id=" + m.ToolCallID)
	}
	if m.Name != "" {
		b.WriteString(" name=" + m.Name)
	}
	b.WriteString(":")
	lines := strings.Split(m.Content, "\n")
	if lines[0] != "" {
		b.WriteString(" " + lines[0])
	}
	b.WriteString("\n")
	for _, l := range lines[1:] {
		b.WriteString("  | " + l + "\n")
	}
	if m.Reasoning != "" {
		b.WriteString("  reasoning: " + m.Reasoning + "\n")
	}
	for _, tc := range m.ToolCalls {
		fmt.Fprintf(&b, "  call %s %s %s\n", tc.ID, tc.Name, tc.Arguments)
	}
	return b.String()
}

func readChatCase(file string) (*chatCase, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c := &chatCase{opts: chatDefaults()}
	section := "header"
	var expected strings.Builder
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if section == "header" && line == "--- input" {
			section = "input"
			continue
		}
		if section == "input" && strings.HasPrefix(line, "--- ") {
			section = "expected"
		}
		switch section {
		case "header":
			c.header = append(c.header, line)
			if err := parseChatOption(&c.opts, line); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", file, n, err)
			}
		case "input":
			c.input = append(c.input, line)
			if err := parseChatLine(&c.history, line); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", file, n, err)
			}
		default:
			expected.WriteString(line + "\n")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if section == "header" {
		return nil, fmt.Errorf("%s: no --- input section", file)
	}
	c.expected = expected.String()
	return c, nil
}

func parseChatOption(o *Options, line string) error {
	if line == "" || strings.HasPrefix(line, "#") {
		return nil
	}
	key, val, ok := strings.Cut(line, ":")
	if !ok {
		return fmt.Errorf("want \"option: value\", got %q", line)
	}
	val = strings.TrimSpace(val)
	list := func() []string {
		if val == "" {
			return nil
		}
		return strings.Split(val, ",")
	}
	var err error
	num := func(dst *int) { *dst, err = strconv.Atoi(val) }
	switch key {
	case "strategy":
		o.Strategy = val
	case "tokenizer":
		o.Tokenizer = val
	case "scan_window":
		num(&o.ScanWindow)
	case "nudge_attempt":
		num(&o.NudgeAttempt)
	case "nudge_messages":
		o.Nudges = append(o.Nudges, val)
	case "snapshot_tool_prefixes":
		o.SnapshotToolPrefixes = list()
	case "trigger":
		num(&o.Trigger)
	case "keep":
		num(&o.Keep)
	case "clear_at_least":
		num(&o.ClearAtLeast)
	case "exclude_tools":
		o.ExcludeTools = list()
	case "clear_tool_inputs":
		o.ClearToolInputs, err = strconv.ParseBool(val)
	case "placeholder":
		o.Placeholder = val
	case "max_tokens":
		num(&o.MaxTokens)
	case "trim_to":
		num(&o.TrimTo)
	case "window_only":
		o.WindowOnly, err = strconv.ParseBool(val)
	default:
		return fmt.Errorf("unknown option %q", key)
	}
	return err
}

func parseChatLine(h *[]ChatMessage, line string) error {
	if line == "" || strings.HasPrefix(line, "#") {
		return nil
	}
	if rest, ok := strings.CutPrefix(line, "  "); ok {
		if len(*h) == 0 {
			return fmt.Errorf("continuation line before any message")
		}
		m := &(*h)[len(*h)-1]
		switch {
		case rest == "|" || strings.HasPrefix(rest, "| "):
			m.Content += "\n" + strings.TrimPrefix(strings.TrimPrefix(rest, "|"), " ")
		case strings.HasPrefix(rest, "reasoning: "):
			m.Reasoning = strings.TrimPrefix(rest, "reasoning: ")
		case strings.HasPrefix(rest, "call "):
			f := strings.SplitN(strings.TrimPrefix(rest, "call "), " ", 3)
			if len(f) < 2 {
				return fmt.Errorf("want \"call ID NAME ARGUMENTS\", got %q", rest)
			}
			tc := ChatToolCall{ID: f[0], Name: f[1]}
			if len(f) == 3 {
				tc.Arguments = f[2]
			}
			m.ToolCalls = append(m.ToolCalls, tc)
		default:
			return fmt.Errorf("unknown continuation %q", rest)
		}
		return nil
	}
	head, content, _ := strings.Cut(line, ":")
	content = strings.TrimPrefix(content, " ")
	fields := strings.Fields(head)
	if len(fields) == 0 {
		return fmt.Errorf("message line without role: %q", line)
	}
	m := ChatMessage{Role: fields[0], Content: content}
	for _, f := range fields[1:] {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "source":
			m.Source = v
		case "sender":
			m.SenderID = v
		case "id":
			m.ToolCallID = v
		case "name":
			m.Name = v
		default:
			return fmt.Errorf("unknown attribute %q", k)
		}
	}
	*h = append(*h, m)
	return nil
}
