package strategies

import (
	"strings"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// This file holds what the turn strategies (single-user-coalesced,
// cache-stable, full) share: the options they honour, the SYSTEM message,
// how the sections of the USER message are joined, and the response of a
// strategy that summarizes the history in one USER message. sections.go
// writes the sections; chat.go is the chat strategies' counterpart.

// turnOptionDocs are the options both turn strategies honour.
var turnOptionDocs = []OptionDoc{
	{"mission", "", "the task, shown first and verbatim"},
	{"system_prompt", "built-in PTC-Lisp reference", "the SYSTEM message"},
	{"prompt", PromptLean, "the built-in reference's variant when system_prompt is empty: " + PromptLean + " (rules, functions by name, prose only where they differ from Clojure) or " + PromptFull + " (every function with a line of prose); unset, cache-stable and single-user-coalesced take " + PromptFull + " where the model's minimum cacheable prefix is longer than the lean variant and not the full one"},
	{"tools", "", "tools listed under tool/; each signature must parse"},
	{"data", "", "a map Value listed under data/"},
	{"signature", "", "expected return signature"},
	intOptionDoc("max_turns", "turn budget; 1 is single shot (no turns indicator)"),
	withDefault(intOptionDoc("turns_left", "overrides the turns left"), "max_turns - len(turns)"),
	intOptionDoc("println_limit", "most recent println calls shown"),
	intOptionDoc("tool_call_limit", "most recent tool calls shown"),
	intOptionDoc("sample_limit", "items shown per collection in samples"),
	intOptionDoc("sample_printable_limit", "characters shown per sample string"),
	docTokenizer,
	docPricing, docCacheReadRate, docCacheWriteRate, docModel, docMinCacheableTokens, docMaxResponseBytes,
	docProgramForm,
}

// summarizedResponse renders req with messages, a strategy that summarizes
// the history in one USER message and renders the memory as use says, and
// fills the statistics: the full history is the "before", and the earlier
// call is rendered with messages for the stable prefix.
//
// rewritesTail says that the next call sends nothing after the kept part
// again (cache-stable: the latest turn is shown whole once, then as its
// record entry), so that a cache write ending at the next breakpoint is
// all the next call reads; otherwise the call writes to the end.
func summarizedResponse(name string, req *Request, use memoryUse, rewritesTail bool, messages func(*Request) ([]ChatMessage, historyCounts, error)) (*Response, error) {
	msgs, counts, err := messages(req)
	if err != nil {
		return nil, err
	}
	full, err := fullMessages(req)
	if err != nil {
		return nil, err
	}
	stats := Stats{
		Strategy:            name,
		TurnsCompressed:     len(req.Turns),
		ToolCallsTotal:      counts.toolCallsTotal,
		ToolCallsShown:      counts.toolCallsShown,
		ToolCallsDropped:    counts.toolCallsTotal - counts.toolCallsShown,
		PrintlnsTotal:       counts.printsTotal,
		PrintlnsShown:       counts.printsShown,
		PrintlnsDropped:     counts.printsTotal - counts.printsShown,
		ErrorTurnsCollapsed: counts.failedTurns,
	}
	if n := len(req.Turns); n > 0 && !req.Turns[n-1].Success {
		stats.ErrorTurnsCollapsed-- // the last failure is shown
	}
	if err := measure(&stats, req.Remembered, req.Options.counter(), full, msgs); err != nil {
		return nil, err
	}
	stats.NextCacheBreakpoint = summarizedNext(msgs, counts)
	resp := &Response{Messages: msgs, Stats: stats}
	writeEnd := func(next *Breakpoint) *Breakpoint {
		if rewritesTail {
			return next
		}
		return nil
	}
	err = priceTurns(req, resp, use, writeEnd(stats.NextCacheBreakpoint), func(r *Request) ([]ChatMessage, *Breakpoint, error) {
		msgs, counts, err := messages(r)
		if err != nil {
			return nil, nil, err
		}
		return msgs, writeEnd(summarizedNext(msgs, counts)), nil
	})
	return resp, err
}

// summarizedNext is where the part of a summarizing strategy's messages
// that the next call sends unchanged ends: after the characters of the
// USER message it keeps (its record), else after the SYSTEM message.
func summarizedNext(msgs []ChatMessage, counts historyCounts) *Breakpoint {
	if counts.kept > 0 {
		return &Breakpoint{Message: 1, Offset: counts.kept}
	}
	return messagesEnd(msgs[:1])
}

// joinToolSections is joinSections(before, the tool section, after...),
// the tool section written in place rather than built and then copied: a
// tool's description may be megabytes.
func joinToolSections(before string, tools *toolLines, after ...string) string {
	n := len(before) + 2 + tools.size
	for _, s := range after {
		n += len(s) + 2
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(before)
	if tools.size > 0 {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		tools.writeTo(&b)
	}
	writeSections(&b, after...)
	return b.String()
}

// joinSections joins the sections that have content with one blank line.
func joinSections(sections ...string) string {
	n := 0
	for _, s := range sections {
		n += len(s) + 2
	}
	var b strings.Builder
	b.Grow(n)
	writeSections(&b, sections...)
	return b.String()
}

// writeSections writes the sections that have content after what b
// holds, one blank line before each but at the start.
func writeSections(b *strings.Builder, sections ...string) {
	for _, s := range sections {
		if s == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(s)
	}
}

// systemPrompt is the caller's system prompt or the built-in PTC-Lisp
// reference; it never depends on the turns, so providers can cache it.
func systemPrompt(o *Options) string {
	switch {
	case o.SystemPrompt != "":
		return o.SystemPrompt
	case o.Prompt == PromptFull:
		return lisp.FullSystemPrompt()
	}
	return lisp.SystemPrompt()
}

// The variants of the built-in system prompt (option prompt).
const (
	// PromptLean is the default: the rules, the functions by name, and
	// prose only for those that differ from Clojure.
	PromptLean = "lean"
	// PromptFull is the whole reference, a line of prose per function.
	PromptFull = "full"
)
