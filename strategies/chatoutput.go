package strategies

import (
	"cmp"
	"fmt"
	"slices"
)

// The output of a chat strategy, and what makes it a request both OpenAI's
// Chat Completions and Anthropic's Messages API accept.
//
// Every output is built from the repaired history (repairSequence), so each
// tool result sits right after the call that asked for it, every call is
// answered and no message is empty. More rules make it a request both
// providers accept:
//
//   - It is never empty. For every provider but an OpenAI-compatible one,
//     its first message after the system prompt is a user message
//     (Anthropic's and Gemini's rule): an output whose kept part begins with
//     an assistant message is opened by the most recent prompt before it, or,
//     with none, that first unit is sent as a ledger note (openWithUser).
//   - The synthetic nudge, when there is one, is the last message: it is the
//     turn's prompt, and a nudge before the model's own words would make
//     them a prefill the model continues.
//   - Tool-call ids are unique in the whole request and made of letters,
//     digits, "_" and "-", and arguments are JSON objects (Anthropic's rules;
//     sendableForms).
//   - Consecutive messages of the same role are allowed: OpenAI takes them
//     as they are and Anthropic's API combines consecutive turns of one role
//     into a single turn. (A user message after tool results is such a
//     case: Anthropic carries tool results in a user turn, and the text goes
//     after them, where it must.) The sidecar never merges messages itself:
//     that would change the texts the caller stored and the prompt a
//     provider has cached.

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

// chatOutput is a strategy's output being built: each message with the index
// in the history it was copied from (-1 for the synthetic nudge) and whether
// the strategy edited its texts, so statistics can reuse the history's token
// counts.
type chatOutput struct {
	msgs   []ChatMessage
	from   []int
	edited []bool
	nudge  bool // the output ends with the synthetic nudge (added by finish)
	// exhausted: the nudge's attempts are used up (nudgeFor).
	exhausted bool
	// What the provider's rules moved or changed, for the statistics:
	// prompts sent in front of a tool loop (led), units sent as a note
	// because no user message could open the conversation (noted), and
	// messages before the user's first not sent (greetings).
	led, noted, greetings int
	// keepBefore, where above 0: the index in h of the first message the
	// next call will not send as this one does (loop-slice's latest loop,
	// which turns into a note): the part the next call sends again ends
	// before it.
	keepBefore int
	// notesStay: the next call sends the output's notes again as they are
	// (loop-slice decides each unit's form for good), so the part it sends
	// again runs past them, the note that opens a history with no user
	// message included; only the synthetic nudge is reworded.
	notesStay bool
}

// copyFrom appends the messages of ch at indices idx, each in the form a
// provider accepts (sendableForms).
func (o *chatOutput) copyFrom(ch *chatHistory, idx ...int) {
	o.msgs = slices.Grow(o.msgs, len(idx))
	o.from = slices.Grow(o.from, len(idx))
	o.edited = slices.Grow(o.edited, len(idx))
	for _, i := range idx {
		m, edited := ch.h[i], false
		if f, ok := ch.sendable[i]; ok {
			m, edited = f.msg, f.texts
		}
		o.msgs = append(o.msgs, m)
		o.from = append(o.from, i)
		o.edited = append(o.edited, edited)
	}
}

// historyEnd is where the part of the output taken from the history ends,
// the end of the last such message (or, with keepBefore, of the message
// before it), or nil when the output holds none:
// what the next call sends again unless the strategy drops or clears more
// of the history by then (a step) or opens with another prompt. The
// synthetic nudge after it is reworded by attempt, so it is not included.
func (o *chatOutput) historyEnd() *Breakpoint {
	if o.keepBefore > 0 {
		if i := slices.Index(o.from, o.keepBefore); i > 0 {
			return messagesEnd(o.msgs[:i])
		}
	}
	for i := len(o.msgs) - 1; i >= 0; i-- {
		if o.from[i] >= 0 || o.notesStay && !(o.nudge && i == len(o.msgs)-1) {
			return messagesEnd(o.msgs[:i+1])
		}
	}
	return nil
}

// addNudge asks for the synthetic nudge for the request's attempt. It is
// appended last by finish, whatever the strategy adds after this call: the
// nudge is the turn's prompt, and put before the model's own words it would
// make them a prefill the model continues.
func (o *chatOutput) addNudge(opts *Options) {
	_, o.exhausted = nudgeFor(opts)
	o.nudge = true
}

// finish applies the provider's rules to a strategy's output: the
// conversation opens with a user message (every provider but an
// OpenAI-compatible one), and the synthetic nudge, if any, comes last.
func (o *chatOutput) finish(ch *chatHistory, opts *Options) {
	if !ch.openai {
		o.openWithUser(ch)
	}
	if o.nudge {
		m, _ := nudgeFor(opts)
		o.msgs = append(o.msgs, m)
		o.from = append(o.from, -1)
		o.edited = append(o.edited, false)
	}
}

// openWithUser makes the output's first message after the system prompt a
// user message when it is not: it is led by the most recent prompt of the
// history before it (the request the message works on; the strategy has
// already removed what it drops, so the prompt leads what is sent), unless
// that prompt is sent already; failing one, the first unit (an assistant
// message and its results) is sent as a ledger note, a user message that
// keeps the calls and what their results held.
func (o *chatOutput) openWithUser(ch *chatHistory) {
	first := 0
	if len(o.msgs) > 0 && o.msgs[0].Role == RoleSystem {
		first = 1
	}
	if first >= len(o.msgs) || o.msgs[first].Role == RoleUser || slices.Contains(ch.pinned, o.from[first]) {
		// A provider's compaction opens the conversation as the provider
		// returned it: what came before it is replaced, not led in.
		return
	}
	from := o.from[first] // notes and nudges are user messages: this is the history's
	if lead := ch.promptBefore(from); lead >= 0 && !slices.Contains(o.from, lead) {
		m, edited := *ch.form(lead), false
		if f, ok := ch.sendable[lead]; ok {
			edited = f.texts
		}
		o.msgs = slices.Insert(o.msgs, first, m)
		o.from = slices.Insert(o.from, first, lead)
		o.edited = slices.Insert(o.edited, first, edited)
		o.led++
		return
	}
	end := first + 1
	for end < len(o.msgs) && o.msgs[end].Role == RoleTool {
		end++
	}
	// The note is of the unit as the strategy sends it (snapshot calls
	// compacted, results cleared).
	unit := make([]int, 0, end-first)
	for p := first; p < end; p++ {
		unit = append(unit, p)
	}
	note := noteMessage(o.msgs, unit, stepNotes)
	o.msgs = slices.Replace(o.msgs, first, end, note)
	o.from = slices.Replace(o.from, first, end, -1)
	o.edited = slices.Replace(o.edited, first, end, true)
	o.noted++
}

// open starts an output: the system prompt, when the history has one, and
// a provider's compaction with its tool results, when it has one.
func (o *chatOutput) open(ch *chatHistory) {
	if ch.system >= 0 {
		o.copyFrom(ch, ch.system)
	}
	o.copyFrom(ch, ch.pinned...)
}

// opening is how an output whose kept messages are seq[c:] begins, so that
// its first message after the system prompt is the user's:
//
//   - when seq[c] is a prompt, with it (lead -1, start c);
//   - else with the most recent prompt before it (lead, start c): the request
//     the kept messages work on. Failing a prompt, the most recent user
//     message before it (automation, in seed 002's world) leads;
//   - else (no user message before seq[c]) from the first user message of
//     seq[c:] on: what an assistant said before anyone spoke to it, a
//     greeting, is not sent (start moves there);
//   - else (no user message at all) with the synthetic nudge (nudge true,
//     start c).
//
// Where a user message precedes seq[c], it depends on c and the messages
// before it only, so while c stays put the output's beginning does too.
type opening struct {
	lead  int // index in h of the message put first, -1 when none
	start int // position in seq where the kept messages begin
	nudge bool
}

// openings returns the opening of every c from 0 to len(ch.seq).
func (ch *chatHistory) openings() []opening {
	seq := ch.seq
	out := make([]opening, len(seq)+1)
	prompt, user := -1, -1 // the latest prompt and user message before c, in h
	for c := range out {
		var m *ChatMessage
		if c < len(seq) {
			m = &ch.h[seq[c]]
		}
		switch {
		case m != nil && isPrompt(m):
			out[c] = opening{lead: -1, start: c}
		case prompt >= 0:
			out[c] = opening{lead: prompt, start: c}
		case user >= 0:
			out[c] = opening{lead: user, start: c}
		default:
			out[c] = opening{lead: -1, start: -1} // found below
		}
		if m != nil && m.Role == RoleUser {
			user = seq[c]
			if isPrompt(m) {
				prompt = seq[c]
			}
		}
	}
	// Where no user message comes before c: from the first one at or after
	// it, else the nudge. An OpenAI-compatible provider takes a
	// conversation that opens with the assistant: nothing is left out
	// there, and the nudge (for a history with no user message) comes last.
	next := -1
	for c := len(seq); c >= 0; c-- {
		if c < len(seq) && ch.h[seq[c]].Role == RoleUser {
			next = c
		}
		if out[c].start < 0 {
			if ch.openai {
				out[c] = opening{lead: -1, start: c, nudge: next < 0}
			} else if next >= 0 {
				out[c].start = next
			} else {
				out[c] = opening{lead: -1, start: c, nudge: true}
			}
		}
	}
	return out
}

// noteMessage is the ledger note of a unit of msgs (positions in msgs), as
// a message.
func noteMessage(msgs []ChatMessage, unit []int, form noteForm) ChatMessage {
	return ChatMessage{Role: RoleUser, Source: SourceSystem, Content: ledgerNote(msgs, unit, form)}
}

// unitNote is the note of a unit of the history (indices in h), each
// message in the form the output sends it.
func (ch *chatHistory) unitNote(unit []int, form noteForm) ChatMessage {
	forms := make([]ChatMessage, len(unit))
	pos := make([]int, len(unit))
	for k, i := range unit {
		forms[k], pos[k] = *ch.form(i), k
	}
	return noteMessage(forms, pos, form)
}

// messageCounts counts the tokens and characters of each message, as
// CountMessageTokens and CountMessageChars count them, so that sums over any
// subset are exact. Counts are remembered across requests in counts: a chat
// agent resends nearly the same history on every call.
func messageCounts(counts *Remembered, tokenizer counter, msgs []ChatMessage) ([]textCounts, error) {
	out := make([]textCounts, len(msgs))
	for i := range msgs {
		n, err := counts.messages(tokenizer, msgs[i:i+1])
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// sentCounts returns counts (the history's, from messageCounts) with the
// counts of the messages whose sendable form changed a text counted again:
// what each message weighs in the output.
func (ch *chatHistory) sentCounts(rem *Remembered, tokenizer counter, counts []textCounts) ([]textCounts, error) {
	out, cloned := counts, false
	for i, f := range ch.sendable {
		if !f.texts {
			continue
		}
		if !cloned {
			out, cloned = slices.Clone(counts), true
		}
		n, err := rem.messages(tokenizer, []ChatMessage{f.msg})
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// chatResponse finishes a chat strategy's response: it checks the output is
// a request both providers accept and fills the statistics. counts are the
// history's per-message counts (from messageCounts), or nil.
func chatResponse(name string, req *Request, ch *chatHistory, counts []textCounts, out *chatOutput) (*Response, error) {
	out.finish(ch, &req.Options)
	tok := req.Options.counter()
	thinkingCleared, thinkingTokens, err := out.clearThinking(req.Remembered, tok, req.Options.KeepThinkingTurns)
	if err != nil {
		return nil, err
	}
	if err := sendable(out.msgs, ch.openai); err != nil {
		// Every strategy builds its output from repaired sequences and opens
		// it with a user message; reaching this is a bug in the strategy,
		// reported rather than sent on.
		return nil, fmt.Errorf("%s: built an invalid message sequence: %w", name, err)
	}
	if counts == nil {
		if counts, err = messageCounts(req.Remembered, tok, req.History); err != nil {
			return nil, err
		}
	}
	h := req.History
	st := Stats{
		Strategy:         name,
		Tokenizer:        tok.tokenizer,
		MessagesBefore:   len(h),
		MessagesAfter:    len(out.msgs),
		SyntheticNudge:   out.nudge,
		NudgesExhausted:  out.nudge && out.exhausted,
		MessagesRepaired: len(ch.ns) - len(ch.seq) + ch.extraSystem,
		Provider:         cmp.Or(req.Options.Provider, "all"),
		PromptsLed:       out.led,
		UnitsNoted:       out.noted,
		GreetingsDropped: out.greetings,

		CompactionReplaced: ch.replaced,

		ThinkingCleared:       thinkingCleared,
		ThinkingTokensCleared: thinkingTokens,
	}
	for _, n := range counts {
		st.TokensBefore += n.tokens
		st.CharsBefore += n.chars
	}
	sent := make([]bool, len(h))
	for i, from := range out.from {
		if from >= 0 {
			sent[from] = true
			st.ToolCallIDsRewritten += ch.sendable[from].rewrittenIn(&out.msgs[i])
		}
		n := textCounts{}
		if from >= 0 && !out.edited[i] {
			n = counts[from]
		} else if n, err = req.Remembered.messages(tok, out.msgs[i:i+1]); err != nil {
			return nil, err
		}
		st.TokensAfter += n.tokens
		st.CharsAfter += n.chars
		st.PartTokens += n.media
		st.PartsEstimated += n.estimated
	}
	for i, was := range sent {
		if !was {
			st.MessagesDropped++
			st.TokensDropped += counts[i].tokens
		}
	}
	for _, i := range ch.seq {
		if h[i].Role == RoleAssistant && len(h[i].ToolCalls) > 0 && !sent[i] {
			st.ToolLoopsDropped++
		}
	}
	msgs := out.msgs
	if msgs == nil {
		msgs = []ChatMessage{}
	}
	st.NextCacheBreakpoint = out.historyEnd()
	resp := &Response{Messages: msgs, Stats: st}
	return resp, priceChat(name, req, resp)
}

// rewrittenIn counts the calls of out, the output's form of a message, whose
// id the sendable form rewrote (a strategy may have dropped some calls).
func (f sendableForm) rewrittenIn(out *ChatMessage) int {
	n := 0
	for _, tc := range out.ToolCalls {
		if f.newIDs[tc.ID] {
			n++
		}
	}
	return n
}

// sendable reports the first way msgs break the contract every chat
// strategy keeps: a valid tool-calling sequence (validSequence), not empty,
// its first message after the system prompt the user's (unless the provider
// is OpenAI-compatible: openai), every tool-call id unique in the request.
func sendable(msgs []ChatMessage, openai bool) error {
	if err := validSequence(msgs); err != nil {
		return err
	}
	first := 0
	if len(msgs) > 0 && msgs[0].Role == RoleSystem {
		first = 1
	}
	// A provider's compaction opens the conversation it summarises, as the
	// provider returned it; what follows it is the provider's to accept.
	compacted := first < len(msgs) && msgs[first].hasPart(PartCompaction)
	if first == len(msgs) {
		return fmt.Errorf("no message after the system prompt")
	}
	if msgs[first].Role != RoleUser && !openai && !compacted {
		return fmt.Errorf("message %d: the first message after the system prompt is a %s message, not the user's", first, msgs[first].Role)
	}
	ids := make(map[string]bool)
	for i := range msgs {
		for _, tc := range msgs[i].ToolCalls {
			if ids[tc.ID] {
				return fmt.Errorf("message %d: tool call id %q used twice in the request", i, tc.ID)
			}
			ids[tc.ID] = true
		}
	}
	return nil
}
