package strategies

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/internal/bpe/oracle"
	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// chunkAlphabet favours the characters around which pre-tokenization
// decides piece boundaries: newlines, spaces, "/", punctuation, digits,
// apostrophes, non-ASCII letters and Unicode spaces.
var chunkAlphabet = []string{"\n", "\n\n", "\n\n\n", "\n \n", " \n", "\x7f", " ", "  ", "\t", "\r\n", "/", ";", ";;", "]", "'s", "'", "a", "Ab", "word", "12345", "é", "\u00a0", "\u2028", "---", "```", ".", "(", "\"", "x/y", "\u0085"}

func randomChunkText(r *rand.Rand) string {
	var b strings.Builder
	for range 1 + r.IntN(60) {
		b.WriteString(chunkAlphabet[r.IntN(len(chunkAlphabet))])
	}
	return b.String()
}

// TestChunkedTokenCount checks that counting a text chunk by chunk gives the
// count of the whole text, for every tokenizer.
func TestChunkedTokenCount(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	texts := []string{"", "a\n\nb", "]\n\n;", "x\n\n/y", "  \n\n  a", "a \n\nb", "'s\n\n's"}
	for range 3000 {
		texts = append(texts, randomChunkText(r))
	}
	for _, tok := range []string{"o200k_base", "cl100k_base", "gemma3"} {
		for _, text := range texts {
			checkChunkedCount(t, tok, text)
		}
	}
}

func checkChunkedCount(t *testing.T, tokenizer, text string) {
	t.Helper()
	want, err := CountTokens(tokenizer, text)
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for rest := text; rest != ""; {
		chunk := rest[:nextChunkEnd(rest)]
		rest = rest[len(chunk):]
		n, err := CountTokens(tokenizer, chunk)
		if err != nil {
			t.Fatal(err)
		}
		got += n
	}
	if got != want {
		t.Fatalf("%s: chunks of %q count %d tokens, the whole text %d", tokenizer, text, got, want)
	}
	if c, err := NewRemembered(memo.New(1<<20)).text(tokenizer, text); err != nil || c.tokens != want || c.chars != len([]rune(text)) {
		t.Fatalf("%s: Remembered.text(%q) = %+v, %v; want %d tokens, %d characters", tokenizer, text, c, err, want, len([]rune(text)))
	}
}

// TestStatisticsEqualTiktoken checks the token figures of the statistics,
// which are counted chunk by chunk and remembered, against OpenAI's
// tokenizer counting each whole text: the golden files and traces of this
// package, texts whose whitespace runs cross line breaks, and random texts.
func TestStatisticsEqualTiktoken(t *testing.T) {
	o := oracle.Get(t)
	texts := []string{"\n \n", "foo\n \nbar", "a\x7fb", "x\n\t\n  y\n \n\nz", "(def a 1)\n  \n(def b 2)\n \n"}
	r := rand.New(rand.NewPCG(13, 17))
	for range 300 {
		texts = append(texts, randomChunkText(r))
	}
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(path, "fuzz") {
			return err
		}
		data, err := os.ReadFile(path)
		texts = append(texts, string(data))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{"o200k_base", "cl100k_base"} {
		var msgs []ChatMessage
		want := 0
		for _, text := range texts {
			msgs = append(msgs, ChatMessage{Role: "user", Content: text})
			want += o.Count(t, tok, text)
		}
		// Twice: the second time every text's count is remembered.
		counts := NewRemembered(memo.New(16 << 20))
		for range 2 {
			var stats Stats
			if err := measure(&stats, counts, counterFor(tok, ""), msgs, msgs[:1]); err != nil {
				t.Fatal(err)
			}
			if stats.TokensBefore != want {
				t.Errorf("%s: statistics count %d tokens, tiktoken %d", tok, stats.TokensBefore, want)
			}
			if first := o.Count(t, tok, texts[0]); stats.TokensAfter != first {
				t.Errorf("%s: statistics count %d tokens of %q, tiktoken %d", tok, stats.TokensAfter, texts[0], first)
			}
		}
	}
}

func FuzzChunkedTokenCount(f *testing.F) {
	for _, s := range []string{"a\n\nb", "]\n\n;; x", "x\n\n/y\n\n z", "Turns left: 4\n\n---\nYour"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkChunkedCount(t, "o200k_base", text)
		checkChunkedCount(t, "cl100k_base", text)
		checkChunkedCount(t, "gemma3", text)
	})
}

func TestTokenCountsStayBounded(t *testing.T) {
	m := memo.New(16 << 20)
	c := NewRemembered(m)
	text := strings.Repeat("x", 1<<20)
	for i := range 40 {
		c.put("o200k_base", text+strings.Repeat("y", i), textCounts{tokens: i})
	}
	if s := m.Stats()[0]; s.Bytes > m.Budget() || s.Entries == 0 {
		t.Fatalf("token counts hold %d bytes in %d entries, budget %d", s.Bytes, s.Entries, m.Budget())
	}
	if n, ok := c.get("o200k_base", text+strings.Repeat("y", 39)); !ok || n.tokens != 39 {
		t.Errorf("newest entry lost: %d, %v", n, ok)
	}
	if _, ok := c.get("o200k_base", text); ok {
		t.Errorf("oldest entry kept past the bound")
	}
	if _, ok := c.get("cl100k_base", text+strings.Repeat("y", 39)); ok {
		t.Errorf("a count is shared between tokenizers")
	}
}

// TestWarmUpRemembersSystemPrompt checks that after WarmUp the built-in
// system prompt's count is known, with the same value a cold count gives.
func TestWarmUpRemembersSystemPrompt(t *testing.T) {
	c := NewRemembered(memo.New(1 << 20))
	if err := c.WarmUp(); err != nil {
		t.Fatal(err)
	}
	got, ok := c.get(DefaultTokenizer, lisp.SystemPrompt())
	if !ok {
		t.Fatal("the system prompt's count is not remembered after WarmUp")
	}
	want, err := CountTokens(DefaultTokenizer, lisp.SystemPrompt())
	if err != nil {
		t.Fatal(err)
	}
	if got.tokens != want || got.chars != len([]rune(lisp.SystemPrompt())) {
		t.Errorf("remembered %+v, counting gives %d tokens", got, want)
	}
}

// TestShortLinesRememberedTogether: a text of many one-line bindings is
// remembered in chunks of at least minRememberedChunk bytes, not line by
// line, and counts the same when remembered.
func TestShortLinesRememberedTogether(t *testing.T) {
	var b strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&b, "b%d ; %d\n", i, i)
	}
	text := b.String()
	want, err := CountTokens("o200k_base", text)
	if err != nil {
		t.Fatal(err)
	}
	m := memo.New(64 << 20)
	counts := NewRemembered(m)
	for run := range 2 {
		n, err := counts.text("o200k_base", text)
		if err != nil || n.tokens != want || n.chars != len(text) {
			t.Fatalf("run %d: %+v, %v; want %d tokens, %d characters", run+1, n, err, want, len(text))
		}
	}
	entries, bytes := 0, int64(0)
	for _, s := range m.Stats() {
		if s.Table == "token_counts" {
			entries, bytes = s.Entries, s.Bytes
		}
	}
	// Each chunk but the last holds minRememberedChunk bytes or more; the
	// whole text is one more entry.
	if most := len(text)/minRememberedChunk + 2; entries > most {
		t.Errorf("%d lines in %d bytes are %d entries of the memo, want at most %d", 20_000, len(text), entries, most)
	}
	if bytes > 3*int64(len(text)) {
		t.Errorf("the memo counts %d bytes for a text of %d, over 3 times", bytes, len(text))
	}
}

// TestShortTextsNotRemembered: texts shorter than minRememberedText
// (one-word messages and parts) are counted every time, not remembered,
// and count the same as when remembered.
func TestShortTextsNotRemembered(t *testing.T) {
	var msgs []ChatMessage
	for i := range 5000 {
		msgs = append(msgs, ChatMessage{Role: "user", Content: strconv.Itoa(i), Parts: []ContentPart{{Type: PartText, Text: "w" + strconv.Itoa(i)}}})
	}
	m := memo.New(64 << 20)
	counts := NewRemembered(m)
	got, err := counts.messages(counterFor("o200k_base", ""), msgs)
	if err != nil {
		t.Fatal(err)
	}
	want, err := (*Remembered)(nil).messages(counterFor("o200k_base", ""), msgs)
	if err != nil || got != want {
		t.Fatalf("counted %+v remembering, %+v not (%v)", got, want, err)
	}
	for _, s := range m.Stats() {
		if s.Table == "token_counts" && s.Entries > 0 {
			t.Errorf("%d texts of a few bytes are %d entries (%d bytes) of the memo, want none", 2*len(msgs), s.Entries, s.Bytes)
		}
	}
}

// TestRecordedPromptTokens checks that the count WarmUp remembers without
// counting (systemprompt_tokens.go) is the current prompt's: a change of
// the builtin table changes the prompt, and with a stale record every
// server counts the prompt at start again, its whole vocabulary resident.
// Run with -update to record it again.
func TestRecordedPromptTokens(t *testing.T) {
	prompt := lisp.SystemPrompt()
	want, err := CountTokens(DefaultTokenizer, prompt)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(prompt))
	if *update {
		src := fmt.Sprintf(`// Code generated by go test ./strategies -run TestRecordedPromptTokens -update; DO NOT EDIT.

package strategies

// The built-in lean system prompt's SHA-256 and its token count under
// DefaultTokenizer, which WarmUp remembers without counting.
const (
	recordedLeanPromptSHA256 = %q
	recordedLeanPromptTokens = %d
)
`, hex.EncodeToString(sum[:]), want)
		if err := os.WriteFile("systemprompt_tokens.go", []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, ok := recordedPromptTokens(prompt)
	if !ok {
		t.Fatal("systemprompt_tokens.go records another prompt: run go test ./strategies -run TestRecordedPromptTokens -update")
	}
	if got != want {
		t.Errorf("recorded %d tokens, counting gives %d: run with -update", got, want)
	}
	if _, ok := recordedPromptTokens(prompt + " "); ok {
		t.Error("a prompt other than the recorded one is taken for it")
	}
}
