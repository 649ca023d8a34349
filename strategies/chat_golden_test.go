package strategies

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// The golden files of testdata/chat/ are txtar archives of readable chat
// logs: the comment holds the options ("name: value" lines, and "#"
// comments), the file "input" the input history, then the files "output"
// and "stats" the expected output messages and statistics, or "error" the
// expected error. Run with -update-chat to rewrite the expected files from
// the current behaviour, then review the diff.
//
// A message is one line, "role attr=value...: content", with continuation
// lines indented by two spaces: "  | text" continues the content on a new
// line, "  call ID NAME ARGUMENTS" adds a tool call, "  reasoning: text"
// sets the reasoning. Attributes are source=, sender=, id= (the tool call a
// tool message answers) and name= (the participant's name).
var updateChat = flag.Bool("update-chat", false, "rewrite testdata/chat golden files")

type chatCase struct {
	archive *txtar.Archive // the file: its comment and input kept on update
	opts    Options
	history []ChatMessage
	summary *Summary // "summary: THROUGH ASKED_AT TEXT", digested unless "summary_digest:" says otherwise
}

// chatDefaults are the normalized defaults of the chat options.
func chatDefaults() Options {
	o, err := Normalize(RawOptions{})
	if err != nil {
		panic(err)
	}
	o.Strategy = ""
	return o
}

func TestChatGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/chat/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	// A case in another format would not run: refuse it rather than skip it.
	if others, _ := filepath.Glob("testdata/chat/*.txt"); len(others) > 0 {
		t.Fatalf("%v: chat cases are txtar archives (*.txtar): options in the comment, then input and output, stats or error", others)
	}
	if len(files) == 0 {
		t.Fatal("no golden files in testdata/chat")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			c, err := readChatCase(file)
			if err != nil {
				t.Fatal(err)
			}
			got := renderChatCase(c)
			if *updateChat {
				c.archive.Files = append(c.archive.Files[:1], got...)
				if err := os.WriteFile(file, txtar.Format(c.archive), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			gotText := string(txtar.Format(&txtar.Archive{Files: got}))
			wantText := string(txtar.Format(&txtar.Archive{Files: c.archive.Files[1:]}))
			if gotText != wantText {
				t.Errorf("%s: output differs (run go test -run TestChatGolden -update-chat and review the diff)\n--- got\n%s--- want\n%s", file, gotText, wantText)
			}
		})
	}
}

// readChatCase reads a golden file: its options, then its input history.
func readChatCase(file string) (*chatCase, error) {
	a, err := txtar.ParseFile(file)
	if err != nil {
		return nil, err
	}
	if len(a.Files) == 0 || a.Files[0].Name != "input" {
		return nil, fmt.Errorf("%s: the first file must be input", file)
	}
	c := &chatCase{archive: a, opts: chatDefaults()}
	digest := ""
	for n, line := range strings.Split(string(a.Comment), "\n") {
		var err error
		switch key, val, _ := strings.Cut(line, ": "); key {
		case "summary":
			c.summary = &Summary{}
			f := strings.SplitN(val, " ", 3)
			if len(f) == 3 {
				c.summary.Text = f[2]
				if c.summary.Through, err = strconv.Atoi(f[0]); err == nil {
					c.summary.AskedAt, err = strconv.Atoi(f[1])
				}
			} else {
				err = fmt.Errorf("want \"summary: THROUGH ASKED_AT TEXT\", got %q", line)
			}
		case "summary_digest":
			digest = val
		default:
			err = parseChatOption(&c.opts, line)
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, n+1, err)
		}
	}
	for n, line := range strings.Split(strings.TrimSuffix(string(a.Files[0].Data), "\n"), "\n") {
		if err := parseChatLine(&c.history, line); err != nil {
			return nil, fmt.Errorf("%s: input line %d: %v", file, n+1, err)
		}
	}
	if s := c.summary; s != nil {
		s.Digest = digest
		if digest == "" && s.Through <= len(c.history) {
			s.Digest = SummaryDigest(c.history, s.Through, s.AskedAt)
		}
	}
	return c, nil
}

// renderChatCase runs the case's strategy and formats what it returned:
// the files output and stats, or error.
func renderChatCase(c *chatCase) []txtar.File {
	s, err := Lookup(c.opts.Strategy)
	if err != nil {
		return []txtar.File{{Name: "error", Data: []byte(err.Error() + "\n")}}
	}
	if c.summary != nil && c.opts.Strategy != summarizeName {
		return []txtar.File{{Name: "error", Data: []byte("a summary is for strategy summarize\n")}}
	}
	resp, err := s.Render(&Request{History: c.history, Options: c.opts, Summary: c.summary})
	if err != nil {
		return []txtar.File{{Name: "error", Data: []byte(err.Error() + "\n")}}
	}
	var out, b strings.Builder
	for _, m := range resp.Messages {
		out.WriteString(formatChatMessage(m))
	}
	st := resp.Stats
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
	if st.MessagesSummarized != 0 {
		fmt.Fprintf(&b, "summarized: %d messages into %d tokens\n", st.MessagesSummarized, st.SummaryTokens)
	}
	files := []txtar.File{{Name: "output", Data: []byte(out.String())}, {Name: "stats", Data: []byte(b.String())}}
	if r := resp.SummaryRequest; r != nil {
		var req strings.Builder
		fmt.Fprintf(&req, "# through %d, asked at %d, %d tokens (%d before the instruction)\n", r.Through, r.AskedAt, st.SummaryRequestTokens, st.SummaryRequestPrefixTokens)
		for _, m := range r.Messages {
			req.WriteString(formatChatMessage(m))
		}
		files = append(files, txtar.File{Name: "summary_request", Data: []byte(req.String())})
	}
	return files
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
	case "summary_trigger":
		num(&o.SummaryTrigger)
	case "summary_keep":
		num(&o.SummaryKeep)
	case "summary_prompt":
		o.SummaryPrompt = val
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
