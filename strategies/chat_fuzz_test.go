package strategies

import (
	"errors"
	"testing"
)

// FuzzChatStrategies decodes arbitrary bytes into a chat log (three bytes a
// message: kind, id, content) and options, and checks every chat strategy
// either rejects the log with a HistoryError or OptionError, or returns a
// valid sequence drawn from it.
func FuzzChatStrategies(f *testing.F) {
	f.Add([]byte{0, 0, 1, 1, 0, 2, 3, 1, 3, 4, 1, 4, 4, 2, 5, 2, 0, 6}, uint8(3), uint8(1))
	f.Add([]byte{4, 9, 9, 3, 1, 1, 3, 1, 2, 4, 1, 3, 4, 1, 3, 6, 0, 0}, uint8(2), uint8(4))
	f.Add([]byte{7, 0, 0, 2, 0, 1, 8, 1, 1}, uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, window, attempt uint8) {
		h := decodeChatLog(data)
		for _, name := range chatStrategyNames {
			opts := chatDefaults()
			opts.Strategy = name
			// Within Normalize's ranges: strategies see normalized options.
			opts.ScanWindow = 1 + int(window%25)
			opts.NudgeAttempt = 1 + int(attempt%6)
			opts.Trigger, opts.Keep, opts.ClearAtLeast = int(window), int(attempt%4), int(attempt)
			opts.MaxTokens = int(window) * 4
			opts.ClearToolInputs = attempt%2 == 1
			opts.Provider = []string{"", ProviderOpenAI, ProviderAnthropic}[int(window)%3]
			opts.WindowOnly = attempt%3 == 2
			err := checkChatProperties(h, opts)
			if err == nil {
				continue
			}
			var he *HistoryError
			var oe *OptionError
			s, _ := Lookup(name)
			_, rerr := s.Render(&Request{History: h, Options: opts})
			if errors.As(rerr, &he) || errors.As(rerr, &oe) {
				continue
			}
			t.Fatalf("%s: %v\n%s", name, err, formatLog(h))
		}
	})
}

var fuzzRoles = []string{RoleSystem, RoleUser, RoleAssistant, RoleTool, "bot"}
var fuzzSources = []string{"", SourceDirect, SourceBroadcast, SourceSystem}
var fuzzIDs = []string{"", "a", "b", "c"}
var fuzzNames = []string{"get_a", "get_b", "run", ""}

func decodeChatLog(data []byte) []ChatMessage {
	var h []ChatMessage
	for len(data) >= 3 {
		kind, id, content := data[0], data[1], data[2]
		data = data[3:]
		m := ChatMessage{Role: fuzzRoles[int(kind)%len(fuzzRoles)], Content: string(rune('a' + content%26))}
		switch m.Role {
		case RoleUser:
			m.Source = fuzzSources[int(id)%len(fuzzSources)]
			if id&8 != 0 {
				m.SenderID = "peer"
			}
		case RoleAssistant:
			for k := range int(kind/8) % 4 {
				m.ToolCalls = append(m.ToolCalls, ChatToolCall{
					ID:        fuzzIDs[(int(id)+k)%len(fuzzIDs)],
					Name:      fuzzNames[(int(content)+k)%len(fuzzNames)],
					Arguments: "{}",
				})
			}
		case RoleTool:
			m.ToolCallID = fuzzIDs[int(id)%len(fuzzIDs)]
		}
		h = append(h, m)
	}
	return h
}
