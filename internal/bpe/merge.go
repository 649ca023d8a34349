package bpe

import (
	"sync"

	"github.com/ptc-sidecar/ptc-sidecar/internal/bpe/internal/vocab"
)

// Byte-pair merging, as tiktoken defines it: a piece starts as single
// bytes; while some two adjacent parts join into a token, the pair whose
// token has the lowest rank joins, the leftmost of equal ranks first. The
// parts left are the piece's tokens (every single byte is a token).

// noRank marks a pair that does not join into a token.
const noRank = ^uint32(0)

// heapFrom is the piece length from which merge keeps candidate pairs in a
// heap instead of scanning all pairs for the lowest rank on each merge
// (O(n log n) against O(n^2); the scan is faster on short pieces).
const heapFrom = 96

// merger holds the buffers of merging, reused through mergerPool.
type merger struct {
	bounds []int    // part boundaries: part i is piece[bounds[i]:bounds[i+1]]
	ranks  []uint32 // ranks[i]: rank of parts i and i+1 joined
	nodes  []node
	heap   []candidate
	// The boundaries of the window before, and of the last window
	// merged, in longTokens.
	window, windowMerged []int
}

var mergerPool = sync.Pool{New: func() any { return new(merger) }}

// maxKept bounds the length of the buffers a pooled merger keeps.
const maxKept = 1 << 16

// merge returns the boundaries of the tokens of piece, from 0 to len(piece).
// The result is valid until the next call.
func (m *merger) merge(t *vocab.Table, piece string) []int {
	if cap(m.bounds) > maxKept || cap(m.nodes) > maxKept {
		*m = merger{}
	}
	if len(piece) < heapFrom {
		return m.scan(t, piece)
	}
	return m.heapMerge(t, piece)
}

func (m *merger) scan(t *vocab.Table, piece string) []int {
	bounds, ranks := m.bounds[:0], m.ranks[:0]
	for i := range len(piece) + 1 {
		bounds = append(bounds, i)
		ranks = append(ranks, noRank)
	}
	rankAt := func(i int) uint32 { // parts i and i+1 joined
		if i+2 < len(bounds) {
			if r, ok := t.Rank(piece[bounds[i]:bounds[i+2]]); ok {
				return r
			}
		}
		return noRank
	}
	for i := range len(bounds) - 2 {
		ranks[i] = rankAt(i)
	}
	for len(bounds) > 2 {
		low, at := noRank, 0
		for i, r := range ranks[:len(bounds)-2] {
			if r < low {
				low, at = r, i
			}
		}
		if low == noRank {
			break
		}
		// Parts at and at+1 join: the boundary between them goes.
		bounds = append(bounds[:at+1], bounds[at+2:]...)
		ranks = append(ranks[:at+1], ranks[at+2:]...)
		ranks[at] = rankAt(at)
		if at > 0 {
			ranks[at-1] = rankAt(at - 1)
		}
	}
	m.bounds, m.ranks = bounds, ranks
	return bounds
}

// node is a part in heapMerge's list of parts, indexed by its start.
type node struct {
	prev, next int    // starts of the neighbouring parts; -1 at the ends
	rank       uint32 // rank of this part joined with the next
}

type candidate struct {
	rank  uint32
	start int
}

func (m *merger) heapMerge(t *vocab.Table, piece string) []int {
	n := len(piece)
	nodes := m.nodes[:0]
	for i := range n + 1 {
		nodes = append(nodes, node{prev: i - 1, next: i + 1, rank: noRank})
	}
	nodes[n].next = -1
	rankAt := func(i int) uint32 {
		j := nodes[i].next
		if j < 0 || nodes[j].next < 0 {
			return noRank
		}
		if r, ok := t.Rank(piece[i:nodes[j].next]); ok {
			return r
		}
		return noRank
	}
	h := candidates(m.heap[:0])
	for i := range n - 1 {
		if r := rankAt(i); r != noRank {
			nodes[i].rank = r
			h = append(h, candidate{r, i})
		}
	}
	h.init()
	for len(h) > 0 {
		c := h.pop()
		if nodes[c.start].rank != c.rank { // stale: the part changed since
			continue
		}
		i := c.start
		j := nodes[i].next
		k := nodes[j].next
		nodes[i].next = k
		if k >= 0 {
			nodes[k].prev = i
		}
		nodes[j].rank = noRank
		for _, b := range [2]int{i, nodes[i].prev} {
			if b < 0 {
				continue
			}
			nodes[b].rank = rankAt(b)
			if nodes[b].rank != noRank {
				h.push(candidate{nodes[b].rank, b})
			}
		}
	}
	bounds := m.bounds[:0]
	for i := 0; i >= 0; i = nodes[i].next {
		bounds = append(bounds, i)
	}
	m.nodes, m.heap, m.bounds = nodes, h, bounds
	return bounds
}

// candidates is a min-heap of pairs by rank, then by start.
type candidates []candidate

func (h candidates) less(a, b int) bool {
	return h[a].rank < h[b].rank || h[a].rank == h[b].rank && h[a].start < h[b].start
}

func (h candidates) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *candidates) push(c candidate) {
	*h = append(*h, c)
	h.up(len(*h) - 1)
}

func (h *candidates) pop() candidate {
	old := *h
	top := old[0]
	last := len(old) - 1
	old[0] = old[last]
	*h = old[:last]
	h.down(0)
	return top
}

func (h candidates) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			return
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func (h candidates) down(i int) {
	for {
		child := 2*i + 1
		if child >= len(h) {
			return
		}
		if right := child + 1; right < len(h) && h.less(right, child) {
			child = right
		}
		if !h.less(child, i) {
			return
		}
		h[i], h[child] = h[child], h[i]
		i = child
	}
}
