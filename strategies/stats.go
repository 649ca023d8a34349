package strategies

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// measure fills the message, character and token figures of stats: before
// is what the uncompressed history would send, after what the strategy sends.
func measure(stats *Stats, counts *Remembered, tokenizer counter, before, after []ChatMessage) error {
	cb, err := counts.messages(tokenizer, before)
	if err != nil {
		return err
	}
	ca, err := counts.messages(tokenizer, after)
	if err != nil {
		return err
	}
	stats.Tokenizer = tokenizer.tokenizer
	stats.MessagesBefore, stats.MessagesAfter = len(before), len(after)
	stats.CharsBefore, stats.CharsAfter = cb.chars, ca.chars
	stats.TokensBefore, stats.TokensAfter = cb.tokens, ca.tokens
	return nil
}

// textCounts are the figures the statistics give of a text: its tokens
// (as CountTokens counts them) and its characters (runes, as
// utf8.RuneCountInString counts them).
// Non-text parts add their tokens (counted in tokens too) to media, and
// estimated counts those whose tokens are an estimate.
type textCounts struct{ tokens, chars, media, estimated int }

func (c *textCounts) add(o textCounts) {
	c.tokens += o.tokens
	c.chars += o.chars
	c.media += o.media
	c.estimated += o.estimated
}

// Token counts are remembered between requests (Remembered). BPE
// tokenization runs at tens of MB/s at best, and an agent loop sends the
// same texts again and again: the SYSTEM prompt on every call (twice per
// call: before and after), and every earlier turn of the full history. The
// counts of a text never change, so remembering them cannot change a
// result; the characters are remembered alongside because counting them
// again was a tenth of a warm call.

type tokenKey struct{ tokenizer, text string }

func (c *Remembered) get(tokenizer, text string) (textCounts, bool) {
	if c == nil || c.tokenCounts == nil || len(text) < minRememberedText {
		return textCounts{}, false
	}
	return c.tokenCounts.Get(tokenKey{tokenizer, text})
}

// put remembers a text's counts, counted as the text and what an entry
// costs besides; a text shorter than minRememberedText is not remembered.
func (c *Remembered) put(tokenizer, text string, n textCounts) {
	if c != nil && c.tokenCounts != nil && len(text) >= minRememberedText {
		c.tokenCounts.Put(tokenKey{tokenizer, text}, n, int64(len(text)+memo.EntryOverhead))
	}
}

// tokens counts like CountMessageTokens.
func (c *Remembered) tokens(tokenizer counter, msgs []ChatMessage) (int, error) {
	n, err := c.messages(tokenizer, msgs)
	return n.tokens, err
}

// messages counts the tokens and characters of the texts of msgs (those of
// CountMessageTokens and CountMessageChars).
func (c *Remembered) messages(tokenizer counter, msgs []ChatMessage) (textCounts, error) {
	var total textCounts
	var buf [8]string
	for _, m := range msgs {
		for _, s := range appendTexts(buf[:0], m) {
			if s == "" {
				continue
			}
			n, err := c.text(tokenizer.tokenizer, s)
			if err != nil {
				return textCounts{}, err
			}
			total.add(n)
		}
		for k := range m.Parts {
			n, err := c.part(tokenizer, &m.Parts[k])
			if err != nil {
				return textCounts{}, err
			}
			total.add(n)
		}
	}
	return total, nil
}

// part counts a content part: its text with the tokenizer, its media by
// the rule of the provider the request is sent to (mediaTokens).
func (c *Remembered) part(tokenizer counter, p *ContentPart) (textCounts, error) {
	var n textCounts
	if p.Text != "" {
		var err error
		if n, err = c.text(tokenizer.tokenizer, p.Text); err != nil {
			return textCounts{}, err
		}
	}
	if media, estimated := c.media(tokenizer.media, p); media > 0 || estimated {
		n.tokens += media
		n.media += media
		if estimated {
			n.estimated++
		}
	}
	return n, nil
}

// text counts one text chunk by chunk (see rememberedChunkEnd), each
// chunk's counts remembered, so that a USER message that differs from the
// previous call's in a few lines costs the tokenization of the chunks
// holding those lines. A chunk ends after a newline, never inside a
// character, so the characters of the chunks add up to the text's.
func (c *Remembered) text(tokenizer, text string) (textCounts, error) {
	if exact, factor := exactTokenizer(tokenizer); factor != 1 {
		// An estimate scales the exact count of the whole text.
		n, err := c.text(exact, text)
		n.tokens = scaleCount(n.tokens, factor)
		return n, err
	}
	if n, ok := c.get(tokenizer, text); ok {
		return n, nil
	}
	var total textCounts
	// since is the bytes tokenized since the last look: lines of a few
	// kilobytes each, which package bpe counts without looking, are still
	// looked at every stopCheckBytes.
	for rest, chunks, since := text, 0, 0; rest != ""; chunks++ {
		if chunks%stopCheckChunks == 0 || since >= stopCheckBytes {
			if err := c.stopped(); err != nil {
				return textCounts{}, err
			}
			since = 0
		}
		chunk := rest[:rememberedChunkEnd(rest)]
		rest = rest[len(chunk):]
		n, ok := c.get(tokenizer, chunk)
		if !ok {
			since += len(chunk)
			tokens, err := countTokens(tokenizer, chunk, c.stopped)
			if err != nil {
				return textCounts{}, err
			}
			n = textCounts{tokens: tokens, chars: utf8.RuneCountInString(chunk)}
			c.put(tokenizer, chunk, n)
		}
		total.add(n)
	}
	c.put(tokenizer, text, total)
	return total, nil
}

// stopCheckChunks is how many chunks are counted between looks at the
// request's context: a few hundred microseconds of tokenizing.
const stopCheckChunks = 256

// stopCheckBytes is how many bytes are tokenized between looks at most:
// some milliseconds of the slowest tokenizing (gemma3 on base64).
const stopCheckBytes = 16 << 10

// minRememberedText is the fewest bytes of a text or chunk whose counts
// are remembered: a shorter one tokenizes in a few microseconds, and its
// entry would cost the memo EntryOverhead bytes, over twice its own (a
// chat history of 90,000 one-word parts held 15 MiB of the memo, 11 times
// the request).
const minRememberedText = 64

// minRememberedChunk is the fewest bytes a remembered chunk holds: short
// lines are counted together with the lines after them, since an entry of
// its own would cost the memo EntryOverhead bytes for a line that
// tokenizes in a microsecond (docs/RELIABILITY.md, the 90,000 bindings).
const minRememberedChunk = 256

// rememberedChunkEnd returns where the first chunk of text that is
// remembered on its own ends: at the first chunk end (nextChunkEnd) at
// least minRememberedChunk bytes in, or at the end. Every chunk end is a
// piece boundary, so the tokens of the joined chunks are still the sum.
func rememberedChunkEnd(text string) int {
	end := nextChunkEnd(text)
	for end < minRememberedChunk && end < len(text) {
		end += nextChunkEnd(text[end:])
	}
	return end
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

// WarmUp remembers the token count of the built-in system prompt in c, the
// cost that would otherwise fall on a process's first ToMessages call (BPE
// over the whole prompt, a few milliseconds). A server calls it before it
// reports ready. The count is the one recorded with the binary
// (systemprompt_tokens.go) when the prompt's digest matches it, so a
// server at rest has not read its vocabulary: counting the prompt made all
// 3.2 MB of it resident (docs/BENCHMARKS.md, "Idle RSS"). A prompt that
// does not match (the record is stale) is counted, as it always was.
func (c *Remembered) WarmUp() error {
	prompt := lisp.SystemPrompt()
	if n, ok := recordedPromptTokens(prompt); ok {
		c.put(DefaultTokenizer, prompt, textCounts{tokens: n, chars: utf8.RuneCountInString(prompt)})
		return nil
	}
	_, err := c.text(DefaultTokenizer, prompt)
	return err
}

// recordedPromptTokens returns the recorded DefaultTokenizer count of the
// built-in lean system prompt, when prompt is the text it was recorded for.
func recordedPromptTokens(prompt string) (int, bool) {
	sum := sha256.Sum256([]byte(prompt))
	if hex.EncodeToString(sum[:]) != recordedLeanPromptSHA256 {
		return 0, false
	}
	return recordedLeanPromptTokens, true
}
