package strategies

import (
	"fmt"
	"slices"
	"unicode/utf8"
)

// The stable prefix of a call: the leading tokens of its messages that are
// identical to the messages the same strategy returned one call earlier in
// the same run, which a provider that caches prompt prefixes reads from its
// cache. The earlier call is rebuilt from the request (earlierTurnRequest,
// earlierHistoryRequest) and rendered once more; nothing is remembered
// between calls.
//
// Messages are compared as the sequence their fields make, in this order:
//
//	for each message: role, name, tool_call_id   (must be equal; no tokens)
//	                  reasoning, content          (texts)
//	                  for each tool call: id      (must be equal; no tokens)
//	                                      name, arguments (texts)
//
// Each text is tokenized on its own, as Stats.TokensAfter counts it (a
// provider's chat template puts framing between them). The prefix ends at
// the first token that differs, at a header field that differs, and where
// one call's message or tool-call list ends while the other's goes on: a
// message boundary is part of the prompt, so "ab" in one message is not
// "a" then "b" in two.

// Breakpoint is a position in a message array: after Offset characters
// (Unicode code points) of the content of message Message.
type Breakpoint struct {
	Message int
	Offset  int
}

// stablePrefix returns the stable prefix of cur against prev: its tokens,
// counted with tokenizer, and where it ends in cur's contents (nil when it
// reaches no content).
func stablePrefix(counts *Remembered, tokenizer counter, prev, cur []ChatMessage) (int, *Breakpoint, error) {
	w := prefixWalk{counts: counts, tokenizer: tokenizer}
	err := w.messages(prev, cur)
	return w.tokens, w.end, err
}

// prefixWalk is one comparison of two message arrays in progress.
type prefixWalk struct {
	counts    *Remembered
	tokenizer counter
	tokens    int         // tokens of the prefix so far
	end       *Breakpoint // end of the last content inside it
}

// messages walks cur against prev until they differ.
func (w *prefixWalk) messages(prev, cur []ChatMessage) error {
	for i := range cur {
		if i >= len(prev) {
			return nil
		}
		p, c := &prev[i], &cur[i]
		if p.Role != c.Role || p.Name != c.Name || p.ToolCallID != c.ToolCallID {
			return nil
		}
		if same, _, err := w.text(p.Reasoning, c.Reasoning); !same || err != nil {
			return err
		}
		same, n, err := w.text(p.Content, c.Content)
		if err != nil {
			return err
		}
		if n > 0 {
			w.end = &Breakpoint{Message: i, Offset: utf8.RuneCountInString(c.Content[:n])}
		}
		if !same {
			return nil
		}
		// Parts are shared whole or not at all: an image or a signed block
		// that differs is a different block.
		for j := range c.Parts {
			if j >= len(p.Parts) || !p.Parts[j].Equal(&c.Parts[j]) {
				return nil
			}
			n, err := w.counts.part(w.tokenizer, &c.Parts[j])
			if err != nil {
				return err
			}
			w.tokens += n.tokens
		}
		if len(p.Parts) != len(c.Parts) {
			return nil
		}
		for j := range c.ToolCalls {
			if j >= len(p.ToolCalls) || p.ToolCalls[j].ID != c.ToolCalls[j].ID {
				return nil
			}
			if same, _, err := w.text(p.ToolCalls[j].Name, c.ToolCalls[j].Name); !same || err != nil {
				return err
			}
			if same, _, err := w.text(p.ToolCalls[j].Arguments, c.ToolCalls[j].Arguments); !same || err != nil {
				return err
			}
		}
		if len(p.ToolCalls) != len(c.ToolCalls) {
			return nil
		}
	}
	return nil
}

// text adds the tokens prev and cur share at their start to the prefix. It
// reports whether they are the same text (and the walk goes on) and how
// many bytes of cur the shared tokens cover, cut to a character boundary
// (a token can end inside a character).
func (w *prefixWalk) text(prev, cur string) (bool, int, error) {
	if prev == cur {
		n, err := w.counts.text(w.tokenizer.tokenizer, cur)
		w.tokens += n.tokens
		return true, len(cur), err
	}
	tokens, bytes, err := commonTokens(w.counts, w.tokenizer.tokenizer, prev, cur)
	w.tokens += tokens
	for bytes > 0 && bytes < len(cur) && !utf8.RuneStart(cur[bytes]) {
		bytes--
	}
	return false, bytes, err
}

// commonTokens returns the number of leading tokens a and b share and the
// bytes those cover. Only the text around the first difference is
// tokenized here: up to the last chunk boundary (nextChunkEnd) before it,
// the tokens of a and b are those of their common chunks, whose counts
// counts remembers.
func commonTokens(counts *Remembered, tokenizer, a, b string) (int, int, error) {
	tokenizer, factor := exactTokenizer(tokenizer) // an estimate scales the exact count
	diff := 0
	for diff < len(a) && diff < len(b) && a[diff] == b[diff] {
		diff++
	}
	// Chunk boundaries before diff are the same in a and b: whether a chunk
	// ends somewhere depends on the text up to the character after it.
	start := 0
	for {
		end := start + nextChunkEnd(a[start:])
		if end >= diff {
			break
		}
		start = end
	}
	var n textCounts
	if start > 0 {
		var err error
		if n, err = counts.text(tokenizer, a[:start]); err != nil {
			return 0, 0, err
		}
	}
	enc, _, err := codec(tokenizer)
	if err != nil {
		return 0, 0, err
	}
	// The chunks from start hold the first difference (or one of them ends
	// there, and the next tokens start with different bytes). A chunk can
	// be a whole text of megabytes: its tokens are compared as they are
	// made, up to the first that differs, under the request's context.
	shared, sharedBytes, err := enc.CommonTokens(a[start:start+nextChunkEnd(a[start:])], b[start:start+nextChunkEnd(b[start:])], counts.stopped)
	if err != nil {
		return 0, 0, err
	}
	return scaleCount(n.tokens+shared, factor), start + sharedBytes, nil
}

// messagesEnd is the end of the content of the last of msgs.
func messagesEnd(msgs []ChatMessage) *Breakpoint {
	last := len(msgs) - 1
	return &Breakpoint{Message: last, Offset: utf8.RuneCountInString(msgs[last].Content)}
}

// memoryUse is what of the request's memory a turn strategy renders, which
// decides whether the request holds what its earlier call rendered.
type memoryUse int

const (
	memoryUnused memoryUse = iota // full: none of it
	memoryWhole                   // single-user-coalesced: every binding as it is
	// cache-stable: the host's prelude without the return types of its
	// functions, the rest as it is.
	memoryStable
)

// earlierTurnRequest rebuilds the request of the call before req in the same
// run of a turn strategy: without the last turn, with the memory that turn
// started from and, when turns_left was given, one more turn left. It
// returns nil and a note when the strategy renders memory (use) that the
// request does not hold.
func earlierTurnRequest(req *Request, use memoryUse) (*Request, string) {
	n := len(req.Turns)
	earlier := &Request{Options: req.Options, Remembered: req.Remembered, Turns: req.Turns[:n-1]}
	if req.Options.TurnsLeftSet {
		earlier.Options.TurnsLeft++
	}
	if use == memoryUnused {
		return earlier, ""
	}
	if n == 1 {
		var note string
		earlier.Memory, note = memoryBeforeFirstTurn(req, use)
		if note != "" {
			return nil, note
		}
		return earlier, ""
	}
	t := &req.Turns[n-2]
	if !t.HasMemory {
		return nil, fmt.Sprintf("turns[%d].memory is not set: the previous call rendered the memory after that turn; send it on the second-to-last turn", n-2)
	}
	earlier.Memory = t.Memory
	return earlier, ""
}

// memoryBeforeFirstTurn rebuilds the memory a request of one turn started
// from, the host's prelude: the memory after the turn without what the
// turn defined (its defined names, or bindings the memory says that turn
// defined; a failed turn defines nothing). A function of the prelude
// that has a return type may have had none, or another, before the turn
// called it, and the request does not say which: when the strategy renders
// it (use), it returns a note instead. (A prelude binding that the turn
// redefined is not rebuilt either, and cannot be told apart from a new
// one.)
func memoryBeforeFirstTurn(req *Request, use memoryUse) ([]Binding, string) {
	t := &req.Turns[0]
	number := t.Number
	if number == 0 {
		number = 1
	}
	var out []Binding
	for _, bd := range req.Memory {
		if t.Success && (bd.Turn == number || slices.Contains(t.Defined, bd.Name)) {
			continue
		}
		if bd.Fn != nil && bd.Fn.ReturnType != "" && (use == memoryWhole || bd.Turn != 0) {
			return nil, fmt.Sprintf("the memory before turns[0] is not in the request, and function %s, which that turn did not define, has a return type it may have had since the turn called it: the second call of a run with a prelude of functions cannot be rebuilt", bd.Name)
		}
		out = append(out, bd)
	}
	return out, ""
}

// priceTurns fills the bill's statistics of resp, the response of a turn
// strategy to req whose cache write ends at writeEnd (nil: at the end),
// rendering the earlier call with messages, which also gives where that
// call's write ended; use says what of the memory messages renders.
func priceTurns(req *Request, resp *Response, use memoryUse, writeEnd *Breakpoint, messages func(*Request) ([]ChatMessage, *Breakpoint, error)) error {
	if len(req.Turns) == 0 {
		return price(req, resp, nil, nil, writeEnd) // the run's first call
	}
	earlier, note := earlierTurnRequest(req, use)
	if earlier == nil {
		resp.Stats.StablePrefixNote = note
		bill(&resp.Stats, req.Options.Pricing)
		return nil
	}
	prev, prevWriteEnd, err := messages(earlier)
	if err != nil {
		return err
	}
	return price(req, resp, prev, prevWriteEnd, writeEnd)
}

// earlierHistoryRequest rebuilds the request of the call before req in the
// same chat: the history cut before its last assistant message (that
// message is the earlier call's answer). It returns nil when the history
// holds no assistant message: this is the first call.
func earlierHistoryRequest(req *Request) *Request {
	for i := len(req.History) - 1; i >= 0; i-- {
		if req.History[i].Role == RoleAssistant {
			earlier := *req
			earlier.History = req.History[:i]
			earlier.earlier = true
			return &earlier
		}
	}
	return nil
}

// priceChat fills the bill's statistics of resp, the response of the chat
// strategy named name to req, rendering the earlier call with the same
// strategy.
func priceChat(name string, req *Request, resp *Response) error {
	if req.earlier {
		return nil // this is the earlier call: its bill is not asked for
	}
	var writeEnd *Breakpoint
	if chatWritesToMark(name) {
		writeEnd = resp.Stats.NextCacheBreakpoint
	}
	earlier := earlierHistoryRequest(req)
	if earlier == nil {
		return price(req, resp, nil, nil, writeEnd)
	}
	st, err := Lookup(name)
	if err != nil {
		return err
	}
	prev, err := st.Render(earlier)
	if err != nil {
		resp.Stats.StablePrefixNote = fmt.Sprintf("the history before message %d (the last assistant message) does not render: %v", len(earlier.History), err)
		bill(&resp.Stats, req.Options.Pricing)
		return nil
	}
	var prevWriteEnd *Breakpoint
	if writeEnd != nil {
		prevWriteEnd = prev.Stats.NextCacheBreakpoint
	}
	return price(req, resp, prev.Messages, prevWriteEnd, writeEnd)
}

// chatWritesToMark reports whether the chat strategy named name marks as
// its next cache breakpoint the end of what its next call sends again, so
// that a caller writes the cache only up to there. loop-slice's ledger
// decides each unit's form for good, so its mark runs past every note (the
// one that opens a history with no user message included) and stops
// before the synthetic nudge, which is reworded, and before its latest
// loop only where the next call likely turns that loop into a note and
// what it saved pays should it not (ledgerplan.go). The other chat
// strategies mark what they are sure to send again, and their next call
// often sends more, so they write to the end.
func chatWritesToMark(name string) bool { return name == "loop-slice" }

// price fills the stable prefix, breakpoint and bill of resp against the
// earlier call's messages prev (nil on a run's first call).
//
// A strategy that sends nothing after its next cache breakpoint again on
// the next call (the latest turn of cache-stable, the last tool message of
// the tool-call form, loop-slice's nudge and a latest loop it expects to
// turn into a note) gives it as writeEnd, and the earlier call's as
// prevWriteEnd; nil means the call writes the cache to its end, as the
// other chat strategies do, whose breakpoint marks only what they are sure
// to send again. Under a write premium, which providers that cache at explicit
// breakpoints charge, the caller writes up to writeEnd only: the call
// reads no more of its stable prefix than the earlier call wrote, and pays
// the tokens after writeEnd as fresh input rather than a write nobody
// reads. Providers that cache without breakpoints (no write premium) cache
// every prompt whole.
func price(req *Request, resp *Response, prev []ChatMessage, prevWriteEnd, writeEnd *Breakpoint) error {
	st := &resp.Stats
	st.StablePrefixKnown = true
	tokenizer := counterFor(st.Tokenizer, req.Options.Provider)
	if req.Options.Pricing.WriteRate <= 1 {
		prevWriteEnd, writeEnd = nil, nil
	}
	if prev != nil {
		n, end, err := stablePrefix(req.Remembered, tokenizer, prev, resp.Messages)
		if err != nil {
			return err
		}
		if prevWriteEnd != nil && n > 0 {
			written, err := tokensBefore(req.Remembered, tokenizer, prev, prevWriteEnd)
			if err != nil {
				return err
			}
			if written < n {
				n, end = written, &Breakpoint{Message: prevWriteEnd.Message, Offset: prevWriteEnd.Offset}
			}
		}
		st.StablePrefixTokens = n
		if n > 0 {
			st.CacheBreakpoint = end
		}
	}
	if writeEnd != nil {
		n, err := tokensBefore(req.Remembered, tokenizer, resp.Messages, writeEnd)
		if err != nil {
			return err
		}
		st.writeEnd, st.writeEndKnown = n, true
	}
	bill(st, req.Options.Pricing)
	return nil
}

// tokensBefore counts the tokens of msgs before bp, which a cache
// breakpoint placed there writes: the messages before bp's, and of bp's
// its reasoning and the start of its content (all of it, with its parts
// and tool calls, when bp is at the content's end).
func tokensBefore(counts *Remembered, tokenizer counter, msgs []ChatMessage, bp *Breakpoint) (int, error) {
	if bp.Message < 0 || bp.Message >= len(msgs) {
		return 0, fmt.Errorf("cache breakpoint at message %d of %d", bp.Message, len(msgs))
	}
	n, err := counts.tokens(tokenizer, msgs[:bp.Message])
	if err != nil {
		return 0, err
	}
	m := &msgs[bp.Message]
	cut, left := len(m.Content), bp.Offset
	for i := range m.Content {
		if left == 0 {
			cut = i
			break
		}
		left--
	}
	if cut == len(m.Content) {
		last, err := counts.tokens(tokenizer, msgs[bp.Message:bp.Message+1])
		return n + last, err
	}
	for _, text := range []string{m.Reasoning, m.Content[:cut]} {
		if text == "" {
			continue
		}
		c, err := counts.text(tokenizer.tokenizer, text)
		if err != nil {
			return 0, err
		}
		n += c.tokens
	}
	return n, nil
}
