// Package valuecache remembers values decoded from the wire, keyed by their
// text, so that what an agent sends again on every call is read once.
//
// The protocol is stateless: each ToMessages call carries the whole run, and
// each EvalTurn carries the data and the prelude. A running agent therefore
// resends the same memory values, data and tool results call after call,
// and reading them again was most of what a call cost. The cache changes
// nothing a caller can observe: a value is found only under exactly the
// text (and reading options) it was read from, a miss reads the text as
// before, and errors are never remembered, so a bad request fails the same
// way every time.
//
// Cached values are frozen (lisp.Freeze) before anyone else sees them, so
// concurrent evaluations can share and build on them. The cache is bounded
// by an estimate of the bytes it holds (the text, the decoded structure,
// and the printed source a frozen map keeps once printed) and forgets the
// least recently used values first.
//
// Each remembered text is held once, however many entries were read from
// it, and Canonical finds it: a request decoder that reads its strings as
// views into a transport buffer takes a resent value's text from there
// instead of copying it. Remembered texts are valid UTF-8, so a text found
// there needs no second check.
//
// Values are indexed by a fingerprint of their text, not by the whole text:
// hashing every byte of a request's values on every call (a megabyte for a
// long run) cost more than everything else the cache does. A fingerprint
// hashes a bounded part of the text; the texts under one fingerprint are
// told apart by comparing them whole, which a hit has to do anyway. At
// most maxPerFingerprint texts share a fingerprint, so texts built to
// collide cost a lookup a few comparisons, never a scan of the cache.
package valuecache

import (
	"container/list"
	"hash/maphash"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// MinText is the shortest text worth remembering: reading a short value
// costs less than finding it.
const MinText = 16

// Format is the notation a value's text is written in.
type Format uint8

// The wire notations of a value.
const (
	EDN Format = iota
	JSON
)

// Key names a decoded value: its text and everything that changes what
// reading the text produces.
type Key struct {
	Format Format
	// MaxNesting is the nesting limit the text was read under.
	MaxNesting int
	// Keep is the sample size lists were cut to (lisp.ParseEDNSample);
	// 0 means read whole.
	Keep int
	Text string
}

// Stats counts the cache's work since it was made.
type Stats struct {
	Hits, Misses, Evictions int64
	Entries                 int
	Bytes                   int64
}

// Cache is a bounded, concurrency-safe map from Key to decoded value. A nil
// *Cache remembers nothing: Decode always reads.
type Cache struct {
	mu      sync.Mutex
	max     int64
	seed    maphash.Seed                    // of texts hashed whole
	key     uint64                          // random start of the windows' hash
	entries map[fingerprint][]*list.Element // each holds an *entry; most recently used first
	lru     list.List                       // of *entry, most recently used first
	texts   map[fingerprint][]*sharedText   // the entries' texts, by textPrint
	stats   Stats
}

type entry struct {
	text  *sharedText // key.Text is text.s
	key   Key
	print fingerprint
	value lisp.Value
	bytes int64
}

// A fingerprint is a key's reading options, its text's length and a hash of
// at most fingerprintWindows windows of windowBytes of the text: its head, its
// tail and windows spread evenly between. Texts up to that size are hashed
// whole.
type fingerprint struct {
	format     Format
	maxNesting int
	keep       int
	length     int
	hash       uint64
}

// sharedText is a remembered text and the number of entries read from it.
type sharedText struct {
	s       string
	entries int
}

// textPrint is fp without the reading options: the fingerprint of the
// text alone, under which texts are found whatever they were read as.
func (fp fingerprint) textPrint() fingerprint {
	return fingerprint{length: fp.length, hash: fp.hash}
}

const (
	fingerprintWindows = 8
	windowBytes        = 32
	// maxPerFingerprint bounds the texts kept under one fingerprint; a new
	// one replaces the least recently used of them.
	maxPerFingerprint = 8
)

func (c *Cache) fingerprint(k *Key) fingerprint {
	fp := fingerprint{format: k.Format, maxNesting: k.MaxNesting, keep: k.Keep, length: len(k.Text)}
	t := k.Text
	if len(t) <= fingerprintWindows*windowBytes {
		fp.hash = maphash.String(c.seed, t)
		return fp
	}
	// Each window is four words; lane j mixes word j of every window
	// (multiply-xorshift), so the four chains run side by side. The lanes
	// start from the cache's random key and are mixed together at the end.
	l0, l1, l2, l3 := c.key, c.key+1, c.key+2, c.key+3
	last := len(t) - windowBytes
	step := last / (fingerprintWindows - 1) // one division, not one per window
	for i := range fingerprintWindows {
		at := i * step
		if i == fingerprintWindows-1 {
			at = last
		}
		w := t[at : at+windowBytes]
		l0 = mix(l0, word(w[0:8]))
		l1 = mix(l1, word(w[8:16]))
		l2 = mix(l2, word(w[16:24]))
		l3 = mix(l3, word(w[24:32]))
	}
	fp.hash = mix(mix(mix(l0, l1), l2), l3)
	return fp
}

// mix folds word w into hash h.
func mix(h, w uint64) uint64 {
	h = (h ^ w) * 0x9e3779b97f4a7c15
	return h ^ h>>32
}

// word reads the first 8 bytes of s as a little-endian integer.
func word(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// New returns a cache that holds about maxBytes of texts and values; nil
// if maxBytes <= 0.
func New(maxBytes int64) *Cache {
	if maxBytes <= 0 {
		return nil
	}
	seed := maphash.MakeSeed()
	return &Cache{max: maxBytes, seed: seed, key: maphash.String(seed, "windows"), entries: map[fingerprint][]*list.Element{}, texts: map[fingerprint][]*sharedText{}}
}

// Canonical returns the remembered text equal to text, if there is one.
// The candidates are compared outside the lock: a text is up to a
// megabyte, and concurrent requests look theirs up at once.
func (c *Cache) Canonical(text string) (string, bool) {
	if c == nil || len(text) < MinText {
		return "", false
	}
	tp := c.fingerprint(&Key{Text: text})
	var room [4]string
	c.mu.Lock()
	candidates := room[:0]
	for _, t := range c.texts[tp] {
		candidates = append(candidates, t.s)
	}
	c.mu.Unlock()
	for _, s := range candidates {
		if s == text {
			return s, true
		}
	}
	return "", false
}

// share returns the remembered text equal to s, remembering s if there is
// none, and counts one more entry read from it. Called with c.mu held.
func (c *Cache) share(tp fingerprint, s string) *sharedText {
	for _, t := range c.texts[tp] {
		if t.s == s {
			t.entries++
			return t
		}
	}
	t := &sharedText{s: s, entries: 1}
	c.texts[tp] = append(c.texts[tp], t)
	return t
}

// unshare counts one entry fewer read from t and forgets t after the last.
// Called with c.mu held.
func (c *Cache) unshare(tp fingerprint, t *sharedText) {
	if t.entries--; t.entries > 0 {
		return
	}
	same := c.texts[tp]
	if i := slices.Index(same, t); i >= 0 {
		same = slices.Delete(same, i, i+1) // clears the freed slot
	}
	if len(same) == 0 {
		delete(c.texts, tp)
	} else {
		c.texts[tp] = same
	}
}

// find returns the element of k under its fingerprint fp, moved to the
// front of its fingerprint's list, or nil.
func (c *Cache) find(fp fingerprint, k *Key) *list.Element {
	same := c.entries[fp]
	for i, el := range same {
		if el.Value.(*entry).key == *k {
			if i > 0 {
				copy(same[1:i+1], same[:i])
				same[0] = el
			}
			return el
		}
	}
	return nil
}

// remove forgets el, which holds e.
func (c *Cache) remove(el *list.Element, e *entry) {
	c.lru.Remove(el)
	same := c.entries[e.print]
	for i := range same {
		if same[i] == el {
			copy(same[i:], same[i+1:])
			same[len(same)-1] = nil // no reference left behind
			same = same[:len(same)-1]
			break
		}
	}
	if len(same) == 0 {
		delete(c.entries, e.print)
	} else {
		c.entries[e.print] = same
	}
	c.unshare(e.print.textPrint(), e.text)
	c.stats.Bytes -= e.bytes
}

// Decode returns the value remembered under k, or calls read, remembers
// what it returns (unless it fails, or the text is short) and returns that.
// The value returned is frozen when it is remembered: callers must not
// rely on extending it in place.
func (c *Cache) Decode(k Key, read func() (lisp.Value, error)) (lisp.Value, error) {
	if c == nil || len(k.Text) < MinText {
		return read()
	}
	fp := c.fingerprint(&k)
	c.mu.Lock()
	if el := c.find(fp, &k); el != nil {
		c.lru.MoveToFront(el)
		c.stats.Hits++
		v := el.Value.(*entry).value
		c.mu.Unlock()
		return v, nil
	}
	c.stats.Misses++
	c.mu.Unlock()

	// Read outside the lock: two callers missing the same text at once
	// both read it, and the second one's value is dropped below.
	v, err := read()
	if err != nil || v == nil || !utf8.ValidString(k.Text) {
		return v, err
	}
	e := &entry{key: k, print: fp, value: lisp.Freeze(v), bytes: entryBytes(k.Text, v)}
	if e.bytes > c.max/4 {
		return v, nil // one value must not flush everything else
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.find(fp, &k); el != nil {
		return el.Value.(*entry).value, nil
	}
	e.text = c.share(fp.textPrint(), k.Text)
	e.key.Text = e.text.s
	if same := c.entries[fp]; len(same) >= maxPerFingerprint {
		old := same[len(same)-1]
		c.remove(old, old.Value.(*entry))
		c.stats.Evictions++
	}
	el := c.lru.PushFront(e)
	c.entries[fp] = append([]*list.Element{el}, c.entries[fp]...)
	c.stats.Bytes += e.bytes
	for c.stats.Bytes > c.max {
		old := c.lru.Back()
		c.remove(old, old.Value.(*entry))
		c.stats.Evictions++
	}
	return v, nil
}

// Stats returns the counters so far; the zero Stats for a nil cache.
func (c *Cache) Stats() Stats {
	if c == nil {
		return Stats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Entries = c.lru.Len()
	return s
}

// entryBytes is what remembering v, read from text, is counted: the text;
// the printed source lisp keeps for each frozen map once a program has it
// printed, at most about as long as the text again; and the decoded
// structure.
func entryBytes(text string, v lisp.Value) int64 {
	n := footprint(v)
	if hasMap(v) {
		n += int64(len(text))
	}
	return int64(len(text)) + n
}

// hasMap reports whether v is or holds a map.
func hasMap(v lisp.Value) bool {
	switch v := v.(type) {
	case *lisp.Map:
		return true
	case *lisp.Vector:
		return slices.ContainsFunc(v.Elems(), hasMap)
	case *lisp.Set:
		return slices.ContainsFunc(v.Elems(), hasMap)
	}
	return false
}

// footprint estimates the heap bytes a decoded value holds beyond its
// text: the reader slices strings without escapes from the text, so they
// cost their header only.
func footprint(v lisp.Value) int64 {
	switch v := v.(type) {
	case *lisp.Vector:
		n := int64(48 + 16*v.Len())
		for _, e := range v.Elems() {
			n += footprint(e)
		}
		return n
	case *lisp.Map:
		n := int64(64 + 32*v.Len())
		if v.Len() > 8 {
			n += int64(48 * v.Len()) // the index
		}
		for _, e := range v.Entries() {
			n += footprint(e.Key) + footprint(e.Val)
		}
		return n
	case *lisp.Set:
		n := int64(64 + 64*v.Len())
		for _, e := range v.Elems() {
			n += footprint(e)
		}
		return n
	case lisp.String:
		return 16
	case lisp.Int, lisp.Float:
		return 8
	}
	return 0
}
