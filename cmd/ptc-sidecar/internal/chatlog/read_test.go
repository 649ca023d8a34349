package chatlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// FuzzReadLogs: no input makes reading a log, or finding its calls'
// evidence, panic. (The strategies have fuzz targets of their own.)
func FuzzReadLogs(f *testing.F) {
	for _, file := range []string{"testdata/openai_requests.jsonl", "testdata/anthropic_request.json", "testdata/trace_run.json", "testdata/claude_code_session.jsonl", "../../testdata/report/anthropic_screenshots.json",
		"../../testdata/report/openai_chat_shapes.json", "../../testdata/report/anthropic_server_tools.json", "../../testdata/report/openai_responses_items.jsonl",
		"../../testdata/report/gateway_records.jsonl", "../../testdata/report/messy_messages.jsonl"} {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`[{"role":"user","content":[{"type":"tool_result","content":[{"type":"image"}]}]}]`))
	f.Add([]byte(`{"request":{"messages":[{"role":"user","content":"hi"}]},"response":"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}}]}\n\n"}`))
	f.Add([]byte(`{"request":{"messages":[{"role":"user","content":"hi"}]},"response":[{"type":"message_start"},{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}},{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}]}`))
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
	read := func(file string) []strategies.ChatMessage { return readReportLog(t, file) }
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

// readReportLog reads a log of the report's tests that holds one
// conversation.
func readReportLog(t *testing.T, file string) []strategies.ChatMessage {
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

// The logs of shapes written from the providers' API references
// (testdata/report/shapes.py writes them; README.md there says from
// what): what the model saw in a block of a newer kind is kept as text, a
// refusal and an audio transcript are what the assistant said, a legacy
// function call answers by its place, a custom call keeps its free text.
func TestReadNewShapes(t *testing.T) {
	m := readReportLog(t, "openai_chat_shapes.json")
	if m[0].Role != strategies.RoleSystem || m[3].ToolCallID != m[2].ToolCalls[0].ID || m[4].Content != "I can't move pallets without a supervisor code." ||
		m[9].Content != "I will not print the supervisor code." || m[9].ToolCalls[0].Arguments != "ticket MV-310552: PAL-77310 now in C-2207" ||
		m[6].ToolCalls[0].Arguments != "" || m[12].Content != "Done: ticket MV-310552." {
		t.Errorf("Chat Completions shapes read as %+v", m)
	}
	m = readReportLog(t, "anthropic_server_tools.json")
	for _, want := range []string{`web_search {"query":"CVE-2025-31337 libxml2 fixed version"}`, "https://gitlab.gnome.org/GNOME/libxml2/-/releases/v2.13.6", "image sha256:9be1d07a44c3"} {
		if !strings.Contains(m[2].Content, want) {
			t.Errorf("the assistant's server tool blocks read as %q, without %q", m[2].Content, want)
		}
	}
	if !strings.Contains(m[3].Content, "tag as 4.18.3") || !strings.Contains(m[1].Content, "file_011CNha8iCJcU1wXNR6q4V8w") || len(m[5].Parts) != 2 {
		t.Errorf("search results, container upload, image result read as %+v", m[1:6])
	}
	m = readReportLog(t, "openai_responses_items.jsonl")
	if m[4].ToolCalls[0].Arguments != "UPDATE charges SET refunded = true WHERE id = 'ch_3PqM2a';" || m[5].ToolCallID != "call_B2" || m[8].ToolCalls[0].ID != "call_C3" {
		t.Errorf("Responses items read as %+v", m)
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

// The value reader splits a stream into its values however they are laid
// out (on one line, across lines, with strings holding brackets, quotes and
// escapes), skips a byte order mark and blank CRLF lines, says which value
// the file cuts short, and scans through a value over its limit without
// holding it.
func TestValueReader(t *testing.T) {
	in := "\ufeff 1 \"a\\\"}\" {\"x\":[1,{\"y\":\"]\\\\\"}]}\r\n\r\n[] true null -2.5e3{\"z\":[]}\n{\"cut\": [1, "
	v := newValueReader(strings.NewReader(in), 0)
	var got []string
	for {
		raw, _, err := v.next()
		if err != nil {
			if err != errTruncated {
				t.Fatalf("after %q: %v, want the last value cut short", got, err)
			}
			break
		}
		got = append(got, string(raw))
	}
	want := []string{`1`, `"a\"}"`, `{"x":[1,{"y":"]\\"}]}`, `[]`, `true`, `null`, `-2.5e3`, `{"z":[]}`}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("values %q, want %q", got, want)
	}

	big := `{"messages":"` + strings.Repeat("a", 1<<20) + `"}` + "\n[1]"
	v = newValueReader(strings.NewReader(big), 1000)
	_, _, err := v.next()
	var over *oversize
	if !errors.As(err, &over) || over.size != int64(len(big)-4) {
		t.Fatalf("a value over the limit: %v", err)
	}
	if cap(v.buf) > 4096 {
		t.Errorf("a value over the limit of 1000 bytes left a buffer of %d bytes", cap(v.buf))
	}
	if raw, at, err := v.next(); err != nil || string(raw) != "[1]" || at != int64(len(big)-3) {
		t.Errorf("the value after it: %q at %d, %v", raw, at, err)
	}
}

// A shape of log the command cannot use is counted with its reason, the
// rest read: a value cut short at the end of the file, one over the limit,
// Responses items no client call is made of, the other choices of an n > 1
// response. A stray byte stops reading with the value and byte it is at.
func TestReadSkipped(t *testing.T) {
	var logs Logs
	logs.MaxValueBytes = 200
	in := `{"role":"user","content":"hi"}` + "\n" +
		`{"role":"user","content":"` + strings.Repeat("x", 300) + `"}` + "\n" +
		`{"input":[{"type":"web_search_call","id":"ws"},{"type":"item_reference","id":"msg"},{"role":"user","content":"q"}]}` + "\n" +
		`{"messages":[{"role":"user","content":"a"}],"response":{"choices":[{"message":{"role":"assistant","content":"b"}},{"message":{"role":"assistant","content":"c"}}]}}` + "\n" +
		`{"role":"user","con`
	if err := logs.Read("f", strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, s := range logs.Skipped {
		reasons = append(reasons, fmt.Sprintf("%d %s @ %s", s.Count, s.Reason, s.First))
	}
	for i, want := range []string{"1 a value over 200 bytes", "1 Responses web_search_call items", "1 Responses item_reference items", "1 choices after the first", "1 a value cut short"} {
		if i >= len(reasons) || !strings.HasPrefix(reasons[i], want) {
			t.Fatalf("skipped %q, want %q at %d", reasons, want, i)
		}
	}
	if !strings.Contains(reasons[0], "f, value 2 (byte 31)") {
		t.Errorf("the value over the limit is not placed: %q", reasons[0])
	}
	if len(logs.Chats) != 3 || logs.Chats[2].Messages[1].Content != "b" {
		t.Errorf("read %+v", logs.Chats)
	}
	err := (&Logs{}).Read("g", strings.NewReader("{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\" \"user\"}\n"))
	if err == nil || !strings.Contains(err.Error(), "g, value 2 (byte 31): not JSON") {
		t.Errorf("a malformed value: %v", err)
	}
}

// OpenAI's legacy function calls (function_call, then role "function")
// read as a tool call and the tool message answering it, with an id of the
// call's place, so that the same call in the next request of a log reads
// the same and the chain of requests is one conversation.
func TestReadLegacyFunctions(t *testing.T) {
	req := func(n int) string {
		msgs := []string{`{"role":"user","content":"weather in Oslo?"}`,
			`{"role":"assistant","content":null,"function_call":{"name":"weather","arguments":"{\"city\":\"Oslo\"}"}}`,
			`{"role":"function","name":"weather","content":"-3C"}`,
			`{"role":"assistant","content":null,"function_call":{"name":"weather","arguments":"{\"city\":\"Bergen\"}"}}`}
		return `{"messages":[` + strings.Join(msgs[:n], ",") + `]}`
	}
	var logs Logs
	if err := logs.Read("f", strings.NewReader(req(2)+"\n"+req(4)+"\n")); err != nil {
		t.Fatal(err)
	}
	if len(logs.Chats) != 1 {
		t.Fatalf("%d conversations, want 1", len(logs.Chats))
	}
	m := logs.Chats[0].Messages
	if m[1].ToolCalls[0].ID != "function_call_1" || m[2].Role != strategies.RoleTool || m[2].ToolCallID != "function_call_1" || m[2].Name != "" || m[3].ToolCalls[0].ID != "function_call_3" {
		t.Fatalf("read %+v", m)
	}
}

// Reading a log is linear: the allocations per message of a conversation
// four times longer are the same (a count of the work, not its time).
func TestReadLinear(t *testing.T) {
	allocs := func(n int) float64 {
		log := messagesLog(n)
		return testing.AllocsPerRun(3, func() {
			var logs Logs
			if err := logs.Read("f", bytes.NewReader(log)); err != nil {
				t.Fatal(err)
			}
		}) / float64(n)
	}
	if small, large := allocs(2_000), allocs(8_000); large > 1.1*small {
		t.Errorf("%.1f allocations a message at 8,000 messages, %.1f at 2,000", large, small)
	}
}

// messagesLog is JSON Lines of n messages: tool calls and their results.
func messagesLog(n int) []byte {
	var log bytes.Buffer
	for i := 0; i < n/2; i++ {
		fmt.Fprintf(&log, `{"role":"assistant","tool_calls":[{"id":"c%d","type":"function","function":{"name":"get","arguments":"{\"n\":%d}"}}]}`+"\n", i, i)
		fmt.Fprintf(&log, `{"role":"tool","tool_call_id":"c%d","content":"value %d"}`+"\n", i, i*7919)
	}
	return log.Bytes()
}

// BenchmarkReadMessages reads JSON Lines of n messages, one conversation of
// tool calls and results, at doubling n: the time per message stays flat.
func BenchmarkReadMessages(b *testing.B) {
	for _, n := range []int{10_000, 20_000, 40_000} {
		log := messagesLog(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(log)))
			b.ReportAllocs()
			for range b.N {
				var logs Logs
				if err := logs.Read("bench", bytes.NewReader(log)); err != nil || len(logs.Chats[0].Messages) != n {
					b.Fatal(err)
				}
			}
		})
	}
}

// A log of requests of two conversations interleaved, with a request
// retried and an earlier one logged again out of order, holds the two
// conversations, each once, as its longest request.
func TestReadInterleavedRequests(t *testing.T) {
	req := func(user string, calls int) string {
		msgs := []string{fmt.Sprintf(`{"role":"user","content":"I am %s"}`, user)}
		for i := range calls {
			msgs = append(msgs, fmt.Sprintf(`{"role":"assistant","tool_calls":[{"id":"c%d","type":"function","function":{"name":"get","arguments":"{\"user\":\"%s\",\"n\":%d}"}}]}`, i, user, i),
				fmt.Sprintf(`{"role":"tool","tool_call_id":"c%d","content":"row %d of %s"}`, i, i*7919, user))
		}
		return `{"model":"gpt-4o","messages":[` + strings.Join(msgs, ",") + "]}\n"
	}
	log := req("ana_1", 0) + req("bo_2", 0) + req("ana_1", 1) + req("ana_1", 1) + req("bo_2", 1) + req("ana_1", 2) + req("bo_2", 0) + req("ana_1", 1) + req("bo_2", 2)
	var logs Logs
	if err := logs.Read("log", strings.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	if len(logs.Chats) != 2 {
		t.Fatalf("%d conversations, want 2: %+v", len(logs.Chats), logs.Chats)
	}
	for i, user := range []string{"ana_1", "bo_2"} {
		c := logs.Chats[i]
		if len(c.Messages) != 5 || c.From != 0 || !strings.Contains(c.Messages[0].Content, user) {
			t.Errorf("conversation %d: %+v, want %s's 5 messages", i, c, user)
		}
	}
}

// A logged call's reply that the client sends back otherwise than it came
// (its thinking left out, as Anthropic allows for earlier turns) still
// leads to the next request: one conversation, its calls once.
func TestReadReplySentBackChanged(t *testing.T) {
	call := func(history, reply string) string {
		return `{"request":{"model":"claude","messages":[` + history + `]},"response":{"type":"message","role":"assistant","content":[` + reply + `]}}` + "\n"
	}
	user := `{"role":"user","content":"refund order 55120"}`
	use := `{"type":"tool_use","id":"t1","name":"get_order","input":{"id":"55120"}}`
	thinking := `{"type":"thinking","thinking":"Look the order up.","signature":"sig"}`
	result := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"order 55120: paid by card_8812"}]}`
	log := call(user, thinking+","+use) +
		call(user+`,{"role":"assistant","content":[`+use+`]},`+result, `{"type":"tool_use","id":"t2","name":"refund","input":{"card":"card_8812"}}`)
	var logs Logs
	if err := logs.Read("log", strings.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	if len(logs.Chats) != 1 || len(logs.Chats[0].Messages) != 4 || logs.Chats[0].Messages[1].Reasoning != "" {
		t.Fatalf("read %+v, want one conversation of 4 messages, as the last request sent them", logs.Chats)
	}
}

// A logged call whose reply was streamed holds the stream's events (a
// list of them, or the stream's text as a proxy records the body): they
// read as the message they spell, so the logs of the real conversations
// with every reply streamed read as with the replies whole.
func TestReadStreamedReplies(t *testing.T) {
	pieces := func(s string) []string { // s in three pieces
		r := []rune(s)
		a, b := len(r)/3, 2*len(r)/3
		return []string{string(r[:a]), string(r[a:b]), string(r[b:])}
	}
	openAI := func(reply map[string]any) []any {
		msg := reply["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
		chunk := func(delta map[string]any) any {
			return map[string]any{"object": "chat.completion.chunk", "choices": []any{map[string]any{"index": 0, "delta": delta}}}
		}
		events := []any{chunk(map[string]any{"role": "assistant", "content": ""})}
		if text, _ := msg["content"].(string); text != "" {
			for _, p := range pieces(text) {
				events = append(events, chunk(map[string]any{"content": p}))
			}
		}
		calls, _ := msg["tool_calls"].([]any)
		for i, c := range calls {
			fn := c.(map[string]any)["function"].(map[string]any)
			for j, p := range pieces(fn["arguments"].(string)) {
				tc := map[string]any{"index": i, "function": map[string]any{"arguments": p}}
				if j == 0 {
					tc["id"], tc["type"] = c.(map[string]any)["id"], "function"
					tc["function"].(map[string]any)["name"] = fn["name"]
				}
				events = append(events, chunk(map[string]any{"tool_calls": []any{tc}}))
			}
		}
		return append(events, map[string]any{"object": "chat.completion.chunk", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}}})
	}
	anthropic := func(reply map[string]any) []any {
		events := []any{map[string]any{"type": "message_start", "message": map[string]any{"role": "assistant", "content": []any{}}}}
		for i, b := range reply["content"].([]any) {
			block := b.(map[string]any)
			switch block["type"] {
			case "text":
				events = append(events, map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
				for _, p := range pieces(block["text"].(string)) {
					events = append(events, map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": p}})
				}
			case "tool_use":
				events = append(events, map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": block["id"], "name": block["name"], "input": map[string]any{}}})
				for _, p := range pieces(string(block["input"].(json.RawMessage))) {
					events = append(events, map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": p}})
				}
			}
			events = append(events, map[string]any{"type": "content_block_stop", "index": i})
		}
		return append(events, map[string]any{"type": "message_stop"})
	}
	for file, stream := range map[string]func(map[string]any) []any{"openai_sdk_calls.jsonl": openAI, "anthropic_sdk_calls.jsonl": anthropic} {
		raw, err := os.ReadFile("testdata/real/" + file)
		if err != nil {
			t.Fatal(err)
		}
		var streamed bytes.Buffer
		for i, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
			var rec map[string]any
			if err := json.Unmarshal(line, &rec); err != nil {
				t.Fatal(err)
			}
			var keep map[string]json.RawMessage // the request as logged: its keys' order kept
			if err := json.Unmarshal(line, &keep); err != nil {
				t.Fatal(err)
			}
			rec["request"] = keep["request"]
			var reply struct {
				Content []struct {
					Input json.RawMessage `json:"input"`
				} `json:"content"`
			}
			_ = json.Unmarshal(keep["response"], &reply)
			for j, b := range reply.Content { // tool inputs as logged
				if b.Input != nil {
					rec["response"].(map[string]any)["content"].([]any)[j].(map[string]any)["input"] = b.Input
				}
			}
			events := stream(rec["response"].(map[string]any))
			rec["response"] = events
			if i%2 == 1 { // the stream's text
				var sse strings.Builder
				for _, ev := range events {
					b, _ := json.Marshal(ev)
					fmt.Fprintf(&sse, "event: x\ndata: %s\n\n", b)
				}
				rec["response"] = sse.String() + "data: [DONE]\n\n"
			}
			b, _ := json.Marshal(rec)
			streamed.Write(append(b, '\n'))
		}
		var whole, got Logs
		if err := whole.Read(file, bytes.NewReader(raw)); err != nil {
			t.Fatal(err)
		}
		if err := got.Read(file, &streamed); err != nil {
			t.Fatal(err)
		}
		if len(got.Chats) != len(whole.Chats) {
			t.Fatalf("%s streamed: %d conversations, want %d", file, len(got.Chats), len(whole.Chats))
		}
		for i := range whole.Chats {
			g, w := got.Chats[i].Messages, whole.Chats[i].Messages
			for n := range min(len(g), len(w)) {
				if !reflect.DeepEqual(g[n], w[n]) {
					t.Errorf("%s streamed, conversation %d, message %d: %+v, want %+v", file, i, n, g[n], w[n])
					break
				}
			}
			if len(g) != len(w) {
				t.Errorf("%s streamed, conversation %d: %d messages, want %d", file, i, len(g), len(w))
			}
		}
	}
}
