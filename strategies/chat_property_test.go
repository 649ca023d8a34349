package strategies

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
)

// Property tests: many random chat logs, shaped like real agent logs gone
// wrong (tool loops of several calls, interleaved prompts and broadcasts,
// results that never came, results twice, results answering nothing, ids
// reused across loops, system messages in the middle), run through every
// chat strategy with random options. Whatever the input, the output must be a
// valid tool-calling sequence drawn from the input in order.

const propertyLogs = 400

var chatStrategyNames = []string{"loop-slice", "turn-aware", "clear-tool-results", "token-budget"}

var words = strings.Fields("ore iron fuel gate belt station convoy pirates scan dock price market hull cargo " +
	"status route jump warp signal beacon contact trade credits mining laser drone")

func randomText(r *rand.Rand, maxWords int) string {
	n := 1 + r.IntN(maxWords)
	w := make([]string, n)
	for i := range w {
		w[i] = words[r.IntN(len(words))]
	}
	return strings.Join(w, " ")
}

var toolNames = []string{"get_status", "get_cargo", "get_market", "mine", "travel", "search", "read_file"}

// randomChatLog builds a log of up to about 80 messages. Half the logs come
// from seed 002's world (user messages with sources), half from OpenAI- and
// Anthropic-style agents (no sources).
func randomChatLog(r *rand.Rand) []ChatMessage {
	var h []ChatMessage
	if r.IntN(5) > 0 {
		h = append(h, ChatMessage{Role: RoleSystem, Content: "You are agent " + randomText(r, 6)})
	}
	if r.IntN(6) == 0 { // the assistant greets before the user speaks
		h = append(h, ChatMessage{Role: RoleAssistant, Content: "Hello! " + randomText(r, 4)})
	}
	seed := r.IntN(2) == 0
	nextID := 0
	newID := func() string {
		// Ids are sometimes reused across loops, as frameworks that number
		// calls per turn do, and sometimes hold characters Anthropic
		// refuses.
		switch r.IntN(8) {
		case 0:
			return fmt.Sprintf("c%d", r.IntN(3))
		case 1:
			return fmt.Sprintf("fn.%d:x", r.IntN(3))
		}
		nextID++
		return fmt.Sprintf("id%d", nextID)
	}
	steps := r.IntN(40)
	for range steps {
		switch k := r.IntN(20); {
		case k < 4:
			m := ChatMessage{Role: RoleUser, Content: randomText(r, 8)}
			if r.IntN(12) == 0 {
				m.Content = " " // says nothing
			}
			if r.IntN(5) == 0 {
				m.Name = "alice"
			}
			switch r.IntN(5) {
			case 0:
				m.Source = SourceDirect
			case 1:
				m.Source = SourceBroadcast
			case 2:
				m.Source, m.SenderID = SourceBroadcast, fmt.Sprintf("agent-%d", r.IntN(4))
			case 3:
				m.Source = SourceSystem
			}
			if !seed {
				m.Source, m.SenderID = "", ""
			}
			h = append(h, m)
		case k < 6:
			m := ChatMessage{Role: RoleAssistant, Content: randomText(r, 10), Reasoning: randomText(r, 3)}
			if r.IntN(10) == 0 {
				m.Content = ""
			}
			h = append(h, m)
		case k < 17:
			calls := make([]ChatToolCall, 1+r.IntN(4))
			for i := range calls {
				id := newID()
				for slices.ContainsFunc(calls[:i], func(c ChatToolCall) bool { return c.ID == id }) {
					id = newID()
				}
				calls[i] = ChatToolCall{ID: id, Name: toolNames[r.IntN(len(toolNames))], Arguments: fmt.Sprintf(`{"n": %d}`, r.IntN(100))}
				switch r.IntN(20) {
				case 0: // a model's truncated JSON
					calls[i].Arguments = `{"n": "mi`
				case 1:
					calls[i].Arguments = `[1, 2]`
				}
			}
			a := ChatMessage{Role: RoleAssistant, ToolCalls: calls}
			switch r.IntN(6) {
			case 0, 1:
				a.Content = randomText(r, 5)
			case 2:
				a.Content = "\n"
			}
			h = append(h, a)
			if r.IntN(12) == 0 { // a prompt arrives before the results
				m := ChatMessage{Role: RoleUser, Content: randomText(r, 4)}
				if seed {
					m.Source = SourceDirect
				}
				h = append(h, m)
			}
			order := r.Perm(len(calls))
			for _, i := range order {
				if r.IntN(10) == 0 {
					continue // result never came
				}
				res := ChatMessage{Role: RoleTool, ToolCallID: calls[i].ID, Content: randomText(r, 30)}
				h = append(h, res)
				if r.IntN(12) == 0 {
					res.Content = "retry " + res.Content
					h = append(h, res)
				}
				if r.IntN(15) == 0 {
					h = append(h, ChatMessage{Role: RoleTool, ToolCallID: "stray", Content: randomText(r, 4)})
				}
			}
		case k < 19:
			h = append(h, ChatMessage{Role: RoleTool, ToolCallID: newID(), Content: randomText(r, 5)})
		default:
			h = append(h, ChatMessage{Role: RoleSystem, Content: randomText(r, 5)})
		}
	}
	return h
}

func randomChatOptions(r *rand.Rand, strategy string) Options {
	o := chatDefaults()
	o.Strategy = strategy
	o.ScanWindow = 1 + r.IntN(30)
	o.NudgeAttempt = 1 + r.IntN(5)
	if r.IntN(4) == 0 {
		o.Nudges = []string{"first", "second"}
	}
	if r.IntN(4) == 0 {
		o.SnapshotToolPrefixes = []string{"get_", "read_"}
	}
	o.Trigger = r.IntN(400)
	o.Keep = r.IntN(5)
	if r.IntN(2) == 0 {
		o.ClearAtLeast = r.IntN(200)
	}
	if r.IntN(3) == 0 {
		o.ExcludeTools = []string{"read_file"}
	}
	o.ClearToolInputs = r.IntN(2) == 0
	if r.IntN(3) == 0 {
		o.Placeholder = "[gone]"
	}
	o.MaxTokens = 1 + r.IntN(600)
	if r.IntN(3) == 0 {
		o.TrimTo = 1 + r.IntN(o.MaxTokens)
	}
	o.WindowOnly = r.IntN(4) == 0
	if r.IntN(5) == 0 {
		o.Tokenizer = "cl100k_base"
	}
	// Half the requests name no provider (a request every one accepts).
	o.Provider = []string{"", "", "", ProviderOpenAI, ProviderAnthropic, ProviderGemini}[r.IntN(6)]
	return o
}

func cloneHistory(h []ChatMessage) []ChatMessage {
	if h == nil {
		return nil
	}
	out := make([]ChatMessage, len(h))
	for i, m := range h {
		m.ToolCalls = slices.Clone(m.ToolCalls)
		out[i] = m
	}
	return out
}

func TestChatProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 11))
	seen := map[string]int{}
	var outputs outputLog
	for n := range propertyLogs {
		h := randomChatLog(r)
		for _, name := range chatStrategyNames {
			opts := randomChatOptions(r, name)
			if err := checkChatProperties(h, opts); err != nil {
				t.Fatalf("log %d, %s: %v\noptions: %+v\nhistory:\n%s", n, name, err, opts, formatLog(h))
			}
			if resp := noteOutcome(seen, h, opts); resp != nil && opts.Provider != ProviderOpenAI {
				outputs.add(fmt.Sprintf("log %d, %s", n, name), resp.Messages)
			}
		}
	}
	// The independent checker holds every output to the providers' rules.
	outputs.check(t)
	// The generator must reach every interesting outcome, or the properties
	// above prove little.
	for _, k := range []string{"nudge", "exhausted", "snapshot dropped", "cleared", "not cleared above trigger",
		"trimmed", "system over budget", "orphans dropped", "task from before the window", "lead", "ids rewritten",
		"task pinned", "arguments wrapped", "prompt led", "unit noted", "assistant first (openai)",
		"nudge after the model's text"} {
		if seen[k] == 0 {
			t.Errorf("no random log led to %q (%v)", k, seen)
		}
	}
}

// noteOutcome records what the strategy did with h, and returns its
// response (nil when it refused the request).
func noteOutcome(seen map[string]int, h []ChatMessage, opts Options) *Response {
	s, _ := Lookup(opts.Strategy)
	resp, err := s.Render(&Request{History: h, Options: opts})
	if err != nil {
		seen["system over budget"]++
		return nil
	}
	st := resp.Stats
	if st.SyntheticNudge {
		seen["nudge"]++
	}
	if st.NudgesExhausted {
		seen["exhausted"]++
	}
	if ch := newChatHistory(h); len(ch.seq) < len(ch.ns) {
		seen["orphans dropped"]++
	}
	if st.PromptSource == promptTask {
		seen["task from before the window"]++
	}
	if st.ToolCallIDsRewritten > 0 {
		seen["ids rewritten"]++
	}
	if st.TaskPinned {
		seen["task pinned"]++
	}
	if st.PromptsLed > 0 {
		seen["prompt led"]++
	}
	if st.UnitsNoted > 0 {
		seen["unit noted"]++
	}
	if first := firstAfterSystem(resp.Messages); first < len(resp.Messages) && resp.Messages[first].Role == RoleAssistant {
		seen["assistant first (openai)"]++
	}
	if n := len(resp.Messages); st.SyntheticNudge && n >= 2 && resp.Messages[n-2].Role == RoleAssistant {
		seen["nudge after the model's text"]++
	}
	for _, m := range resp.Messages {
		for _, tc := range m.ToolCalls {
			if strings.HasPrefix(tc.Arguments, `{"unparsed_arguments"`) {
				seen["arguments wrapped"]++
			}
		}
	}
	if (opts.Strategy == "loop-slice" || opts.Strategy == "turn-aware") && !st.SyntheticNudge {
		users := 0
		for _, m := range resp.Messages {
			if m.Role == RoleUser {
				users++
			}
		}
		if users > 1 && opts.Strategy == "loop-slice" {
			seen["lead"]++
		}
	}
	switch opts.Strategy {
	case "turn-aware":
		for _, m := range resp.Messages {
			if m.Role == RoleAssistant && !slices.ContainsFunc(h, func(x ChatMessage) bool { return reflect.DeepEqual(x, m) }) {
				seen["snapshot dropped"]++
			}
		}
	case "clear-tool-results":
		if st.ToolUsesCleared > 0 {
			seen["cleared"]++
		} else if st.TokensAfter > opts.Trigger {
			seen["not cleared above trigger"]++
		}
	case "token-budget":
		if st.MessagesAfter < st.MessagesBefore-2 {
			seen["trimmed"]++
		}
	}
	return resp
}

func formatLog(h []ChatMessage) string {
	var b strings.Builder
	for _, m := range h {
		b.WriteString(formatChatMessage(m))
	}
	return b.String()
}

func checkChatProperties(h []ChatMessage, opts Options) error {
	s, err := Lookup(opts.Strategy)
	if err != nil {
		return err
	}
	input := cloneHistory(h)
	resp, err := s.Render(&Request{History: input, Options: opts})
	if !reflect.DeepEqual(input, h) {
		return errors.New("the strategy modified its input")
	}
	if err != nil {
		var oe *OptionError
		if opts.Strategy == "token-budget" && errors.As(err, &oe) && oe.Option == "max_tokens" && opts.MaxTokens > 0 {
			return checkBudgetTooSmall(h, &opts)
		}
		return fmt.Errorf("render: %v", err)
	}
	again, err := s.Render(&Request{History: cloneHistory(h), Options: opts})
	if err != nil || !reflect.DeepEqual(again, resp) {
		return errors.New("the same request gave a different response")
	}
	out := resp.Messages
	rules := checkProviderRules(out)
	if opts.Provider == ProviderOpenAI {
		rules = errors.Join(openAIRules(out)...)
	}
	if rules != nil {
		return fmt.Errorf("the provider (%q) would refuse the output: %v\noutput:\n%s", opts.Provider, rules, formatLog(out))
	}
	if err := checkProviderMoves(h, resp, &opts); err != nil {
		return fmt.Errorf("%v\noutput:\n%s", err, formatLog(out))
	}
	if err := checkSystemFirst(h, out); err != nil {
		return err
	}
	if err := checkDrawnFromInput(h, resp, &opts); err != nil {
		return fmt.Errorf("%v\noutput:\n%s", err, formatLog(out))
	}
	if err := checkTaskKept(h, resp, &opts); err != nil {
		return fmt.Errorf("%v\noutput:\n%s", err, formatLog(out))
	}
	if err := checkChatStats(h, resp, &opts); err != nil {
		return err
	}
	switch opts.Strategy {
	case "loop-slice":
		if keepsEvidence(newChatHistory(h), &opts) {
			return checkLedger(h, out)
		}
		return checkLoopSlice(out)
	case "turn-aware":
		if keepsEvidence(newChatHistory(h), &opts) {
			return checkLedger(h, out)
		}
		return checkTurnAware(out, &opts, newChatHistory(h).seed)
	case "clear-tool-results":
		return checkClearToolResults(h, resp, &opts)
	case "token-budget":
		return checkTokenBudget(resp, &opts)
	}
	return nil
}

// firstAfterSystem is the position of the first message after the system
// prompt.
func firstAfterSystem(msgs []ChatMessage) int {
	if len(msgs) > 0 && msgs[0].Role == RoleSystem {
		return 1
	}
	return 0
}

// checkProviderMoves holds every output, whatever the provider, to what
// the provider's rules may never do: send a message of the history twice,
// end with an assistant message the history did not end with (a prefill
// the model would continue: a nudge is always last), leave a prompt led in
// front of nothing (in seed 002's form, two prompts in a row: a lead whose
// loop was dropped), and the statistics name what the rules moved.
func checkProviderMoves(in []ChatMessage, resp *Response, opts *Options) error {
	out := resp.Messages
	// Each output message stands for one history message (or none: the
	// system prompt, notes, the nudge); none may stand twice. Messages are
	// matched in order, so a second copy would need a second original.
	used := make([]bool, len(in))
	for i := firstAfterSystem(out); i < len(out); i++ {
		m := out[i]
		if isLedgerNote(m) || resp.Stats.SyntheticNudge && i == len(out)-1 {
			continue
		}
		if m.Role != RoleUser {
			continue // assistant and tool messages: the subsequence check covers them
		}
		k := slices.IndexFunc(in, func(x ChatMessage) bool { return reflect.DeepEqual(x, m) })
		for k >= 0 && used[k] {
			next := slices.IndexFunc(in[k+1:], func(x ChatMessage) bool { return reflect.DeepEqual(x, m) })
			if next < 0 {
				return fmt.Errorf("output message %d (%q) is sent twice", i, m.Content)
			}
			k += 1 + next
		}
		if k >= 0 {
			used[k] = true
		}
	}
	// The history's end as it can be sent (after sequence repair: a
	// stray result at the end is not sent).
	seq := newChatHistory(in).seq
	if n := len(out); n > 0 && out[n-1].Role == RoleAssistant && (len(seq) == 0 || in[seq[len(seq)-1]].Role != RoleAssistant) {
		return fmt.Errorf("the output ends with an assistant message the history does not end with: a prefill")
	}
	if resp.Stats.SyntheticNudge && (len(out) == 0 || out[len(out)-1].Role != RoleUser || out[len(out)-1].Source != SourceSystem) {
		return errors.New("the nudge is not the last message")
	}
	seedForm := (opts.Strategy == "loop-slice" || opts.Strategy == "turn-aware") && !keepsEvidence(newChatHistory(in), opts)
	if seedForm {
		for i := 1; i < len(out); i++ {
			if isPrompt(&out[i-1]) && isPrompt(&out[i]) {
				return fmt.Errorf("output messages %d and %d are both prompts: a lead in front of nothing", i-1, i)
			}
		}
	}
	st := resp.Stats
	if want := cmp.Or(opts.Provider, "all"); st.Provider != want {
		return fmt.Errorf("stats name provider %q, want %q", st.Provider, want)
	}
	if opts.Provider == ProviderOpenAI && (st.PromptsLed != 0 || st.UnitsNoted != 0 || st.GreetingsDropped != 0) {
		return fmt.Errorf("an OpenAI-compatible provider needs no move, stats say %d led, %d noted, %d greetings", st.PromptsLed, st.UnitsNoted, st.GreetingsDropped)
	}
	notes := 0
	for _, m := range out {
		if isLedgerNote(m) {
			notes++
		}
	}
	if st.UnitsNoted > notes {
		return fmt.Errorf("units_noted %d, the output holds %d notes", st.UnitsNoted, notes)
	}
	return nil
}

// checkBudgetTooSmall: token-budget refuses a budget only when it cannot
// hold the system prompt and the user's request (or a nudge).
func checkBudgetTooSmall(h []ChatMessage, opts *Options) error {
	ch := newChatHistory(h)
	need := 0
	if ch.system >= 0 {
		need, _ = CountMessageTokens(opts.Tokenizer, opts.Provider, h[ch.system:ch.system+1])
	}
	if t := ch.task(); t >= 0 {
		n, _ := CountMessageTokens(opts.Tokenizer, opts.Provider, h[t:t+1])
		need += n
	} else if !slices.ContainsFunc(h, func(m ChatMessage) bool { return m.Role == RoleUser && !blank(m.Content) }) {
		nudge, _ := nudgeFor(opts)
		n, _ := CountMessageTokens(opts.Tokenizer, opts.Provider, []ChatMessage{nudge})
		need += n
	}
	if need <= opts.MaxTokens {
		return fmt.Errorf("max_tokens %d refused, but the system prompt and the request take only %d", opts.MaxTokens, need)
	}
	return nil
}

// checkSystemFirst: the input's first system message, and only it, leads.
func checkSystemFirst(in, out []ChatMessage) error {
	sys := newChatHistory(in).system
	for i, m := range out {
		if m.Role == RoleSystem && (i != 0 || !reflect.DeepEqual(m, in[sys])) {
			return fmt.Errorf("output message %d is a system message other than the system prompt", i)
		}
	}
	if sys >= 0 && (len(out) == 0 || out[0].Role != RoleSystem) {
		return errors.New("the system prompt is not first")
	}
	return nil
}

// checkDrawnFromInput: the output after the system prompt is a subsequence of
// the input (each message in the form the output sends it, sendableForms),
// except for at most one synthetic nudge right after the system prompt, and
// for the edits a strategy is allowed to make.
func checkDrawnFromInput(in []ChatMessage, resp *Response, opts *Options) error {
	sendableIn := sendableHistory(in)
	out := resp.Messages
	nudges := 0
	j := 0
	for i, m := range out {
		if m.Role == RoleSystem {
			continue // the system prompt moves to the front; checkSystemFirst covers it
		}
		if isLedgerNote(m) && (resp.Stats.UnitsNoted > 0 || opts.Strategy == "token-budget" || (opts.Strategy == "loop-slice" || opts.Strategy == "turn-aware") && keepsEvidence(newChatHistory(in), opts)) {
			continue // a note of the ledger, the trace of dropped messages
		}
		if m.Role == RoleUser && m.Source == SourceSystem && !slices.ContainsFunc(in, func(x ChatMessage) bool { return reflect.DeepEqual(x, m) }) {
			nudges++
			if !resp.Stats.SyntheticNudge || nudges > 1 || i != len(out)-1 {
				return fmt.Errorf("output message %d is not from the input and not a single nudge at the end", i)
			}
			continue
		}
		for j < len(in) && !derivedFrom(sendableIn[j], m, opts) {
			j++
		}
		if j == len(in) {
			return fmt.Errorf("output message %d is not drawn from the input in order", i)
		}
		j++
	}
	if resp.Stats.SyntheticNudge != (nudges == 1) {
		return fmt.Errorf("synthetic_nudge is %v but the output holds %d nudges", resp.Stats.SyntheticNudge, nudges)
	}
	if resp.Stats.NudgesExhausted && !resp.Stats.SyntheticNudge {
		return errors.New("nudges_exhausted without a nudge")
	}
	return nil
}

// checkTaskKept: the user's request (the most recent prompt) is in every
// output, except where seed 002's rule lets loop-slice and turn-aware send a
// broadcast or a nudge instead (a history from that world, or window_only).
// A nudge never stands in for a request that exists.
func checkTaskKept(in []ChatMessage, resp *Response, opts *Options) error {
	ch := newChatHistory(in)
	t := ch.task()
	if t < 0 {
		return nil
	}
	if resp.Stats.SyntheticNudge {
		if opts.Strategy == "loop-slice" || opts.Strategy == "turn-aware" {
			if ch.seed || opts.WindowOnly {
				return nil
			}
		}
		return fmt.Errorf("a nudge was sent though the history holds the request %q", in[t].Content)
	}
	if slices.ContainsFunc(resp.Messages, func(m ChatMessage) bool { return reflect.DeepEqual(m, in[t]) }) {
		return nil
	}
	if (opts.Strategy == "loop-slice" || opts.Strategy == "turn-aware") && (ch.seed || opts.WindowOnly) {
		return nil
	}
	return fmt.Errorf("the request %q is not in the output", in[t].Content)
}

// derivedFrom reports whether out is in, or in with the edits its strategy
// may make: turn-aware drops snapshot calls from an assistant message,
// clear-tool-results replaces results and arguments.
func derivedFrom(in, out ChatMessage, opts *Options) bool {
	if reflect.DeepEqual(in, out) {
		return true
	}
	if in.Role != out.Role || in.Content != out.Content && !(in.Role == RoleTool && out.Content == opts.Placeholder) {
		return false
	}
	inCalls, outCalls := in.ToolCalls, out.ToolCalls
	in.ToolCalls, out.ToolCalls, in.Content, out.Content = nil, nil, "", ""
	if !reflect.DeepEqual(in, out) {
		return false
	}
	switch opts.Strategy {
	case "turn-aware":
		k := 0
		for _, c := range outCalls {
			for k < len(inCalls) && inCalls[k] != c {
				k++
			}
			if k == len(inCalls) {
				return false
			}
			k++
		}
		return len(outCalls) < len(inCalls)
	case "clear-tool-results":
		if len(inCalls) != len(outCalls) {
			return false
		}
		for k := range inCalls {
			c := inCalls[k]
			if opts.ClearToolInputs {
				c.Arguments = outCalls[k].Arguments
			}
			if c != outCalls[k] || c.Arguments != inCalls[k].Arguments && c.Arguments != clearedArguments {
				return false
			}
		}
		return true
	}
	return false
}

func checkChatStats(in []ChatMessage, resp *Response, opts *Options) error {
	st := resp.Stats
	tokIn, _ := CountMessageTokens(opts.Tokenizer, opts.Provider, in)
	tokOut, _ := CountMessageTokens(opts.Tokenizer, opts.Provider, resp.Messages)
	want := [][2]int{
		{st.MessagesBefore, len(in)}, {st.MessagesAfter, len(resp.Messages)},
		{st.CharsBefore, CountMessageChars(in)}, {st.CharsAfter, CountMessageChars(resp.Messages)},
		{st.TokensBefore, tokIn}, {st.TokensAfter, tokOut},
	}
	for i, w := range want {
		if w[0] != w[1] {
			return fmt.Errorf("stats figure %d is %d, want %d (%+v)", i, w[0], w[1], st)
		}
	}
	if st.Strategy != opts.Strategy || st.Tokenizer != opts.Tokenizer {
		return fmt.Errorf("stats name strategy %q tokenizer %q", st.Strategy, st.Tokenizer)
	}
	// What the output leaves out: every input message it does not send.
	dropped, droppedTokens := 0, 0
	sendableIn := sendableHistory(in)
	for i := range in {
		if !slices.ContainsFunc(resp.Messages, func(m ChatMessage) bool { return derivedFrom(sendableIn[i], m, opts) }) {
			dropped++
			n, _ := CountMessageTokens(opts.Tokenizer, opts.Provider, in[i:i+1])
			droppedTokens += n
		}
	}
	if st.MessagesDropped < dropped || st.MessagesDropped > len(in) {
		return fmt.Errorf("messages_dropped %d, but %d input messages are not in the output", st.MessagesDropped, dropped)
	}
	if st.MessagesDropped == dropped && st.TokensDropped != droppedTokens {
		return fmt.Errorf("tokens_dropped %d, the dropped messages hold %d", st.TokensDropped, droppedTokens)
	}
	return nil
}

// sendableHistory is the history with each message in the form the
// output sends it (sendableForms).
func sendableHistory(in []ChatMessage) []ChatMessage {
	ch := newChatHistory(in)
	out := slices.Clone(in)
	for i, f := range ch.sendable {
		out[i] = f.msg
	}
	return out
}

// checkLoopSlice: one prompt (or nudge) and at most one tool loop; when the
// prompt came after the loop, the prompt the loop answered leads it.
func checkLoopSlice(out []ChatMessage) error {
	users, assistants := 0, 0
	for _, m := range out {
		switch m.Role {
		case RoleUser:
			users++
		case RoleAssistant:
			assistants++
		}
	}
	if users < 1 || users > 2 || assistants > 1 || users == 2 && assistants == 0 && !slices.ContainsFunc(out, isLedgerNote) {
		return fmt.Errorf("loop-slice sent %d user and %d assistant messages", users, assistants)
	}
	return nil
}

// isLedgerNote reports whether m is a note of loop-slice's and turn-aware's
// ledger.
func isLedgerNote(m ChatMessage) bool {
	return m.Role == RoleUser && m.Source == SourceSystem && strings.HasPrefix(m.Content, ledgerHeader)
}

// checkLedger: outside seed 002's world, loop-slice and turn-aware send
// every prompt of the history up to their last message that is not a note.
func checkLedger(in, out []ChatMessage) error {
	prompts := 0
	for _, m := range out {
		if isPrompt(&m) {
			prompts++
		}
	}
	last := len(out) - 1
	for last >= 0 && isLedgerNote(out[last]) {
		last--
	}
	want := 0
	for i := range in {
		if isPrompt(&in[i]) {
			want++
		}
		if last >= 0 && reflect.DeepEqual(in[i], out[last]) {
			break
		}
	}
	if prompts < want {
		return fmt.Errorf("sent %d prompts, the history holds %d up to its last message", prompts, want)
	}
	return nil
}

// checkTurnAware: no snapshot answered twice (by name in seed 002's world,
// by name and arguments elsewhere).
func checkTurnAware(out []ChatMessage, opts *Options, seed bool) error {
	seen := map[string]bool{}
	caller := -1
	positions := callPositions{}
	for i, m := range out {
		if m.Role != RoleTool {
			caller = i
			continue
		}
		call := out[caller].ToolCalls[positions.index(caller, &out[caller], m.ToolCallID)]
		key := call.Name
		if !seed {
			key += " " + call.Arguments
		}
		if matchesPrefix(call.Name, opts.SnapshotToolPrefixes) {
			if seen[key] {
				return fmt.Errorf("snapshot %s answered twice", key)
			}
			seen[key] = true
		}
	}
	return nil
}

// checkClearToolResults: the repaired history (opened by a user message)
// with only allowed tool results cleared, and the statistics agree.
func checkClearToolResults(in []ChatMessage, resp *Response, opts *Options) error {
	out := resp.Messages
	ch := chatHistoryFor(in, opts)
	var repaired []ChatMessage
	if ch.system >= 0 {
		repaired = append(repaired, in[ch.system])
	}
	open := ch.openings()[0]
	kept := ch.seq[open.start:]
	if resp.Stats.UnitsNoted > 0 {
		// The first unit went as a note (no user message could open the
		// conversation): expect the note the output holds instead.
		first := firstAfterSystem(out)
		repaired = append(repaired, out[first])
		end := 1
		for end < len(kept) && in[kept[end]].Role == RoleTool {
			end++
		}
		kept = kept[end:]
	}
	for _, i := range kept {
		m := in[i]
		if f, ok := ch.sendable[i]; ok {
			m = f.msg
		}
		repaired = append(repaired, m)
	}
	if open.nudge {
		n, _ := nudgeFor(opts)
		repaired = append(repaired, n)
	}
	if len(out) != len(repaired) {
		return fmt.Errorf("clear-tool-results sent %d messages, the repaired history has %d", len(out), len(repaired))
	}
	before, _ := CountMessageTokens(opts.Tokenizer, opts.Provider, repaired)
	var results []int
	for i, m := range out {
		if m.Role == RoleTool {
			results = append(results, i)
		}
	}
	cleared := 0
	caller := -1
	positions := callPositions{}
	for i := range out {
		if out[i].Role != RoleTool {
			caller = i
			continue
		}
		if out[i].Content == repaired[i].Content {
			continue
		}
		cleared++
		name := out[caller].ToolCalls[positions.index(caller, &out[caller], out[i].ToolCallID)].Name
		if slices.Contains(opts.ExcludeTools, name) {
			return fmt.Errorf("cleared a result of excluded tool %s", name)
		}
		if slices.Index(results, i) >= len(results)-opts.Keep {
			return fmt.Errorf("cleared message %d, one of the %d most recent results", i, opts.Keep)
		}
	}
	st := resp.Stats
	// A result cleared in a unit sent as a note is counted by the strategy
	// but cannot be seen in the output.
	if cleared != st.ToolUsesCleared && st.UnitsNoted == 0 || before-st.TokensAfter != st.TokensCleared && st.UnitsNoted == 0 {
		return fmt.Errorf("cleared %d results and %d tokens, stats say %d and %d", cleared, before-st.TokensAfter, st.ToolUsesCleared, st.TokensCleared)
	}
	if cleared > 0 && (before <= opts.Trigger || st.TokensCleared < opts.ClearAtLeast || st.TokensCleared <= 0) {
		return fmt.Errorf("cleared %d tokens of %d (trigger %d, clear_at_least %d)", st.TokensCleared, before, opts.Trigger, opts.ClearAtLeast)
	}
	return nil
}

// checkTokenBudget: within budget, and what it dropped in the stats.
func checkTokenBudget(resp *Response, opts *Options) error {
	st := resp.Stats
	if st.TokensAfter > opts.MaxTokens {
		return fmt.Errorf("%d tokens over the budget of %d", st.TokensAfter, opts.MaxTokens)
	}
	if st.MessagesAfter < st.MessagesBefore && st.MessagesDropped == 0 {
		return fmt.Errorf("sent %d of %d messages but messages_dropped is 0", st.MessagesAfter, st.MessagesBefore)
	}
	return nil
}

// TestChatPropertiesFindBugs makes sure the checks above can fail: outputs
// broken in each way the properties guard against are caught.
func TestChatPropertiesFindBugs(t *testing.T) {
	in := []ChatMessage{
		{Role: RoleSystem, Content: "sys"},
		{Role: RoleUser, Content: "q"},
		{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "a", Name: "get_x"}}},
		{Role: RoleTool, ToolCallID: "a", Content: "r"},
	}
	opts := chatDefaults()
	opts.Strategy = "loop-slice"
	resp := func(msgs ...ChatMessage) *Response { return &Response{Messages: msgs} }
	if checkDrawnFromInput(in, resp(in[3], in[1]), &opts) == nil {
		t.Error("reordered output passed")
	}
	if checkDrawnFromInput(in, resp(in[0], ChatMessage{Role: RoleUser, Content: "made up"}), &opts) == nil {
		t.Error("invented message passed")
	}
	nudge, _ := nudgeFor(&opts)
	early := resp(in[0], nudge, in[2], in[3])
	early.Stats.SyntheticNudge = true
	if checkDrawnFromInput(in, early, &opts) == nil {
		t.Error("a nudge before the model's messages passed")
	}
	// What a provider's rules may never do (checkProviderMoves).
	moved := func(msgs ...ChatMessage) *Response {
		r := resp(msgs...)
		r.Stats.Provider = "all"
		return r
	}
	if checkProviderMoves(in, moved(in[0], in[1], in[2], in[3]), &opts) != nil {
		t.Error("a valid output failed")
	}
	if checkProviderMoves(in, moved(in[0], in[1], in[1], in[2], in[3]), &opts) == nil {
		t.Error("a prompt sent twice passed")
	}
	texted := append(slices.Clone(in), ChatMessage{Role: RoleAssistant, Content: "Previous response"})
	prefill := moved(in[0], nudge, texted[4])
	prefill.Stats.SyntheticNudge = true
	if checkProviderMoves(texted, prefill, &opts) == nil {
		t.Error("a nudge before the model's text passed")
	}
	if checkProviderMoves(in[:2], moved(in[0], in[1], in[2], in[3], ChatMessage{Role: RoleAssistant, Content: "made"}), &opts) == nil {
		t.Error("an output ending with an assistant message the history does not end with passed")
	}
	twoPrompts := []ChatMessage{in[0], {Role: RoleUser, Content: "Status?"}, in[1], in[2], in[3]}
	seedOpts := opts
	seedOpts.WindowOnly = true // seed 002's form, where a turn has one prompt
	if checkProviderMoves(twoPrompts, moved(twoPrompts[0], twoPrompts[1], twoPrompts[2], twoPrompts[3], twoPrompts[4]), &seedOpts) == nil {
		t.Error("a lead in front of nothing passed")
	}
	if checkProviderMoves(in, resp(in[0], in[1], in[2], in[3]), &opts) == nil {
		t.Error("stats without the provider passed")
	}
	if checkTaskKept(in, resp(in[0], nudge), &opts) == nil {
		t.Error("a nudge in place of the request passed")
	}
	if checkSystemFirst(in, []ChatMessage{in[1], in[0]}) == nil {
		t.Error("system prompt second passed")
	}
	if checkLoopSlice([]ChatMessage{in[1], in[1]}) == nil {
		t.Error("two prompts passed")
	}
	if checkTurnAware([]ChatMessage{in[2], in[3], in[2], in[3]}, &opts, true) == nil {
		t.Error("snapshot answered twice passed")
	}
}

func TestRepairSequence(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for n := range propertyLogs {
		h := randomChatLog(r)
		ch := newChatHistory(h)
		seq := ch.seq
		var msgs []ChatMessage
		for _, i := range seq {
			msgs = append(msgs, h[i])
		}
		if err := validSequence(msgs); err != nil {
			t.Fatalf("log %d: repaired sequence invalid: %v\n%s", n, err, formatLog(h))
		}
		if again := repairSequence(h, seq); !slices.Equal(again, seq) {
			t.Fatalf("log %d: repair is not idempotent", n)
		}
		// Nothing valid is dropped: every user message and assistant message
		// without calls that says something, and every loop whose block
		// answers each of its calls exactly once with nothing else in it
		// survive.
		for _, i := range ch.ns {
			m := h[i]
			keep := (m.Role == RoleUser || m.Role == RoleAssistant && len(m.ToolCalls) == 0) && !blank(m.Content)
			if m.Role == RoleAssistant && len(m.ToolCalls) > 0 {
				end := i + 1
				for end < len(h) && h[end].Role == RoleTool {
					end++
				}
				keep = validSequence(h[i:end]) == nil
			}
			if keep && !slices.Contains(seq, i) {
				t.Fatalf("log %d: message %d dropped though valid\n%s", n, i, formatLog(h))
			}
		}
	}
}

func TestValidSequenceRejects(t *testing.T) {
	call := func(ids ...string) ChatMessage {
		m := ChatMessage{Role: RoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, ChatToolCall{ID: id, Name: "t"})
		}
		return m
	}
	res := func(id string) ChatMessage { return ChatMessage{Role: RoleTool, ToolCallID: id} }
	user := ChatMessage{Role: RoleUser}
	sys := ChatMessage{Role: RoleSystem}
	for name, msgs := range map[string][]ChatMessage{
		"orphan result":          {user, res("a")},
		"missing result":         {user, call("a", "b"), res("a")},
		"duplicate result":       {user, call("a"), res("a"), res("a")},
		"result after a user":    {call("a"), user, res("a")},
		"system second":          {user, sys},
		"unknown role":           {{Role: "bot"}},
		"repeated call id":       {call("a", "a"), res("a")},
		"result of another call": {call("a"), res("a"), call("b"), res("a")},
	} {
		if validSequence(msgs) == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := validSequence([]ChatMessage{sys, user, call("a", "b"), res("b"), res("a"), call("a"), res("a")}); err != nil {
		t.Errorf("valid sequence rejected: %v", err)
	}
}

// TestRealChatProviders runs loop-slice and turn-aware, in their default form
// and seed 002's (window_only), on every call of the recorded and generated
// conversations for openai and anthropic: the output is a request that
// provider accepts (OpenAI's rules for openai; both checkers for the
// others, whose rules are Anthropic's), no message is sent twice, no
// prefill, the nudge last, and openai needs no move. TestRealChat covers the
// provider left unset.
func TestRealChatProviders(t *testing.T) {
	convs := sampleForShort(append(loadRealChat(t), codingSessions()...))
	rem := NewRemembered(memo.New(256 << 20))
	var outputs outputLog
	// Gemini's rules are Anthropic's here (the user first): TestSeedRegressions
	// and the random logs run it.
	for _, provider := range []string{ProviderOpenAI, ProviderAnthropic} {
		for _, strategy := range []string{"loop-slice", "turn-aware"} {
			for _, windowOnly := range []bool{false, true} {
				opts := chatDefaults()
				opts.Strategy, opts.Provider, opts.WindowOnly = strategy, provider, windowOnly
				s, _ := Lookup(strategy)
				failures := 0
				for _, c := range convs {
					for _, n := range c.calls() {
						h := c.messages[:n]
						resp, err := s.Render(&Request{History: h, Options: opts, Remembered: rem})
						if err == nil {
							rules := checkProviderRules(resp.Messages)
							if provider == ProviderOpenAI {
								rules = errors.Join(openAIRules(resp.Messages)...)
							} else {
								outputs.add(fmt.Sprintf("%s/%s/%s/%v/%d", c.source, c.id, strategy, windowOnly, n), resp.Messages)
							}
							err = errors.Join(rules, checkProviderMoves(h, resp, &opts))
						}
						if err != nil {
							failures++
							t.Errorf("%s %s window_only=%v, %s call %d: %v", provider, strategy, windowOnly, c.id, n, err)
						}
						if failures > 3 {
							t.FailNow()
						}
					}
				}
			}
		}
	}
	outputs.check(t)
}
