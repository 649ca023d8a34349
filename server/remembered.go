package server

import (
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
	// records asks for the texts of the value's records too (a request's
	// data: lisp.NewRecordTexts).
	records bool
	text    string
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

// readValue is what reading a value's text gave: the value and what it
// costs once read (lisp.ReadCost), or why the text does not read.
type readValue struct {
	value lisp.Value
	cost  int64
	err   error
	// source is set when the text was loaded as source (a function, a
	// regex, what EDN cannot spell), refused or not: what loading it
	// took is charged by its text (lisp.SourceReadWork), remembered or not.
	source bool
	texts  *lisp.RecordTexts // when the key asks for them
	// work is what reading the text takes (lisp.ReadWork), counted
	// before it was read.
	work int64
}

func newRemembered(m *memo.Memo) remembered {
	return remembered{
		values:     memo.NewTable[valueKey, readValue](m, "values"),
		programs:   memo.NewTable[programKey, *lisp.Program](m, "programs"),
		strategies: strategies.NewRemembered(m),
	}
}

// find returns what is remembered under k, if anything is.
func (r remembered) find(k valueKey) (readValue, bool) {
	if len(k.text) < minRememberedText {
		return readValue{}, false
	}
	return r.values.Get(k)
}

// readAndKeep returns what read gives for k's text, with work, what
// reading that text takes, and remembers it, frozen (lisp.Freeze) so that
// concurrent evaluations can share and build on it: callers must not rely
// on extending it in place. An error that is a gRPC status is the
// request's, not the text's, and is not remembered. cost is what read
// says the value costs once read (lisp.ReadWire).
func (r remembered) readAndKeep(k valueKey, work int64, read func() (lisp.Value, int64, bool, error)) readValue {
	if len(k.text) < minRememberedText {
		v, cost, source, err := read()
		return readValue{value: v, cost: cost, err: err, source: source, work: work} // records of so little are printed
	}
	v, cost, source, err := read()
	if err != nil {
		if _, isStatus := status.FromError(err); !isStatus {
			r.values.Put(k, readValue{err: err, source: source, work: work}, memo.EntryOverhead+int64(len(k.text)+len(err.Error())))
		}
		return readValue{err: err, source: source, work: work}
	}
	if v == nil {
		return readValue{source: source, work: work}
	}
	got := readValue{value: lisp.Freeze(v), cost: cost, source: source, work: work}
	// What the value holds, a function's code and captured values
	// included: a short function can hold a large value. It is counted
	// only as far as an entry may hold. The texts of its records are made
	// only for a value that is kept: printed on every call, they would
	// cost more than they save.
	room := r.values.MaxBytes() - memo.EntryOverhead - int64(len(k.text))
	if size, ok := lisp.FootprintUpTo(got.value, room); ok {
		if k.records {
			got.texts = lisp.NewRecordTexts(got.value)
			size += got.texts.Size()
		}
		if size <= room {
			r.values.Put(k, got, memo.EntryOverhead+int64(len(k.text))+size)
		}
	}
	return got
}

// rememberedPrograms keeps the programs an evaluation reads, analyzed
// once evaluated (see lisp.Program): a replayed turn sends its program on
// every round trip. The evaluation reads a program it does not find
// under its own budgets and clock (lisp.ProgramCache).
type rememberedPrograms struct {
	programs *memo.Table[programKey, *lisp.Program]
}

func (r rememberedPrograms) Program(text string, maxNesting int) *lisp.Program {
	p, _ := r.programs.Get(programKey{text, maxNesting})
	return p
}

func (r rememberedPrograms) Keep(text string, maxNesting int, p *lisp.Program) {
	r.programs.Put(programKey{text, maxNesting}, p, programBytes(text, p))
}

// recount counts the program kept for text by what it holds once
// evaluated: its analysis is made after it was kept, and a text of 20
// bytes can compile a regex literal of 90 KB (#"\pL{1000}"), which a
// count by the text let thousands of kept programs hold unbounded.
func (r rememberedPrograms) recount(text string, maxNesting int) {
	r.programs.Recount(programKey{text, maxNesting}, keptProgramBytes)
}

func keptProgramBytes(k programKey, p *lisp.Program) int64 { return programBytes(k.text, p) }

// programBytes is what remembering p, read from text, holds alive: its
// key's text and at most what p holds (lisp.Program.HeldBytes), its read
// forms, compiled nodes and what its analysis built.
func programBytes(text string, p *lisp.Program) int64 {
	return int64(memo.EntryOverhead+len(text)) + p.HeldBytes()
}
