package main

import (
	"fmt"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/cmd/ptc-sidecar/internal/chatlog"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// BenchmarkReportLongConversation runs the report's strategies on every
// call of one conversation of 250, 500 and 1,000 calls (a coding agent's
// session: one request, then calls whose results are a few hundred bytes).
// Each call renders the whole history before it, so the time per call
// grows with the conversation: docs/BENCHMARKS.md has the figures.
func BenchmarkReportLongConversation(b *testing.B) {
	for _, calls := range []int{250, 500, 1000} {
		conv := longConversation(calls)
		b.Run(fmt.Sprint(calls), func(b *testing.B) {
			opts, err := newReportOptions(&reportFlags{pricing: "openai"})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				rp := newReporter(opts)
				if err := rp.addChat(conv); err != nil || rp.chatG.tallies[0].calls != calls {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*calls), "µs/call")
		})
	}
}

// longConversation is a user's request and n tool calls, each reading a
// file the one before named.
func longConversation(n int) chatlog.Conversation {
	msgs := []strategies.ChatMessage{
		{Role: strategies.RoleSystem, Content: "You are a coding agent. Use the tools."},
		{Role: strategies.RoleUser, Content: "Find where parse_config_7731 is defined and fix its off-by-one."},
	}
	for i := range n {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			strategies.ChatMessage{Role: strategies.RoleAssistant, ToolCalls: []strategies.ChatToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"src/module_%d.py"}`, i)}}},
			strategies.ChatMessage{Role: strategies.RoleTool, ToolCallID: id, Content: fmt.Sprintf("def handler_%d(x):\n    # see src/module_%d.py\n    return compute_%d(x) + %d\n", i, i+1, i*7919%100000, i*31)})
	}
	return chatlog.Conversation{Label: "bench", Messages: msgs}
}
