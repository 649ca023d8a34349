package server

import (
	"slices"

	"google.golang.org/grpc/status"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// What the service remembers between requests (internal/memo): an agent
// resends its memory, data and tool results on every call, and a replayed
// turn its program on every round trip; reading them again was most of a
// call's cost. Remembering changes no answer: a result is found only under
// exactly the text and reading options it came from. A value that does
// not read is remembered as its error, so that a text sent again fails at
// the cost of a lookup, as it would fail again: reading depends on the
// text alone, except where the request stopped it (see valueReader.read),
// which is not remembered.

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
	values     *memo.Table[valueKey, readValue]
	programs   *memo.Table[programKey, *lisp.Program]
	strategies *strategies.Remembered // handed to the strategies with each request
}

// readValue is what reading a value's text gave: the value, or why the
// text does not read.
type readValue struct {
	value lisp.Value
	err   error
}

func newRemembered(m *memo.Memo) remembered {
	return remembered{
		values:     memo.NewTable[valueKey, readValue](m, "values"),
		programs:   memo.NewTable[programKey, *lisp.Program](m, "programs"),
		strategies: strategies.NewRemembered(m),
	}
}

// value returns what is remembered under k, or what read returns, frozen
// (lisp.Freeze) so that concurrent evaluations can share and build on it:
// callers must not rely on extending it in place. read also returns the
// bytes the value holds besides its text (footprint); an error that is a
// gRPC status is the request's, not the text's, and is not remembered.
func (r remembered) value(k valueKey, read func() (lisp.Value, int64, error)) (lisp.Value, error) {
	if len(k.text) < minRememberedText {
		v, _, err := read()
		return v, err
	}
	if got, ok := r.values.Get(k); ok {
		return got.value, got.err
	}
	v, held, err := read()
	if err != nil {
		if _, isStatus := status.FromError(err); !isStatus {
			r.values.Put(k, readValue{err: err}, memo.EntryOverhead+int64(len(k.text)+len(err.Error())))
		}
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	v = lisp.Freeze(v)
	r.values.Put(k, readValue{value: v}, valueBytes(k.text, v, held))
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
// printed, at most about as long as the text again; and held, what the
// value holds besides (footprint, and for a value read as source what
// that source may have built).
func valueBytes(text string, v lisp.Value, held int64) int64 {
	n := memo.EntryOverhead + int64(len(text)) + held
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
// cost their header only. A function, a regex or a symbol comes from
// source, and what it holds is counted as what that source may build
// (lisp.MaxSourceValueBytes, in valueReader.read): lisp cannot yet say
// what a function holds, and this estimate may be far above it.
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
