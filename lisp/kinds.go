package lisp

// Every concrete value type carries the behaviour the walk over values
// and the sizing of values need, as methods of valueKind, and
// TestEveryValueKindCarriesItsBehaviour fails for a type implementing
// Value that does not: a new kind of value cannot be added without
// saying what it holds, how it prints and what it takes on the heap.
//
//   - walkParts: the values it holds, and whether it is a level of
//     nesting (walk.go). The walk, Freeze, the printer, hashing,
//     equality, ordering and the nesting checks all reach a value's parts
//     through it and no other way, so a value whose Go state holds values
//     the walk does not see cannot be written: whatever it holds is
//     either a part, frozen and measured with it, or state that the type
//     keeps per reader (lazy.go) or per evaluation (atom, memoize).
//   - writeText: its text before part i, or after its last part for i ==
//     the number of parts; the whole text of a value without parts. The
//     printer writes the commonest kinds itself and calls the holders'
//     by kind (print.go, holder), so that it stays on the Go stack;
//     TestValueKindsPrintAsThePrinterDoes holds every kind's to the
//     printer's text.
//   - heapShape: the bytes it takes on the heap besides its parts, from
//     the one table of heap shapes (heap.go), which serves the allocation
//     charge, the read cost and the footprint of kept values.
type valueKind interface {
	Value
	walkParts() (elems []Value, entries []MapEntry, isLevel bool)
	writeText(p *printer, i int)
	heapShape() int64
}

// kindOf is v's behaviour. Every Value is a valueKind (the test above);
// a value from outside the package that is not prints as its type name
// and holds nothing.
func kindOf(v Value) valueKind {
	if k, ok := v.(valueKind); ok {
		return k
	}
	return opaqueValue{v}
}

// opaqueValue is a Value of a type the package does not know.
type opaqueValue struct{ Value }

func (opaqueValue) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (o opaqueValue) writeText(p *printer, _ int)          { writeScalar(p.out, o.Value, false) }
func (opaqueValue) heapShape() int64                       { return 0 }

// Scalars: no parts, their whole text, their bytes.

func (NilType) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v NilType) writeText(p *printer, _ int)          { p.scalar(v, p.mode == modeSource) }
func (NilType) heapShape() int64                       { return 0 }

func (Bool) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v Bool) writeText(p *printer, _ int)          { p.scalar(v, p.mode == modeSource) }
func (Bool) heapShape() int64                       { return 0 }

func (Int) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v Int) writeText(p *printer, _ int)          { p.scalar(v, p.mode == modeSource) }
func (Int) heapShape() int64                       { return heapWord }

func (Float) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v Float) writeText(p *printer, _ int)          { p.scalar(v, p.mode == modeSource) }
func (Float) heapShape() int64                       { return heapWord }

func (Float32) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v Float32) writeText(p *printer, _ int)          { p.scalar(v, p.mode == modeSource) }
func (Float32) heapShape() int64                       { return heapWord }

func (String) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v String) writeText(p *printer, _ int)          { p.scalar(v, p.mode == modeSource) }
func (v String) heapShape() int64                     { return heapString + int64(len(v)) }

func (Keyword) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v Keyword) writeText(p *printer, _ int)          { p.scalar(v, p.mode == modeSource) }
func (v Keyword) heapShape() int64                     { return heapString + int64(len(v)) }

func (symbol) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v symbol) writeText(p *printer, _ int)          { p.scalar(v, p.mode == modeSource) }
func (v symbol) heapShape() int64                     { return heapString + int64(len(v)) }

// A symbol called as a function is the symbol: it exists only for the
// call (Thread.call), and declares its own behaviour so that an embedded
// symbol's never speaks for a type that may one day hold more.
func (symbolLookup) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v symbolLookup) writeText(p *printer, i int)          { v.symbol.writeText(p, i) }
func (v symbolLookup) heapShape() int64                     { return v.symbol.heapShape() }

func (javaClass) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v javaClass) writeText(p *printer, _ int)          { p.scalar(v, p.mode == modeSource) }
func (v javaClass) heapShape() int64                     { return heapString + int64(len(v)) }

func (*varRef) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v *varRef) writeText(p *printer, _ int)          { p.scalar(v, p.mode == modeSource) }
func (v *varRef) heapShape() int64                     { return heapNamed + int64(len(v.Name)) }

func (*regex) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v *regex) writeText(p *printer, _ int)          { p.scalar(v, p.mode == modeSource) }
func (v *regex) heapShape() int64                     { return v.held }

func (*Builtin) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v *Builtin) writeText(p *printer, _ int)          { p.scalar(v, p.mode == modeSource) }
func (*Builtin) heapShape() int64                       { return 0 } // one per name, in the table

func (*toolFunc) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v *toolFunc) writeText(p *printer, _ int)          { p.scalar(v, p.mode == modeSource) }
func (v *toolFunc) heapShape() int64                     { return heapNamed + int64(len(v.Name)) }

// Collections: their elements or entries are their parts, and an empty
// one is a level too.

func (v *Vector) walkParts() ([]Value, []MapEntry, bool) { return v.elems, nil, true }
func (v *Vector) writeText(p *printer, i int) {
	switch {
	case !v.IsList():
		openClose(p, i, len(v.elems), "[", "]")
	case p.mode == modeSource:
		openClose(p, i, len(v.elems), "(list", ")") // in code a list is the call that makes it
	default:
		openClose(p, i, len(v.elems), "(", ")")
	}
}
func (v *Vector) heapShape() int64 { return vectorHeap.shape(len(v.elems), false) }

func (m *Map) walkParts() ([]Value, []MapEntry, bool) { return nil, m.entries, true }
func (m *Map) writeText(p *printer, i int) {
	openClose(p, i, 2*len(m.entries), m.class().opening(), "}")
}
func (m *Map) heapShape() int64 {
	return mapHeap.shape(len(m.entries), m.index != nil) + sortedShape(m.tail)
}

func (s *Set) walkParts() ([]Value, []MapEntry, bool) { return s.elems, nil, true }
func (s *Set) writeText(p *printer, i int)            { openClose(p, i, len(s.elems), "#{", "}") }
func (s *Set) heapShape() int64 {
	return setHeap.shape(len(s.elems), s.index != nil) + sortedShape(s.tail)
}

// sortedShape is what a map or set with the lineage tail t holds for
// being sorted (heapSorted), nothing for an unsorted one.
func sortedShape(t *lineageTail) int64 {
	if t != nil && t.order != nil {
		return heapSorted
	}
	return 0
}

// Code forms (a function's source) have their forms as parts.

func (l *list) walkParts() ([]Value, []MapEntry, bool) { return l.Elems, nil, true }
func (l *list) writeText(p *printer, i int)            { openClose(p, i, len(l.Elems), "(", ")") }
func (l *list) heapShape() int64                       { return vectorHeap.shape(len(l.Elems), false) }

func (f *mapForm) walkParts() ([]Value, []MapEntry, bool) { return f.Elems, nil, true }
func (f *mapForm) writeText(p *printer, i int) {
	openClose(p, i, len(f.Elems), f.class.opening(), "}")
}
func (f *mapForm) heapShape() int64 { return vectorHeap.shape(len(f.Elems), false) }

func (f *setForm) walkParts() ([]Value, []MapEntry, bool) { return f.Elems, nil, true }
func (f *setForm) writeText(p *printer, i int)            { openClose(p, i, len(f.Elems), "#{", "}") }
func (f *setForm) heapShape() int64                       { return vectorHeap.shape(len(f.Elems), false) }

// openClose writes open before the first of n parts and close after the
// last; the printer writes what separates them.
func openClose(p *printer, i, n int, open, close string) {
	switch {
	case i == 0:
		p.out.writeString(open)
		if n == 0 {
			p.out.writeString(close)
		}
	case i == n:
		p.out.writeString(close)
	}
}

// Functions that hold values (holders) have them as parts, and print as
// the source that makes them (their writeText methods sit with their
// types); they are a level only when they hold something.

func holderParts(h holder) ([]Value, []MapEntry, bool) {
	held := h.heldValues()
	return held, nil, len(held) > 0
}

func (c *closure) walkParts() ([]Value, []MapEntry, bool) { return holderParts(c) }
func (c *closure) heapShape() int64                       { return funcShape(len(c.free)) }

func (c *combined) walkParts() ([]Value, []MapEntry, bool) { return holderParts(c) }
func (c *combined) heapShape() int64                       { return heapCombined + heapHeld*int64(len(c.args)) }

func (c *predicateCombinator) walkParts() ([]Value, []MapEntry, bool) { return holderParts(c) }
func (c *predicateCombinator) heapShape() int64                       { return funcShape(len(c.preds)) }

func (w *wherePredicate) walkParts() ([]Value, []MapEntry, bool) { return holderParts(w) }
func (w *wherePredicate) heapShape() int64                       { return funcShape(len(w.heldValues())) }

func (s *infiniteSeq) walkParts() ([]Value, []MapEntry, bool) { return holderParts(s) }
func (s *infiniteSeq) heapShape() int64 {
	if s.isDrop() {
		return heapDrop
	}
	return heapLazySeq + heapHeld*int64(len(s.origin.args))
}

// The values that live only while a program runs: none can be kept,
// emitted or shared (checkResultKind, and def refuses them), so they
// have no parts the walk must see; each prints as #<its type>.

// A transducer's state lives in what each application of it makes.
func (*transducer) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v *transducer) writeText(p *printer, _ int)          { p.scalar(v, false) }
func (*transducer) heapShape() int64                       { return heapFunction }

// A reducing function keeps the state of one reduction (take's count).
func (*stepFn) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v *stepFn) writeText(p *printer, _ int)          { p.scalar(v, false) }
func (*stepFn) heapShape() int64                       { return heapFunction }

func (*reducedValue) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v *reducedValue) writeText(p *printer, _ int)          { p.scalar(v, false) }
func (*reducedValue) heapShape() int64                       { return heapHeld }

// An atom is the one mutable cell, of one evaluation.
func (*atom) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v *atom) writeText(p *printer, _ int)          { p.scalar(v, false) }
func (*atom) heapShape() int64                       { return heapAtom }

func (*thrown) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v *thrown) writeText(p *printer, _ int)          { p.scalar(v, false) }
func (v *thrown) heapShape() int64                     { return heapFunction + int64(len(v.message)) }

func (recurMarkerType) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v recurMarkerType) writeText(p *printer, _ int)          { p.scalar(v, false) }
func (recurMarkerType) heapShape() int64                       { return 0 }
