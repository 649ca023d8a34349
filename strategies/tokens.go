package strategies

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ptc-sidecar/ptc-sidecar/internal/bpe"
)

// DefaultTokenizer is the encoding used for token statistics when the request
// names none.
const DefaultTokenizer = "o200k_base"

// ClaudeEstimate names the estimate of Claude's counts. Anthropic publishes
// no tokenizer for its current models, only a counting endpoint the sidecar
// cannot call offline, and its own guidance for Claude Code is that OpenAI's
// tokenizer undercounts Claude's tokens by 15 to 20% on typical text (more
// on code and non-English text). The estimate is an o200k_base count times
// claudeFactor, the upper end of that range, so that a budget errs on the
// side of fitting; it is rounded per text, not per line. Claude Opus 4.7
// and later changed tokenizer again (1 to 1.35 times the tokens of the
// models before, by Anthropic's migration guide); docs/STRATEGIES.md
// ("Claude's counts") has the sources and what the factor leaves out.
const ClaudeEstimate = "claude-estimate"

const (
	claudeFactor = 1.2
	claudeBase   = "o200k_base"
)

// TokenizerNames lists the tokenizers the tokenizer option takes: package
// bpe's exact ones, then the estimate.
func TokenizerNames() []string { return append(bpe.Names(), ClaudeEstimate) }

// checkTokenizer refuses, before any work is done, a tokenizer name that
// is neither one of package bpe's vocabularies nor the estimate, naming the
// ones there are; "" is the default.
func checkTokenizer(name string) error {
	// bpe.Names' literal stays on the stack; TokenizerNames' append would
	// allocate for every chunk of a prompt counted.
	if name == "" || name == ClaudeEstimate || slices.Contains(bpe.Names(), name) {
		return nil
	}
	return &OptionError{Option: "tokenizer", Reason: fmt.Sprintf("unknown tokenizer %q (known: %s)", name, strings.Join(TokenizerNames(), ", "))}
}

// exactTokenizer returns the exact tokenizer name counts with and the
// factor its counts are multiplied by (1 for an exact tokenizer).
func exactTokenizer(name string) (string, float64) {
	if name == ClaudeEstimate {
		return claudeBase, claudeFactor
	}
	return name, 1
}

// scaleCount applies an estimate's factor to an exact count.
func scaleCount(n int, factor float64) int {
	if factor == 1 {
		return n
	}
	return int(math.Round(float64(n) * factor))
}

// codec returns the exact tokenizer name counts with, its vocabulary loaded
// on first use, and the factor of an estimate.
func codec(name string) (*bpe.Encoding, float64, error) {
	if err := checkTokenizer(name); err != nil {
		return nil, 0, err
	}
	if name == "" {
		name = DefaultTokenizer
	}
	name, factor := exactTokenizer(name)
	e, err := bpe.Get(name)
	if err != nil {
		return nil, 0, fmt.Errorf("loading tokenizer %s: %w", name, err)
	}
	return e, factor, nil
}

// CountTokens counts the tokens of text with the named tokenizer.
func CountTokens(name, text string) (int, error) {
	return countTokens(name, text, nil)
}

// countTokens is CountTokens that gives up with stop's error once stop
// (when not nil) returns one: package bpe calls it every few kilobytes,
// inside a line too, so that a request's context ending stops a count of
// a long line.
func countTokens(name, text string, stop func() error) (int, error) {
	e, factor, err := codec(name)
	if err != nil {
		return 0, err
	}
	n, err := e.CountStop(text, stop)
	return scaleCount(n, factor), err
}

// CountMessageTokens counts the tokens of every message's content, tool-call
// names and arguments, reasoning, and content parts (their texts, and their
// media by the rule of provider, or with none of the provider the tokenizer
// belongs to: mediaTokens). Role framing tokens are provider-specific and
// not counted, so before/after figures compare like with like.
func CountMessageTokens(name, provider string, msgs []ChatMessage) (int, error) {
	if err := checkTokenizer(name); err != nil {
		return 0, err
	}
	n, err := (*Remembered)(nil).messages(counterFor(name, provider), msgs)
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
