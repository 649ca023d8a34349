package strategies

import (
	"reflect"
	"testing"
)

// compactedHistory is a conversation an Anthropic compaction summarised:
// four messages before the compaction block, a turn after it.
func compactedHistory() []ChatMessage {
	call := func(id, name string) []ChatToolCall {
		return []ChatToolCall{{ID: id, Name: name, Arguments: `{"q":"x"}`}}
	}
	return []ChatMessage{
		{Role: RoleSystem, Content: "You are a research agent."},
		{Role: RoleUser, Content: "Collect the quarterly figures."},
		{Role: RoleAssistant, ToolCalls: call("t1", "search")},
		{Role: RoleTool, ToolCallID: "t1", Content: "Q1 412, Q2 398, Q3 441"},
		{Role: RoleUser, Content: "Add Q4 when you have it."},
		{Role: RoleAssistant, Parts: []ContentPart{
			{Type: PartCompaction, Text: "The user wants quarterly figures; Q1 412, Q2 398, Q3 441 found; Q4 pending.", Extra: &PartExtra{Signature: "c2ln"}},
			{Type: PartText, Text: "Looking for Q4 now."},
		}},
		{Role: RoleUser, Content: "Q4 is out: check the newsroom."},
		{Role: RoleAssistant, ToolCalls: call("t2", "fetch_newsroom")},
		{Role: RoleTool, ToolCallID: "t2", Content: "Q4 revenue 455"},
	}
}

// Every chat strategy sends the compaction right after the system prompt,
// whole, and nothing from before it; what follows it is the strategy's.
func TestCompactionPassedThrough(t *testing.T) {
	h := compactedHistory()
	for _, name := range chatStrategyNames {
		for label, set := range partsOptions() {
			opts := chatDefaults()
			opts.MaxTokens = 1_000_000
			set(&opts)
			opts.MaxTokens = max(opts.MaxTokens, 200)
			resp, err := mustLookup(t, name).Render(&Request{History: h, Options: opts})
			if err != nil {
				t.Fatalf("%s, %s: %v", name, label, err)
			}
			out := resp.Messages
			if err := sendable(out, false); err != nil {
				t.Errorf("%s, %s: %v", name, label, err)
			}
			if len(out) < 3 || !reflect.DeepEqual(out[0], h[0]) || !reflect.DeepEqual(out[1], h[5]) {
				t.Errorf("%s, %s: the output does not open with the system prompt and the compaction: %+v", name, label, out)
				continue
			}
			for i, m := range out[2:] {
				for _, old := range h[1:5] {
					if m.Role != RoleTool && reflect.DeepEqual(m, old) || m.ToolCallID == "t1" {
						t.Errorf("%s, %s: message %d is from before the compaction: %+v", name, label, i+2, m)
					}
				}
			}
			if resp.Stats.CompactionReplaced != 4 || resp.Stats.MessagesDropped < 4 {
				t.Errorf("%s, %s: %d replaced, %d dropped, want 4 replaced", name, label, resp.Stats.CompactionReplaced, resp.Stats.MessagesDropped)
			}
		}
	}
}

// A compaction that called tools is pinned with its results; a later
// compaction replaces an earlier one.
func TestCompactionWithToolsAndTwice(t *testing.T) {
	h := compactedHistory()
	second := ChatMessage{Role: RoleAssistant, Parts: []ContentPart{{Type: PartCompaction, Extra: &PartExtra{Data: "ZW5jcnlwdGVk"}}}, ToolCalls: []ChatToolCall{{ID: "t3", Name: "save", Arguments: "{}"}}}
	h = append(h, second, ChatMessage{Role: RoleTool, ToolCallID: "t3", Content: "saved"}, ChatMessage{Role: RoleUser, Content: "Thanks."})
	for _, name := range chatStrategyNames {
		opts := chatDefaults()
		opts.MaxTokens, opts.Trigger, opts.Keep = 1_000_000, 0, 0
		resp, err := mustLookup(t, name).Render(&Request{History: h, Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		want := []ChatMessage{h[0], h[9], h[10], h[11]}
		if !reflect.DeepEqual(resp.Messages, want) || resp.Stats.CompactionReplaced != 8 {
			t.Errorf("%s: %+v (replaced %d)", name, resp.Messages, resp.Stats.CompactionReplaced)
		}
	}
}
