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
// by an estimate of the bytes it holds and forgets the least recently used
// values first.
package valuecache

import (
	"container/list"
	"sync"

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
	entries map[Key]*list.Element
	lru     list.List // of *entry, most recently used first
	stats   Stats
}

type entry struct {
	key   Key
	value lisp.Value
	bytes int64
}

// New returns a cache that holds about maxBytes of texts and values; nil
// if maxBytes <= 0.
func New(maxBytes int64) *Cache {
	if maxBytes <= 0 {
		return nil
	}
	return &Cache{max: maxBytes, entries: map[Key]*list.Element{}}
}

// Decode returns the value remembered under k, or calls read, remembers
// what it returns (unless it fails, or the text is short) and returns that.
// The value returned is frozen when it is remembered: callers must not
// rely on extending it in place.
func (c *Cache) Decode(k Key, read func() (lisp.Value, error)) (lisp.Value, error) {
	if c == nil || len(k.Text) < MinText {
		return read()
	}
	c.mu.Lock()
	if el, ok := c.entries[k]; ok {
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
	if err != nil || v == nil {
		return v, err
	}
	e := &entry{key: k, value: lisp.Freeze(v), bytes: int64(len(k.Text)) + footprint(v)}
	if e.bytes > c.max/4 {
		return v, nil // one value must not flush everything else
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[k]; ok {
		return el.Value.(*entry).value, nil
	}
	c.entries[k] = c.lru.PushFront(e)
	c.stats.Bytes += e.bytes
	for c.stats.Bytes > c.max {
		old := c.lru.Remove(c.lru.Back()).(*entry)
		delete(c.entries, old.key)
		c.stats.Bytes -= old.bytes
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
	s.Entries = len(c.entries)
	return s
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
