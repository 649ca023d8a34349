package strategies

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestWriteOneLineMatchesOneLine: the tool section writes a description
// with its line breaks as spaces in place, as oneLine copies it.
func TestWriteOneLineMatchesOneLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	parts := []string{"a", "bc", "\n", "\r", "\r\n", "\n\r", " ", "é"}
	for range 5000 {
		var in strings.Builder
		for range rng.IntN(12) {
			in.WriteString(parts[rng.IntN(len(parts))])
		}
		var b strings.Builder
		writeOneLine(&b, in.String())
		if got, want := b.String(), oneLine(in.String()); got != want {
			t.Fatalf("writeOneLine(%q) = %q, want %q", in.String(), got, want)
		}
	}
}

// bigToolRequest is a summarize-turns run of three turns whose one tool
// has a description of n bytes.
func bigToolRequest(t testing.TB, n int) *Request {
	t.Helper()
	opts, err := Normalize(RawOptions{Strategy: "summarize-turns", SystemPrompt: "You write PTC-Lisp.", Mission: "Tally.",
		MaxTurns: intp(10), Tools: []ToolSpec{{Name: "search", Signature: "(q :string) -> :any", Description: strings.Repeat("find things\n", n/12)}}})
	if err != nil {
		t.Fatal(err)
	}
	turns := make([]Turn, 3)
	for i := range turns {
		turns[i] = Turn{Number: i + 1, Program: "(+ 1 2)", Success: true}
	}
	return &Request{Turns: turns, Options: opts}
}

// TestToolSectionIsWrittenOnce: the tool section is written into the
// user message where it goes, its line breaks made spaces as it is
// written, not copied, built and then copied into the message: rendering
// a 5 MB description of many lines allocates one copy of it, where it
// allocated four (20 MB).
func TestToolSectionIsWrittenOnce(t *testing.T) {
	const n = 5_000_000
	req := bigToolRequest(t, n)
	var resp *Response
	allocated := allocatedBy(t, func() {
		var err error
		if resp, err = Render(req); err != nil {
			t.Fatal(err)
		}
	})
	if !strings.Contains(resp.Messages[1].Content, "; find things find things") {
		t.Fatalf("the user message has no tool section: %.200s", resp.Messages[1].Content)
	}
	t.Logf("a %d-byte tool description: rendering allocated %d bytes", n, allocated)
	if allocated > n+n/2 {
		t.Errorf("rendering a %d-byte tool description allocated %d bytes, want at most 1.5 times it", n, allocated)
	}
}
