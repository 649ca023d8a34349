package strategies

import (
	"fmt"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// DefaultTokenizer is the encoding used for token statistics when the request
// names none.
const DefaultTokenizer = "o200k_base"

var tokenizers = map[string]tokenizer.Encoding{
	"o200k_base":  tokenizer.O200kBase,
	"cl100k_base": tokenizer.Cl100kBase,
}

var (
	codecMu sync.Mutex
	codecs  = map[string]tokenizer.Codec{}
)

// codec returns the named tokenizer, loading its embedded vocabulary once.
func codec(name string) (tokenizer.Codec, error) {
	if name == "" {
		name = DefaultTokenizer
	}
	enc, ok := tokenizers[name]
	if !ok {
		return nil, &OptionError{Option: "tokenizer", Reason: fmt.Sprintf("unknown tokenizer %q (known: o200k_base, cl100k_base)", name)}
	}
	codecMu.Lock()
	defer codecMu.Unlock()
	if c, ok := codecs[name]; ok {
		return c, nil
	}
	c, err := tokenizer.Get(enc)
	if err != nil {
		return nil, fmt.Errorf("loading tokenizer %s: %w", name, err)
	}
	codecs[name] = c
	return c, nil
}

// CountTokens counts the tokens of text with the named tokenizer.
func CountTokens(name, text string) (int, error) {
	c, err := codec(name)
	if err != nil {
		return 0, err
	}
	return c.Count(text)
}

// CountMessageTokens counts the tokens of every message's content, tool-call
// names and arguments, and reasoning. Role framing tokens are provider-specific
// and not counted, so before/after figures compare like with like.
func CountMessageTokens(name string, msgs []ChatMessage) (int, error) {
	c, err := codec(name)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, m := range msgs {
		for _, s := range messageTexts(m) {
			if s == "" {
				continue
			}
			n, err := c.Count(s)
			if err != nil {
				return 0, err
			}
			total += n
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
