package chatlog

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// FuzzReadLogs: no input makes reading a log, or finding its calls'
// evidence, panic. (The strategies have fuzz targets of their own.)
func FuzzReadLogs(f *testing.F) {
	for _, file := range []string{"testdata/openai_requests.jsonl", "testdata/anthropic_request.json", "testdata/trace_run.json", "testdata/claude_code_session.jsonl"} {
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
