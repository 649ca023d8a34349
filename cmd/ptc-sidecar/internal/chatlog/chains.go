package chatlog

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"

	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// A log of one request per call holds each conversation again and again,
// one call longer each time, and a proxy's or gateway's log interleaves
// the requests of many conversations. chains follows them: a conversation
// read that continues one held (holds it as its beginning) replaces it,
// one that a held conversation already holds whole (a retried request) is
// dropped, and any other is a conversation of its own. Only the last of a
// chain is given on, so each call is counted once.
//
// At most maxOpenChains are held; past that the one extended least
// recently is given on, and what it held is remembered as a hash of its
// messages, so that a later request continuing it is given on with From
// set: its calls before From were counted already.
type chains struct {
	seed  maphash.Seed
	open  []*chain
	given map[uint64]int // the hash of a conversation given on, to its length
	ticks int
	give  func(Conversation) error
}

// maxOpenChains bounds the conversations held at once while reading one
// file: a log's memory is that of its 64 most recently active
// conversations, not the file's.
const maxOpenChains = 64

type chain struct {
	conv     Conversation
	prefixes []uint64 // prefixes[i] is the hash of conv.Messages[:i]
	used     int      // when it was last extended
}

func newChains(give func(Conversation) error) *chains {
	return &chains{seed: maphash.MakeSeed(), given: map[uint64]int{}, give: give}
}

// add takes one conversation read.
func (cs *chains) add(c Conversation) error {
	cs.ticks++
	prefixes := cs.prefixHashes(c.Messages)
	n := len(c.Messages)
	var longest *chain
	longestLen := -1
	for _, o := range cs.open {
		m := len(o.conv.Messages)
		if m > n && o.prefixes[n] == prefixes[n] && isPrefix(c.Messages, o.conv.Messages) {
			o.used = cs.ticks // a request again, or an earlier one: nothing new
			return nil
		}
		// The held conversation whole, or its request without the reply
		// logged beside it (sent back otherwise than it came).
		lengths := []int{m}
		if o.conv.request > 0 {
			lengths = append(lengths, o.conv.request)
		}
		for _, m := range lengths {
			if m <= n && m > longestLen && prefixes[m] == o.prefixes[m] && isPrefix(o.conv.Messages[:m], c.Messages) {
				longest, longestLen = o, m
			}
		}
	}
	if longest != nil {
		c.From = longest.conv.From
		longest.conv, longest.prefixes, longest.used = c, prefixes, cs.ticks
		return nil
	}
	for i := n; i > 0; i-- {
		if cs.given[prefixes[i]] == i {
			c.From = i
			break
		}
	}
	if c.From == n && n > 0 {
		return nil // given on whole already
	}
	cs.open = append(cs.open, &chain{conv: c, prefixes: prefixes, used: cs.ticks})
	if len(cs.open) > maxOpenChains {
		oldest := 0
		for i, o := range cs.open {
			if o.used < cs.open[oldest].used {
				oldest = i
			}
		}
		o := cs.open[oldest]
		cs.open = append(cs.open[:oldest], cs.open[oldest+1:]...)
		return cs.giveOn(o)
	}
	return nil
}

// flush gives on every conversation held, in the order they began.
func (cs *chains) flush() error {
	for _, o := range cs.open {
		if err := cs.giveOn(o); err != nil {
			return err
		}
	}
	cs.open = nil
	return nil
}

func (cs *chains) giveOn(o *chain) error {
	cs.given[o.prefixes[len(o.conv.Messages)]] = len(o.conv.Messages)
	return cs.give(o.conv)
}

// prefixHashes are the hashes of msgs[:i] for i from 0 to len(msgs), each
// the hash of the one before and the next message's fields.
func (cs *chains) prefixHashes(msgs []strategies.ChatMessage) []uint64 {
	out := make([]uint64, len(msgs)+1)
	var h maphash.Hash
	h.SetSeed(cs.seed)
	var num [8]byte
	str := func(s string) {
		binary.LittleEndian.PutUint64(num[:], uint64(len(s)))
		_, _ = h.Write(num[:])
		_, _ = h.WriteString(s)
	}
	for i := range msgs {
		m := &msgs[i]
		h.Reset()
		binary.LittleEndian.PutUint64(num[:], out[i])
		_, _ = h.Write(num[:])
		for _, s := range []string{m.Role, m.Content, m.Source, m.SenderID, m.ToolCallID, m.Reasoning, m.Name} {
			str(s)
		}
		str(fmt.Sprint(len(m.ToolCalls), " ", len(m.Parts)))
		for _, tc := range m.ToolCalls {
			str(tc.ID)
			str(tc.Name)
			str(tc.Arguments)
		}
		for _, p := range m.Parts {
			str(p.Type)
			str(p.Text)
			if p.Extra != nil {
				str(fmt.Sprintf("%#v", *p.Extra))
			}
		}
		out[i+1] = h.Sum64()
	}
	return out
}
