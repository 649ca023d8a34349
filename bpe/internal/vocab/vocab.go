// Package vocab defines the binary vocabulary file that package bpe embeds:
// the tokens of one encoding in rank order and a hash table from token
// bytes to rank, laid out so that a reader uses the file's bytes where they
// are and allocates nothing.
//
// A vocabulary of 200,000 tokens held as a Go map[string]uint costs about
// 10 MB of heap, all of it pointers that every garbage collection cycle
// scans. The same vocabulary here is a ~3 MB string: read-only data in the
// binary, paged in as it is used, never scanned.
//
// Layout, all integers little-endian uint32:
//
//	magic "BPE1"
//	n            number of ranks (tokens 0..n-1; a rank may be unused)
//	tableBits    the hash table has 1<<tableBits slots
//	rankBits     low bits of a slot that hold rank+1 (0: empty slot)
//	offsets      n+1 entries: token r is bytes[offsets[r]:offsets[r+1]]
//	table        1<<tableBits slots, linear probing; a slot holds rank+1
//	             in its low rankBits bits and the high bits of the
//	             token's hash above them, so most probes that miss are
//	             decided without touching the token bytes
//	bytes        every token's bytes, in rank order
package vocab

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

const (
	magic      = "BPE1"
	headerSize = 16
)

// Table is a parsed vocabulary file. Its methods only read the file's bytes.
type Table struct {
	n         uint32
	tableMask uint32
	rankBits  uint32
	rankMask  uint32
	offsets   string // (n+1)*4 bytes
	slots     string // (1<<tableBits)*4 bytes
	bytes     string
}

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
	for _, t := range tokens {
		if t != "" {
			used++
			size += len(t)
		}
	}
	// At most 4/5 full: a missed lookup, the common case in byte-pair
	// merging, then probes about a dozen slots on average, within one or
	// two cache lines and mostly decided by the tag; a table twice the size
	// would double the pages a process keeps resident.
	tableBits := uint32(1)
	for (1<<tableBits)*4 < used*5 {
		tableBits++
	}
	if rankBits > 24 || tableBits > 28 || size > 1<<31 {
		return nil, fmt.Errorf("vocabulary too large: %d ranks, %d bytes", n, size)
	}
	out := make([]byte, 0, headerSize+4*(int(n)+1)+4<<tableBits+size)
	out = append(out, magic...)
	out = binary.LittleEndian.AppendUint32(out, n)
	out = binary.LittleEndian.AppendUint32(out, tableBits)
	out = binary.LittleEndian.AppendUint32(out, rankBits)
	off := uint32(0)
	for _, t := range tokens {
		out = binary.LittleEndian.AppendUint32(out, off)
		off += uint32(len(t))
	}
	out = binary.LittleEndian.AppendUint32(out, off)

	slots := make([]uint32, 1<<tableBits)
	mask := uint32(len(slots) - 1)
	for r, t := range tokens {
		if t == "" {
			continue
		}
		h := Hash(t)
		for i := uint32(h) & mask; ; i = (i + 1) & mask {
			if slots[i] == 0 {
				slots[i] = uint32(r+1) | tag(h, rankBits)
				break
			}
			if rank := slots[i]&(1<<rankBits-1) - 1; tokens[rank] == t {
				return nil, fmt.Errorf("token %q has ranks %d and %d", t, rank, r)
			}
		}
	}
	for _, s := range slots {
		out = binary.LittleEndian.AppendUint32(out, s)
	}
	for _, t := range tokens {
		out = append(out, t...)
	}
	return out, nil
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
	tableBits := u32(data, 8)
	rankBits := u32(data, 12)
	if rankBits == 0 || rankBits > 24 || tableBits > 28 || uint64(n)+1 > 1<<rankBits {
		return nil, fmt.Errorf("vocabulary header out of range: %d ranks, %d table bits, %d rank bits", n, tableBits, rankBits)
	}
	offEnd := headerSize + 4*(uint64(n)+1)
	slotEnd := offEnd + 4<<tableBits
	if uint64(len(data)) < slotEnd {
		return nil, errors.New("vocabulary file truncated")
	}
	t := &Table{
		n:         n,
		tableMask: 1<<tableBits - 1,
		rankBits:  rankBits,
		rankMask:  1<<rankBits - 1,
		offsets:   data[headerSize:offEnd],
		slots:     data[offEnd:slotEnd],
		bytes:     data[slotEnd:],
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
	i := uint32(h) & t.tableMask
	for range t.tableMask + 1 {
		slot := u32(t.slots, 4*i)
		i = (i + 1) & t.tableMask
		if slot == 0 {
			return 0, false
		}
		if slot&^t.rankMask != want {
			continue
		}
		r := slot&t.rankMask - 1
		if r < t.n && t.Token(int(r)) == s {
			return r, true
		}
	}
	return 0, false
}
