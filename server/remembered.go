package server

import (
	"slices"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// What the service remembers between requests (internal/memo): an agent
// resends its memory, data and tool results on every call, and a replayed
// turn its program on every round trip; reading them again was most of a
// call's cost. Remembering changes no answer: a result is found only under
// exactly the text and reading options it came from, and failures are
// never remembered, so a bad request fails the same way every time.

// minRememberedText is the shortest value text worth remembering: reading
// a short value costs less than finding it.
const minRememberedText = 16

// valueKey names a decoded value: its text and everything that changes
// what reading the text produces.
type valueKey struct {
	json       bool // else EDN
	maxNesting int
	keep       int // the sample size lists were cut to (lisp.ParseEDNSample); 0: whole
	text       string
}

// programKey names a read program.
type programKey struct {
	text       string
	maxNesting int
}

// remembered are the service's tables of its memo.
type remembered struct {
	values     *memo.Table[valueKey, lisp.Value]
	programs   *memo.Table[programKey, *lisp.Program]
	strategies *strategies.Remembered // handed to the strategies with each request
}

func newRemembered(m *memo.Memo) remembered {
	return remembered{
		values:     memo.NewTable[valueKey, lisp.Value](m, "values"),
		programs:   memo.NewTable[programKey, *lisp.Program](m, "programs"),
		strategies: strategies.NewRemembered(m),
	}
}

// value returns the value remembered under k, or what read returns,
// remembered frozen (lisp.Freeze) so that concurrent evaluations can share
// and build on it: callers must not rely on extending it in place.
func (r remembered) value(k valueKey, read func() (lisp.Value, error)) (lisp.Value, error) {
	if len(k.text) < minRememberedText {
		return read()
	}
	if v, ok := r.values.Get(k); ok {
		return v, nil
	}
	v, err := read()
	if err != nil || v == nil {
		return v, err
	}
	r.values.Put(k, lisp.Freeze(v), valueBytes(k.text, v))
	return v, nil
}

// program returns the program read from text, analyzed once evaluated (see
// lisp.Program), or nil when text does not read.
func (r remembered) program(text string, maxNesting int) *lisp.Program {
	k := programKey{text, maxNesting}
	if p, ok := r.programs.Get(k); ok {
		return p
	}
	p, err := lisp.ReadProgram(text, maxNesting)
	if err != nil {
		return nil
	}
	// Read forms and the analysis a Program keeps once evaluated take about
	// ten times the bytes of their text (docs/BENCHMARKS.md, "The memo").
	r.programs.Put(k, p, int64(memo.EntryOverhead+11*len(text)))
	return p
}

// valueBytes is what remembering v, read from text, is counted: the text;
// the printed source lisp keeps for each frozen map once a program has it
// printed, at most about as long as the text again; and the decoded
// structure.
func valueBytes(text string, v lisp.Value) int64 {
	n := memo.EntryOverhead + int64(len(text)) + footprint(v)
	if hasMap(v) {
		n += int64(len(text))
	}
	return n
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
