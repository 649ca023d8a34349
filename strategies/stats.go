package strategies

import (
	"sync"
	"unicode/utf8"
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

// countTokensCached counts like CountMessageTokens, remembering the counts
// of long texts. BPE tokenization runs at a few MB/s, and an agent loop sends
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
			n, ok := tokenCounts.get(tokenizer, s)
			if !ok {
				var err error
				if n, err = CountTokens(tokenizer, s); err != nil {
					return 0, err
				}
				tokenCounts.put(tokenizer, s, n)
			}
			total += n
		}
	}
	return total, nil
}

// Texts shorter than minCachedText are counted each time (cheaper than
// keeping them); the cache holds at most maxCachedBytes of text and forgets
// the oldest entries first.
const (
	minCachedText  = 64
	maxCachedBytes = 16 << 20
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
	if len(text) < minCachedText {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.counts[tokenKey{tokenizer, text}]
	return n, ok
}

func (c *tokenCache) put(tokenizer, text string, n int) {
	if len(text) < minCachedText || len(text) > maxCachedBytes/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := tokenKey{tokenizer, text}
	if _, ok := c.counts[k]; ok {
		return
	}
	for c.bytes+len(text) > maxCachedBytes && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		delete(c.counts, old)
		c.bytes -= len(old.text)
	}
	c.counts[k] = n
	c.order = append(c.order, k)
	c.bytes += len(text)
}

// reset empties the cache (benchmarks of the cold path use it).
func (c *tokenCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts = map[tokenKey]int{}
	c.order = nil
	c.bytes = 0
}
