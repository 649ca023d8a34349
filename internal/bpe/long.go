package bpe

import (
	"unicode/utf8"

	"github.com/ptc-sidecar/ptc-sidecar/internal/bpe/internal/vocab"
)

// Long pieces. The split patterns bound no run of whitespace, letters or
// symbols, so one piece can be the whole text: fifteen megabytes of
// newlines are one piece. OpenAI's tokenizer merges such a piece whole:
// the npm package (the oracle of the tests) scans all pairs for each
// merge, quadratic in the piece, and tiktoken 0.13 switches pieces of 100
// bytes or more to a heap (_byte_pair_merge_large), O(n log n) in time
// but with a state per byte, so its memory still grows with the piece. So
// did this package's, by a few hundred bytes per byte of the piece
// (docs/BENCHMARKS.md).
//
// The rule here: a piece longer than window bytes is merged a window at a
// time. Each window starts at the first token boundary, in the window
// before it, that lies in that window's last overlap bytes; where the two
// windows first hold the same token at the same place, the tokens of the
// piece go on with the second window's. This gives exactly the tokens of
// merging the piece whole, because of two properties of byte-pair merging
// (leftmost lowest rank first, as merge.go runs it):
//
//   - A stretch of the result between two of its token boundaries is the
//     merge of that stretch's own text: no merge ever crosses those
//     boundaries, so merging the stretch alone makes the same merges in
//     the same order.
//   - Two merges that share a token splice: if the tokens of text[:b] end
//     with the token text[a:b], and the tokens of text[a:] start with that
//     same token, then the tokens of text are the first up to a, then the
//     second from a. A merge of the whole that crossed a or b would have
//     to be made, at the same point, by one of the two merges, which keep
//     both as boundaries.
//
// (GitHub's bpe crate, rust-gems, states and proves both as corollaries II
// and III of its README.) Windows of real text agree within a token or
// two; where two windows agreed on no token at all (no text found so far
// does, TestLongPiecesMergeAsAWhole looks for one), the seam would stay
// where the second window starts and the count could differ from
// tiktoken's by the tokens around it.
//
// A merge holds the state of one window whatever the piece, and each byte
// is merged about 1.15 times. A run of one character, the usual long
// piece (newlines, spaces, dashes), is the same text window after window
// and is merged once.

// window is the longest stretch of a piece merged at once: a few hundred
// kilobytes of merge state at most.
const window = 4096

// overlap is how far into the window before the next window starts. The
// two windows agree within a few tokens of the start of the next, so a
// short overlap wastes little merging; no token is as long as half of it
// (TestLongestTokenFitsTheOverlap), so it always holds a boundary.
const overlap = window / 8

// longTokens calls emit with the start and end of each token of piece, a
// piece longer than window, in order. It returns how many seams found no
// token the two windows share (see above), 0 for every text tested.
func (m *merger) longTokens(t *vocab.Table, piece string, emit func(start, end int)) (unshared int) {
	return m.windows(piece, func(s string) []int { return m.merge(t, s) }, emit, nil)
}

// windows is longTokens with merge, which returns the token boundaries of
// a window's text (valid until its next call), as the merge: Gemma's
// words merge the same way (gemma.go). A window ends at a character's
// start, so that a merge of characters is given whole ones; where it ends
// does not matter to the argument above. Once st stops, windows returns
// without the rest of the tokens.
func (m *merger) windows(piece string, merge func(string) []int, emit func(start, end int), st *stopper) (unshared int) {
	// cur is the tokens of piece[base:curEnd] as boundaries from base; the
	// tokens before done are final and emitted.
	base, done := 0, 0
	curEnd := runeStartBefore(piece, window)
	cur := append(m.window[:0], merge(piece[:curEnd])...)
	merged, mergedText := m.windowMerged[:0], piece[:curEnd]
	merged = append(merged, cur...)
	for curEnd < len(piece) {
		if st.done(window) {
			return unshared
		}
		// The next window starts at the first boundary of cur in its
		// last overlap bytes.
		from := curEnd - base - overlap
		k := 0
		for cur[k] < from {
			k++
		}
		next := base + cur[k]
		nextEnd := runeStartBefore(piece, next+window)
		if text := piece[next:nextEnd]; text != mergedText {
			// A run of one character (the usual long piece) is the same
			// text window after window, and merges the same way.
			merged, mergedText = append(merged[:0], merge(text)...), text
		}
		bounds := merged
		splice, found := sharedToken(cur, base, bounds, next)
		if !found {
			splice = next // see above: no token in common
			unshared++
		}
		for i := 0; i+1 < len(cur) && base+cur[i] < splice; i++ {
			if base+cur[i] >= done {
				emit(base+cur[i], base+cur[i+1])
			}
		}
		done = splice
		base, curEnd = next, nextEnd
		cur = append(cur[:0], bounds...)
	}
	for i := 0; i+1 < len(cur); i++ {
		if base+cur[i] >= done {
			emit(base+cur[i], base+cur[i+1])
		}
	}
	m.window, m.windowMerged = cur, merged
	return unshared
}

// sharedToken returns the start of the first token of b (boundaries from
// bBase) that a (boundaries from aBase) holds too, at the same place.
func sharedToken(a []int, aBase int, b []int, bBase int) (int, bool) {
	j := 0
	for i := 0; i+1 < len(b); i++ {
		start, end := bBase+b[i], bBase+b[i+1]
		for j < len(a) && aBase+a[j] < start {
			j++
		}
		if j+1 >= len(a) {
			return 0, false // past the end of a
		}
		if aBase+a[j] == start && aBase+a[j+1] == end {
			return start, true
		}
	}
	return 0, false
}

// runeStartBefore returns i, or len(s) if i is past it, moved back to the
// start of the character i falls in.
func runeStartBefore(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// stopEvery is how many bytes of text are counted between calls of a
// stopper's function: well under a millisecond of merging.
const stopEvery = 16 << 10

// stopper calls stop once per stopEvery bytes counted and keeps its first
// error; a nil stopper never stops, nor one without stop until its error
// is set by its owner (errEnough).
type stopper struct {
	stop  func() error
	since int
	err   error
}

// done adds n bytes counted and reports whether counting is to stop.
func (s *stopper) done(n int) bool {
	if s == nil {
		return false
	}
	if s.err == nil && s.stop != nil {
		if s.since += n; s.since >= stopEvery {
			s.since = 0
			s.err = s.stop()
		}
	}
	return s.err != nil
}
