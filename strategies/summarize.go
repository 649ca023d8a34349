package strategies

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"sort"
	"strconv"
	"strings"
)

// summarize replaces the beginning of a chat history with a summary that
// the caller's model writes. The sidecar never calls a model: when the
// prompt outgrows summary_trigger tokens, the response carries a
// SummaryRequest, the messages to send to the caller's model (a prefix of
// this very prompt that an earlier call already sent, so the provider's
// cache holds it, then the instruction), and the caller sends the model's
// answer back as the request's Summary. Everything the summary needs
// travels with it: the history position it covers up to (through), the
// history length of the call that asked for it (asked_at) and a digest of
// both and of the messages covered, so that a summary of other messages is
// refused rather than sent.
//
// With a summary the output is the system prompt, the summary in one user
// message, then the history from through on. Until the next summary the
// calls only append to it, so their prompts share one prefix that grows
// with each call.
type summarize struct{}

const summarizeName = "summarize"

func init() { register(summarize{}) }

// Defaults of the summarize options.
const (
	DefaultSummaryTrigger = 100000
	DefaultSummaryKeep    = 6
	DefaultSummaryPrompt  = "Summarise the conversation above so that it can replace it: the task and what the user asked for, the decisions made, the work done and its results, and every exact value a later step may need (identifiers, names, numbers, dates, amounts, paths, errors). Include what an earlier summary in it holds that is still needed. Write only the summary."
	DefaultSummaryHeader  = "Summary of the conversation before this point (it replaces those messages):"
)

// The forms of a summary request (option summary_request_form). The
// prompt it asks to summarise is a prefix of the answer's own messages:
// SummaryRequestPrefix names it by its message count, so the answer
// holds the history once and fits the receive limit the request did;
// SummaryRequestWhole repeats it, as releases before the option did,
// which takes twice the history's bytes.
const (
	SummaryRequestPrefix = "prefix"
	SummaryRequestWhole  = "whole"
)

func (summarize) Name() string { return summarizeName }

func (summarize) Description() string {
	return "The whole history until it grows past summary_trigger tokens; then the response asks for a summary (summary_request: an already-cached prefix of the prompt plus the instruction) that the caller's model writes and the next call sends back as summary, checked against the messages it covers. The output is then the system prompt, the summary, and the history after it, appended to until the next summary."
}

func (summarize) Input() Input { return InputHistory }

func (summarize) Options() []OptionDoc {
	return []OptionDoc{
		intOptionDoc("summary_trigger", "A summary is asked for when the prompt, with the summary sent back, exceeds this many tokens."),
		intOptionDoc("summary_keep", "The fewest most recent messages a new summary leaves out, sent as they are after it."),
		{"summary_prompt", "(built in)", "The instruction appended to the summary request."},
		{"summary_header", DefaultSummaryHeader, "The line that opens the user message holding the summary."},
		{"summary_request_form", SummaryRequestPrefix, "How summary_request carries the prompt to summarise: prefix names it by its count of the answer's first messages (prefix_messages), whole repeats the messages (the answer then holds them twice)."},
		docNudgeAttempt, docNudges, docProvider, docTokenizer, docKeepThinking,
		docPricing, docCacheReadRate, docCacheWriteRate, docMaxResponseBytes,
	}
}

// Summary is a summary the caller's model wrote of history[:Through],
// asked for by the call whose history held AskedAt messages.
type Summary struct {
	Text    string
	Through int
	AskedAt int
	Digest  string // SummaryDigest(history, Through, AskedAt)
}

// SummaryRequest is what the caller's model is asked to summarise: the
// response's first PrefixMessages messages then Messages, and the fields
// its summary is sent back with.
type SummaryRequest struct {
	PrefixMessages int
	Messages       []ChatMessage
	Through        int
	AskedAt        int
	Digest         string
}

// Prompt is the messages to send the caller's model for r, the summary
// request of the response whose messages are answer.
func (r *SummaryRequest) Prompt(answer []ChatMessage) []ChatMessage {
	out := make([]ChatMessage, 0, r.PrefixMessages+len(r.Messages))
	out = append(out, answer[:r.PrefixMessages]...)
	return append(out, r.Messages...)
}

func (s summarize) Render(req *Request) (*Response, error) {
	opts := &req.Options
	h := req.History
	if err := validateHistory(h); err != nil {
		return nil, err
	}
	sum := req.Summary
	if sum != nil && req.earlier && sum.AskedAt > len(h) {
		// The earlier call was sent before this summary was asked for;
		// what it held instead is not in the request.
		sum = nil
	}
	if sum != nil {
		if err := checkSummary(sum, h); err != nil {
			return nil, err
		}
	}
	tok := opts.counter()
	counts, err := messageCounts(req.Remembered, tok, h)
	if err != nil {
		return nil, err
	}
	ch := chatHistoryFor(h, &req.Options)
	var out chatOutput
	out.open(ch)
	through, askedAt, summaryAt := 0, 0, -1
	var kept []int
	if sum != nil {
		through, askedAt, summaryAt = sum.Through, sum.AskedAt, len(out.msgs)
		out.msgs = append(out.msgs, ChatMessage{Role: RoleUser, Content: opts.SummaryHeader + "\n\n" + sum.Text})
		out.from = append(out.from, -1)
		out.edited = append(out.edited, false)
		kept = ch.seq[sort.SearchInts(ch.seq, through):]
	} else {
		open := ch.openings()[0]
		if open.nudge {
			out.addNudge(opts)
		}
		kept = ch.seq[open.start:]
	}
	out.copyFrom(ch, kept...)
	resp, err := chatResponse(s.Name(), req, ch, counts, &out)
	if err != nil {
		return nil, err
	}
	st := &resp.Stats
	if summaryAt >= 0 {
		for _, m := range h[:through] {
			if m.Role != RoleSystem {
				st.MessagesSummarized++
			}
		}
		if st.SummaryTokens, err = req.Remembered.tokens(tok, out.msgs[summaryAt:summaryAt+1]); err != nil {
			return nil, err
		}
		if st.NextCacheBreakpoint == nil {
			st.NextCacheBreakpoint = messagesEnd(out.msgs[:summaryAt+1])
		}
	}
	if req.earlier || st.TokensAfter <= opts.SummaryTrigger {
		return resp, nil
	}
	cut := summaryCut(h, through, askedAt, opts.SummaryKeep)
	if cut < 0 {
		return resp, nil
	}
	// The request is the prompt up to the cut, which the call whose
	// history ended there sent with this same summary, then the
	// instruction.
	k := 0
	for k < len(out.msgs) && out.from[k] < cut {
		k++
	}
	if !coversHistory(out.msgs[:k], out.from[:k]) {
		return resp, nil
	}
	msgs := make([]ChatMessage, k, k+1)
	copy(msgs, out.msgs[:k])
	msgs = append(msgs, ChatMessage{Role: RoleUser, Content: opts.SummaryPrompt})
	resp.SummaryRequest = &SummaryRequest{Messages: msgs, Through: cut, AskedAt: len(h), Digest: SummaryDigest(h, cut, len(h))}
	if opts.SummaryRequestForm == SummaryRequestPrefix {
		// msgs[:k] are resp.Messages[:k]: named by their count.
		resp.SummaryRequest.PrefixMessages, resp.SummaryRequest.Messages = k, msgs[k:]
	}
	st.SummaryRequested = true
	if st.SummaryRequestTokens, err = req.Remembered.tokens(tok, msgs); err != nil {
		return nil, err
	}
	if st.SummaryRequestPrefixTokens, err = req.Remembered.tokens(tok, msgs[:k]); err != nil {
		return nil, err
	}
	return resp, nil
}

// coversHistory reports whether a summary request's prefix holds anything
// to summarise: a history message other than the system prompt.
func coversHistory(msgs []ChatMessage, from []int) bool {
	for i := range msgs {
		if from[i] >= 0 && msgs[i].Role != RoleSystem {
			return true
		}
	}
	return false
}

// summaryCut returns where a new summary ends (an index into h), or -1 when
// none can be asked for. It is the latest assistant message that leaves
// at least keep messages after it, covers more than the summary in place
// (through), and began the history of a call made with that same summary
// (at or after asked_at): the prompt before it is what that call sent, so
// the provider has it cached.
func summaryCut(h []ChatMessage, through, askedAt, keep int) int {
	after := 0 // non-system messages from i on
	for i := len(h) - 1; i > through && i >= askedAt; i-- {
		if h[i].Role != RoleSystem {
			after++
		}
		if h[i].Role == RoleAssistant && after >= keep {
			return i
		}
	}
	return -1
}

// checkSummary refuses a summary that does not fit the history: one that
// covers nothing, reaches past it, ends inside a tool loop, or whose digest
// says it was written for other messages.
func checkSummary(sum *Summary, h []ChatMessage) error {
	switch {
	case blank(sum.Text):
		return &InputError{Field: "summary.text", Reason: "is empty: send the text the caller's model wrote for summary_request"}
	case sum.AskedAt < 1 || sum.AskedAt > len(h):
		return &InputError{Field: "summary.asked_at", Reason: fmt.Sprintf("must be between 1 and the history's length (%d), got %d: send the summary_request's asked_at with the history it was asked for, or a longer one", len(h), sum.AskedAt)}
	case sum.Through < 1 || sum.Through > sum.AskedAt:
		return &InputError{Field: "summary.through", Reason: fmt.Sprintf("must be between 1 and asked_at (%d), got %d", sum.AskedAt, sum.Through)}
	case sum.Through < len(h) && h[sum.Through].Role == RoleTool:
		return &InputError{Field: "summary.through", Reason: fmt.Sprintf("history[%d] is a tool result: a summary ends before an assistant or user message, never inside a tool loop", sum.Through)}
	}
	if strings.HasPrefix(sum.Digest, "sha256:") {
		return &InputError{Field: "summary.digest", Reason: fmt.Sprintf("%q is a digest of an earlier release, which did not cover the messages' content parts; send no summary to be asked for a new one", sum.Digest)}
	}
	if SummaryDigest(h, sum.Through, sum.AskedAt) != sum.Digest {
		return &InputError{Field: "summary.digest", Reason: fmt.Sprintf("%q is not the digest of history[:%d] (asked at %d messages): the summary was written for other messages, or they changed since; send no summary to be asked for a new one", sum.Digest, sum.Through, sum.AskedAt)}
	}
	return nil
}

// SummaryDigest is the digest a summary of h[:through], asked for by a
// call whose history held askedAt messages, is sent back with: SHA-256 over
// both numbers and every field of the covered messages but the system
// prompt's (their content parts' every field included), each text
// length-prefixed. The system prompt is left out so that a caller may
// change it without losing its summary. The "v2:" in front tells it from
// the digests of earlier releases ("sha256:…"), which left the parts out.
func SummaryDigest(h []ChatMessage, through, askedAt int) string {
	d := &digest{h: sha256.New(), buf: make([]byte, 0, 4096)}
	d.field("ptc-sidecar summary 2")
	d.field(strconv.Itoa(through))
	d.field(strconv.Itoa(askedAt))
	for _, m := range h[:through] {
		if m.Role == RoleSystem {
			continue
		}
		for _, f := range []string{m.Role, m.Content, m.Source, m.SenderID, m.ToolCallID, m.Reasoning, m.Name, strconv.Itoa(len(m.ToolCalls)), strconv.Itoa(len(m.Parts))} {
			d.field(f)
		}
		for _, tc := range m.ToolCalls {
			d.field(tc.ID)
			d.field(tc.Name)
			d.field(tc.Arguments)
		}
		for i := range m.Parts {
			p := &m.Parts[i]
			x := p.Extras()
			for _, f := range []string{p.Type, p.Text, x.Signature, x.Data, x.MediaType, x.URL, x.FileID,
				strconv.Itoa(x.Width), strconv.Itoa(x.Height), x.Detail, strconv.Itoa(x.Pages), strconv.Itoa(x.DurationMS), x.ProviderJSON} {
				d.field(f)
			}
		}
	}
	return "v2:sha256:" + hex.EncodeToString(d.h.Sum(nil))
}

// digest is a SHA-256 written a field at a time through one small buffer:
// the hash has no WriteString, and io.WriteString copied each field
// whole, 5 MB for a message of a 5 MB tool description.
type digest struct {
	h   hash.Hash
	buf []byte
}

// field writes s length-prefixed, so no two field lists digest the same
// text.
func (d *digest) field(s string) {
	d.h.Write(append(strconv.AppendInt(d.buf[:0], int64(len(s)), 10), ':'))
	for len(s) > 0 {
		n := copy(d.buf[:cap(d.buf)], s)
		d.h.Write(d.buf[:n])
		s = s[n:]
	}
}
