package strategies

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	if st.PromptsLed != 0 {
		fmt.Fprintf(&b, "prompts_led: %d\n", st.PromptsLed)
	}
	if st.UnitsNoted != 0 {
		fmt.Fprintf(&b, "units_noted: %d\n", st.UnitsNoted)
	}
	if st.GreetingsDropped != 0 {
		fmt.Fprintf(&b, "greetings_dropped: %d\n", st.GreetingsDropped)
	}
	if st.MessagesSummarized != 0 {
		fmt.Fprintf(&b, "summarized: %d messages into %d tokens\n", st.MessagesSummarized, st.SummaryTokens)
	}
	files := []txtar.File{{Name: "output", Data: []byte(out.String())}, {Name: "stats", Data: []byte(b.String())}}
	if r := resp.SummaryRequest; r != nil {
		var req strings.Builder
		fmt.Fprintf(&req, "# through %d, asked at %d, %d tokens (%d before the instruction), the answer's first %d messages then %d\n", r.Through, r.AskedAt, st.SummaryRequestTokens, st.SummaryRequestPrefixTokens, r.PrefixMessages, len(r.Messages))
		for _, m := range r.Prompt(resp.Messages) {
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
	case "provider":
		o.Provider = val
	case "summary_trigger":
		num(&o.SummaryTrigger)
	case "summary_keep":
		num(&o.SummaryKeep)
	case "summary_prompt":
		o.SummaryPrompt = val
	case "pricing":
		o.Pricing, err = resolvePricing(val, nil, nil)
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

// Zoea Nova's own context tests (github.com/sacenox/Zoea-Nova, MIT,
// internal/core/mysis_test.go and orphaned_tool_results_test.go:
// TestSnapshotCompaction, TestGetContextMemories_CurrentTurnBoundary,
// TestExtractLatestToolLoopHelper, TestAgent3Finding_OrphanedToolResults,
// TestLoopContextSlice_ToolCallResultPairing), written again here as
// behaviour cases of turn-aware (Zoea Nova's getContextMemories) and
// loop-slice (its extractLatestToolLoop), with the histories those tests
// store and the assertions they make. Zoea Nova talks to OpenAI-compatible
// APIs, so the cases run with provider openai; a history with no source
// (no user message at all) asks for seed 002's form with window_only, as
// Zoea Nova would. Every case must also hold, in a request every provider
// accepts, for the assertions that do not depend on the provider.
type zoeaCase struct {
	name     string
	strategy string
	history  []ChatMessage
	// check holds the output to Zoea Nova's assertions.
	check func(out []ChatMessage) error
	// openaiOnly: the assertion reads a loop no user message precedes,
	// which a provider that wants the user first gets as a note.
	openaiOnly bool
}

func zoeaCases() []zoeaCase {
	sys := ChatMessage{Role: RoleSystem, Content: "System prompt"}
	direct := func(s, sender string) ChatMessage {
		return ChatMessage{Role: RoleUser, Source: SourceDirect, Content: s, SenderID: sender}
	}
	broadcast := func(s, sender string) ChatMessage {
		return ChatMessage{Role: RoleUser, Source: SourceBroadcast, Content: s, SenderID: sender}
	}
	calls := func(ids ...string) ChatMessage {
		m := ChatMessage{Role: RoleAssistant}
		for i := 0; i < len(ids); i += 2 {
			m.ToolCalls = append(m.ToolCalls, ChatToolCall{ID: ids[i], Name: ids[i+1], Arguments: "{}"})
		}
		return m
	}
	result := func(id, s string) ChatMessage { return ChatMessage{Role: RoleTool, ToolCallID: id, Content: s} }
	// firstUser is the turn boundary Zoea Nova's test reads: the first user
	// message of the output that is not a ledger note.
	firstUser := func(out []ChatMessage) *ChatMessage {
		for i := range out {
			if out[i].Role == RoleUser && !isLedgerNote(out[i]) {
				return &out[i]
			}
		}
		return nil
	}
	boundary := func(source, sender string) func([]ChatMessage) error {
		return func(out []ChatMessage) error {
			u := firstUser(out)
			if u == nil || u.Source != source || u.SenderID != sender || u.Content == "" {
				return fmt.Errorf("turn boundary %+v, want source %q sender %q", u, source, sender)
			}
			return nil
		}
	}
	// pairing is the orphan tests' assertion: every result answers a call
	// of the output and every call is answered.
	pairing := func(out []ChatMessage) error { return validSequence(out) }

	var snapshots []ChatMessage
	snapshots = append(snapshots, sys)
	for i := range 5 {
		snapshots = append(snapshots, direct("check status", ""), calls("call_1", "get_status"),
			result("call_1", fmt.Sprintf(`{"status":"active","iteration":%d}`, i)))
	}
	agent3 := []ChatMessage{{Role: RoleSystem, Content: "You are an AI pilot in SpaceMolt"},
		calls("call_claim", "zoea_claim_account"), result("call_claim", "Use the game's login tool"),
		calls("call_login", "login"), result("call_login", "Login successful"),
		calls("call_-7908546686739502339", "get_status", "call_-7908546686739502338", "get_system",
			"call_-7908546686739502337", "get_poi", "call_-7908546686739502336", "get_ship"),
		result("call_-7908546686739502339", "Status result"), result("call_-7908546686739502338", "System result"),
		result("call_-7908546686739502337", "POI result"), result("call_-7908546686739502336", "Ship result")}
	for i := range 15 {
		id := "call_extra_" + string(rune(i)) // the test's own ids, control characters included
		agent3 = append(agent3, calls(id, "extra_tool"), result(id, "extra result"))
	}

	return []zoeaCase{
		{"TestSnapshotCompaction", "turn-aware", snapshots, func(out []ChatMessage) error {
			var got []string
			for _, m := range out {
				if m.Role == RoleTool && strings.Contains(m.Content, `"iteration":`) {
					got = append(got, m.Content)
				}
			}
			if len(got) != 1 || !strings.Contains(got[0], `"iteration":4`) {
				return fmt.Errorf("get_status results %q, want only iteration 4", got)
			}
			return nil
		}, false},
		{"current_turn_start", "turn-aware", []ChatMessage{sys, direct("Commander direct message", "commander-mysis-id"),
			broadcast("Commander broadcast", "commander-mysis-id"), broadcast("Swarm broadcast", "swarm-mysis-id")},
			boundary(SourceBroadcast, "swarm-mysis-id"), false},
		{"commander_broadcast_when_no_direct", "turn-aware", []ChatMessage{sys, broadcast("Commander broadcast 1", "commander-mysis-id"),
			broadcast("Swarm broadcast", "swarm-mysis-id"), broadcast("Commander broadcast 2", "commander-mysis-id")},
			boundary(SourceBroadcast, "commander-mysis-id"), false},
		{"swarm_broadcast_when_no_commander_messages", "turn-aware", []ChatMessage{sys, broadcast("Swarm broadcast 1", "swarm-mysis-id"),
			broadcast("Swarm broadcast 2", "swarm-mysis-id")},
			boundary(SourceBroadcast, "swarm-mysis-id"), false},
		{"synthetic_nudge_when_no_broadcasts", "turn-aware", []ChatMessage{sys, {Role: RoleAssistant, Content: "Previous response"}},
			boundary(SourceSystem, ""), false},
		{"single_tool_call_with_results", "loop-slice", []ChatMessage{sys, direct("User", ""), calls("call_1", "get_status"), result("call_1", "status result")},
			loopOf(2, "call_1"), false},
		{"multiple_loops_returns_most_recent", "loop-slice", []ChatMessage{sys, calls("call_old", "get_status"), result("call_old", "old result"),
			calls("call_new", "get_poi"), result("call_new", "new result")},
			loopOf(2, "call_new"), true},
		{"tool_call_with_multiple_results", "loop-slice", []ChatMessage{calls("call_1", "get_status", "call_2", "get_system"),
			result("call_1", "result 1"), result("call_2", "result 2")},
			loopOf(3, "call_1", "call_2"), true},
		{"TestAgent3Finding_OrphanedToolResults", "turn-aware", agent3, pairing, false},
		{"TestLoopContextSlice_ToolCallResultPairing", "turn-aware", []ChatMessage{sys, direct("Check your status and mine some resources", ""),
			calls("call_old_1", "get_status", "call_old_2", "get_system"), result("call_old_1", "Old status result"), result("call_old_2", "Old system result"),
			calls("call_old_3", "get_poi"), result("call_old_3", "Old POI result"),
			calls("call_recent_1", "mine", "call_recent_2", "get_cargo"), result("call_recent_1", "Mining successful"), result("call_recent_2", "Cargo: ore_iron x10")},
			func(out []ChatMessage) error {
				if err := pairing(out); err != nil {
					return err
				}
				var ids []string
				for _, m := range out {
					for _, tc := range m.ToolCalls {
						ids = append(ids, tc.ID)
					}
				}
				if want := []string{"call_old_1", "call_old_2", "call_old_3", "call_recent_1", "call_recent_2"}; !slices.Equal(ids, want) {
					return fmt.Errorf("calls %v, want the whole current turn %v", ids, want)
				}
				return nil
			}, false},
	}
}

// loopOf is extractLatestToolLoop's assertion on loop-slice's output: the
// latest loop is n messages, an assistant message calling ids, then its
// results.
func loopOf(n int, ids ...string) func([]ChatMessage) error {
	return func(out []ChatMessage) error {
		for i, m := range out {
			if m.Role != RoleAssistant {
				continue
			}
			got := []string{}
			for _, tc := range m.ToolCalls {
				got = append(got, tc.ID)
			}
			end := i + 1
			for end < len(out) && out[end].Role == RoleTool {
				end++
			}
			if end-i != n || !slices.Equal(got, ids) {
				return fmt.Errorf("loop of %d messages calling %v, want %d calling %v", end-i, got, n, ids)
			}
			return nil
		}
		return fmt.Errorf("no tool loop, want %d messages calling %v", n, ids)
	}
}

func TestZoeaNovaContext(t *testing.T) {
	for _, c := range zoeaCases() {
		for _, provider := range []string{ProviderOpenAI, "", ProviderAnthropic} {
			t.Run(c.name+"/"+cmp.Or(provider, "all"), func(t *testing.T) {
				opts := chatDefaults()
				opts.Strategy, opts.Provider = c.strategy, provider
				// Zoea Nova's histories carry sources on their user
				// messages; one with none is still from its world.
				opts.WindowOnly = !slices.ContainsFunc(c.history, func(m ChatMessage) bool { return m.Source != "" })
				s, _ := Lookup(c.strategy)
				resp, err := s.Render(&Request{History: c.history, Options: opts})
				if err != nil {
					t.Fatal(err)
				}
				out := resp.Messages
				// The provider's rules may move a loop behind a lead or into a
				// note; Zoea Nova's assertions hold as they are for openai,
				// where the seed's output is sent.
				if provider == ProviderOpenAI || !c.openaiOnly {
					if err := c.check(out); err != nil {
						t.Errorf("%v\noutput:\n%s", err, formatLog(out))
					}
				}
				rules := checkProviderRules(out)
				if provider == ProviderOpenAI {
					rules = errors.Join(openAIRules(out)...)
				}
				if err := errors.Join(rules, checkProviderMoves(c.history, resp, &opts)); err != nil {
					t.Errorf("%v\noutput:\n%s", err, formatLog(out))
				}
			})
		}
	}
}

// TestSeedRegressions holds the three of seed 002's cases issue 35 lists
// (their goldens: testdata/chat/seed002_*_openai.txtar, the seed's output)
// to what every provider's rules must keep, for each provider that wants
// the user's message first and for none named: no prompt in front of
// nothing, the nudge last and no prefill, the latest loop's values kept.
func TestSeedRegressions(t *testing.T) {
	cases := []struct {
		file string
		// keep is a text the output must hold: what the seed keeps.
		keep string
	}{
		{"seed002_stale_lead_openai.txtar", `"iteration": 2`},
		{"seed002_nudge_last_openai.txtar", "Previous response"},
		{"seed002_loop_before_prompt_openai.txtar", "belt-7"},
	}
	for _, c := range cases {
		for _, provider := range []string{"", ProviderAnthropic, ProviderGemini} {
			t.Run(c.file+"/"+cmp.Or(provider, "all"), func(t *testing.T) {
				cc, err := readChatCase(filepath.Join("testdata/chat", c.file))
				if err != nil {
					t.Fatal(err)
				}
				cc.opts.Provider = provider
				s, _ := Lookup(cc.opts.Strategy)
				resp, err := s.Render(&Request{History: cc.history, Options: cc.opts})
				if err != nil {
					t.Fatal(err)
				}
				out := resp.Messages
				if err := errors.Join(checkProviderRules(out), checkProviderMoves(cc.history, resp, &cc.opts)); err != nil {
					t.Errorf("%v\noutput:\n%s", err, formatLog(out))
				}
				if !slices.ContainsFunc(out, func(m ChatMessage) bool { return strings.Contains(m.Content, c.keep) }) {
					t.Errorf("the output lost %q\noutput:\n%s", c.keep, formatLog(out))
				}
				if last := out[len(out)-1]; last.Role == RoleAssistant {
					t.Errorf("the output ends with the model's own text, a prefill\noutput:\n%s", formatLog(out))
				}
			})
		}
	}
}
