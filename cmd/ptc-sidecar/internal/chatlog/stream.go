package chatlog

import (
	"bytes"
	"encoding/json"
	"strings"
)

// streamedReply is the reply a logged call holds as the events of a
// streamed response, assembled into the message they spell: under
// "response" or "response_body", a list of events or the stream's text
// ("data: {...}" lines, as a proxy records the body). The events are
// OpenAI Chat Completions chunks (choices[0].delta: content, tool_calls
// by index, their arguments in pieces) or Anthropic Messages events
// (content_block_start, then content_block_delta of text, input_json,
// thinking or signature). ok is false when neither key holds such a
// stream.
func streamedReply(obj map[string]json.RawMessage) (map[string]json.RawMessage, bool) {
	for _, k := range []string{"response", "response_body"} {
		if events := streamEvents(obj[k]); len(events) > 0 {
			if reply, ok := assembleChunks(events); ok {
				return reply, true
			}
			if reply, ok := assembleEvents(events); ok {
				return reply, true
			}
		}
	}
	return nil, false
}

// streamEvents reads raw as a list of event objects, or as the text of a
// server-sent event stream.
func streamEvents(raw json.RawMessage) []map[string]json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	var events []map[string]json.RawMessage
	if raw[0] == '[' {
		_ = json.Unmarshal(raw, &events)
		return events
	}
	var text string
	if json.Unmarshal(raw, &text) != nil || !strings.Contains(text, "data:") {
		return nil
	}
	for _, line := range strings.Split(text, "\n") {
		data, ok := strings.CutPrefix(strings.TrimSpace(line), "data:")
		var ev map[string]json.RawMessage
		if ok && json.Unmarshal([]byte(strings.TrimSpace(data)), &ev) == nil {
			events = append(events, ev)
		}
	}
	return events
}

// assembleChunks is the assistant message OpenAI chunks spell.
func assembleChunks(events []map[string]json.RawMessage) (map[string]json.RawMessage, bool) {
	// A tool call as a chunk holds a piece of it, and as the message
	// holds it whole.
	type call struct {
		Index    int    `json:"index"`
		ID       string `json:"id,omitempty"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	var content, refusal strings.Builder
	var calls []*call
	seen := false
	for _, ev := range events {
		var chunk struct {
			Choices []struct {
				Index int `json:"index"`
				Delta struct {
					Content   string `json:"content"`
					Refusal   string `json:"refusal"`
					ToolCalls []call `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if ev["choices"] == nil || json.Unmarshal(mustJSON(ev), &chunk) != nil {
			continue
		}
		seen = true
		for _, ch := range chunk.Choices {
			if ch.Index != 0 { // the conversation goes on with the first choice
				continue
			}
			content.WriteString(ch.Delta.Content)
			refusal.WriteString(ch.Delta.Refusal)
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Index < 0 || tc.Index > len(calls) {
					continue // an index past the next: not a stream a client reads
				}
				if tc.Index == len(calls) {
					calls = append(calls, &call{Index: tc.Index, Type: "function"})
				}
				c := calls[tc.Index]
				if tc.ID != "" {
					c.ID = tc.ID
				}
				c.Function.Name += tc.Function.Name
				c.Function.Arguments += tc.Function.Arguments
			}
		}
	}
	if !seen {
		return nil, false
	}
	msg := map[string]any{"role": "assistant", "content": content.String()}
	if refusal.Len() > 0 {
		msg["refusal"] = refusal.String()
	}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	return toRaw(msg), true
}

// assembleEvents is the assistant message Anthropic's stream events spell.
func assembleEvents(events []map[string]json.RawMessage) (map[string]json.RawMessage, bool) {
	var blocks []map[string]any
	partial := map[int]*strings.Builder{} // a tool_use block's input, in pieces
	seen := false
	for _, ev := range events {
		var e struct {
			Type         string         `json:"type"`
			Index        int            `json:"index"`
			ContentBlock map[string]any `json:"content_block"`
			Delta        struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
				Thinking    string `json:"thinking"`
				Signature   string `json:"signature"`
			} `json:"delta"`
		}
		if json.Unmarshal(mustJSON(ev), &e) != nil {
			continue
		}
		switch e.Type {
		case "message_start":
			seen = true
		case "content_block_start":
			seen = true
			if e.Index == len(blocks) && e.ContentBlock != nil {
				blocks = append(blocks, e.ContentBlock)
			}
		case "content_block_delta":
			if e.Index < 0 || e.Index >= len(blocks) {
				continue
			}
			b := blocks[e.Index]
			appendField := func(k, s string) {
				prev, _ := b[k].(string)
				b[k] = prev + s
			}
			switch e.Delta.Type {
			case "text_delta":
				appendField("text", e.Delta.Text)
			case "thinking_delta":
				appendField("thinking", e.Delta.Thinking)
			case "signature_delta":
				appendField("signature", e.Delta.Signature)
			case "input_json_delta":
				if partial[e.Index] == nil {
					partial[e.Index] = &strings.Builder{}
				}
				partial[e.Index].WriteString(e.Delta.PartialJSON)
			}
		}
	}
	if !seen {
		return nil, false
	}
	for i, p := range partial {
		if input := []byte(p.String()); json.Valid(input) {
			blocks[i]["input"] = json.RawMessage(input) // its keys in their order
		} else {
			blocks[i]["input"] = p.String() // kept as the text it was
		}
	}
	return toRaw(map[string]any{"role": "assistant", "content": blocks}), true
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func toRaw(v any) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	_ = json.Unmarshal(mustJSON(v), &out)
	return out
}
