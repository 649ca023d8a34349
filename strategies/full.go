package strategies

import (
	"strings"
)

// full is the uncompressed history: every program the agent wrote as its own
// reply and every turn's feedback as a USER message. It is what compression
// statistics compare against, and a fallback for callers who want it.
type full struct{}

func init() { register(full{}) }

func (full) Name() string { return "full" }

func (full) Description() string {
	return "The uncompressed history: SYSTEM, the turn-1 USER message, then per turn the ASSISTANT reply and a USER message with its output, result or error, and the turns left."
}

func (full) Input() Input { return InputTurns }

// Options are those of single-user-coalesced but the history limits: full
// shows every tool call and every print.
func (full) Options() []OptionDoc {
	var docs []OptionDoc
	for _, d := range turnOptionDocs {
		if d.Name != "println_limit" && d.Name != "tool_call_limit" {
			docs = append(docs, d)
		}
	}
	return docs
}

func (s full) Render(req *Request) (*Response, error) {
	if toolCallForm(req) {
		return toolCallResponse(s.Name(), req, false)
	}
	msgs, err := fullMessages(req)
	if err != nil {
		return nil, err
	}
	stats := Stats{Strategy: s.Name()}
	for _, t := range req.Turns {
		stats.ToolCallsTotal += len(t.ToolCalls)
		stats.PrintlnsTotal += len(t.Prints)
	}
	stats.ToolCallsShown = stats.ToolCallsTotal // each call is in its program
	stats.PrintlnsShown = stats.PrintlnsTotal
	if err := measure(&stats, req.Remembered, req.Options.counter(), msgs, msgs); err != nil {
		return nil, err
	}
	// The next call appends to these messages.
	stats.NextCacheBreakpoint = messagesEnd(msgs)
	resp := &Response{Messages: msgs, Stats: stats}
	return resp, priceTurns(req, resp, memoryUnused, nil, func(r *Request) ([]ChatMessage, *Breakpoint, error) {
		msgs, err := fullMessages(r)
		return msgs, nil, err
	})
}

// fullMessages builds SYSTEM, the USER message of turn 1 (what
// single-user-coalesced sends before any turn, without a prelude), then an
// ASSISTANT and a USER message per turn.
func fullMessages(req *Request) ([]ChatMessage, error) {
	o := &req.Options
	msgs, budget, err := openingMessages(req, systemPrompt(o), 2+2*len(req.Turns))
	if err != nil {
		return nil, err
	}
	for i := range req.Turns {
		t := &req.Turns[i]
		msgs = append(msgs,
			ChatMessage{Role: RoleAssistant, Content: assistantReply(t)},
			ChatMessage{Role: RoleUser, Content: turnFeedback(t, o, budget-i-1)},
		)
	}
	return msgs, nil
}

// openingMessages are SYSTEM (system) and the USER message of turn 1, in a
// slice of the given capacity, and the budget the turns indicators count
// down from, so that the last feedback says what single-user-coalesced
// says now.
func openingMessages(req *Request, system string, capacity int) ([]ChatMessage, int, error) {
	o := &req.Options
	tools, err := toolLinesOf(o, req.Remembered)
	if err != nil {
		return nil, 0, err
	}
	ret, err := expectedReturnSection(o, req.Remembered)
	if err != nil {
		return nil, 0, err
	}
	budget := o.MaxTurns
	if o.TurnsLeftSet {
		budget = o.TurnsLeft + len(req.Turns)
	}
	msgs := make([]ChatMessage, 0, capacity)
	msgs = append(msgs,
		ChatMessage{Role: RoleSystem, Content: system},
		ChatMessage{Role: RoleUser, Content: joinToolSections(missionSection(o), &tools, dataSection(o), ret, fullIndicator(o, budget))},
	)
	return msgs, budget, nil
}

func fullIndicator(o *Options, left int) string {
	if o.MaxTurns == 1 {
		return ""
	}
	return turnsLeftText(left)
}

// assistantReply is what the LLM answered: its raw response, or the program
// in a clojure block when the raw response was not kept. A turn whose
// program came in a tool call kept only the text beside the call, which
// the block then follows.
func assistantReply(t *Turn) string {
	fenced := "```clojure\n" + t.Program + "\n```"
	switch {
	case t.ProgramCallID != "":
		return joinSections(t.RawResponse, fenced)
	case t.RawResponse != "":
		return t.RawResponse
	}
	return fenced
}

// turnFeedback is one turn's outcome as the agent would see it without
// compression: everything printed, then the result or the error, then the
// turns left (left, see fullIndicator), separated by blank lines.
func turnFeedback(t *Turn, o *Options, left int) string {
	var b strings.Builder
	// Room for the prints and a short result: the builder then grows at
	// most a few times for a long one.
	n := 64
	for _, p := range t.Prints {
		n += len(p) + 1
	}
	b.Grow(n + 256)
	if len(t.Prints) > 0 {
		b.WriteString(";; Output:\n")
		for i, p := range t.Prints {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p)
		}
		b.WriteString("\n\n")
	}
	writeOutcome(&b, t, o, left, unlimited, unlimited)
	return b.String()
}

// writeOutcome writes the end of a turn's feedback: its result, rendered
// within limit items and printable characters, or its error, then its
// warnings and the turns left after it (left).
func writeOutcome(b *strings.Builder, t *Turn, o *Options, left, limit, printable int) {
	if t.Success {
		b.WriteString(";; Result: ")
		writeValue(b, orNil(t.Result), limit, printable)
	} else {
		b.WriteString("Error: ")
		b.WriteString(errorMessage(t))
		if t.Error != nil && t.Error.Hint != "" {
			b.WriteString("\nHint: ")
			b.WriteString(t.Error.Hint)
		}
	}
	if len(t.Warnings) > 0 {
		b.WriteString("\n\n")
		writeWarnings(b, t.Warnings)
	}
	if o.MaxTurns != 1 { // as fullIndicator, without building the text
		b.WriteString("\n\n")
		writeTurnsLeft(b, left)
	}
}
