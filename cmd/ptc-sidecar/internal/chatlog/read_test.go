package chatlog

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// FuzzReadLogs: no input makes reading a log, or finding its calls'
// evidence, panic. (The strategies have fuzz targets of their own.)
func FuzzReadLogs(f *testing.F) {
	for _, file := range []string{"testdata/openai_requests.jsonl", "testdata/anthropic_request.json", "testdata/trace_run.json", "testdata/claude_code_session.jsonl", "../../testdata/report/anthropic_screenshots.json"} {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`[{"role":"user","content":[{"type":"tool_result","content":[{"type":"image"}]}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var logs Logs
		if logs.Read("fuzz", bytes.NewReader(data)) != nil {
			return
		}
		for _, c := range logs.Chats {
			for n := range c.Messages {
				strategies.ChatEvidence(c.Messages[:n], &c.Messages[n])
			}
		}
		for _, r := range logs.Runs {
			turns := WithMemorySnapshots(r.Req)
			for k := range turns {
				_, _ = BindingsOf(MemoryBefore(r.Req, turns, k))
			}
		}
	})
}

// A coding agent's session transcript (Claude Code's JSONL) is one
// conversation: the lines of one assistant message are one message with its
// parallel tool calls, tool results answer their calls, and summaries,
// snapshots and a sub-agent's lines are left out.
func TestReadTranscript(t *testing.T) {
	f, err := os.Open("testdata/claude_code_session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var logs Logs
	if err := logs.Read("session", f); err != nil {
		t.Fatal(err)
	}
	if len(logs.Chats) != 1 {
		t.Fatalf("%d conversations, want 1", len(logs.Chats))
	}
	var roles []string
	for _, m := range logs.Chats[0].Messages {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, " "); got != "user assistant tool tool assistant" {
		t.Fatalf("roles %q", got)
	}
	msgs := logs.Chats[0].Messages
	if a := msgs[1]; len(a.ToolCalls) != 2 || a.Reasoning != "Read the file first." || a.ToolCalls[1].Name != "Grep" {
		t.Errorf("the assistant's lines read as %+v", a)
	}
	if msgs[3].ToolCallID != "toolu_02" || msgs[4].Content != "Editing." {
		t.Errorf("messages read as %+v", msgs)
	}
	ev := strategies.ChatEvidence(msgs[:4], &msgs[4])
	if len(ev) != 2 {
		t.Errorf("the edit's evidence is %v, want the path and the line it read", ev)
	}
}

// A log of calls, each the request a gateway or batch file recorded with
// the reply beside it, reads as the conversation its last request and reply
// make: for OpenAI's and Anthropic's shapes, and a batch file's lines.
func TestReadLoggedCalls(t *testing.T) {
	for _, file := range []string{"testdata/openai_requests.jsonl", "testdata/anthropic_request.json"} {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSpace(raw), []byte("\n"))
		if strings.HasSuffix(file, ".json") {
			lines = [][]byte{raw}
		}
		var body map[string]json.RawMessage // raw, so that arguments keep their keys' order
		if err := json.Unmarshal(lines[len(lines)-1], &body); err != nil {
			t.Fatal(err)
		}
		var want Logs
		if err := want.Read(file, bytes.NewReader(raw)); err != nil {
			t.Fatal(err)
		}
		var msgs []json.RawMessage
		if err := json.Unmarshal(body["messages"], &msgs); err != nil {
			t.Fatal(err)
		}
		var pairs, batch bytes.Buffer
		for i, m := range msgs {
			var reply map[string]json.RawMessage
			if err := json.Unmarshal(m, &reply); err != nil {
				t.Fatal(err)
			}
			if string(reply["role"]) != `"assistant"` {
				continue
			}
			req := map[string]any{}
			for k, v := range body {
				req[k] = v
			}
			req["messages"] = msgs[:i]
			var resp any = map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "content": reply["content"]}
			if strings.Contains(file, "openai") {
				resp = map[string]any{"object": "chat.completion", "choices": []any{map[string]any{"index": 0, "message": m}}}
			}
			line, _ := json.Marshal(map[string]any{"request": req, "response": resp})
			pairs.Write(append(line, '\n'))
			line, _ = json.Marshal(map[string]any{"custom_id": "c", "method": "POST", "url": "/v1/chat/completions", "body": req,
				"response": map[string]any{"status_code": 200, "body": resp}})
			batch.Write(append(line, '\n'))
		}
		for name, log := range map[string]*bytes.Buffer{"pairs": &pairs, "batch": &batch} {
			var got Logs
			if err := got.Read(name, log); err != nil {
				t.Fatalf("%s of %s: %v", name, file, err)
			}
			if len(got.Chats) != 1 || !reflect.DeepEqual(got.Chats[0].Messages, want.Chats[0].Messages[:len(got.Chats[0].Messages)]) ||
				len(got.Chats[0].Messages) < len(want.Chats[0].Messages)-1 {
				t.Errorf("%s of %s: read %d conversations, the first %+v; want the one of the requests, %+v", name, file, len(got.Chats), got.Chats, want.Chats)
			}
		}
	}
}

// Media in a log is read as the parts a client adapter sends (so that the
// report counts it by the provider's rule), in its place among the text:
// OpenAI's image_url (a data URL) and input_audio, Anthropic's images in
// tool results, and thinking with its signature beside them.
func TestReadMedia(t *testing.T) {
	read := func(file string) []strategies.ChatMessage {
		t.Helper()
		f, err := os.Open("../../testdata/report/" + file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var logs Logs
		if err := logs.Read(file, f); err != nil || len(logs.Chats) != 1 {
			t.Fatalf("%s: %v, %d conversations", file, err, len(logs.Chats))
		}
		return logs.Chats[0].Messages
	}
	user := read("openai_media_calls.jsonl")[1]
	var types []string
	for _, p := range user.Parts {
		types = append(types, p.Type+" "+p.Extras().MediaType)
	}
	if user.Content != "" || strings.Join(types, ", ") != "text , image image/png, audio audio/wav" || !strings.HasPrefix(user.Parts[1].Extras().Data, "iVBORw0KGgo") || user.Parts[1].Extras().Detail != "high" {
		t.Errorf("the user's message read as content %q, parts %v", user.Content, types)
	}
	msgs := read("anthropic_screenshots.json")
	shot := msgs[3]
	if shot.Role != strategies.RoleTool || shot.ToolCallID != "toolu_00" || len(shot.Parts) != 2 || shot.Parts[1].Type != strategies.PartImage || shot.Parts[1].Extras().MediaType != "image/png" {
		t.Errorf("the first tool result read as %+v", shot)
	}
	if a := msgs[2]; a.Content != "" || len(a.Parts) != 0 || a.Reasoning != "Next step 0 for INV-20931." || len(a.ToolCalls) != 1 {
		t.Errorf("an assistant message of thinking and a tool call read as %+v", a)
	}
}

// An OpenAI Responses log (a request body's input items, and a logged
// call whose reply is a response's output items) reads as the conversation
// the same calls make in Chat Completions' shape.
func TestReadResponsesItems(t *testing.T) {
	raw, err := os.ReadFile("testdata/openai_requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var want Logs
	if err := want.Read("chat", bytes.NewReader(raw)); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(raw), []byte("\n"))
	var body struct {
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(lines[len(lines)-1], &body); err != nil {
		t.Fatal(err)
	}
	var instructions string
	var items []any
	for _, m := range body.Messages {
		switch {
		case m.Role == "system":
			_ = json.Unmarshal(m.Content, &instructions)
		case m.Role == "tool":
			var text string
			_ = json.Unmarshal(m.Content, &text)
			items = append(items, map[string]any{"type": "function_call_output", "call_id": m.ToolCallID, "output": text})
		case len(m.ToolCalls) > 0:
			var text string
			if json.Unmarshal(m.Content, &text) == nil && text != "" { // the text first, as a response's output has it
				items = append(items, map[string]any{"type": "message", "role": "assistant",
					"content": []any{map[string]any{"type": "output_text", "text": text}}})
			}
			for _, c := range m.ToolCalls {
				items = append(items, map[string]any{"type": "function_call", "call_id": c.ID, "name": c.Function.Name, "arguments": c.Function.Arguments})
			}
		default:
			items = append(items, map[string]any{"type": "message", "role": m.Role, "content": m.Content})
		}
	}
	request, _ := json.Marshal(map[string]any{"model": "gpt-4.1", "instructions": instructions, "input": items})
	last := len(items) - 1
	for last >= 0 && items[last].(map[string]any)["type"] != "function_call" {
		last--
	}
	call, _ := json.Marshal(map[string]any{
		"request":  map[string]any{"model": "gpt-4.1", "instructions": instructions, "input": items[:last]},
		"response": map[string]any{"object": "response", "output": items[last : last+1]},
	})
	for name, log := range map[string][]byte{"request body": request, "logged call": call} {
		var got Logs
		if err := got.Read(name, bytes.NewReader(log)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got.Chats) != 1 {
			t.Fatalf("%s: %d conversations", name, len(got.Chats))
		}
		g, w := got.Chats[0].Messages, want.Chats[0].Messages
		if name == "logged call" {
			w = w[:len(g)]
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s read as\n%+v\nwant\n%+v", name, g, w)
		}
	}
}
