// Package bpe counts tokens by byte-pair encoding over embedded vocabularies.
//
// It serves OpenAI's o200k_base and cl100k_base encodings, and Gemma 3's
// SentencePiece vocabulary, which Google's Gemini models use, as "gemma3"
// (gemma.go). For OpenAI's encodings it gives, for
// every input, the tokens of OpenAI's tiktoken (encode_ordinary; the tests
// compare against its WASM build, the npm package tiktoken, see
// package oracle). The vocabularies are generated from
// github.com/tiktoken-go/tokenizer's copies of OpenAI's files (see
// internal/gen), a tool that is not linked into the binary. What this
// package adds is cost:
//
//   - The vocabulary is one embedded string per encoding (see
//     internal/vocab): a hash table and the tokens in rank order, read where
//     they lie in the binary. Loading reads a 16-byte header; nothing is
//     copied to the heap, so the garbage collector has nothing to scan, and
//     only the pages that lookups touch become resident. A map of the
//     same strings would be heap the collector scans, and more resident
//     memory besides (docs/BENCHMARKS.md, "Token counting").
//   - The pre-tokenizer (split.go) is hand-written code equivalent to the
//     encodings' split patterns as tiktoken's backtracking engine runs
//     them, instead of a regular-expression engine.
//   - A piece longer than a few kilobytes (a run of newlines, spaces or
//     letters) is merged a window at a time, with the same tokens as a
//     merge of the whole (long.go): memory stays that of one window and
//     time linear, where a merge of the whole needs memory per byte.
//
// Special tokens such as "<|endoftext|>" have no special meaning: their text
// is counted as ordinary text. Invalid UTF-8 is counted as if each invalid
// byte were U+FFFD, which is what a caller passing the text through a
// Unicode string (as the npm package's callers do) gets.
package bpe

import (
	_ "embed"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ptc-sidecar/ptc-sidecar/internal/bpe/internal/vocab"
)

//go:generate go run ./internal/gen
//go:generate go run ./internal/gengemma

var (
	//go:embed o200k_base.vocab
	o200kBaseFile string
	//go:embed cl100k_base.vocab
	cl100kBaseFile string
)

// Encoding counts tokens of one encoding. It is safe for concurrent use.
type Encoding struct {
	split splitFunc
	file  string
	// sentencePiece marks Gemma's file (gemma.go), loaded into gemma
	// instead of table.
	sentencePiece bool

	once  sync.Once
	table *vocab.Table
	gemma *gemmaModel
	err   error
}

var encodings = map[string]*Encoding{
	"o200k_base":  {split: splitO200k, file: o200kBaseFile},
	"cl100k_base": {split: splitCl100k, file: cl100kBaseFile},
	"gemma3":      {file: gemma3File, sentencePiece: true},
}

// Names lists the encodings Get knows.
func Names() []string { return []string{"o200k_base", "cl100k_base", "gemma3"} }

// Get returns the named encoding, its vocabulary loaded (once per process).
func Get(name string) (*Encoding, error) {
	e, ok := encodings[name]
	if !ok {
		return nil, fmt.Errorf("unknown encoding %q", name)
	}
	e.once.Do(func() {
		if e.sentencePiece {
			e.gemma, e.err = loadGemma(e.file)
		} else {
			e.table, e.err = vocab.Parse(e.file)
		}
		if e.err != nil {
			e.err = fmt.Errorf("encoding %s: %w", name, e.err)
		}
	})
	if e.err != nil {
		return nil, e.err
	}
	return e, nil
}

// Count returns the number of tokens of text.
func (e *Encoding) Count(text string) int {
	n, _ := e.CountStop(text, nil)
	return n
}

// CountStop is Count that calls stop (when not nil) after every few
// kilobytes counted, inside a line or a piece too, and gives up with its
// error once it returns one: a request's context ending stops a count of
// megabytes within a millisecond or so.
func (e *Encoding) CountStop(text string, stop func() error) (int, error) {
	n := 0
	st := &stopper{stop: stop}
	if e.gemma != nil {
		e.gemma.encode(text, st, func(uint32, int, int) { n++ })
		return n, st.err
	}
	e.pieces(text, st, func(piece string, m *merger) {
		if _, ok := e.table.Rank(piece); ok {
			n++
			return
		}
		if len(piece) > window {
			m.windows(piece, func(s string) []int { return m.merge(e.table, s) }, func(int, int) { n++ }, st)
			return
		}
		n += len(m.merge(e.table, piece)) - 1
	})
	return n, st.err
}

// Tokens returns the tokens of text in order, each as the bytes it stands
// for (a token can end inside a character). Two texts share their first n
// tokens exactly when these agree, which is how the strategies find the
// prompt prefix a provider can read from its cache. Invalid UTF-8 is first
// replaced as Count does, so the tokens are then of the replaced text.
func (e *Encoding) Tokens(text string) []string {
	var out []string
	if e.gemma != nil {
		text, _ := validText(text, nil) // the tokens' bounds are in the replaced text
		e.gemma.encode(text, nil, func(_ uint32, start, end int) { out = append(out, text[start:end]) })
		return out
	}
	e.pieces(text, nil, func(piece string, m *merger) {
		if _, ok := e.table.Rank(piece); ok {
			out = append(out, piece)
			return
		}
		if len(piece) > window {
			m.longTokens(e.table, piece, func(start, end int) { out = append(out, piece[start:end]) })
			return
		}
		b := m.merge(e.table, piece)
		for i := range len(b) - 1 {
			out = append(out, piece[b[i]:b[i+1]])
		}
	})
	return out
}

// CommonTokens returns how many leading tokens a and b share and how many
// bytes of a those cover, as comparing Tokens(a) with Tokens(b) would,
// with stop as CountStop's. Both texts are tokenized in step, and no
// further than the first token that differs: the work is that of the
// shared tokens, the memory that of one token, where Tokens would hold a
// string header for every token of both texts (16 bytes for each byte of
// a text of control characters).
func (e *Encoding) CommonTokens(a, b string, stop func() error) (tokens, bytes int, err error) {
	if e.gemma == nil {
		// The pieces the two texts share whole are counted as CountStop
		// counts them, a piece at a time (a piece's tokens depend on it
		// alone, and where a piece ends on the text from its start); the
		// tokens are compared one by one only from the first piece that
		// differs.
		st := &stopper{stop: stop}
		var ok bool
		if a, ok = validText(a, st); ok {
			b, ok = validText(b, st)
		}
		if !ok {
			return 0, 0, st.err
		}
		m := mergerPool.Get().(*merger)
		for bytes < len(a) && bytes < len(b) {
			end := e.split(a, bytes)
			if e.split(b, bytes) != end || a[bytes:end] != b[bytes:end] || st.done(end-bytes) {
				break
			}
			tokens += e.pieceTokens(a[bytes:end], m, st)
			bytes = end
		}
		mergerPool.Put(m)
		if st.err != nil {
			return 0, 0, st.err
		}
		a, b = a[bytes:], b[bytes:]
	}
	n, nBytes, err := e.commonTokens(a, b, stop)
	return tokens + n, bytes + nBytes, err
}

// pieceTokens counts the tokens of piece, as CountStop does.
func (e *Encoding) pieceTokens(piece string, m *merger, st *stopper) int {
	if _, ok := e.table.Rank(piece); ok {
		return 1
	}
	if len(piece) > window {
		n := 0
		m.windows(piece, func(s string) []int { return m.merge(e.table, s) }, func(int, int) { n++ }, st)
		return n
	}
	return len(m.merge(e.table, piece)) - 1
}

// commonTokens is CommonTokens with the tokens of both texts compared one
// by one from their start.
func (e *Encoding) commonTokens(a, b string, stop func() error) (tokens, bytes int, err error) {
	if len(a) <= window && len(b) <= window {
		// Short texts, the usual: their tokens are few, and listing them
		// costs less than tokenizing in step.
		ta, tb := e.Tokens(a), e.Tokens(b)
		for tokens < len(ta) && tokens < len(tb) && ta[tokens] == tb[tokens] {
			bytes += len(ta[tokens])
			tokens++
		}
		return tokens, bytes, nil
	}
	stA, stB := &stopper{stop: stop}, &stopper{stop: stop}
	next, done := iter.Pull(func(yield func(string) bool) { e.eachToken(b, stB, yield) })
	defer done()
	e.eachToken(a, stA, func(ta string) bool {
		tb, ok := next()
		if !ok || ta != tb {
			return false
		}
		tokens++
		bytes += len(ta)
		return true
	})
	for _, st := range []*stopper{stA, stB} {
		if st.err != nil && st.err != errEnough {
			return 0, 0, st.err
		}
	}
	return tokens, bytes, nil
}

// errEnough is the stopper's error once a caller of eachToken has seen
// the tokens it wanted: the loops that check the stopper end there.
var errEnough = errors.New("enough tokens")

// eachToken calls yield with each token of text in order, as Tokens
// returns them, until yield returns false or st stops.
func (e *Encoding) eachToken(text string, st *stopper, yield func(string) bool) {
	enough := false
	emit := func(tok string) {
		if !enough && !yield(tok) {
			enough = true
			st.err = errEnough
		}
	}
	if e.gemma != nil {
		text, ok := validText(text, st) // the tokens' bounds are in the replaced text
		if ok {
			e.gemma.encode(text, st, func(_ uint32, start, end int) { emit(text[start:end]) })
		}
		return
	}
	e.pieces(text, st, func(piece string, m *merger) {
		if _, ok := e.table.Rank(piece); ok {
			emit(piece)
			return
		}
		if len(piece) > window {
			m.windows(piece, func(s string) []int { return m.merge(e.table, s) }, func(start, end int) { emit(piece[start:end]) }, st)
			return
		}
		b := m.merge(e.table, piece)
		for i := 0; i < len(b)-1 && !enough; i++ {
			emit(piece[b[i]:b[i+1]])
		}
	})
}

// validText is text as a Unicode string holds it, U+FFFD for each byte
// that is not part of a valid UTF-8 character (as string([]rune(text))
// has it), and false when st stopped first: replacing is work on the
// whole text, done under the same stopper as the counting that follows.
func validText(text string, st *stopper) (string, bool) {
	if utf8.ValidString(text) { // gigabytes a second: a look, not work
		return text, true
	}
	var b strings.Builder // grown as it is written: a stopped text costs what was looked at
	start, looked := 0, 0 // text[start:i] is valid, not yet written
	for i := 0; i < len(text); {
		if i-looked >= stopEvery {
			if st.done(i - looked) {
				return "", false
			}
			looked = i
		}
		if text[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString(text[start:i])
			b.WriteRune(utf8.RuneError)
			start = i + 1
		}
		i += n
	}
	b.WriteString(text[start:])
	return b.String(), true
}

// pieces calls fn with each piece the pre-tokenizer splits text into, and a
// merger to merge it with, until st stops.
func (e *Encoding) pieces(text string, st *stopper, fn func(piece string, m *merger)) {
	text, ok := validText(text, st)
	if !ok {
		return
	}
	m := mergerPool.Get().(*merger)
	defer mergerPool.Put(m)
	for i := 0; i < len(text); {
		end := e.split(text, i)
		if st.done(end - i) {
			return
		}
		fn(text[i:end], m)
		i = end
	}
}
