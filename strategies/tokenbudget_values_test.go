package strategies

import (
	"strings"
	"testing"
)

// The values note lists each value once, the latest unit's first, leaves
// out what the notes show, and fits its share; the scan of the dropped
// units stops once it has more than the share can hold.
func TestBudgetValuesNote(t *testing.T) {
	tok := counterFor(DefaultTokenizer, "")
	h := []ChatMessage{
		{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "a", Name: "edit", Arguments: `{"path": "scan/a.go", "old": "return opts, nil"}`}}},
		{Role: RoleTool, ToolCallID: "a", Content: "done"},
		{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "b", Name: "find", Arguments: `{"path": "scan/a.go", "id": "O-99187", "seen": "shown-id"}`}}},
		{Role: RoleTool, ToolCallID: "b", Content: "none"},
	}
	ch := newChatHistory(h)
	vals := ch.droppedValues([][]int{{2, 3}, {0, 1}}, "a note that holds shown-id", 100)
	got, err := budgetValuesNote(nil, tok, vals, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := budgetValuesHeader + "\nO-99187\nscan/a.go\nreturn opts, nil"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	small, err := budgetValuesNote(nil, tok, vals, 16)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := CountTokens(DefaultTokenizer, small); n > 16 || !strings.HasPrefix(small, budgetValuesHeader) && small != "" {
		t.Errorf("note %q of %d tokens for a share of 16", small, n)
	}
	if none, _ := budgetValuesNote(nil, tok, vals, 3); none != "" {
		t.Errorf("a share too small for one value gave %q", none)
	}
}

// A unit's values: its calls' argument values, a JSON result's values, the
// paths that begin a text result's lines; none longer than the bound.
func TestUnitValues(t *testing.T) {
	h := []ChatMessage{
		{Role: RoleAssistant, ToolCalls: []ChatToolCall{
			{ID: "a", Name: "edit", Arguments: `{"path": "store/x.go", "old": "return n, nil", "new": "` + strings.Repeat("y", budgetValueChars+1) + `"}`},
			{ID: "b", Name: "find", Arguments: `{"q": "C-1"}`},
		}},
		{Role: RoleTool, ToolCallID: "a", Content: "store/x.go:3: ok\nindex/y.go:9: ok\n"},
		{Role: RoleTool, ToolCallID: "b", Content: `{"id": "C-55821", "n": 12345}`},
	}
	ch := newChatHistory(h)
	got := strings.Join(ch.unitValues(nil, []int{0, 1, 2}), "|")
	want := "return n, nil|store/x.go|C-1|store/x.go|index/y.go|C-55821|12345"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestDroppedValuesScanIsBounded(t *testing.T) {
	var h []ChatMessage
	var dropped [][]int
	for i := range 200 {
		h = append(h, ChatMessage{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "c", Name: "read", Arguments: `{"path": "dir/file` + strings.Repeat("x", i%50) + `.go"}`}}})
		dropped = append(dropped, []int{i})
	}
	vals := newChatHistory(h).droppedValues(dropped, "", 10)
	size := 0
	for _, v := range vals {
		size += len(v) + 1
	}
	if len(vals) == 0 || size > budgetValuesScanChars*10+100 {
		t.Errorf("%d values, %d characters, for a share of 10 tokens", len(vals), size)
	}
}
