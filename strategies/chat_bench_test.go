package strategies

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
)

// benchHistory is a 500-message agent log: a system prompt, then turns of a
// prompt, tool loops of three calls with results of a few hundred tokens, and
// a short answer; about 110,000 o200k_base tokens in all.
func benchHistory() []ChatMessage {
	h := []ChatMessage{{Role: RoleSystem, Content: "You are a mining agent. " + strings.Repeat("Follow the rules. ", 40)}}
	tools := []string{"get_status", "mine", "search"}
	for turn := 0; len(h) < 500; turn++ {
		h = append(h, ChatMessage{Role: RoleUser, Source: SourceDirect, Content: fmt.Sprintf("Turn %d: mine the next belt and report the cargo.", turn)})
		for loop := 0; loop < 3 && len(h) < 496; loop++ {
			a := ChatMessage{Role: RoleAssistant, Content: "Working on it."}
			for c, name := range tools {
				a.ToolCalls = append(a.ToolCalls, ChatToolCall{ID: fmt.Sprintf("t%d-%d-%d", turn, loop, c), Name: name, Arguments: fmt.Sprintf(`{"belt": %d, "depth": %d}`, turn, loop)})
			}
			h = append(h, a)
			for _, tc := range a.ToolCalls {
				h = append(h, ChatMessage{Role: RoleTool, ToolCallID: tc.ID, Content: strings.Repeat(fmt.Sprintf(`{"item": "ore-%s", "grade": %d, "station": "alpha-7"} `, tc.ID, turn), 20)})
			}
		}
		h = append(h, ChatMessage{Role: RoleAssistant, Content: fmt.Sprintf("Turn %d done: cargo hold at %d%%.", turn, turn%100)})
	}
	return h[:500]
}

// benchmarkChat renders one strategy over benchHistory. Warm, token counts of
// long texts are remembered from the previous call, as in an agent that
// resends its history; cold, every call tokenizes the whole history, as the
// first call of a run does.
func benchmarkChat(b *testing.B, strategy string, set func(*Options)) {
	b.Run("warm", func(b *testing.B) { benchmarkChatCache(b, strategy, set, false) })
	b.Run("cold", func(b *testing.B) { benchmarkChatCache(b, strategy, set, true) })
}

func benchmarkChatCache(b *testing.B, strategy string, set func(*Options), cold bool) {
	h := benchHistory()
	opts := chatDefaults()
	opts.Strategy = strategy
	if set != nil {
		set(&opts)
	}
	s, err := Lookup(strategy)
	if err != nil {
		b.Fatal(err)
	}
	req := &Request{History: h, Options: opts}
	if !cold {
		req.Remembered = NewRemembered(memo.New(64 << 20))
	}
	resp, err := s.Render(req)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Render(req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(resp.Stats.TokensBefore), "tokens-in")
	b.ReportMetric(float64(resp.Stats.TokensAfter), "tokens-out")
	b.ReportMetric(float64(resp.Stats.MessagesAfter), "msgs-out")
}

func BenchmarkLoopSlice500(b *testing.B) { benchmarkChat(b, "loop-slice", nil) }
func BenchmarkTurnAware500(b *testing.B) { benchmarkChat(b, "turn-aware", nil) }
func BenchmarkClearToolResults500(b *testing.B) {
	benchmarkChat(b, "clear-tool-results", nil)
}
func BenchmarkTokenBudget500(b *testing.B) {
	benchmarkChat(b, "token-budget", func(o *Options) { o.MaxTokens = 16000 })
}

// BenchmarkCountTokens500 is the floor under every chat strategy: the exact
// token count of the input history, which the statistics report.
func BenchmarkCountTokens500(b *testing.B) {
	h := benchHistory()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CountMessageTokens(DefaultTokenizer, "", h); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChatStructure500 is the work of the strategies themselves, without
// token counting: preparing the history (repair, sendable forms), scanning
// the window and compacting snapshots.
func BenchmarkChatStructure500(b *testing.B) {
	h := benchHistory()
	b.ReportAllocs()
	for b.Loop() {
		ch := newChatHistory(h)
		w := ch.scan(ch.stepped(20))
		var out chatOutput
		out.copyFrom(ch, ch.seq...)
		compactSnapshots(&out, []string{"get_"}, true)
		if len(w.seq) == 0 || len(out.msgs) == 0 {
			b.Fatal("empty")
		}
	}
}
