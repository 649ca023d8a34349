package strategies

import (
	"fmt"
	"strings"
	"testing"
)

// TestHostileNamesStayValid: every chat strategy, for every provider, over
// a history whose tool call ids and tool names are control characters, a
// NUL, a lone continuation byte, 10,000 characters of CJK, or ids that all
// sanitize alike, with thinking blocks and tool calls whose
// arguments are no JSON: the output passes the providers' rules, and the
// strategy answers the same twice (checkChatProperties).
func TestHostileNamesStayValid(t *testing.T) {
	if testing.Short() {
		t.Skip("ten seconds of checking outputs of 10,000-character names")
	}
	long := strings.Repeat("名", 10_000)
	ids := []string{"\x00", "\x01\x02\x7f", "\n\r\t", "\xc0", long, "a b", "a.b", "a/b", "é", "\u2028", "_", "-"}
	names := []string{"\x00", "tool\nname", long, "get status", "\u202eevil", "read_file"}
	h := []ChatMessage{{Role: RoleSystem, Content: "You are an agent."}, {Role: RoleUser, Content: "go"}}
	for i, id := range ids {
		h = append(h,
			ChatMessage{Role: RoleAssistant,
				Parts:     []ContentPart{{Type: "thinking", Text: "why\x00", Extra: &PartExtra{Signature: "sig"}}, {Type: "text", Text: "calling " + fmt.Sprint(i)}},
				ToolCalls: []ChatToolCall{{ID: id, Name: names[i%len(names)], Arguments: []string{"{}", "not json\x00", `{"a":` + long + `}`}[i%3]}}},
			ChatMessage{Role: RoleTool, ToolCallID: id, Content: "answer " + id})
	}
	h = append(h, ChatMessage{Role: RoleUser, Content: "and now?"})
	for _, name := range chatStrategyNames {
		for _, provider := range []string{"", ProviderOpenAI, ProviderAnthropic, ProviderGemini} {
			opts := chatDefaults()
			opts.Strategy, opts.Provider, opts.MaxTokens = name, provider, 100_000
			if err := checkChatProperties(h, opts); err != nil {
				t.Errorf("%s, provider %q: %v", name, provider, err)
			}
		}
	}
}
