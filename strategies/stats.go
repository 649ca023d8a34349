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
	tb, err := countTokensCached(tokenizer, before)
	if err != nil {
		return err
	}
	ta, err := countTokensCached(tokenizer, after)
	if err != nil {
		return err
	}
	stats.Tokenizer = tokenizer
	stats.MessagesBefore, stats.MessagesAfter = len(before), len(after)
	stats.CharsBefore, stats.CharsAfter = countChars(before), countChars(after)
	stats.TokensBefore, stats.TokensAfter = tb, ta
	return nil
}

func countChars(msgs []ChatMessage) int {
	n := 0
	for _, m := range msgs {
		for _, s := range messageTexts(m) {
			n += utf8.RuneCountInString(s)
		}
	}
	return n
}

// countTokensCached counts like CountMessageTokens, remembering counts.
// BPE tokenization runs at tens of MB/s at best, and an agent loop sends
// the same texts again and again: the SYSTEM prompt on every call (twice per
// call: before and after), and every earlier turn of the full history. The
// count of a text never changes, so the cache cannot change a result.
func countTokensCached(tokenizer string, msgs []ChatMessage) (int, error) {
	total := 0
	for _, m := range msgs {
		for _, s := range messageTexts(m) {
			if s == "" {
				continue
			}
			n, err := countTextTokens(tokenizer, s)
			if err != nil {
				return 0, err
			}
			total += n
		}
	}
	return total, nil
}

// countTextTokens counts one text chunk by chunk (see nextChunkEnd), each
// chunk's count remembered, so that a USER message that differs from the
// previous call's in a few lines costs the tokenization of those lines.
func countTextTokens(tokenizer, text string) (int, error) {
	if n, ok := tokenCounts.get(tokenizer, text); ok {
		return n, nil
	}
	total := 0
	for rest := text; rest != ""; {
		chunk := rest[:nextChunkEnd(rest)]
		rest = rest[len(chunk):]
		n, ok := tokenCounts.get(tokenizer, chunk)
		if !ok {
			var err error
			if n, err = CountTokens(tokenizer, chunk); err != nil {
				return 0, err
			}
			tokenCounts.put(tokenizer, chunk, n)
		}
		total += n
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
	counts map[tokenKey]int
	order  []tokenKey // insertion order, for eviction
	bytes  int
}

var tokenCounts = &tokenCache{counts: map[tokenKey]int{}}

func (c *tokenCache) get(tokenizer, text string) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.counts[tokenKey{tokenizer, text}]
	return n, ok
}

func (c *tokenCache) put(tokenizer, text string, n int) {
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
	c.counts = map[tokenKey]int{}
	c.order = nil
	c.bytes = 0
}

// WarmUp loads the default tokenizer and remembers the token count of the
// built-in system prompt: the two costs that would otherwise fall on a
// process's first ToMessages call (a few milliseconds, almost all of it BPE
// over the 16 KB prompt). A server calls it before it reports ready.
func WarmUp() error {
	_, err := countTextTokens(DefaultTokenizer, lisp.SystemPrompt())
	return err
}
