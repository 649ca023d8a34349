package strategies

import (
	"strings"
	"testing"
)

// A cleared result keeps the paths its lines began with, each once across
// the conversation, and none the calls' arguments already name.
func TestClearedResultListsPaths(t *testing.T) {
	hits := "scan/reader.go:12:\tif err := x.Read(); err != nil {\n" +
		"index/cache_test.go:40:\tif err := x.Read(); err != nil {\n" +
		"scan/reader.go:80:\tif err := x.Read(); err != nil {\n"
	names := clearedNames{}
	names.noteArguments(&ChatMessage{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path": "index/cache_test.go"}`}}})
	got := names.content("[cleared]", hits)
	if got != "[cleared] it named: scan/reader.go" {
		t.Errorf("first clearing: %q", got)
	}
	if got := names.content("[cleared]", hits); got != "[cleared]" {
		t.Errorf("a path listed before is listed again: %q", got)
	}
	if got := (clearedNames{}).content("[cleared]", "package scan\n\nfunc Read() {}\n"); got != "[cleared]" {
		t.Errorf("a result without paths: %q", got)
	}
	var long strings.Builder
	for i := range 100 {
		long.WriteString("dir/file" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26)) + ".go: match\n")
	}
	if got := (clearedNames{}).content("[cleared]", long.String()); len(got) > len("[cleared] it named: ")+clearedIDChars {
		t.Errorf("list of %d characters, bound %d", len(got), clearedIDChars)
	}
	for _, c := range []string{"[cleared]", "[cleared] it named: a/b.go"} {
		if !isCleared("[cleared]", c) {
			t.Errorf("%q is not seen as cleared", c)
		}
	}
	if isCleared("[cleared]", "[cleared]x") {
		t.Error("a result that only begins with the placeholder is seen as cleared")
	}
}

// A clearing that lists paths still saves tokens, and a result already
// cleared with its list is not cleared again.
func TestClearToolResultsKeepsPathsOfClearedResult(t *testing.T) {
	var grep strings.Builder
	for i := range 40 {
		grep.WriteString("pkg/sub/file_" + string(rune('a'+i%26)) + ".go:" + strings.Repeat("1", 1+i%3) + ":\tsome matching line of code that is long enough\n")
	}
	h := []ChatMessage{
		{Role: RoleUser, Content: "Find the callers."},
		{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "g1", Name: "grep", Arguments: `{"pattern": "Read"}`}}},
		{Role: RoleTool, ToolCallID: "g1", Content: grep.String()},
		{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "g2", Name: "grep", Arguments: `{"pattern": "Write"}`}}},
		{Role: RoleTool, ToolCallID: "g2", Content: grep.String()},
		{Role: RoleAssistant, Content: "Done."},
	}
	o := chatDefaults()
	// Without caching a clearing costs no rewrite and is made at the trigger.
	o.Strategy, o.Trigger, o.Keep = "clear-tool-results", 100, 1
	o.Pricing = Pricing{Name: PricingCustom, ReadRate: 1, WriteRate: 1}
	resp, err := Render(&Request{History: h, Options: o})
	if err != nil {
		t.Fatal(err)
	}
	got := resp.Messages[2].Content
	if !strings.HasPrefix(got, "[cleared] it named: pkg/sub/file_a.go") || resp.Stats.TokensCleared <= 0 {
		t.Fatalf("cleared result %q, %d tokens saved", got, resp.Stats.TokensCleared)
	}
	h[2].Content = got
	again, err := Render(&Request{History: h, Options: o})
	if err != nil {
		t.Fatal(err)
	}
	if again.Messages[2].Content != got {
		t.Errorf("a result cleared before became %q", again.Messages[2].Content)
	}
}
