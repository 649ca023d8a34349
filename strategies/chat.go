package strategies

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file holds what every chat strategy (loop-slice, turn-aware,
// clear-tool-results, token-budget) reads the history with: input
// validation, sequence repair, the form each message is sent in, the user's
// request, the scan window and tool-loop extraction. chatoutput.go builds
// the output and its statistics.
//
// Two kinds of bad input are told apart. A message that is malformed on its
// own (an unknown role, a tool message that answers no id, a tool call
// without id or name) is the caller's bug and is rejected with a HistoryError
// naming the field. A log whose messages are fine but whose sequence is not
// (a tool result whose call is missing, a call whose result never came, a
// second result for the same call, a system message in the middle) is what
// agent logs look like after crashes and retries, so it is repaired by
// dropping the messages that cannot be paired.

// HistoryError is a chat message of the request's history that is malformed
// on its own. server/ maps it to INVALID_ARGUMENT naming the field.
type HistoryError struct {
	Index  int    // position in the history, 0-based
	Field  string // the field's wire name, e.g. "role" or "tool_calls[1].id"
	Reason string
}

func (e *HistoryError) Error() string {
	return fmt.Sprintf("history[%d].%s: %s", e.Index, e.Field, e.Reason)
}

// Providers a chat strategy's output is sent to (Options.Provider). The
// empty provider asks for a request every one of them accepts.
const (
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
	ProviderGemini    = "gemini"
)

// Message sources of a user message.
const (
	SourceDirect    = "direct"
	SourceBroadcast = "broadcast"
	SourceSystem    = "system"
)

// validateHistory rejects messages that are malformed on their own. It does
// not look at the sequence; repairSequence deals with that.
func validateHistory(h []ChatMessage) error {
	for i, m := range h {
		switch m.Role {
		case RoleSystem, RoleUser, RoleAssistant, RoleTool:
		case "":
			return &HistoryError{i, "role", "missing (want system, user, assistant or tool)"}
		default:
			return &HistoryError{i, "role", fmt.Sprintf("unknown role %q (want system, user, assistant or tool)", m.Role)}
		}
		switch m.Source {
		case "", SourceDirect, SourceBroadcast, SourceSystem:
		default:
			return &HistoryError{i, "source", fmt.Sprintf("unknown source %q (want direct, broadcast, system or empty)", m.Source)}
		}
		if len(m.ToolCalls) > 0 && m.Role != RoleAssistant {
			return &HistoryError{i, "tool_calls", fmt.Sprintf("only assistant messages call tools, this is a %s message", m.Role)}
		}
		if m.Role == RoleTool && m.ToolCallID == "" {
			return &HistoryError{i, "tool_call_id", "a tool message must name the tool call it answers"}
		}
		if m.Role != RoleTool && m.ToolCallID != "" {
			return &HistoryError{i, "tool_call_id", fmt.Sprintf("only tool messages answer a tool call, this is a %s message", m.Role)}
		}
		if err := validateParts(i, &m); err != nil {
			return err
		}
		first := make(map[string]int, len(m.ToolCalls)) // a lookup per call: comparing each with those before was n²/2
		for j, tc := range m.ToolCalls {
			if tc.ID == "" {
				return &HistoryError{i, fmt.Sprintf("tool_calls[%d].id", j), "missing"}
			}
			if tc.Name == "" {
				return &HistoryError{i, fmt.Sprintf("tool_calls[%d].name", j), "missing"}
			}
			if k, ok := first[tc.ID]; ok {
				return &HistoryError{i, fmt.Sprintf("tool_calls[%d].id", j), fmt.Sprintf("duplicate id %q (also tool_calls[%d])", tc.ID, k)}
			}
			first[tc.ID] = j
		}
	}
	return nil
}

// validSequence reports the first way msgs break the tool-calling contract
// every chat strategy promises: the system prompt, if any, comes first and
// only once; every tool message sits in the block of tool messages right
// after the assistant message that called it; every call of an assistant
// message is answered exactly once in that block.
func validSequence(msgs []ChatMessage) error {
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch m.Role {
		case RoleSystem:
			if i != 0 {
				return fmt.Errorf("message %d: system message after the start", i)
			}
		case RoleUser:
		case RoleTool:
			return fmt.Errorf("message %d: tool result %q does not follow the assistant message that called it", i, m.ToolCallID)
		case RoleAssistant:
			if len(m.ToolCalls) == 0 {
				continue
			}
			pending := make(map[string]bool, len(m.ToolCalls))
			for _, tc := range m.ToolCalls {
				if tc.ID == "" || pending[tc.ID] {
					return fmt.Errorf("message %d: tool call id %q empty or repeated", i, tc.ID)
				}
				pending[tc.ID] = true
			}
			j := i + 1
			for ; j < len(msgs) && msgs[j].Role == RoleTool; j++ {
				id := msgs[j].ToolCallID
				if !pending[id] {
					return fmt.Errorf("message %d: tool result %q answers no open call of message %d", j, id, i)
				}
				delete(pending, id)
			}
			if len(pending) > 0 {
				return fmt.Errorf("message %d: %d tool call(s) without a result", i, len(pending))
			}
			i = j - 1
		default:
			return fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	return nil
}

// repairSequence returns the positions of seq (indices into h) that form a
// valid tool-calling sequence, in order. A tool loop (an assistant message
// with tool calls and the block of tool messages right after it) is kept
// whole or not at all: when any call has no result in the block, the
// assistant message and its results are dropped. Inside a block, a result
// that answers no call of the loop is dropped, and of two results for the same
// call the first is kept. Tool messages outside any block and system messages
// are dropped, and so are user and assistant messages with neither text nor
// tool calls: they say nothing, and Anthropic's API refuses them. seq must
// hold increasing indices.
func repairSequence(h []ChatMessage, seq []int) []int {
	out := make([]int, 0, len(seq))
	for p := 0; p < len(seq); p++ {
		m := &h[seq[p]]
		switch {
		case m.Role == RoleSystem, m.Role == RoleTool:
			continue
		case m.Role != RoleAssistant || len(m.ToolCalls) == 0:
			if m.says() {
				out = append(out, seq[p])
			}
			continue
		}
		end := p + 1
		for end < len(seq) && h[seq[end]].Role == RoleTool {
			end++
		}
		answered := make(map[string]bool, len(m.ToolCalls))
		called := make(map[string]bool, len(m.ToolCalls)) // a lookup per answer, not a scan of the calls
		for _, tc := range m.ToolCalls {
			called[tc.ID] = true
		}
		results := make([]int, 0, end-p-1)
		for q := p + 1; q < end; q++ {
			id := h[seq[q]].ToolCallID
			if answered[id] || !called[id] {
				continue
			}
			answered[id] = true
			results = append(results, seq[q])
		}
		if len(answered) == len(m.ToolCalls) {
			out = append(out, seq[p])
			out = append(out, results...)
		}
		p = end - 1
	}
	return out
}

// blank reports whether a message text says nothing: empty or only white
// space, which Anthropic's API refuses as a text block.
func blank(s string) bool { return strings.TrimSpace(s) == "" }

// isPrompt reports whether m starts a turn: a user message from a person or
// another agent (direct, broadcast, or with no source) that says something.
// User messages whose source is "system" are automation (notifications,
// stored nudges) and never start a turn. A message of parts says something
// when any part does (a screenshot alone is a prompt).
func isPrompt(m *ChatMessage) bool {
	return m.Role == RoleUser && m.Source != SourceSystem && m.says()
}

// chatHistory is a request's history made ready for a chat strategy: where
// its system prompt is, which of its messages can be sent (repaired), which
// world it comes from, and the form in which the output carries each message
// a provider would refuse as it is.
type chatHistory struct {
	h      []ChatMessage
	system int   // index in h of the system prompt, -1 when none
	ns     []int // indices in h of the non-system messages, in order
	seq    []int // indices in h of the messages that can be sent: ns repaired
	// seed is set when some message carries a source: the history comes
	// from seed 002's world (a game swarm whose commander and peers speak
	// through direct messages and broadcasts), whose rules loop-slice and
	// turn-aware keep exactly.
	seed bool
	// sendable holds, by index in h, the form in which the output carries a
	// message that a provider would refuse as it is (sendableForms).
	sendable map[int]sendableForm
	// openai is set when the caller's provider is OpenAI-compatible, whose
	// API takes a conversation that opens with an assistant message.
	// Anthropic's and Gemini's want the user's message first, and so does
	// a request every provider accepts (no provider named).
	openai bool
	// A provider's compaction (compaction.go): pinned are the indices in h
	// of the message holding the last compaction part and its tool
	// results, sent right after the system prompt by every strategy; the
	// messages before it are replaced by it (replaced of them are not
	// system prompts), and nothing before floor is read.
	pinned   []int
	floor    int
	replaced int
	// extraSystem counts the system messages after the first, which are
	// not sent.
	extraSystem int
}

// chatHistoryFor is newChatHistory for a request's options: the rules of the
// caller's provider apply.
func chatHistoryFor(h []ChatMessage, opts *Options) *chatHistory {
	ch := newChatHistory(h)
	ch.openai = opts.Provider == ProviderOpenAI
	return ch
}

func newChatHistory(h []ChatMessage) *chatHistory {
	ch := &chatHistory{h: h, system: -1, ns: make([]int, 0, len(h))}
	ch.findCompaction()
	for i := range h {
		if h[i].Role == RoleSystem {
			if ch.system < 0 {
				ch.system = i
			} else {
				ch.extraSystem++
			}
			continue
		}
		if i < ch.floor {
			continue
		}
		ch.ns = append(ch.ns, i)
		if h[i].Source != "" {
			ch.seed = true
		}
	}
	ch.seq = repairSequence(h, ch.ns)
	ch.sendable = sendableForms(h, append(slices.Clip(ch.pinned), ch.seq...))
	ch.pinCompaction()
	return ch
}

// form returns message i of the history in the form the output sends it.
func (ch *chatHistory) form(i int) *ChatMessage {
	if f, ok := ch.sendable[i]; ok {
		return &f.msg
	}
	return &ch.h[i]
}

// task returns the index in h of the user's request: the most recent prompt
// anywhere in the history, or -1.
func (ch *chatHistory) task() int {
	return ch.promptBefore(len(ch.h))
}

// promptBefore returns the index in h of the most recent prompt before index
// limit, or -1.
func (ch *chatHistory) promptBefore(limit int) int {
	for i := limit - 1; i >= ch.floor; i-- {
		if isPrompt(&ch.h[i]) {
			return i
		}
	}
	return -1
}

// lastBroadcast returns the index in h of the most recent broadcast before
// index limit, or -1.
func (ch *chatHistory) lastBroadcast(limit int) int {
	for i := limit - 1; i >= ch.floor; i-- {
		if isPrompt(&ch.h[i]) && ch.h[i].Source == SourceBroadcast {
			return i
		}
	}
	return -1
}

// window is the scan of a chat history both loop-slice and turn-aware start
// from.
type window struct {
	start  int   // index in h of the window's first message (len(h) when empty)
	seq    []int // the window's messages after sequence repair
	prompt int   // position in seq of the most recent prompt, -1 when none
}

// scan takes the non-system messages of the history from the first-th on,
// repairs their sequence (a window may begin inside a tool block) and finds
// the most recent prompt among them.
func (ch *chatHistory) scan(first int) window {
	win := ch.ns[first:]
	w := window{start: len(ch.h), prompt: -1}
	if len(win) > 0 {
		w.start = win[0]
	}
	w.seq = repairSequence(ch.h, win)
	for p := len(w.seq) - 1; p >= 0; p-- {
		if isPrompt(&ch.h[w.seq[p]]) {
			w.prompt = p
			break
		}
	}
	return w
}

// lastN is where the scan window of the last n non-system messages starts
// (seed 002's window, which moves with every message).
func (ch *chatHistory) lastN(n int) int { return max(0, len(ch.ns)-n) }

// stepped is where a scan window of at least n non-system messages starts
// when it moves in steps of n: it holds n to 2n-1 messages, and its start
// stays put while n messages are appended. A window whose start stays put
// keeps the beginning of the prompt built from it, which is what a
// provider's prompt cache serves.
func (ch *chatHistory) stepped(n int) int {
	if len(ch.ns) <= n {
		return 0
	}
	return (len(ch.ns) - n) / n * n
}

// latestLoop returns the positions in seq of the last tool loop: the last
// assistant message with tool calls and the tool messages right after it.
// seq must already be repaired, so the loop is complete.
func latestLoop(h []ChatMessage, seq []int) []int {
	for p := len(seq) - 1; p >= 0; p-- {
		m := &h[seq[p]]
		if m.Role == RoleAssistant && len(m.ToolCalls) > 0 {
			end := p + 1
			for end < len(seq) && h[seq[end]].Role == RoleTool {
				end++
			}
			return seq[p:end]
		}
	}
	return nil
}

// sendableForm is the form in which the output carries a message of the
// history that a provider would refuse as it is.
type sendableForm struct {
	msg ChatMessage
	// texts records that a text changed (not only an id), so the message's
	// tokens must be counted again.
	texts bool
	// newIDs are the ids the form gave its tool calls.
	newIDs map[string]bool
}

// sendableForms finds the messages of seq that a provider would refuse as
// they are and returns the form the output carries them in:
//
//   - Anthropic's API wants every tool-call id unique in the whole request
//     and made of letters, digits, "_" and "-" only. Frameworks that number
//     calls per turn reuse ids ("call_0" in every turn), and other
//     providers' ids may hold other characters. A call whose id is taken by
//     an earlier loop, or holds other characters, gets a new id (the old one
//     with other characters made "_", then "_2", "_3"... until it is free),
//     and so do its results.
//   - Anthropic's API takes a call's arguments as a JSON object. Arguments
//     that are not one (a model's truncated or malformed JSON, which its
//     framework answered with an error) are sent as the object
//     {"unparsed_arguments": the text}, so the model still sees them.
//   - Text that is only white space beside tool calls would become a text
//     block Anthropic refuses; it is dropped.
//
// Each form depends only on the messages before it, so a message is sent in
// the same form on every later call (its tokens stay cached).
func sendableForms(h []ChatMessage, seq []int) map[int]sendableForm {
	var forms map[int]sendableForm
	ids := newFreeIDs()
	for p := 0; p < len(seq); p++ {
		m := &h[seq[p]]
		if m.Role != RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		var calls []ChatToolCall // the calls in their sendable form, when one differs
		var renamed map[string]string
		var newIDs map[string]bool
		argsChanged := false
		for k, tc := range m.ToolCalls {
			id := ids.take(safeID(tc.ID))
			args, ok := sendableArguments(tc.Arguments)
			if id == tc.ID && ok {
				continue
			}
			if calls == nil {
				calls = slices.Clone(m.ToolCalls)
				renamed = make(map[string]string, len(m.ToolCalls))
				newIDs = make(map[string]bool, len(m.ToolCalls))
			}
			calls[k].Arguments = args
			argsChanged = argsChanged || !ok
			if id != tc.ID {
				calls[k].ID = id
				renamed[tc.ID] = id
				newIDs[id] = true
			}
		}
		whitespace := m.Content != "" && blank(m.Content)
		if calls == nil && !whitespace {
			continue
		}
		if forms == nil {
			forms = make(map[int]sendableForm)
		}
		f := sendableForm{msg: *m, texts: whitespace || argsChanged, newIDs: newIDs}
		if whitespace {
			f.msg.Content = ""
		}
		if calls != nil {
			f.msg.ToolCalls = calls
		}
		forms[seq[p]] = f
		for q := p + 1; q < len(seq) && h[seq[q]].Role == RoleTool; q++ {
			if id, ok := renamed[h[seq[q]].ToolCallID]; ok {
				res := h[seq[q]]
				res.ToolCallID = id
				forms[seq[q]] = sendableForm{msg: res}
			}
		}
	}
	return forms
}

// sendableArguments returns a call's arguments as Anthropic's API takes
// them, and whether they already were: a JSON object, or empty (clients send
// an empty object). Anything else is wrapped as {"unparsed_arguments": text}.
func sendableArguments(args string) (string, bool) {
	trimmed := strings.TrimSpace(args)
	if trimmed == "" || trimmed[0] == '{' && json.Valid([]byte(trimmed)) {
		return args, true
	}
	// Written once into room of its exact size: json.Marshal of the map
	// made four copies of an argument of megabytes (its buffer growing,
	// its result, the string), on every render of the call.
	const head, tail = `{"unparsed_arguments":`, `}`
	var b strings.Builder
	b.Grow(len(head) + writeJSONString(nil, args) + len(tail))
	b.WriteString(head)
	writeJSONString(&b, args)
	b.WriteString(tail)
	return b.String(), false
}

// writeJSONString writes s to b as encoding/json writes a string (HTML
// characters, U+2028 and U+2029 escaped, invalid UTF-8 as U+FFFD) and
// returns the bytes it takes; with b nil it only counts them.
func writeJSONString(b *strings.Builder, s string) int {
	const hex = "0123456789abcdef"
	n := 0
	write := func(t string) {
		n += len(t)
		if b != nil {
			b.WriteString(t)
		}
	}
	escape := func(esc ...byte) {
		n += 1 + len(esc)
		if b != nil {
			b.WriteByte('\\')
			b.Write(esc)
		}
	}
	write(`"`)
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			write(s[start:i])
			switch c {
			case '"', '\\':
				escape(c)
			case '\b':
				escape('b')
			case '\f':
				escape('f')
			case '\n':
				escape('n')
			case '\r':
				escape('r')
			case '\t':
				escape('t')
			default:
				escape('u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			write(s[start:i])
			escape('u', 'f', 'f', 'f', 'd')
		case r == '\u2028' || r == '\u2029':
			write(s[start:i])
			escape('u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	write(s[start:])
	write(`"`)
	return n
}

// safeID is id with every character Anthropic's API refuses in a tool-call
// id made "_".
func safeID(id string) string {
	ok := func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
	}
	if !strings.ContainsFunc(id, func(r rune) bool { return !ok(r) }) {
		return id
	}
	return strings.Map(func(r rune) rune {
		if ok(r) {
			return r
		}
		return '_'
	}, id)
}

// freeIDs hands out tool-call ids, each unique.
type freeIDs struct {
	used map[string]bool
	// next is, by id, the suffix to try first when id is taken again: the
	// ones before it are taken, and stay taken. Searching from 2 each
	// time made n calls with one id cost n²/2 lookups.
	next map[string]int
	// tries counts the candidates looked at, for tests of the work done.
	tries int
}

func newFreeIDs() *freeIDs { return &freeIDs{used: map[string]bool{}, next: map[string]int{}} }

// take returns id when no earlier call took it, else the first of id_2,
// id_3... that is free, and marks it taken.
func (f *freeIDs) take(id string) string {
	f.tries++
	if !f.used[id] {
		f.used[id] = true
		return id
	}
	n := max(f.next[id], 2)
	for {
		f.tries++
		c := id + "_" + strconv.Itoa(n)
		n++
		if !f.used[c] {
			f.next[id] = n
			f.used[c] = true
			return c
		}
	}
}

// matchesPrefix reports whether name starts with any of prefixes.
func matchesPrefix(name string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Option documentation shared by the strategies.
var (
	docScanWindow = intOptionDoc("scan_window",
		"How many of the most recent non-system messages are scanned for the current prompt and the latest tool loop.")
	docNudgeAttempt = intOptionDoc("nudge_attempt",
		"How many nudges in a row this request is (1 for the first). Chooses the nudge wording when no prompt is found; beyond the last wording the stats report nudges_exhausted so the caller can go idle.")
	docNudges = OptionDoc{"nudge_messages", "gentle, firm, urgent built-in wordings",
		"Nudge wordings by attempt, the first for attempt 1. Their number is the number of attempts before nudges_exhausted."}
	docWindowOnly = OptionDoc{"window_only", "false",
		"Seed 002's rule for a history none of whose messages has a source: when the scan window holds no prompt, send the last broadcast or a nudge rather than the user's request from before the window."}
	docProvider = OptionDoc{"provider", "empty: a request every provider accepts",
		"The provider the output is sent to, whose rules it keeps: openai (OpenAI-compatible APIs: OpenAI, Ollama, OpenRouter...; an assistant message may open the conversation, so loop-slice and turn-aware in seed 002's form give the seed's own output), anthropic or gemini (the conversation opens with a user message: a prompt is led in front of a tool loop, or the loop is sent as a note). In every mode a synthetic nudge is the last message. The stats name what the rules moved (prompts_led, units_noted, greetings_dropped). Images, audio and documents are counted by its rule (empty: by that of the tokenizer's provider)."}
	docTokenizer = OptionDoc{"tokenizer", DefaultTokenizer,
		"Tokenizer for the token statistics (" + strings.Join(TokenizerNames(), " or ") + "; " + ClaudeEstimate + " is an estimate)."}
)
