// Package chatlog reads the logs `ptc-sidecar report` measures: chat
// conversations (OpenAI Chat Completions, Anthropic Messages, the
// product's ChatMessage JSON) and PTC-Lisp run records. It is a package of
// its own so that its fuzz target runs without the rest of the binary.
package chatlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// The logs the report command reads. A file holds one JSON value or many
// (JSON Lines, or values one after the other); each value is one of:
//
//   - a conversation: a list of messages, or an object with "messages"
//     (an OpenAI Chat Completions or Anthropic Messages request body, the
//     product's conversation files) or "history" (a ToMessagesRequest);
//   - one message (an object with "role"), or a line of a coding agent's
//     session transcript (transcriptLine): messages in a row form one
//     conversation (a JSONL log of messages, a session);
//   - a PTC-Lisp run record: an object with "turns" (a RenderTraceRequest
//     or ToMessagesRequest as JSON, docs/TRACE.md);
//   - an OpenAI Responses request body: an object whose "input" is a list
//     of items (responsesItems), or such a list;
//   - a logged call: the request body under "request", "body", "input"
//     or "request_body" (itself perhaps under a further "body"), and the
//     reply under "response", "output" or "response_body" (a Chat
//     Completions or Anthropic Messages response), added to the
//     conversation as the assistant's message;
//   - a list of conversations or run records.
//
// Messages may be in OpenAI's shape (content a string, null or a list of
// parts; tool_calls with a function; a legacy function_call), Anthropic's
// (content blocks: text, tool_use, tool_result, thinking, and the kinds
// the server runs, kept as text; the system prompt a top-level field) or
// the product's (tool_calls with name and arguments, in snake_case or
// lowerCamelCase). What no call is made of is counted in Logs.Skipped.

// Conversation is one chat log read from a file.
type Conversation struct {
	Label    string // file and position, for messages
	Messages []strategies.ChatMessage
	// From is where the calls not yet counted begin: a conversation that
	// continues one given on before (a log of requests where more than
	// maxOpenChains conversations interleave) has its calls before From
	// counted there.
	From int

	// request is how many of Messages the logged request held, when the
	// reply logged beside it follows them (0: no reply). A client may
	// send the reply back otherwise than it came (without its reasoning or
	// thinking, as the providers ask), so the next request may continue
	// the request without the reply.
	request int
}

// Run is one PTC-Lisp run read from a file.
type Run struct {
	Label string
	Req   *ptcsidecarv1.RenderTraceRequest
}

// Logs is what the files held, and what reading them left out.
type Logs struct {
	Chats []Conversation
	Runs  []Run

	// Chat and RunRecord, when set, are given each conversation and run
	// record as it is read, instead of Chats and Runs keeping them: the
	// files are then held one conversation at a time.
	Chat      func(Conversation) error
	RunRecord func(Run) error

	// MaxValueBytes is the largest JSON value read (DefaultMaxValueBytes
	// when 0); a larger one is skipped.
	MaxValueBytes int

	// Skipped is what the files held that no call is made of, by reason,
	// in the order first met.
	Skipped []Skip
}

// Skip counts the values, items or blocks of a log left out for one reason.
type Skip struct {
	Reason string
	Count  int
	First  string // where the first was
}

// skip counts one thing at where left out for reason.
func (logs *Logs) skip(where, reason string) {
	for i := range logs.Skipped {
		if logs.Skipped[i].Reason == reason {
			logs.Skipped[i].Count++
			return
		}
	}
	logs.Skipped = append(logs.Skipped, Skip{Reason: reason, Count: 1, First: where})
}

func (logs *Logs) addChat(c Conversation) error {
	if logs.Chat != nil {
		return logs.Chat(c)
	}
	logs.Chats = append(logs.Chats, c)
	return nil
}

func (logs *Logs) addRun(r Run) error {
	if logs.RunRecord != nil {
		return logs.RunRecord(r)
	}
	logs.Runs = append(logs.Runs, r)
	return nil
}

// Read reads one file's values (name labels them in errors) into logs, one
// value at a time.
func (logs *Logs) Read(name string, r io.Reader) error {
	values := newValueReader(r, logs.MaxValueBytes)
	var pending []strategies.ChatMessage // messages in a row, one conversation
	pendingAt := 0
	lastID := "" // the message id of the last transcript line
	// A log of one request per call holds each conversation again and
	// again, one call longer each time, perhaps interleaved with others:
	// only the last of each chain counts (chains).
	held := newChains(logs.addChat)
	add := func(c Conversation) error {
		pairFunctions(c.Messages)
		return held.add(c)
	}
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		c := Conversation{Label: fmt.Sprintf("%s, messages from value %d", name, pendingAt), Messages: pending}
		pending = nil
		return add(c)
	}
	for n := 1; ; n++ {
		raw, at, err := values.next()
		label := fmt.Sprintf("%s, value %d", name, n)
		var big *oversize
		switch {
		case err == io.EOF:
		case errors.Is(err, errTruncated):
			logs.skip(fmt.Sprintf("%s (byte %d)", label, at), "a value cut short by the end of its file (a log still being written?)")
		case errors.As(err, &big):
			logs.skip(fmt.Sprintf("%s (byte %d)", label, at), fmt.Sprintf("a value over %d bytes (see -max-value-bytes)", values.max))
			continue
		case err != nil:
			return fmt.Errorf("%s: %v", label, err)
		}
		if err != nil {
			break
		}
		if !json.Valid(raw) {
			var v any
			err := json.Unmarshal(raw, &v)
			return fmt.Errorf("%s (byte %d): not JSON: %v", label, at, err)
		}
		if msg, id, ok, err := logs.transcriptLine(raw, label); err != nil {
			return err
		} else if ok {
			switch {
			case msg == nil: // a line that holds no message of the thread
			case id != "" && id == lastID && len(pending) > 0 && pending[len(pending)-1].Role == strategies.RoleAssistant && msg[0].Role == strategies.RoleAssistant:
				mergeAssistant(&pending[len(pending)-1], &msg[0])
			default:
				if len(pending) == 0 {
					pendingAt = n
				}
				pending = append(pending, msg...)
			}
			lastID = id
			continue
		}
		if single, ok, err := logs.messageValue(raw, label); err != nil {
			return err
		} else if ok {
			if len(pending) == 0 {
				pendingAt = n
			}
			pending = append(pending, single...)
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		chats, err := logs.value(raw, label)
		if err != nil {
			return err
		}
		for _, c := range chats {
			if err := add(c); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return held.flush()
}

// legacyCallID starts the id given to an OpenAI function_call, which has
// none.
const legacyCallID = "function_call_"

// pairFunctions gives each OpenAI legacy function_call an id (its
// message's place: the same in every request of a conversation) and has
// each legacy function result (role "function", read as a tool message
// without id and with the function's name) answer the call before it.
func pairFunctions(msgs []strategies.ChatMessage) {
	open := ""
	for i := range msgs {
		m := &msgs[i]
		for j := range m.ToolCalls {
			if m.ToolCalls[j].ID == legacyCallID {
				m.ToolCalls[j].ID = fmt.Sprintf("%s%d", legacyCallID, i)
				open = m.ToolCalls[j].ID
			}
		}
		if m.Role == strategies.RoleTool && m.ToolCallID == "" && m.Name != "" && open != "" {
			m.ToolCallID, m.Name, open = open, "", ""
		}
	}
}

func isPrefix(a, b []strategies.ChatMessage) bool {
	return len(a) <= len(b) && reflect.DeepEqual(a, b[:len(a)])
}

// transcriptLine reads raw as a line of a coding agent's session
// transcript (Claude Code's JSONL: an object with "type" and an id of the
// transcript's, "uuid", "leafUuid" or "messageId"; the message under
// "message"), when it is one. Lines of other types
// (summaries, snapshots) and of a side thread (a sub-agent's,
// "isSidechain") hold no message of the thread: msgs is nil. id is the
// message's id: the transcript writes each content block of an assistant
// message on a line of its own, all with the message's id.
func (logs *Logs) transcriptLine(raw json.RawMessage, label string) (msgs []strategies.ChatMessage, id string, ok bool, err error) {
	var line struct {
		Type      string                     `json:"type"`
		UUID      *string                    `json:"uuid"`
		LeafUUID  *string                    `json:"leafUuid"`
		MessageID *string                    `json:"messageId"`
		Sidechain bool                       `json:"isSidechain"`
		Message   map[string]json.RawMessage `json:"message"`
	}
	if !bytes.Contains(raw, []byte(`"uuid"`)) && !bytes.Contains(raw, []byte(`"leafUuid"`)) && !bytes.Contains(raw, []byte(`"messageId"`)) {
		return nil, "", false, nil // not a transcript's line: spare decoding it twice
	}
	if json.Unmarshal(raw, &line) != nil || line.Type == "" || line.UUID == nil && line.LeafUUID == nil && line.MessageID == nil {
		return nil, "", false, nil
	}
	if line.Sidechain || (line.Type != "user" && line.Type != "assistant") || line.Message["role"] == nil {
		return nil, "", true, nil
	}
	if v := line.Message["id"]; v != nil {
		_ = json.Unmarshal(v, &id)
	}
	msgs, err = logs.convertMessage(line.Message, label+".message")
	return msgs, id, true, err
}

// mergeAssistant adds to m what next, a later line of the same assistant
// message, holds.
func mergeAssistant(m, next *strategies.ChatMessage) {
	if next.Content != "" {
		m.Content = joinNonEmpty(m.Content, next.Content)
	}
	if next.Reasoning != "" {
		m.Reasoning = joinNonEmpty(m.Reasoning, next.Reasoning)
	}
	m.ToolCalls = append(m.ToolCalls, next.ToolCalls...)
}

// messageValue reads raw as one message, when it is one.
func (logs *Logs) messageValue(raw json.RawMessage, label string) ([]strategies.ChatMessage, bool, error) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || obj["role"] == nil {
		return nil, false, nil
	}
	msgs, err := logs.convertMessage(obj, label)
	return msgs, true, err
}

// value reads one JSON value that is not a single message, adding run
// records to logs and returning conversations.
func (logs *Logs) value(raw json.RawMessage, label string) ([]Conversation, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(trimmed, &items); err != nil {
			return nil, fmt.Errorf("%s: %v", label, err)
		}
		if len(items) == 0 {
			return nil, nil
		}
		if isResponsesInput(items) {
			msgs, err := logs.responsesItems(items, label)
			if err != nil {
				return nil, err
			}
			return []Conversation{{Label: label, Messages: msgs}}, nil
		}
		var first map[string]json.RawMessage
		if json.Unmarshal(items[0], &first) == nil && first["role"] != nil {
			msgs, err := logs.convertMessages(items, label)
			if err != nil {
				return nil, err
			}
			return []Conversation{{Label: label, Messages: msgs}}, nil
		}
		var out []Conversation
		for i, item := range items {
			chats, err := logs.value(item, fmt.Sprintf("%s[%d]", label, i))
			if err != nil {
				return nil, err
			}
			out = append(out, chats...)
		}
		return out, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &obj); err != nil {
		return nil, fmt.Errorf("%s: want a conversation, a message or a run record, got %s", label, firstWord(trimmed))
	}
	unstringify(obj)
	switch {
	case obj["turns"] != nil:
		req := &ptcsidecarv1.RenderTraceRequest{}
		if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(trimmed, req); err != nil {
			return nil, fmt.Errorf("%s: not a run record: %v", label, err)
		}
		if id := obj["id"]; id != nil {
			label += " (" + strings.Trim(string(id), `"`) + ")"
		}
		return nil, logs.addRun(Run{label, req})
	case isList(obj["input"]): // an OpenAI Responses request body
		var items []json.RawMessage
		if err := json.Unmarshal(obj["input"], &items); err != nil {
			return nil, fmt.Errorf("%s: input: want a list of items: %v", label, err)
		}
		msgs, err := logs.responsesItems(items, label+": input")
		if err != nil {
			return nil, err
		}
		var instructions string
		if v := obj["instructions"]; v != nil && string(v) != "null" {
			if err := json.Unmarshal(v, &instructions); err != nil {
				return nil, fmt.Errorf("%s: instructions: want a string: %v", label, err)
			}
		}
		if instructions != "" {
			msgs = append([]strategies.ChatMessage{{Role: strategies.RoleSystem, Content: instructions}}, msgs...)
		}
		return logs.withReply(obj, label, msgs)
	case obj["messages"] != nil || obj["history"] != nil:
		key := "messages"
		if obj["messages"] == nil {
			key = "history"
		}
		var items []json.RawMessage
		if err := json.Unmarshal(obj[key], &items); err != nil {
			return nil, fmt.Errorf("%s: %s: want a list of messages: %v", label, key, err)
		}
		msgs, err := logs.convertMessages(items, label+": "+key)
		if err != nil {
			return nil, err
		}
		if sys := obj["system"]; sys != nil { // Anthropic's system prompt
			text, _, err := logs.contentText(sys, label+": system")
			if err != nil {
				return nil, err
			}
			if text != "" {
				msgs = append([]strategies.ChatMessage{{Role: strategies.RoleSystem, Content: text}}, msgs...)
			}
		}
		if id := obj["id"]; id != nil {
			label += " (" + strings.Trim(string(id), `"`) + ")"
		}
		return logs.withReply(obj, label, msgs)
	}
	if req, ok := wrapped(obj, "request", "body", "input", "request_body"); ok {
		chats, err := logs.value(req, label)
		if err != nil || len(chats) != 1 {
			return chats, err
		}
		reply, err := logs.replyMessages(obj, label)
		if err != nil {
			return nil, err
		}
		if len(reply) > 0 {
			chats[0].request = len(chats[0].Messages)
			chats[0].Messages = append(chats[0].Messages, reply...)
		}
		return chats, nil
	}
	return nil, fmt.Errorf("%s: an object with neither messages, history, turns, role nor a logged request: not a log this command reads", label)
}

// withReply is the conversation msgs, with the reply an observability
// tool's record holds beside the request (LiteLLM's "messages" and
// "response", Langfuse's "input" and "output") added.
func (logs *Logs) withReply(obj map[string]json.RawMessage, label string, msgs []strategies.ChatMessage) ([]Conversation, error) {
	reply, err := logs.replyMessages(obj, label)
	if err != nil {
		return nil, err
	}
	c := Conversation{Label: label, Messages: msgs}
	if len(reply) > 0 {
		c.request = len(msgs)
		c.Messages = append(msgs, reply...)
	}
	return []Conversation{c}, nil
}

// unstringify reads the fields of a record that tools store as JSON text
// (a gateway's database row: "messages", "input", "output", "response" as
// strings holding JSON) as that JSON, and an "input" that is plain text
// (a Responses request's, an observation's) as one user message.
func unstringify(obj map[string]json.RawMessage) {
	for _, k := range []string{"messages", "input", "output", "response"} {
		var s string
		if obj[k] == nil || json.Unmarshal(obj[k], &s) != nil {
			continue
		}
		if t := strings.TrimSpace(s); (strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{")) && json.Valid([]byte(t)) {
			obj[k] = json.RawMessage(t)
		} else if k == "input" {
			obj[k], _ = json.Marshal([]map[string]string{{"role": "user", "content": s}})
		}
	}
}

// isList reports whether raw is a JSON list.
func isList(raw json.RawMessage) bool {
	v := bytes.TrimSpace(raw)
	return len(v) > 0 && v[0] == '['
}

// isResponsesInput reports whether items are OpenAI Responses items: some
// item is a function call, its output, or a reasoning item, which no chat
// message shape has.
func isResponsesInput(items []json.RawMessage) bool {
	for _, raw := range items {
		var item struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(raw, &item) == nil {
			switch item.Type {
			case "function_call", "function_call_output", "reasoning", "custom_tool_call", "custom_tool_call_output", "item_reference":
				return true
			}
		}
	}
	return false
}

// responsesItems reads OpenAI Responses items as messages: a message item
// as a message, function calls in a row as one assistant message with
// those tool calls (after the assistant's text, when it came first),
// each call's output as a tool message. Reasoning and the built-in tools'
// items (web search, file search) hold nothing a later call copies and
// are left out.
func (logs *Logs) responsesItems(items []json.RawMessage, label string) ([]strategies.ChatMessage, error) {
	var out []strategies.ChatMessage
	for i, raw := range items {
		here := fmt.Sprintf("%s[%d]", label, i)
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("%s: want an item object: %v", here, err)
		}
		var item struct {
			Type      string          `json:"type"`
			CallID    string          `json:"call_id"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
			Output    json.RawMessage `json:"output"`
		}
		if err := json.Unmarshal(raw, &item); err != nil {
			return nil, fmt.Errorf("%s: %v", here, err)
		}
		if item.Type == "custom_tool_call" { // a custom tool's call: its input is free text
			item.Type, item.Arguments = "function_call", obj["input"]
		}
		switch {
		case item.Type == "function_call":
			call := strategies.ChatToolCall{ID: item.CallID, Name: item.Name, Arguments: argumentsText(item.Arguments)}
			if n := len(out); n > 0 && out[n-1].Role == strategies.RoleAssistant {
				out[n-1].ToolCalls = append(out[n-1].ToolCalls, call)
			} else {
				out = append(out, strategies.ChatMessage{Role: strategies.RoleAssistant, ToolCalls: []strategies.ChatToolCall{call}})
			}
		case item.Type == "function_call_output" || item.Type == "custom_tool_call_output":
			blocks, err := logs.contentBlocks(item.Output, here+".output")
			if err != nil {
				return nil, err
			}
			text, parts := textOrParts(blocks)
			out = append(out, strategies.ChatMessage{Role: strategies.RoleTool, ToolCallID: item.CallID, Content: text, Parts: parts})
		case item.Type == "message" || item.Type == "" && obj["role"] != nil:
			msgs, err := logs.convertMessage(obj, here)
			if err != nil {
				return nil, err
			}
			out = append(out, msgs...)
		case item.Type == "reasoning":
			logs.skip(here, "Responses reasoning items (the model's reasoning, sent back encrypted: no text of the conversation)")
		case item.Type == "item_reference":
			logs.skip(here, "Responses item_reference items (the item is stored by the provider, not in the log)")
		case item.Type == "":
			logs.skip(here, "Responses items with neither type nor role")
		default:
			logs.skip(here, fmt.Sprintf("Responses %s items (a built-in tool's, run by the provider: no call of the client's)", item.Type))
		}
	}
	return out, nil
}

// wrapped returns the JSON object under the first of keys that obj has,
// unwrapping a further "body" (a batch file's line, a proxy's record), when
// there is one. A logged call (a proxy's or gateway's record, a line of
// OpenAI's batch input or output) holds the request body under one key and
// the reply under another.
func wrapped(obj map[string]json.RawMessage, keys ...string) (json.RawMessage, bool) {
	for _, k := range keys {
		v := bytes.TrimSpace(obj[k])
		if len(v) == 0 || v[0] != '{' {
			continue
		}
		var inner map[string]json.RawMessage
		if json.Unmarshal(v, &inner) != nil {
			continue
		}
		if body, ok := wrapped(inner, "body"); ok {
			return body, true
		}
		return v, true
	}
	return nil, false
}

// replyMessages is the model's reply that a logged call holds beside its
// request (under "response", "output" or "response_body"): a Chat
// Completions response (its first choice's message), an Anthropic Messages
// response, a message, or a streamed response's events (streamedReply). None is no message: the next call's request holds
// the reply too.
func (logs *Logs) replyMessages(obj map[string]json.RawMessage, label string) ([]strategies.ChatMessage, error) {
	raw, ok := wrapped(obj, "response", "output", "response_body")
	if !ok {
		if reply, ok := streamedReply(obj); ok {
			return logs.convertMessage(reply, label+": response (streamed)")
		}
		return nil, nil
	}
	var reply map[string]json.RawMessage
	if err := json.Unmarshal(raw, &reply); err != nil {
		return nil, fmt.Errorf("%s: response: %v", label, err)
	}
	if output := reply["output"]; isList(output) { // a Responses response
		var items []json.RawMessage
		if err := json.Unmarshal(output, &items); err != nil {
			return nil, fmt.Errorf("%s: response.output: want a list of items: %v", label, err)
		}
		return logs.responsesItems(items, label+": response.output")
	}
	if choices := reply["choices"]; choices != nil {
		var list []struct {
			Message map[string]json.RawMessage `json:"message"`
		}
		if err := json.Unmarshal(choices, &list); err != nil {
			return nil, fmt.Errorf("%s: response.choices: want a list of choices: %v", label, err)
		}
		if len(list) == 0 || list[0].Message == nil {
			return nil, nil
		}
		if len(list) > 1 {
			logs.skip(label+": response.choices[1]", "choices after the first of a response with n > 1 (the conversation goes on with the first)")
		}
		reply = list[0].Message
		label += ": response.choices[0].message"
	} else {
		label += ": response"
	}
	if reply["role"] == nil {
		return nil, nil
	}
	return logs.convertMessage(reply, label)
}

func firstWord(b []byte) string {
	if len(b) > 20 {
		b = b[:20]
	}
	return fmt.Sprintf("%q", b)
}

func (logs *Logs) convertMessages(items []json.RawMessage, label string) ([]strategies.ChatMessage, error) {
	var out []strategies.ChatMessage
	for i, item := range items {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(item, &obj); err != nil {
			return nil, fmt.Errorf("%s[%d]: want a message object: %v", label, i, err)
		}
		msgs, err := logs.convertMessage(obj, fmt.Sprintf("%s[%d]", label, i))
		if err != nil {
			return nil, err
		}
		out = append(out, msgs...)
	}
	return out, nil
}

// convertMessage turns one message of any shape into the product's
// messages: one, or, for an Anthropic user message carrying tool_result
// blocks, a tool message per result followed by the user's text.
func (logs *Logs) convertMessage(obj map[string]json.RawMessage, label string) ([]strategies.ChatMessage, error) {
	str := func(keys ...string) (string, error) {
		for _, k := range keys {
			if v := obj[k]; v != nil && string(v) != "null" {
				var s string
				if err := json.Unmarshal(v, &s); err != nil {
					return "", fmt.Errorf("%s.%s: want a string: %v", label, k, err)
				}
				return s, nil
			}
		}
		return "", nil
	}
	var m strategies.ChatMessage
	var err error
	fields := []struct {
		dst  *string
		keys []string
	}{
		{&m.Role, []string{"role"}},
		{&m.ToolCallID, []string{"tool_call_id", "toolCallId"}},
		{&m.Name, []string{"name"}},
		{&m.Source, []string{"source"}},
		{&m.SenderID, []string{"sender_id", "senderId"}},
		{&m.Reasoning, []string{"reasoning", "reasoning_content"}},
	}
	for _, f := range fields {
		if *f.dst, err = str(f.keys...); err != nil {
			return nil, err
		}
	}
	if m.Role == "developer" {
		m.Role = strategies.RoleSystem
	}
	switch m.Role {
	case "tool":
		m.Name = "" // a tool message answers its call by id
	case "function": // OpenAI's legacy function result: answers the last function_call (pairFunctions)
		m.Role = strategies.RoleTool
		if m.Name == "" {
			m.Name = "function"
		}
	}
	blocks, err := logs.contentBlocks(obj["content"], label+".content")
	if err != nil {
		return nil, err
	}
	var results, rest []block
	for _, b := range blocks {
		switch b.kind {
		case "tool_use":
			m.ToolCalls = append(m.ToolCalls, strategies.ChatToolCall{ID: b.id, Name: b.name, Arguments: b.args})
		case "tool_result":
			results = append(results, b)
		default:
			rest = append(rest, b)
		}
	}
	m.Content, m.Parts = textOrParts(rest)
	if strings.TrimSpace(m.Content) == "" && m.Parts == nil {
		// OpenAI: a refusal, or an audio reply's transcript, is what the
		// model said.
		if m.Content, err = str("refusal"); err != nil {
			return nil, err
		}
		if m.Content == "" && obj["audio"] != nil {
			var audio struct {
				Transcript string `json:"transcript"`
			}
			_ = json.Unmarshal(obj["audio"], &audio)
			m.Content = audio.Transcript
		}
	}
	if fc := obj["function_call"]; fc != nil && string(fc) != "null" { // OpenAI's legacy call: no id
		var c map[string]json.RawMessage
		if err := json.Unmarshal(fc, &c); err != nil {
			return nil, fmt.Errorf("%s.function_call: want an object: %v", label, err)
		}
		tc, err := convertToolCall(c, label+".function_call")
		if err != nil {
			return nil, err
		}
		tc.ID = legacyCallID // numbered by pairFunctions, by its place
		m.ToolCalls = append(m.ToolCalls, tc)
	}
	if m.Parts == nil {
		for _, b := range rest {
			if b.kind == "thinking" {
				m.Reasoning = joinNonEmpty(m.Reasoning, b.text)
			}
		}
	}
	for _, key := range []string{"tool_calls", "toolCalls"} {
		if obj[key] == nil || string(obj[key]) == "null" {
			continue
		}
		var calls []map[string]json.RawMessage
		if err := json.Unmarshal(obj[key], &calls); err != nil {
			return nil, fmt.Errorf("%s.%s: want a list of tool calls: %v", label, key, err)
		}
		for j, c := range calls {
			tc, err := convertToolCall(c, fmt.Sprintf("%s.%s[%d]", label, key, j))
			if err != nil {
				return nil, err
			}
			m.ToolCalls = append(m.ToolCalls, tc)
		}
	}
	if len(results) > 0 {
		msgs := make([]strategies.ChatMessage, 0, len(results)+1)
		for _, r := range results {
			msgs = append(msgs, strategies.ChatMessage{Role: strategies.RoleTool, ToolCallID: r.id, Content: r.text, Parts: r.parts})
		}
		if strings.TrimSpace(m.Content) == "" && m.Parts == nil {
			return msgs, nil
		}
		return append(msgs, m), nil
	}
	return []strategies.ChatMessage{m}, nil
}

func joinNonEmpty(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

// convertToolCall reads OpenAI's {id, function: {name, arguments}} or the
// product's {id, name, arguments}; arguments a JSON text or an object.
func convertToolCall(c map[string]json.RawMessage, label string) (strategies.ChatToolCall, error) {
	src := c
	for _, key := range []string{"function", "custom"} { // custom: a custom tool's call, its input free text
		if fn := c[key]; fn != nil {
			if err := json.Unmarshal(fn, &src); err != nil {
				return strategies.ChatToolCall{}, fmt.Errorf("%s.%s: want an object: %v", label, key, err)
			}
		}
	}
	var tc strategies.ChatToolCall
	if id := c["id"]; id != nil {
		if err := json.Unmarshal(id, &tc.ID); err != nil {
			return tc, fmt.Errorf("%s.id: want a string: %v", label, err)
		}
	}
	if name := src["name"]; name != nil {
		if err := json.Unmarshal(name, &tc.Name); err != nil {
			return tc, fmt.Errorf("%s.name: want a string: %v", label, err)
		}
	}
	args := src["arguments"]
	if args == nil {
		args = src["input"]
	}
	tc.Arguments = argumentsText(args)
	return tc, nil
}

// argumentsText is a call's arguments as JSON text: a JSON string holds the
// text, anything else (Anthropic's input object) is the text, compact, as
// the product's conversation files write it.
func argumentsText(raw json.RawMessage) string {
	if raw == nil || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(bytes.TrimSpace(raw))
	}
	return b.String()
}

// block is one part of a message's content.
type block struct {
	kind           string // text, thinking, tool_use, tool_result, part
	text           string
	id, name, args string
	signature      string                   // a thinking block's
	part           strategies.ContentPart   // a part's (kind part)
	parts          []strategies.ContentPart // a tool result's, when it holds media
}

// contentBlocks reads a content that is a string, null, or a list of parts
// or blocks. A block of another kind is kept as the text the model saw in
// it (blockText), or, holding none, as "[type]", as the product's
// conversation files write it.
func (logs *Logs) contentBlocks(raw json.RawMessage, label string) ([]block, error) {
	return logs.contentBlocksIn(raw, label, false)
}

// contentBlocksIn reads a content; inResult says it is a tool result's,
// where a tool block is only text (a result does not nest calls).
func (logs *Logs) contentBlocksIn(raw json.RawMessage, label string, inResult bool) ([]block, error) {
	if raw == nil || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []block{{kind: "text", text: s}}, nil
	}
	var parts []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, fmt.Errorf("%s: want a string or a list of parts", label)
	}
	var out []block
	for i, p := range parts {
		var typ string
		_ = json.Unmarshal(p["type"], &typ)
		get := func(k string) string {
			var v string
			_ = json.Unmarshal(p[k], &v)
			return v
		}
		switch {
		case typ == "text" || typ == "input_text" || typ == "output_text":
			out = append(out, block{kind: "text", text: get("text")})
		case typ == "refusal": // OpenAI: the model's refusal, text it wrote
			out = append(out, block{kind: "text", text: get("refusal")})
		case typ == "thinking":
			out = append(out, block{kind: "thinking", text: get("thinking"), signature: get("signature")})
		case typ == "tool_use" && !inResult:
			out = append(out, block{kind: "tool_use", id: get("id"), name: get("name"), args: argumentsText(p["input"])})
		case typ == "tool_result" && !inResult:
			inner, err := logs.contentBlocksIn(p["content"], fmt.Sprintf("%s[%d].content", label, i), true)
			if err != nil {
				return nil, err
			}
			text, parts := textOrParts(inner)
			out = append(out, block{kind: "tool_result", id: get("tool_use_id"), text: text, parts: parts})
		case typ == "":
			return nil, fmt.Errorf("%s[%d].type: missing", label, i)
		default:
			if part, ok := mediaPart(typ, p); ok {
				out = append(out, block{kind: "part", part: part})
			} else if text := blockText(p, 0); text != "" {
				out = append(out, block{kind: "text", text: text})
			} else {
				out = append(out, block{kind: "text", text: "[" + typ + "]"})
			}
		}
	}
	return out, nil
}

// blockText is the text a block of another kind shows the model, for the
// kinds the providers add (Anthropic's server_tool_use and mcp_tool_use:
// the tool's name and input; web_search_tool_result, web_fetch_tool_result,
// code execution and mcp_tool_result: their content's text, titles and
// URLs, stdout and stderr; search_result: its title, source and text;
// container_upload: the file's id; a text block's citations are the
// text's): the text-bearing fields, nested content read to a few levels.
func blockText(p map[string]json.RawMessage, depth int) string {
	if depth > 3 {
		return ""
	}
	str := func(k string) string {
		var v string
		_ = json.Unmarshal(p[k], &v)
		return v
	}
	var out []string
	add := func(s string) {
		if s != "" {
			out = append(out, s)
		}
	}
	if p["input"] != nil && str("name") != "" { // a server-side tool's call
		add(str("name") + " " + argumentsText(p["input"]))
	}
	for _, k := range []string{"title", "source", "url", "text", "file_id", "stdout", "stderr", "error_code"} {
		add(str(k))
	}
	for _, k := range []string{"content", "result"} {
		v := p[k]
		var s string
		if json.Unmarshal(v, &s) == nil {
			add(s)
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(v, &obj) == nil {
			add(blockText(obj, depth+1))
			continue
		}
		var list []map[string]json.RawMessage
		if json.Unmarshal(v, &list) == nil {
			for _, item := range list {
				add(blockText(item, depth+1))
			}
		}
	}
	return strings.Join(out, "\n")
}

// contentText is the text of a content: its text parts joined.
func (logs *Logs) contentText(raw json.RawMessage, label string) (string, bool, error) {
	blocks, err := logs.contentBlocks(raw, label)
	if err != nil {
		return "", false, err
	}
	var text []string
	for _, b := range blocks {
		if b.kind == "text" {
			text = append(text, b.text)
		}
	}
	return strings.Join(text, "\n"), len(blocks) > 0, nil
}

// textOrParts is what blocks (text, thinking and parts) make of a
// message: their text joined when no block is media, as the product's
// conversation files keep it; else every block as a part in order, so that
// the media is counted by its provider's rule, as ToMessages counts what a
// client adapter sends.
func textOrParts(blocks []block) (string, []strategies.ContentPart) {
	media := false
	for _, b := range blocks {
		media = media || b.kind == "part"
	}
	if !media {
		var text []string
		for _, b := range blocks {
			if b.kind == "text" {
				text = append(text, b.text)
			}
		}
		return strings.Join(text, "\n"), nil
	}
	parts := make([]strategies.ContentPart, 0, len(blocks))
	for _, b := range blocks {
		switch b.kind {
		case "text":
			parts = append(parts, strategies.ContentPart{Type: strategies.PartText, Text: b.text})
		case "thinking":
			parts = append(parts, strategies.NewPart(strategies.PartThinking, b.text, strategies.PartExtra{Signature: b.signature}))
		case "part":
			parts = append(parts, b.part)
		}
	}
	return "", parts
}

// mediaPart reads a content part that is neither text nor a tool block
// (OpenAI's image_url, input_audio and file; Anthropic's image, document
// and redacted_thinking) as the part a client adapter sends for it.
func mediaPart(typ string, p map[string]json.RawMessage) (strategies.ContentPart, bool) {
	field := func(obj json.RawMessage, k string) string {
		var m map[string]json.RawMessage
		var v string
		if json.Unmarshal(obj, &m) == nil {
			_ = json.Unmarshal(m[k], &v)
		}
		return v
	}
	kind, text := typ, ""
	var x strategies.PartExtra // what the part carries besides its text
	switch typ {
	case "image_url":
		kind = strategies.PartImage
		x.URL, x.Detail = field(p["image_url"], "url"), field(p["image_url"], "detail")
		if mt, data, ok := splitDataURL(x.URL); ok {
			x.MediaType, x.Data, x.URL = mt, data, ""
		}
	case "input_image": // Responses: image_url is the URL itself
		kind = strategies.PartImage
		_ = json.Unmarshal(p["image_url"], &x.URL)
		_ = json.Unmarshal(p["detail"], &x.Detail)
		_ = json.Unmarshal(p["file_id"], &x.FileID)
		if mt, data, ok := splitDataURL(x.URL); ok {
			x.MediaType, x.Data, x.URL = mt, data, ""
		}
	case "input_audio":
		kind = strategies.PartAudio
		x.Data = field(p["input_audio"], "data")
		if f := field(p["input_audio"], "format"); f != "" {
			x.MediaType = "audio/" + f
		}
	case "file":
		x.FileID = field(p["file"], "file_id")
		if mt, data, ok := splitDataURL(field(p["file"], "file_data")); ok {
			x.MediaType, x.Data = mt, data
		}
	case strategies.PartImage, strategies.PartDocument:
		src := p["source"]
		switch field(src, "type") {
		case "base64":
			x.MediaType, x.Data = field(src, "media_type"), field(src, "data")
		case "url":
			x.URL = field(src, "url")
		case "file":
			x.FileID = field(src, "file_id")
		case "text":
			x.MediaType, text = field(src, "media_type"), field(src, "data")
		}
	case strategies.PartRedactedThinking:
		_ = json.Unmarshal(p["data"], &x.Data)
	default:
		return strategies.ContentPart{}, false
	}
	return strategies.NewPart(kind, text, x), true
}

// splitDataURL splits a data: URL with base64 content into its media type
// and data.
func splitDataURL(url string) (mediaType, data string, ok bool) {
	head, data, found := strings.Cut(strings.TrimPrefix(url, "data:"), ";base64,")
	if !found || !strings.HasPrefix(url, "data:") {
		return "", "", false
	}
	return head, data, true
}

// ErrNoLogs says that files held nothing this package reads.
var ErrNoLogs = errors.New("the files hold no conversation and no run record")
