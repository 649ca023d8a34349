package strategies

import (
	"math"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
)

// TestClaudeEstimate: the estimate is o200k_base's count of the whole text
// times the calibration factor, the same whether counted at once, line by
// line through the remembered counts, or per message, and the statistics
// name it.
func TestClaudeEstimate(t *testing.T) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog.\n", 40) + "(def x {:a 1})\n中文分词测试\n"
	exact, err := CountTokens("o200k_base", text)
	if err != nil {
		t.Fatal(err)
	}
	want := int(math.Round(float64(exact) * claudeFactor))
	got, err := CountTokens(ClaudeEstimate, text)
	if err != nil || got != want {
		t.Fatalf("CountTokens(claude-estimate) = %d, %v; want %d (o200k_base %d)", got, err, want, exact)
	}
	c, err := NewRemembered(memo.New(1<<20)).text(ClaudeEstimate, text)
	if err != nil || c.tokens != want {
		t.Errorf("remembered count %d, %v; want %d", c.tokens, err, want)
	}
	msgs := []ChatMessage{{Role: "user", Content: text}}
	if n, err := CountMessageTokens(ClaudeEstimate, "", msgs); err != nil || n != want {
		t.Errorf("CountMessageTokens = %d, %v; want %d", n, err, want)
	}
	var st Stats
	if err := measure(&st, NewRemembered(memo.New(1<<20)), counterFor(ClaudeEstimate, ""), msgs, msgs); err != nil {
		t.Fatal(err)
	}
	if st.Tokenizer != ClaudeEstimate || st.TokensAfter != want {
		t.Errorf("stats name %q with %d tokens; want %q, %d", st.Tokenizer, st.TokensAfter, ClaudeEstimate, want)
	}
	if err := checkTokenizer(ClaudeEstimate); err != nil {
		t.Error(err)
	}
}
