package lisp

import (
	"context"
	"fmt"
	"strings"
)

// Binding is one user definition in memory.
type Binding struct {
	Name  string
	Value Value
	// Docstring is the docstring given to def or defn.
	Docstring string
	// ReturnType is the type label of the last value the function returned,
	// "" until it is called.
	ReturnType string
	// Turn is the turn that last defined the binding.
	Turn int
	// source is the binding's text as received from the wire, kept so that
	// an unchanged function serializes byte-identically turn after turn.
	source string
}

// IsFn reports whether the binding holds a function.
func (b Binding) IsFn() bool {
	_, ok := b.Value.(Function)
	return ok
}

// Params lists a function binding's parameters, & before a rest parameter.
func (b Binding) Params() []string {
	if f, ok := b.Value.(Function); ok {
		return f.ParamNames()
	}
	return nil
}

// Memory is the prelude: user definitions in order of first definition. A
// redefinition keeps its place. Memory is immutable once built; evaluation
// returns a new one.
type Memory struct {
	bindings []*Binding
	index    map[string]int
}

// newMemory returns an empty memory.
func newMemory() *Memory { return &Memory{index: map[string]int{}} }

func (m *Memory) put(b Binding) {
	if i, ok := m.index[b.Name]; ok {
		m.bindings[i] = &b
		return
	}
	m.index[b.Name] = len(m.bindings)
	m.bindings = append(m.bindings, &b)
}

// len is the number of bindings.
func (m *Memory) len() int {
	if m == nil {
		return 0
	}
	return len(m.bindings)
}

// Bindings returns the bindings in order.
func (m *Memory) Bindings() []Binding {
	if m == nil {
		return nil
	}
	out := make([]Binding, len(m.bindings))
	for i, b := range m.bindings {
		out[i] = *b
	}
	return out
}

// lookup returns the binding called name.
func (m *Memory) lookup(name string) (Binding, bool) {
	if m == nil {
		return Binding{}, false
	}
	i, ok := m.index[name]
	if !ok {
		return Binding{}, false
	}
	return *m.bindings[i], true
}

// WireBinding is a binding as it travels on the wire (docs/VALUES.md):
// the value as EDN, or for a function its PTC-Lisp source with the values it
// captured bound by a let.
type WireBinding struct {
	Name  string
	Value string
	// Parsed, when set, is Value already read (ReadWire: callers that
	// read every value of a request one way pass it); DecodeMemory then
	// does not read Value again.
	Parsed     Value
	IsFn       bool
	Params     []string
	Docstring  string
	ReturnType string
	Turn       int
}

// Encode serializes the memory for the wire.
func (m *Memory) Encode() []WireBinding {
	if m == nil {
		return nil
	}
	out := make([]WireBinding, len(m.bindings))
	for i, b := range m.bindings {
		text := b.source
		if text == "" {
			text = sourceText(b.Value)
		}
		out[i] = WireBinding{Name: b.Name, Value: text, IsFn: b.IsFn(), Params: b.Params(),
			Docstring: b.Docstring, ReturnType: b.ReturnType, Turn: b.Turn}
	}
	return out
}

// decodeLimits bound the evaluation of function sources loaded from the
// wire: they are tiny (a let around a fn), so anything bigger is hostile.
var decodeLimits = Limits{MaxSteps: 100_000, MaxAllocBytes: 4 << 20, MaxDepth: 50}

// sourceLimits are decodeLimits for a source of n bytes, and the steps of
// compiling the regexes it spells (regexSourceSteps). Source the sidecar
// wrote only builds values (a let, literals, a fn form, constructor calls),
// which costs a few steps and bytes per byte of text (analysis a step per
// form), so a budget proportional to the text keeps a request full of
// looping "values" from costing more than their size, and lets a closure
// over a large value read back.
func sourceLimits(src string) Limits {
	n := len(src)
	l := decodeLimits
	l.MaxSteps = min(64+4*int64(n)+regexSourceSteps*regexesSpelled(src), maxSourceSteps)
	l.MaxAllocBytes = min(l.MaxAllocBytes, 4<<10+256*int64(n)+regexSourceBytes*regexesSpelled(src))
	return l
}

// regexSourceSteps is what a value's source may take besides its bytes'
// for each regex it spells: compiling a pattern of a few bytes may take
// milliseconds (chargeRegex), [a-z]{1,1000} 3.4 ms and 32,000 steps.
const regexSourceSteps = 40_000

// regexSourceBytes is the heap a value's source may take besides its
// bytes' for each regex it spells: [a-z]{1,1000} is charged 550 KB
// (regexHeld).
const regexSourceBytes = 1 << 20

// regexesSpelled counts the regexes source spells, literal or built.
func regexesSpelled(src string) int64 {
	return int64(strings.Count(src, "re-pattern") + strings.Count(src, `#"`))
}

// SourceReadWork is what loading a value's source text takes in time, in
// the bytes of read cost (ReadCost) that take as long to read, for a
// host that bounds what a request's values cost by its timeout: source
// is read as data is, and each form it opens with a parenthesis is a call
// analyzed and run, 5-10 µs each alone ((atom 0), (fn [x] (+ x 1))),
// charged as 768 bytes (three times what the host's 24 MiB a second reads
// in that time), and each regex it spells may take its compiling's steps
// (regexSourceSteps), counted as converting digits is (numberReadWork). A
// closure over a large literal map costs about what the map does. Before
// it was charged, a million (atom 0) sent as a value was refused
// INVALID_ARGUMENT when it loaded within the timeout and
// RESOURCE_EXHAUSTED when the clock stopped it first.
func SourceReadWork(text string) int64 {
	return sourceByteWork*int64(len(text)) + sourceCallWork*scanCode(text).calls + regexesSpelled(text)*regexSourceSteps*5/2
}

// The parts of SourceReadWork: a byte of text, read as data is, and a call.
const (
	sourceByteWork = ReadCostPerByte
	sourceCallWork = 768
)

// SourceReadCost is what loading a value's source holds at its peak, in
// the bytes of ReadCost (heap, which the collector lets grow to about
// twice in RSS): each form read and analysed, all held until the value is
// built ({'a 1 'a 1 ...} of 2.6 MB held 105 MiB, reading 81 MB and
// compiling 60 MB), the code analysed for each call or quoted form (a
// million (atom 0) raised the peak RSS 247 MiB), and each regex it spells
// compiled (100,000 #"a" 83 MiB). Its read work
// (SourceReadWork) is bounded by a timeout, which a long one lets
// through; a host bounds this by the request's bytes, as it does what its
// values cost once read.
func SourceReadCost(text string) int64 {
	s := scanCode(text)
	return SourceFormCost*s.tokens + SourceCallCost*(s.calls+s.quotes) + SourceRegexCost*regexesSpelled(text)
}

// The parts of SourceReadCost: a form (a token), a call or quoted form,
// and a regex of a few bytes.
const (
	SourceFormCost  = 96
	SourceCallCost  = 128
	SourceRegexCost = 1 << 10
)

// The bounds a host applies to what a request's values take to read and
// hold, one model for every field (ReadBounds): what they cost once read
// (ReadCost) and what loading their source holds (SourceReadCost), at
// most ReadCostPerByte a byte of the request and ReadSlack besides; what
// reading them takes (ReadWork, and SourceReadWork for source) at most
// ReadWorkPerByte a byte and ReadWorkFloor besides, when no evaluation
// timeout sets it. Text of ordinary tokens costs at most 28 units of
// work a byte (JSON of empty arrays; a vector of one-digit numbers 9, of
// keywords 6); what passes the work bound is text whose work grows
// faster than its bytes: long integers, decimals and radix literals,
// whose conversion is quadratic in their digits (a radix-36 literal of
// 100,000 digits costs 69 a byte), and source of many calls. ReadSlack
// lets each value cost a small floor more than its multiple
// (ReadCostLimit): a history of a thousand turns whose results are small
// sets of pairs claims a few hundred kilobytes of it.
const (
	ReadSlack       = 8 << 20
	ReadWorkPerByte = 40
	ReadWorkFloor   = 24 << 20
)

// ReadBounds is what the values of a request of size bytes may hold once
// read, and take to read under no evaluation timeout (ReadSlack).
//
// ReadWorkFloor is also the least any request may spend reading its
// values, what they take to read and cost once read together, whatever
// its size and timeout: a host that sets the budget by a timeout never
// sets it lower, and a turn emits no value that takes more
// (leastReadBudgetError), so every value it emits is accepted back at any
// timeout, in every field.
func ReadBounds(size int) (held, work int64) {
	return ReadCostPerByte*int64(size) + ReadSlack, ReadWorkPerByte*int64(size) + ReadWorkFloor
}

// leastReadBudgetError refuses text, a value's wire text that costs cost
// once read (source when source is set), when reading it back would take
// more than ReadWorkFloor, what a request at the shortest timeout may
// read. EDN the printer writes takes at most ReadWorkPerByte a byte to
// read (a vector of empty collections 14 a byte, of 100,000-digit numbers
// 29), so only a text of hundreds of kilobytes is scanned.
func leastReadBudgetError(text string, cost int64, source bool, what string) *Error {
	if !source && ReadWorkPerByte*int64(len(text))+cost <= ReadWorkFloor {
		return nil
	}
	work := ReadWork(text, false) + cost
	if source {
		work += SourceReadWork(text)
	}
	if work <= ReadWorkFloor {
		return nil
	}
	return Errorf(emitLimit, "%s would take %d bytes of read work to read back (its tokens, bytes, calls of source and what it costs once read), more than the %d MiB any request may read whatever its timeout: the call it is sent back in would refuse it", what, work, ReadWorkFloor>>20).
		WithHint("return or def a summary instead (count, take, select-keys, first), or fewer and larger parts: a string rather than a vector of characters")
}

// sourceOverBounds is why text, a value's source, would be refused in a
// request that holds it alone, by what loading it holds or takes
// (ReadBounds), or "" when it would not: what a turn emits must read
// back in every field (sourceReadsBack).
func sourceOverBounds(text string) string {
	heldBound, workBound := ReadBounds(len(text))
	if held := SourceReadCost(text); held > heldBound {
		return fmt.Sprintf("loading it would hold about %d bytes (each form %d, each call or quoted form %d more, each regex %d), more than the %d its %d bytes may hold once read (%d times its bytes and %d MiB besides)",
			held, SourceFormCost, SourceCallCost, SourceRegexCost, heldBound, len(text), ReadCostPerByte, ReadSlack>>20)
	}
	if work := ReadWork(text, false) + SourceReadWork(text); work > workBound {
		return fmt.Sprintf("reading it would take %d bytes of read work (its tokens and bytes, %d each call), more than the %d its %d bytes allow (%d a byte and %d MiB besides)",
			work, sourceCallWork, workBound, len(text), ReadWorkPerByte, ReadWorkFloor>>20)
	}
	return ""
}

// maxSourceSteps bounds the steps of reading any one source value.
const maxSourceSteps = 10_000_000

// DecodeMemory loads memory from the wire. Values not read already are
// read by ReadWire with the default settings: EDN, or for a function (or
// a value holding functions) source evaluated in a small sandbox, under
// ctx, to rebuild the closure. Names that the
// function uses but does not bind resolve when it runs, against the
// evaluation it runs in.
func DecodeMemory(ctx context.Context, wire []WireBinding) (*Memory, error) {
	m := newMemory()
	for i, w := range wire {
		// Named only when refused: formatting it for every binding of
		// every request cost more than loading a small binding.
		where := func() string { return fmt.Sprintf("memory binding %d (%q)", i, w.Name) }
		if !lexPlainSymbol(w.Name) || w.Name == "&" {
			return nil, fmt.Errorf("%s: name is not a valid symbol", where())
		}
		if _, dup := m.index[w.Name]; dup {
			return nil, fmt.Errorf("%s: name appears twice", where())
		}
		if _, ok := lookupFunction(w.Name); ok && !shadowable(w.Name) {
			return nil, fmt.Errorf("%s: name is a builtin function", where())
		}
		v := w.Parsed
		if v == nil {
			var err error
			if v, _, err = ReadWire(w.Value, WireRead{Ctx: ctx, Source: func() (context.Context, error) { return ctx, nil }}); err != nil {
				return nil, fmt.Errorf("%s: %v", where(), err)
			}
		}
		if w.IsFn {
			if _, ok := v.(Function); !ok {
				return nil, fmt.Errorf("%s: is_fn is set but the value is %s, not a function", where(), v.TypeName())
			}
		}
		if c, ok := v.(*closure); ok {
			named := *c
			named.name = w.Name
			v = &named
		}
		m.put(Binding{Name: w.Name, Value: v, Docstring: w.Docstring, ReturnType: w.ReturnType,
			Turn: w.Turn, source: w.Value})
	}
	return m, nil
}

// loadSource evaluates one form of stored source, under ctx, in a sandbox
// without tools, data or user definitions. Like Eval, it is an entry point that
// runs code from outside, so it has the same safety net: an interpreter bug
// becomes an error for this binding, not a crash.
func loadSource(ctx context.Context, src string, maxNesting int) (v Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("internal interpreter error loading the source: %v", r)
		}
	}()
	forms, err := read(src, maxNesting)
	if err != nil {
		return nil, err
	}
	if len(forms) != 1 {
		return nil, fmt.Errorf("source must be exactly one form, got %d", len(forms))
	}
	th := newThread(ctx, sourceLimits(src))
	th.prog = newProgState(Env{})
	c := newCompiler(&names{dynamic: true}, th, maxNesting)
	n, err := c.compile(forms[0], false)
	if err != nil {
		return nil, err
	}
	v, err = n.eval(th, newFrame(c.fn.nslots, nil))
	if err != nil {
		return nil, err
	}
	if len(th.prog.definedNames()) > 0 || len(th.prog.toolCalls) > 0 || len(th.prog.prints) > 0 {
		return nil, fmt.Errorf("source must be a plain value or function, without def, println or tool calls")
	}
	return v, nil
}
