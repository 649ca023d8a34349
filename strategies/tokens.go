package strategies

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ptc-sidecar/ptc-sidecar/internal/bpe"
)

// DefaultTokenizer is the encoding used for token statistics when the request
// names none.
const DefaultTokenizer = "o200k_base"

// checkTokenizer refuses, before any work is done, a tokenizer name that
// package bpe has no vocabulary for, naming the ones it has; "" is the
// default.
func checkTokenizer(name string) error {
	if name == "" || slices.Contains(bpe.Names(), name) {
		return nil
	}
	return &OptionError{Option: "tokenizer", Reason: fmt.Sprintf("unknown tokenizer %q (known: %s)", name, strings.Join(bpe.Names(), ", "))}
}

// codec returns the named tokenizer, its vocabulary loaded on first use.
func codec(name string) (*bpe.Encoding, error) {
	if err := checkTokenizer(name); err != nil {
		return nil, err
	}
	if name == "" {
		name = DefaultTokenizer
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
// names and arguments, reasoning, and content parts (their texts, and their
// media by the rule of the tokenizer's provider: mediaTokens). Role framing
// tokens are provider-specific and not counted, so before/after figures
// compare like with like.
func CountMessageTokens(name string, msgs []ChatMessage) (int, error) {
	if err := checkTokenizer(name); err != nil {
		return 0, err
	}
	n, err := (*Remembered)(nil).messages(name, msgs)
	return n.tokens, err
}

// CountMessageChars counts the characters (runes) the same texts hold.
func CountMessageChars(msgs []ChatMessage) int {
	total := 0
	for _, m := range msgs {
		for _, s := range appendTexts(nil, m) {
			total += utf8.RuneCountInString(s)
		}
		for _, p := range m.Parts {
			total += utf8.RuneCountInString(p.Text)
		}
	}
	return total
}

// appendTexts appends the texts of m that the statistics count: its
// content, its reasoning and each tool call's name and arguments.
func appendTexts(dst []string, m ChatMessage) []string {
	dst = append(dst, m.Content, m.Reasoning)
	for _, tc := range m.ToolCalls {
		dst = append(dst, tc.Name, tc.Arguments)
	}
	return dst
}
