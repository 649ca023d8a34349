package strategies

import (
	"fmt"
	"slices"
	"strings"
)

// This file holds what every chat strategy (loop-slice, turn-aware,
// clear-tool-results, token-budget) shares: input validation, sequence
// repair, the scan window, tool-loop extraction, prompt selection, nudges and
// statistics.
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
		for j, tc := range m.ToolCalls {
			if tc.ID == "" {
				return &HistoryError{i, fmt.Sprintf("tool_calls[%d].id", j), "missing"}
			}
			if tc.Name == "" {
				return &HistoryError{i, fmt.Sprintf("tool_calls[%d].name", j), "missing"}
			}
			for k := range j {
				if m.ToolCalls[k].ID == tc.ID {
					return &HistoryError{i, fmt.Sprintf("tool_calls[%d].id", j), fmt.Sprintf("duplicate id %q (also tool_calls[%d])", tc.ID, k)}
				}
			}
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
// are dropped. seq must hold increasing indices.
func repairSequence(h []ChatMessage, seq []int) []int {
	out := make([]int, 0, len(seq))
	for p := 0; p < len(seq); p++ {
		m := &h[seq[p]]
		switch {
		case m.Role == RoleSystem, m.Role == RoleTool:
			continue
		case m.Role != RoleAssistant || len(m.ToolCalls) == 0:
			out = append(out, seq[p])
			continue
		}
		end := p + 1
		for end < len(seq) && h[seq[end]].Role == RoleTool {
			end++
		}
		answered := make(map[string]bool, len(m.ToolCalls))
		results := make([]int, 0, end-p-1)
		for q := p + 1; q < end; q++ {
			id := h[seq[q]].ToolCallID
			if answered[id] || !callsID(m, id) {
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

func callsID(m *ChatMessage, id string) bool {
	for _, tc := range m.ToolCalls {
		if tc.ID == id {
			return true
		}
	}
	return false
}

// systemIndex returns the position of the system prompt: the first system
// message of the history, or -1. Later system messages are not part of any
// chat strategy's output: Anthropic-style APIs have no place for them.
func systemIndex(h []ChatMessage) int {
	for i, m := range h {
		if m.Role == RoleSystem {
			return i
		}
	}
	return -1
}

// nonSystem returns the positions of every message that is not a system
// message.
func nonSystem(h []ChatMessage) []int {
	out := make([]int, 0, len(h))
	for i, m := range h {
		if m.Role != RoleSystem {
			out = append(out, i)
		}
	}
	return out
}

// isPrompt reports whether m starts a turn: a user message from a person or
// another agent (direct, broadcast, or with no source). User messages whose
// source is "system" are automation (notifications, stored nudges) and never
// start a turn.
func isPrompt(m *ChatMessage) bool {
	return m.Role == RoleUser && m.Source != SourceSystem
}

// window is the scan of a chat history both loop-slice and turn-aware start
// from.
type window struct {
	system int   // index of the system prompt, -1 when none
	start  int   // index of the window's first message (len(h) when empty)
	seq    []int // the window's messages after sequence repair
	prompt int   // position in seq of the most recent prompt, -1 when none
}

// scanWindow takes the last n non-system messages of h, repairs their
// sequence (a window may begin inside a tool block) and finds the most recent
// prompt among them.
func scanWindow(h []ChatMessage, n int) window {
	ns := nonSystem(h)
	win := ns[max(0, len(ns)-n):]
	w := window{system: systemIndex(h), start: len(h)}
	if len(win) > 0 {
		w.start = win[0]
	}
	w.seq = repairSequence(h, win)
	w.prompt = lastPrompt(h, w.seq)
	return w
}

// lastPrompt returns the position in seq of the most recent prompt, or -1.
func lastPrompt(h []ChatMessage, seq []int) int {
	for p := len(seq) - 1; p >= 0; p-- {
		if isPrompt(&h[seq[p]]) {
			return p
		}
	}
	return -1
}

// lastBroadcast returns the index in h of the most recent broadcast user
// message before index limit, or -1.
func lastBroadcast(h []ChatMessage, limit int) int {
	for i := limit - 1; i >= 0; i-- {
		if h[i].Role == RoleUser && h[i].Source == SourceBroadcast {
			return i
		}
	}
	return -1
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

// defaultNudges are the synthetic nudge wordings by attempt: gentle, firm,
// urgent.
var defaultNudges = []string{
	"Continue your task. Check for new messages and decide your next step.",
	"You need to respond. Check your messages and your current status, then act.",
	"URGENT: Respond now. Check your status and take your next action immediately.",
}

// nudgeFor returns the synthetic nudge for the caller's attempt and whether
// the attempts are exhausted. With N wordings (the three defaults, or the
// caller's own), attempts 1..N get wordings 1..N; an attempt beyond N is
// exhausted: the caller should stop prompting and go idle. The response still
// carries the last wording, so a caller that ignores the signal sends a valid
// request.
func nudgeFor(opts *Options) (ChatMessage, bool) {
	wordings := opts.Nudges
	if len(wordings) == 0 {
		wordings = defaultNudges
	}
	attempt := max(opts.NudgeAttempt, 1)
	exhausted := attempt > len(wordings)
	return ChatMessage{
		Role:    RoleUser,
		Source:  SourceSystem,
		Content: wordings[min(attempt, len(wordings))-1],
	}, exhausted
}

// chatOutput is a strategy's output being built: each message with the
// history position it was copied from, or -1 when it is synthetic or was
// edited, so statistics can reuse the input's token counts.
type chatOutput struct {
	msgs []ChatMessage
	from []int
}

func (o *chatOutput) copyFrom(h []ChatMessage, idx ...int) {
	o.msgs = slices.Grow(o.msgs, len(idx))
	o.from = slices.Grow(o.from, len(idx))
	for _, i := range idx {
		o.msgs = append(o.msgs, h[i])
		o.from = append(o.from, i)
	}
}

func (o *chatOutput) add(m ChatMessage) {
	o.msgs = append(o.msgs, m)
	o.from = append(o.from, -1)
}

// messageTokens counts the tokens of each message, as CountMessageTokens
// counts them, so that sums over any subset are exact. Counts are
// remembered across requests in counts: a chat agent resends nearly the
// same history on every call.
func messageTokens(counts *Remembered, tokenizer string, msgs []ChatMessage) ([]int, error) {
	out := make([]int, len(msgs))
	for i := range msgs {
		n, err := counts.tokens(tokenizer, msgs[i:i+1])
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// chatResponse finishes a chat strategy's response: it checks the output
// keeps the sequence contract and fills the statistics. counts are the
// history's per-message token counts (from messageTokens), or nil.
func chatResponse(name string, req *Request, counts []int, out *chatOutput) (*Response, error) {
	if err := validSequence(out.msgs); err != nil {
		// Every strategy builds its output from repaired sequences; reaching
		// this is a bug in the strategy, reported rather than sent on.
		return nil, fmt.Errorf("%s: built an invalid message sequence: %w", name, err)
	}
	tok := req.Options.Tokenizer
	if tok == "" {
		tok = DefaultTokenizer
	}
	var err error
	if counts == nil {
		if counts, err = messageTokens(req.Remembered, tok, req.History); err != nil {
			return nil, err
		}
	}
	st := Stats{
		Strategy:       name,
		Tokenizer:      tok,
		MessagesBefore: len(req.History),
		MessagesAfter:  len(out.msgs),
		CharsBefore:    CountMessageChars(req.History),
		CharsAfter:     CountMessageChars(out.msgs),
	}
	for _, n := range counts {
		st.TokensBefore += n
	}
	for i, from := range out.from {
		if from >= 0 {
			st.TokensAfter += counts[from]
			continue
		}
		n, err := req.Remembered.tokens(tok, out.msgs[i:i+1])
		if err != nil {
			return nil, err
		}
		st.TokensAfter += n
	}
	msgs := out.msgs
	if msgs == nil {
		msgs = []ChatMessage{}
	}
	resp := &Response{Messages: msgs, Stats: st}
	return resp, priceChat(name, req, resp)
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

// Option documentation shared by the chat strategies.
var (
	docScanWindow = OptionDoc{"scan_window", "20",
		"How many of the most recent non-system messages are scanned for the current prompt and the latest tool loop."}
	docNudgeAttempt = OptionDoc{"nudge_attempt", "1",
		"How many nudges in a row this request is (1 for the first). Chooses the nudge wording when no prompt is found; beyond the last wording the stats report nudges_exhausted so the caller can go idle."}
	docNudges = OptionDoc{"nudge_messages", "gentle, firm, urgent built-in wordings",
		"Nudge wordings by attempt, the first for attempt 1. Their number is the number of attempts before nudges_exhausted."}
	docTokenizer = OptionDoc{"tokenizer", DefaultTokenizer,
		"Tokenizer for the token statistics (o200k_base or cl100k_base)."}
)

// checkChatOptions validates the options loop-slice and turn-aware share.
func checkChatOptions(opts *Options) error {
	if opts.ScanWindow < 1 {
		return &OptionError{Option: "scan_window", Reason: fmt.Sprintf("must be at least 1, got %d", opts.ScanWindow)}
	}
	if opts.NudgeAttempt < 1 {
		return &OptionError{Option: "nudge_attempt", Reason: fmt.Sprintf("must be at least 1, got %d", opts.NudgeAttempt)}
	}
	return checkTokenizer(opts.Tokenizer)
}
