package strategies

import (
	"fmt"

	"github.com/ptc-sidecar/ptc-sidecar/bpe"
)

// DefaultTokenizer is the encoding used for token statistics when the request
// names none.
const DefaultTokenizer = "o200k_base"

// tokenizers are the tokenizers a request may name.
var tokenizers = map[string]struct{}{"o200k_base": {}, "cl100k_base": {}}

// codec returns the named tokenizer, its vocabulary loaded on first use.
func codec(name string) (*bpe.Encoding, error) {
	if name == "" {
		name = DefaultTokenizer
	}
	if _, ok := tokenizers[name]; !ok {
		return nil, &OptionError{Option: "tokenizer", Reason: fmt.Sprintf("unknown tokenizer %q (known: o200k_base, cl100k_base)", name)}
	}
	e, err := bpe.Get(name)
	if err != nil {
		return nil, fmt.Errorf("loading tokenizer %s: %w", name, err)
	}
	return e, nil
}

// CountTokens counts the tokens of text with the named tokenizer.
func CountTokens(name, text string) (int, error) {
	e, err := codec(name)
	if err != nil {
		return 0, err
	}
	return e.Count(text), nil
}

// CountMessageTokens counts the tokens of every message's content, tool-call
// names and arguments, and reasoning. Role framing tokens are provider-specific
// and not counted, so before/after figures compare like with like.
func CountMessageTokens(name string, msgs []ChatMessage) (int, error) {
	e, err := codec(name)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, m := range msgs {
		for _, s := range messageTexts(m) {
			total += e.Count(s)
		}
	}
	return total, nil
}

// CountMessageChars counts the characters (runes) the same texts hold.
func CountMessageChars(msgs []ChatMessage) int {
	total := 0
	for _, m := range msgs {
		for _, s := range messageTexts(m) {
			total += len([]rune(s))
		}
	}
	return total
}

func messageTexts(m ChatMessage) []string {
	texts := []string{m.Content, m.Reasoning}
	for _, tc := range m.ToolCalls {
		texts = append(texts, tc.Name, tc.Arguments)
	}
	return texts
}
