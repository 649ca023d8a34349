package lisp

import "fmt"

// infiniteSeq is an unbounded sequence: (iterate f x), (cycle coll),
// (range) and (repeat x), and what filter, remove, map and drop make of
// one. Programs may only consume it through something that bounds it
// (take, take-while, nth, first, some, or map, zipmap and interleave with
// a finite partner); every element produced is charged a step and its
// memory, so the budgets bound it where the program does not. Everything
// else refuses it with a hint (seqOf), since realizing it cannot end.
//
// It is immutable like every value, and holds no state a reader could
// observe: each reader starts its own generator (start), and all that a
// generator changes as it runs lives in that generator, so (let [s (drop
// 5 (range))] [(take 2 s) (take 3 s)]) reads s twice from its start, and
// a sequence kept in memory reads the same for every caller at once.
// Whoever reads it pays for what it realizes, on its own thread.
//
// A derivation (map, filter ... of a sequence) reads its source as
// a nested call (pull): reading a chain of n derivations nests n calls,
// so the call depth limit bounds the chain a reader can realize, and the
// Go stack that takes. A drop of a drop is no chain (seqwalk.go).
//
// It prints, and travels on the wire, as the call that made it, e.g.
// (iterate inc 0) or (take-while pos? (range)) — source that evaluates
// back to the same sequence.
type infiniteSeq struct {
	origin *seqOrigin   // how a source or a derivation was made; nil for a drop
	from   *infiniteSeq // the sequence a derivation or drop reads, nil for a source

	// A drop of a sequence (rest, next, nthrest, drop, the & part of a
	// destructuring): from is what it drops from, never itself a drop, and
	// dropped how many; walk is where it begins in the walk of the
	// evaluation that made it (seqwalk.go). A drop holds no origin: what
	// it is follows from its source and its count, so a walk of a million
	// steps by rest makes a million small drops (heapDrop), not a million
	// calls.
	dropped int
	walk    *seqWalk
}

// seqOrigin is how a sequence other than a drop was made.
type seqOrigin struct {
	source string              // how a source sequence was made, for messages; "" for a derivation
	levels int64               // how many generators a reader starts: 1, and one per derivation
	name   string              // the function that made it
	args   []Value             // and its arguments
	weight int64               // of the arguments; see valueWeight
	start  func() seqGenerator // a fresh generator at the first element

	// A sequence that may end (lazyseq.go): made by lazy-seq, lazy-cat,
	// or cons or concat of one, or derived from one.
	body bool // (lazy-seq/call (args 0)): its body, a function of no arguments
	ends bool
	memo bool // a derivation of a lazy sequence: its readers share what each evaluation produced
	cell bool // (cons (args 0) (args 1))
	cat  bool // (concat args...)
}

// newSeq is a sequence made as o says, reading from (nil for a source).
func newSeq(from *infiniteSeq, o seqOrigin) *infiniteSeq {
	return &infiniteSeq{origin: &o, from: from}
}

// isDrop reports whether s is a drop of a sequence (seqwalk.go).
func (s *infiniteSeq) isDrop() bool { return s.origin == nil }

// heldValues are the arguments of the call that makes s; a drop's, (drop
// n from), are made when asked for.
func (s *infiniteSeq) heldValues() []Value {
	if s.isDrop() {
		return []Value{Int(s.dropped), s.from}
	}
	return s.origin.args
}

// writeText writes the call that makes the sequence.
func (s *infiniteSeq) writeText(p *printer, i int) {
	if s.isDrop() {
		writeCall(p, "drop", i, 2)
		return
	}
	writeCall(p, s.origin.name, i, len(s.origin.args))
}

func (s *infiniteSeq) valueWeight() int64 {
	if s.isDrop() {
		// callWeight of (drop n from), without making its arguments
		return addWeight(addWeight(2+int64(len("drop"))+2, weightOf(Int(s.dropped))), weightOf(s.from))
	}
	return max(s.origin.weight, 1)
}

// ends reports whether s may end: a drop, when what it drops from may.
func (s *infiniteSeq) ends() bool {
	if s.isDrop() {
		return s.from.origin.ends
	}
	return s.origin.ends
}

// levels is how many generators a reader of s starts: one, and one per
// derivation or drop it reads through.
func (s *infiniteSeq) levels() int64 {
	if s.isDrop() {
		return 1 + s.from.origin.levels
	}
	return s.origin.levels
}

// sourceText is how s was made, for messages, when it is a source; ""
// for a derivation or a drop.
func (s *infiniteSeq) sourceText() string {
	if s.isDrop() {
		return ""
	}
	return s.origin.source
}

// memoized reports whether s is a derivation of a lazy sequence, whose
// readers in one evaluation share what it produced.
func (s *infiniteSeq) memoized() bool { return !s.isDrop() && s.origin.memo }

// made records the call that made s.
func (s *infiniteSeq) made(name string, args ...Value) *infiniteSeq {
	o := s.origin
	o.name, o.args, o.weight = name, args, callWeight(name, args)
	o.levels = 1
	if s.from != nil {
		o.levels += s.from.levels()
	}
	return s
}

// what names s for messages: a source as it was made, a derivation by
// its outermost function and its source, "(map ... (range))", whatever
// lies between. Built when a message needs it: text kept on each
// derivation would grow with the chain, and the chain's memory with its
// square.
func (s *infiniteSeq) what() string {
	if s.from == nil {
		return s.origin.source
	}
	root := s.from
	for root.from != nil {
		root = root.from
	}
	name := "drop"
	if !s.isDrop() {
		name = s.origin.name
	}
	return fmt.Sprintf("(%s ... %s)", name, root.origin.source)
}

// reader starts a generator at the first element of s, for one reader,
// charged the generators it starts (one per level of a chain of
// derivations), which that reader alone then advances.
func (s *infiniteSeq) reader(th *Thread) (seqGenerator, error) {
	if s.walkedBy(th) {
		// No generator of its own: it reads the places of the walk.
		return s.walkReader(), nil
	}
	if err := th.alloc(heapGenerator * s.levels()); err != nil {
		return nil, err
	}
	return s.readerIn(th), nil
}

// readerIn is a generator of s for th, uncharged: through th's walk of
// s when th made it, through th's memo when s is a derivation of a lazy
// sequence, else a fresh one.
func (s *infiniteSeq) readerIn(th *Thread) seqGenerator {
	switch {
	case s.walkedBy(th):
		return s.walkReader()
	case s.memoized():
		return s.memoReader()
	}
	return s.fresh()
}

// fresh is a new generator at the first element of s: a drop reads its
// source past what it drops.
func (s *infiniteSeq) fresh() seqGenerator {
	if s.isDrop() {
		return skipping(s.from.sourceReader(), s.dropped)
	}
	return s.origin.start()
}

// sourceReader is how a derivation reads s: readerIn for the thread that
// first pulls, which is the only one that advances it.
func (s *infiniteSeq) sourceReader() seqGenerator {
	if !s.isDrop() {
		if s.memoized() {
			return s.memoReader()
		}
		return s.fresh()
	}
	var g seqGenerator
	return func(th *Thread) (Value, error) {
		if g == nil {
			g = s.readerIn(th)
		}
		return g(th)
	}
}

// seqGenerator yields the next element on each call.
type seqGenerator func(th *Thread) (Value, error)

func (*infiniteSeq) TypeName() string { return "infinite sequence" }

// next charges one produced element and returns it.
func (g seqGenerator) next(th *Thread) (Value, error) {
	if err := th.step(1); err != nil {
		return nil, err
	}
	if err := th.alloc(heapSlot); err != nil {
		return nil, err
	}
	return g(th)
}

// pull is how a derivation reads the next element of its source: as a
// call, charged a step and a level of the call depth.
func (g seqGenerator) pull(th *Thread) (Value, error) {
	if err := th.enterCall(); err != nil {
		return nil, err
	}
	th.depth++
	v, err := g(th)
	th.depth--
	return v, err
}

// infiniteError is the refusal of an unbounded sequence where it would
// have to be realized whole.
func infiniteError(fn string, s *infiniteSeq) *Error {
	what := s.what()
	return javaErrorf(typeError, noJavaClass, "%s cannot consume %s: it never ends", fn, what).
		WithHint("bound it first: (take n %s) or (take-while pred %s)", what, what)
}

// realize returns the first n elements of s.
func (s *infiniteSeq) realize(th *Thread, n int) ([]Value, error) {
	out, err := makeSlice(th, n)
	if err != nil {
		return nil, err
	}
	g, err := s.reader(th)
	if err != nil {
		return nil, err
	}
	for range n {
		v, err := g.next(th)
		if err == errSeqEnd {
			break
		}
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// madeSeq charges a sequence as it is made, whoever made it: its own
// heap shape (heapLazySeq), as a derivation is charged.
func madeSeq(th *Thread, s *infiniteSeq) (Value, error) {
	if err := th.alloc(heapShapeOf(s)); err != nil {
		return nil, err
	}
	return s, nil
}

func iterateSeq(th *Thread, f, seed Value) (Value, error) {
	return madeSeq(th, newSeq(nil, seqOrigin{source: "(iterate ...)", start: func() seqGenerator {
		cur, started := seed, false
		return func(th *Thread) (Value, error) {
			if !started {
				started = true
				return cur, nil
			}
			v, err := call(th, "iterate", f, cur)
			if err != nil {
				return nil, err
			}
			cur = v
			return v, nil
		}
	}}).made("iterate", f, seed))
}

// repeatedlySeq is (repeatedly f): the results of calling f, without
// end, each call made when its element is read.
func repeatedlySeq(th *Thread, f Value) (Value, error) {
	return madeSeq(th, newSeq(nil, seqOrigin{source: "(repeatedly ...)", start: func() seqGenerator {
		return func(th *Thread) (Value, error) { return call(th, "repeatedly", f) }
	}}).made("repeatedly", f))
}

func cycleSeq(th *Thread, elems []Value) (Value, error) {
	return madeSeq(th, newSeq(nil, seqOrigin{source: "(cycle ...)", start: func() seqGenerator {
		i := 0
		return func(*Thread) (Value, error) {
			v := elems[i%len(elems)]
			i++
			return v, nil
		}
	}}).made("cycle", NewVector(elems)))
}

func rangeSeq(th *Thread, from, step Int) (Value, error) {
	return madeSeq(th, newSeq(nil, seqOrigin{source: "(range)", start: func() seqGenerator {
		cur := from
		return func(*Thread) (Value, error) {
			v := cur
			next := cur + step
			if (step > 0 && next < cur) || (step < 0 && next > cur) {
				return nil, javaErrorf(arithmeticError, noJavaClass, "(range) passed the largest integer")
			}
			cur = next
			return v, nil
		}
	}}).made("range"))
}

func repeatSeq(th *Thread, x Value) (Value, error) {
	return madeSeq(th, newSeq(nil, seqOrigin{source: "(repeat x)", start: func() seqGenerator {
		return func(*Thread) (Value, error) { return x, nil }
	}}).made("repeat", x))
}

// derived is (name arg s), charged as it is made (madeSeq): derivedFrom
// with the call's arguments.
func derived(th *Thread, s *infiniteSeq, name string, arg Value, reader func(src seqGenerator) seqGenerator) (Value, error) {
	return derivedFrom(th, s, name, []Value{arg, s}, reader)
}
