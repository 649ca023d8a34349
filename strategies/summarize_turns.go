package strategies

// summarizeTurns is summarize for a PTC-Lisp run: the run's turns are
// rendered as the full strategy sends them (SYSTEM, the task, then per turn
// the program and its feedback), and that message list is summarised as
// summarize summarises a chat history. A summary's through and asked_at
// count those messages, which the caller never holds: it copies them from
// the summary request. full's messages only grow from one turn to the
// next, so the prompt after a summary is appended to until the next one.
type summarizeTurns struct{}

const summarizeTurnsName = "summarize-turns"

func init() { register(summarizeTurns{}) }

func (summarizeTurns) Name() string { return summarizeTurnsName }

func (summarizeTurns) Description() string {
	return "summarize for a PTC-Lisp run: the turns as full renders them, until they grow past summary_trigger tokens; then the response asks for a summary that the caller's model writes and the next call sends back, and the output is SYSTEM, the summary, and the turns after it."
}

func (summarizeTurns) Input() Input { return InputTurns }

func (summarizeTurns) Options() []OptionDoc {
	var docs []OptionDoc
	for _, d := range (full{}).Options() {
		if d.Name != "tokenizer" && d.Name != "pricing" && d.Name != "cache_read_rate" && d.Name != "cache_write_rate" && d.Name != "max_response_bytes" {
			docs = append(docs, d)
		}
	}
	for _, d := range (summarize{}).Options() {
		if d.Name != "nudge_attempt" && d.Name != "nudge_messages" {
			docs = append(docs, d)
		}
	}
	return docs
}

func (summarizeTurns) Render(req *Request) (*Response, error) {
	msgs, err := fullMessages(req)
	if err != nil {
		return nil, err
	}
	chat := *req
	chat.Turns, chat.Memory, chat.History = nil, nil, msgs
	resp, err := summarize{}.Render(&chat)
	if err != nil {
		return nil, err
	}
	st := &resp.Stats
	st.Strategy = summarizeTurnsName
	for _, t := range req.Turns {
		st.ToolCallsTotal += len(t.ToolCalls)
		st.PrintlnsTotal += len(t.Prints)
	}
	return resp, nil
}
