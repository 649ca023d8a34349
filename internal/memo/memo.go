// Package memo is everything the process remembers between requests,
// under one byte budget.
//
// The protocol is stateless: an agent resends its whole run on every call,
// so the same value texts, programs and message texts arrive again and
// again, and reading, analyzing or tokenizing them again was most of what
// a call cost. A Memo holds the results, in tables of its own (one per kind
// of result: decoded values, read programs, token counts), and forgets the
// least recently used entry of any table once the bytes of all of them
// together would pass its budget. Each entry's bytes are its owner's
// estimate of what remembering it holds alive: the key's text and what was
// built from it, including whatever the result memoizes about itself later
// (a frozen map's printed source, a program's last analysis).
//
// Remembering never changes an answer: a result is found only under
// exactly the key it was computed from, and what is remembered must be
// immutable or safe to share (the owner freezes decoded values first).
// A nil *Memo remembers nothing.
package memo

import (
	"container/list"
	"sync"
)

// Memo is a bounded, concurrency-safe store of results between requests.
type Memo struct {
	mu     sync.Mutex
	budget int64
	bytes  int64
	lru    list.List // of entry, most recently used first
	tables []*tableStats
}

// New returns a Memo that holds about budget bytes; nil (nothing is
// remembered) when budget <= 0.
func New(budget int64) *Memo {
	if budget <= 0 {
		return nil
	}
	return &Memo{budget: budget}
}

// entry is what the LRU list holds: one remembered result of any table.
type entry interface {
	// forget removes the entry from its table; called with the Memo's lock.
	forget()
	size() int64
	stats() *tableStats
}

// tableStats counts one table's work; guarded by the Memo's lock.
type tableStats struct {
	name                    string
	hits, misses, evictions int64
	entries                 int
	bytes                   int64
}

// Stats is one table's counters since the Memo was made.
type Stats struct {
	Table                   string
	Hits, Misses, Evictions int64
	Entries                 int
	Bytes                   int64
}

// Stats returns every table's counters, in the order the tables were made.
func (m *Memo) Stats() []Stats {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Stats, len(m.tables))
	for i, t := range m.tables {
		out[i] = Stats{Table: t.name, Hits: t.hits, Misses: t.misses, Evictions: t.evictions, Entries: t.entries, Bytes: t.bytes}
	}
	return out
}

// Budget is the bytes the Memo may hold; 0 for a nil Memo.
func (m *Memo) Budget() int64 {
	if m == nil {
		return 0
	}
	return m.budget
}

// Table is one kind of result in a Memo, keyed by K. A Table of a nil Memo
// remembers nothing.
type Table[K comparable, V any] struct {
	memo    *Memo
	stats   *tableStats
	entries map[K]*list.Element
}

// NewTable adds a table called name (as the metrics label it) to m.
func NewTable[K comparable, V any](m *Memo, name string) *Table[K, V] {
	t := &Table[K, V]{memo: m}
	if m == nil {
		return t
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t.stats = &tableStats{name: name}
	t.entries = map[K]*list.Element{}
	m.tables = append(m.tables, t.stats)
	return t
}

type tableEntry[K comparable, V any] struct {
	table *Table[K, V]
	key   K
	value V
	bytes int64
}

func (e *tableEntry[K, V]) forget()            { delete(e.table.entries, e.key) }
func (e *tableEntry[K, V]) size() int64        { return e.bytes }
func (e *tableEntry[K, V]) stats() *tableStats { return e.table.stats }

// Get returns the result remembered under k.
func (t *Table[K, V]) Get(k K) (V, bool) {
	m := t.memo
	if m == nil {
		var zero V
		return zero, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := t.entries[k]
	if !ok {
		t.stats.misses++
		var zero V
		return zero, false
	}
	t.stats.hits++
	m.lru.MoveToFront(el)
	return el.Value.(*tableEntry[K, V]).value, true
}

// EntryOverhead is what an entry costs the memo besides its key's text
// and its result: the map slot, the list element and the entry itself.
// Callers count it in the bytes they Put.
const EntryOverhead = 160

// MaxBytes is the most bytes an entry may count to be remembered: an
// eighth of the budget, since one must not flush the rest; 0 when nothing
// is remembered.
func (t *Table[K, V]) MaxBytes() int64 {
	if t.memo == nil {
		return 0
	}
	return t.memo.budget / 8
}

// Put remembers v under k, counted as bytes, forgetting the least recently
// used entries of every table as the budget needs. A result of more than
// MaxBytes is not remembered. When k is remembered already (two requests
// computed it at once), the first result stays.
func (t *Table[K, V]) Put(k K, v V, bytes int64) {
	m := t.memo
	if m == nil || bytes > t.MaxBytes() {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := t.entries[k]; ok {
		return
	}
	t.entries[k] = m.lru.PushFront(&tableEntry[K, V]{table: t, key: k, value: v, bytes: bytes})
	t.stats.entries++
	t.stats.bytes += bytes
	m.bytes += bytes
	m.keepWithinBudget()
}

// Recount counts the result remembered under k as size says it holds
// now: a result that memoizes more about itself as it is used (a
// program's analysis, which may compile constants of any size) is counted
// by what it holds, not by what it held when it was Put. One grown past
// MaxBytes is forgotten, and the least recently used entries of every
// table as the budget needs.
func (t *Table[K, V]) Recount(k K, size func(K, V) int64) {
	m := t.memo
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := t.entries[k]
	if !ok {
		return
	}
	e := el.Value.(*tableEntry[K, V])
	bytes := size(k, e.value)
	t.stats.bytes += bytes - e.bytes
	m.bytes += bytes - e.bytes
	e.bytes = bytes
	if bytes > t.MaxBytes() {
		m.forget(el)
	}
	m.keepWithinBudget()
}

// keepWithinBudget forgets the least recently used entries until the
// Memo holds no more than its budget; called with the Memo's lock.
func (m *Memo) keepWithinBudget() {
	for m.bytes > m.budget {
		m.forget(m.lru.Back())
	}
}

// forget removes the entry el; called with the Memo's lock.
func (m *Memo) forget(el *list.Element) {
	e := m.lru.Remove(el).(entry)
	e.forget()
	s := e.stats()
	s.entries--
	s.bytes -= e.size()
	s.evictions++
	m.bytes -= e.size()
}
