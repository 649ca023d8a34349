// Package vocab defines the binary vocabulary file that package bpe embeds:
// the tokens of one encoding in rank order and a hash table from token
// bytes to rank, laid out so that a reader uses the file's bytes where they
// are and allocates nothing.
//
// A vocabulary of 200,000 tokens held as a Go map[string]uint is heap of
// pointers that every garbage collection cycle scans. The same vocabulary
// here is one string: read-only data in the binary, paged in as it is
// used, never scanned (docs/BENCHMARKS.md has the sizes of both).
//
// Layout, all integers little-endian uint32:
//
//	magic "BPE1"
//	n            number of ranks (tokens 0..n-1; a rank may be unused)
//	bucketBits   the hash table has 1<<bucketBits buckets of 4 slots
//	rankBits     low bits of a slot that hold rank+1 (0: empty slot)
//	offsets      n+1 entries: token r is bytes[offsets[r]:offsets[r+1]]
//	table        the buckets, 16 bytes each; a slot holds rank+1 in its
//	             low rankBits bits and the high bits of the token's hash
//	             above them, so a probe that misses is decided without
//	             touching the token bytes
//	bytes        every token's bytes, in rank order
//
// The table is a cuckoo hash table: a token lies in one of two buckets its
// hash chooses, so a lookup reads at most two buckets (two cache lines)
// whether it finds the token or not. Most lookups in byte-pair merging are
// of pairs that are not tokens; with linear probing at the same 3/4 load
// such a miss would read about ten slots.
package vocab

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
)

const (
	magic      = "BPE1"
	headerSize = 16
)

// Table is a parsed vocabulary file. Its methods only read the file's bytes.
type Table struct {
	n          uint32
	bucketMask uint32
	rankBits   uint32
	rankMask   uint32
	offsets    string // (n+1)*4 bytes
	buckets    string // (1<<bucketBits)*bucketSize bytes
	bytes      string
}

const (
	slotsPerBucket = 4
	bucketSize     = 4 * slotsPerBucket
	maxKicks       = 1 << 12
)

// Hash is the hash of token bytes that the table is built on. Changing it
// changes every vocabulary file, so it is part of the format.
func Hash(s string) uint64 {
	h := uint64(len(s)) * 0x9e3779b97f4a7c15
	for len(s) >= 8 {
		h = (h ^ u64(s)) * 0xbf58476d1ce4e5b9
		h ^= h >> 31
		s = s[8:]
	}
	if len(s) > 0 {
		var x uint64
		for i := 0; i < len(s); i++ {
			x |= uint64(s[i]) << (8 * i)
		}
		h = (h ^ x) * 0x94d049bb133111eb
	}
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 32
	return h
}

// Build writes the vocabulary file of tokens, where tokens[r] is the token
// of rank r and an empty string marks an unused rank. Tokens must be
// distinct.
func Build(tokens []string) ([]byte, error) {
	n := uint32(len(tokens))
	rankBits := uint32(bits.Len32(n)) // rank+1 <= n fits
	used := 0
	size := 0
	ranks := make(map[string]int, len(tokens))
	for r, t := range tokens {
		if t == "" {
			continue
		}
		if prev, ok := ranks[t]; ok {
			return nil, fmt.Errorf("token %q has ranks %d and %d", t, prev, r)
		}
		ranks[t] = r
		used++
		size += len(t)
	}
	// At most 9/10 full: with two buckets of four slots per token,
	// insertion still finds room after a few moves (a larger table would
	// only add pages for a process to keep resident).
	bucketBits := uint32(0)
	for (slotsPerBucket<<bucketBits)*9 < used*10 {
		bucketBits++
	}
	if rankBits > 24 || bucketBits > 26 || size > 1<<31 {
		return nil, fmt.Errorf("vocabulary too large: %d ranks, %d bytes", n, size)
	}
	var slots []uint32
	for {
		var ok bool
		if slots, ok = cuckoo(tokens, bucketBits, rankBits); ok {
			break
		}
		bucketBits++
	}
	out := make([]byte, 0, headerSize+4*(int(n)+1)+4*len(slots)+size)
	out = append(out, magic...)
	out = binary.LittleEndian.AppendUint32(out, n)
	out = binary.LittleEndian.AppendUint32(out, bucketBits)
	out = binary.LittleEndian.AppendUint32(out, rankBits)
	off := uint32(0)
	for _, t := range tokens {
		out = binary.LittleEndian.AppendUint32(out, off)
		off += uint32(len(t))
	}
	out = binary.LittleEndian.AppendUint32(out, off)
	for _, s := range slots {
		out = binary.LittleEndian.AppendUint32(out, s)
	}
	for _, t := range tokens {
		out = append(out, t...)
	}
	return out, nil
}

// cuckoo places every token in one of its two buckets, moving tokens
// already placed to their other bucket when both are full (the victim
// chosen by a fixed-seed generator, so the file is reproducible). It
// reports false when some token finds no room.
func cuckoo(tokens []string, bucketBits, rankBits uint32) ([]uint32, bool) {
	mask := uint32(1)<<bucketBits - 1
	slots := make([]uint32, slotsPerBucket<<bucketBits)
	rng := rand.New(rand.NewPCG(1, 2))
	for r, t := range tokens {
		if t == "" {
			continue
		}
		slot := uint32(r+1) | tag(Hash(t), rankBits)
		b, _ := bucketsOf(Hash(t), mask)
		for range maxKicks {
			if placeIn(slots, b, slot) || placeIn(slots, other(tokens, slot, b, mask, rankBits), slot) {
				slot = 0
				break
			}
			// Both full: evict a random slot of b, and place the victim
			// in its other bucket next.
			i := b*slotsPerBucket + uint32(rng.IntN(slotsPerBucket))
			slots[i], slot = slot, slots[i]
			b = other(tokens, slot, b, mask, rankBits)
		}
		if slot != 0 {
			return nil, false
		}
	}
	return slots, true
}

// other returns the bucket of slot's token that is not b.
func other(tokens []string, slot, b, mask, rankBits uint32) uint32 {
	b1, b2 := bucketsOf(Hash(tokens[slot&(1<<rankBits-1)-1]), mask)
	if b == b1 {
		return b2
	}
	return b1
}

func placeIn(slots []uint32, b, slot uint32) bool {
	for i := b * slotsPerBucket; i < (b+1)*slotsPerBucket; i++ {
		if slots[i] == 0 {
			slots[i] = slot
			return true
		}
	}
	return false
}

// bucketsOf returns the two buckets of a token's hash: from its low bits
// and from its middle bits (the tag uses the high ones).
func bucketsOf(h uint64, mask uint32) (uint32, uint32) {
	return uint32(h) & mask, uint32(h>>24) & mask
}

// tag is the part of a slot above the rank: the hash's high bits.
func tag(h uint64, rankBits uint32) uint32 {
	return uint32(h>>32) &^ (1<<rankBits - 1)
}

// Parse checks the layout of a vocabulary file and returns its table. The
// table refers to data; nothing is copied.
func Parse(data string) (*Table, error) {
	if len(data) < headerSize || data[:4] != magic {
		return nil, errors.New("not a vocabulary file")
	}
	n := u32(data, 4)
	bucketBits := u32(data, 8)
	rankBits := u32(data, 12)
	if rankBits == 0 || rankBits > 24 || bucketBits > 26 || uint64(n)+1 > 1<<rankBits {
		return nil, fmt.Errorf("vocabulary header out of range: %d ranks, %d bucket bits, %d rank bits", n, bucketBits, rankBits)
	}
	offEnd := headerSize + 4*(uint64(n)+1)
	bucketEnd := offEnd + bucketSize<<bucketBits
	if uint64(len(data)) < bucketEnd {
		return nil, errors.New("vocabulary file truncated")
	}
	t := &Table{
		n:          n,
		bucketMask: 1<<bucketBits - 1,
		rankBits:   rankBits,
		rankMask:   1<<rankBits - 1,
		offsets:    data[headerSize:offEnd],
		buckets:    data[offEnd:bucketEnd],
		bytes:      data[bucketEnd:],
	}
	if last := u32(t.offsets, 4*n); int(last) != len(t.bytes) {
		return nil, fmt.Errorf("vocabulary holds %d token bytes, offsets say %d", len(t.bytes), last)
	}
	return t, nil
}

// Check verifies what Parse leaves unchecked so that loading touches only
// the header: that the offsets never decrease, so every token lies within
// the file. Tests run it on the embedded files.
func (t *Table) Check() error {
	prev := uint32(0)
	for r := uint32(0); r <= t.n; r++ {
		o := u32(t.offsets, 4*r)
		if o < prev {
			return fmt.Errorf("vocabulary offsets decrease at rank %d", r)
		}
		prev = o
	}
	return nil
}

func u64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func u32(s string, i uint32) uint32 {
	_ = s[i+3]
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

// Len returns the number of ranks.
func (t *Table) Len() int { return int(t.n) }

// Token returns the bytes of the token of rank r, empty for an unused rank.
func (t *Table) Token(r int) string {
	return t.bytes[u32(t.offsets, 4*uint32(r)):u32(t.offsets, 4*uint32(r)+4)]
}

// Rank returns the rank of the token s.
func (t *Table) Rank(s string) (uint32, bool) {
	h := Hash(s)
	want := tag(h, t.rankBits)
	b1, b2 := bucketsOf(h, t.bucketMask)
	if r, ok := t.find(s, want, b1); ok {
		return r, true
	}
	return t.find(s, want, b2)
}

func (t *Table) find(s string, want, b uint32) (uint32, bool) {
	for i := b * bucketSize; i < (b+1)*bucketSize; i += 4 {
		slot := u32(t.buckets, i)
		if slot == 0 || slot&^t.rankMask != want {
			continue
		}
		if r := slot&t.rankMask - 1; r < t.n && t.Token(int(r)) == s {
			return r, true
		}
	}
	return 0, false
}
