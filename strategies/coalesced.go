package strategies

import "unicode/utf8"

// coalesced is the default strategy: the whole history folded into one USER
// message after a static SYSTEM prompt. Keeping every summary in a USER
// message means the LLM never sees a summary written as its own reply, so it
// keeps answering with code rather than imitating the summary format.
type coalesced struct{}

func init() { register(coalesced{}) }

func (coalesced) Name() string { return "single-user-coalesced" }

func (coalesced) Description() string {
	return "[SYSTEM, USER]: a static system prompt, then the mission, tools, data, the prelude of definitions, the tool calls and output of earlier turns, the last error while unrecovered, and the turns left."
}

func (coalesced) Input() Input { return InputTurns }

func (coalesced) Options() []OptionDoc { return turnOptionDocs }

func (s coalesced) Render(req *Request) (*Response, error) {
	if toolCallForm(req) {
		return toolCallResponse(s.Name(), req, true)
	}
	return summarizedResponse(s.Name(), req, memoryWhole, false, coalescedMessages)
}

// coalescedMessages builds [SYSTEM, USER] and reports what the history
// sections showed.
func coalescedMessages(req *Request) ([]ChatMessage, historyCounts, error) {
	var counts historyCounts
	o := &req.Options
	tools, err := toolLinesOf(o, req.Remembered)
	if err != nil {
		return nil, counts, err
	}
	ret, err := expectedReturnSection(o, req.Remembered)
	if err != nil {
		return nil, counts, err
	}
	// The environment is the same on every call of a run; what follows it
	// is not.
	env := joinToolSections(missionSection(o), &tools, dataSection(o))
	history := joinSections(
		preludeSection(req),
		ret,
		toolCallsSection(req, &counts),
		outputSection(req, &counts),
		errorSection(req, &counts),
		warningSection(req.Turns),
		turnsIndicator(o, len(req.Turns)),
	)
	user := joinSections(env, history)
	counts.kept = utf8.RuneCountInString(env)
	if env != "" && history != "" {
		counts.kept += 2 // the blank line before the history
	}
	return []ChatMessage{
		{Role: RoleSystem, Content: systemPrompt(o)},
		{Role: RoleUser, Content: user},
	}, counts, nil
}
