package strategies

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// measure fills the message, character and token figures of stats: before
// is what the uncompressed history would send, after what the strategy sends.
func measure(stats *Stats, tokenizer string, before, after []ChatMessage) error {
	if tokenizer == "" {
		tokenizer = DefaultTokenizer
	}
	cb, err := countMessages(tokenizer, before)
	if err != nil {
		return err
	}
	ca, err := countMessages(tokenizer, after)
	if err != nil {
		return err
	}
	stats.Tokenizer = tokenizer
	stats.MessagesBefore, stats.MessagesAfter = len(before), len(after)
	stats.CharsBefore, stats.CharsAfter = cb.chars, ca.chars
	stats.TokensBefore, stats.TokensAfter = cb.tokens, ca.tokens
	return nil
}

// textCounts are the figures the statistics give of a text: its tokens
// (as CountTokens counts them) and its characters (runes, as
// utf8.RuneCountInString counts them).
type textCounts struct{ tokens, chars int }

func (c *textCounts) add(o textCounts) {
	c.tokens += o.tokens
	c.chars += o.chars
}

// countTokensCached counts like CountMessageTokens, remembering counts.
func countTokensCached(tokenizer string, msgs []ChatMessage) (int, error) {
	c, err := countMessages(tokenizer, msgs)
	return c.tokens, err
}

// countMessages counts the tokens and characters of the texts of msgs
// (those of CountMessageTokens and CountMessageChars), remembering both.
// BPE tokenization runs at tens of MB/s at best, and an agent loop sends
// the same texts again and again: the SYSTEM prompt on every call (twice per
// call: before and after), and every earlier turn of the full history. The
// counts of a text never change, so the cache cannot change a result; the
// characters are remembered alongside because counting them again was a
// tenth of a warm call.
func countMessages(tokenizer string, msgs []ChatMessage) (textCounts, error) {
	var total textCounts
	var buf [8]string
	for _, m := range msgs {
		for _, s := range appendTexts(buf[:0], m) {
			if s == "" {
				continue
			}
			c, err := countText(tokenizer, s)
			if err != nil {
				return textCounts{}, err
			}
			total.add(c)
		}
	}
	return total, nil
}

// countText counts one text chunk by chunk (see nextChunkEnd), each
// chunk's counts remembered, so that a USER message that differs from the
// previous call's in a few lines costs the tokenization of those lines.
// A chunk ends after a newline, never inside a character, so the
// characters of the chunks add up to the text's.
func countText(tokenizer, text string) (textCounts, error) {
	if c, ok := tokenCounts.get(tokenizer, text); ok {
		return c, nil
	}
	var total textCounts
	for rest := text; rest != ""; {
		chunk := rest[:nextChunkEnd(rest)]
		rest = rest[len(chunk):]
		c, ok := tokenCounts.get(tokenizer, chunk)
		if !ok {
			n, err := CountTokens(tokenizer, chunk)
			if err != nil {
				return textCounts{}, err
			}
			c = textCounts{tokens: n, chars: utf8.RuneCountInString(chunk)}
			tokenCounts.put(tokenizer, chunk, c)
		}
		total.add(c)
	}
	tokenCounts.put(tokenizer, text, total)
	return total, nil
}

// nextChunkEnd returns where the first chunk of text ends: after the first
// newline that is followed by a printable ASCII character other than "/",
// or at the end. The pre-tokenizers of o200k_base and cl100k_base
// always start a new piece there: the only pieces that can hold a newline
// (a punctuation run with trailing [\r\n/]*, \s*[\r\n]+ and pure whitespace)
// cannot continue into such a character, no piece pattern looks behind, and
// BPE merges never cross pieces. So the tokens of a text are the tokens of
// its chunks; TestChunkedTokenCount checks this on texts built to break it.
func nextChunkEnd(text string) int {
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			return len(text)
		}
		k := i + j + 1
		if k < len(text) && text[k] > ' ' && text[k] < 0x7f && text[k] != '/' {
			return k
		}
		i = k
	}
}

// The cache holds at most maxCachedBytes (texts plus a per-entry overhead)
// and forgets the oldest entries first.
const (
	maxCachedBytes = 16 << 20
	entryOverhead  = 64
)

type tokenKey struct{ tokenizer, text string }

type tokenCache struct {
	mu     sync.Mutex
	counts map[tokenKey]textCounts
	order  []tokenKey // insertion order, for eviction
	bytes  int
}

var tokenCounts = &tokenCache{counts: map[tokenKey]textCounts{}}

func (c *tokenCache) get(tokenizer, text string) (textCounts, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.counts[tokenKey{tokenizer, text}]
	return n, ok
}

func (c *tokenCache) put(tokenizer, text string, n textCounts) {
	if len(text) > maxCachedBytes/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := tokenKey{tokenizer, text}
	if _, ok := c.counts[k]; ok {
		return
	}
	for c.bytes+len(text)+entryOverhead > maxCachedBytes && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		delete(c.counts, old)
		c.bytes -= len(old.text) + entryOverhead
	}
	c.counts[k] = n
	c.order = append(c.order, k)
	c.bytes += len(text) + entryOverhead
}

// reset empties the cache (benchmarks of the cold path use it).
func (c *tokenCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts = map[tokenKey]textCounts{}
	c.order = nil
	c.bytes = 0
}

// WarmUp loads the default tokenizer and remembers the token count of the
// built-in system prompt: the two costs that would otherwise fall on a
// process's first ToMessages call (a few milliseconds, almost all of it BPE
// over the 16 KB prompt). A server calls it before it reports ready.
func WarmUp() error {
	_, err := countText(DefaultTokenizer, lisp.SystemPrompt())
	return err
}
