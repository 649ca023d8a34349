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
	source string              // how a source sequence was made, for messages; "" for a derivation
	from   *infiniteSeq        // the sequence a derivation reads, nil for a source
	levels int64               // how many generators a reader starts: 1, and one per derivation
	name   string              // the function that made it
	args   []Value             // and its arguments
	weight int64               // of the arguments; see valueWeight
	start  func() seqGenerator // a fresh generator at the first element; nil for a drop (fresh)

	// A sequence that may end (lazyseq.go): made by lazy-seq, lazy-cat,
	// or cons or concat of one, or derived from one.
	thunk Value // a lazy-seq's body, as a function of no arguments
	ends  bool
	memo  bool // a derivation of a lazy sequence: its readers share what each evaluation produced
	cell  bool // (cons (args 0) (args 1))
	cat   bool // (concat args...)

	// A drop of a sequence (rest, next, nthrest, drop, the & part of a
	// destructuring): from is what it drops from, never itself a drop, and
	// dropped how many; walk is where it begins in the walk of the
	// evaluation that made it (seqwalk.go).
	dropped int
	walk    *seqWalk
}

func (s *infiniteSeq) heldValues() []Value { return s.args }

// writeText writes the call that makes the sequence.
func (s *infiniteSeq) writeText(p *printer, i int) { writeCall(p, s.name, i, len(s.args)) }

func (s *infiniteSeq) valueWeight() int64 { return max(s.weight, 1) }

// made records the call that made s.
func (s *infiniteSeq) made(name string, args ...Value) *infiniteSeq {
	s.name, s.args, s.weight = name, args, callWeight(name, args)
	s.levels = 1
	if s.from != nil {
		s.levels += s.from.levels
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
		return s.source
	}
	root := s.from
	for root.from != nil {
		root = root.from
	}
	return fmt.Sprintf("(%s ... %s)", s.name, root.source)
}

// reader starts a generator at the first element of s, for one reader,
// charged the generators it starts (one per level of a chain of
// derivations), which that reader alone then advances.
func (s *infiniteSeq) reader(th *Thread) (seqGenerator, error) {
	if s.walkedBy(th) {
		// No generator of its own: it reads the places of the walk.
		return s.walkReader(), nil
	}
	if err := th.alloc(heapGenerator * s.levels); err != nil {
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
	case s.memo:
		return s.memoReader()
	}
	return s.fresh()
}

// fresh is a new generator at the first element of s: a drop reads its
// source past what it drops.
func (s *infiniteSeq) fresh() seqGenerator {
	if s.walk != nil {
		return skipping(s.from.sourceReader(), s.dropped)
	}
	return s.start()
}

// sourceReader is how a derivation reads s: readerIn for the thread that
// first pulls, which is the only one that advances it.
func (s *infiniteSeq) sourceReader() seqGenerator {
	if s.walk == nil {
		if s.memo {
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
	return madeSeq(th, (&infiniteSeq{source: "(iterate ...)", start: func() seqGenerator {
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
	return madeSeq(th, (&infiniteSeq{source: "(repeatedly ...)", start: func() seqGenerator {
		return func(th *Thread) (Value, error) { return call(th, "repeatedly", f) }
	}}).made("repeatedly", f))
}

func cycleSeq(th *Thread, elems []Value) (Value, error) {
	return madeSeq(th, (&infiniteSeq{source: "(cycle ...)", start: func() seqGenerator {
		i := 0
		return func(*Thread) (Value, error) {
			v := elems[i%len(elems)]
			i++
			return v, nil
		}
	}}).made("cycle", NewVector(elems)))
}

func rangeSeq(th *Thread, from, step Int) (Value, error) {
	return madeSeq(th, (&infiniteSeq{source: "(range)", start: func() seqGenerator {
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
	return madeSeq(th, (&infiniteSeq{source: "(repeat x)", start: func() seqGenerator {
		return func(*Thread) (Value, error) { return x, nil }
	}}).made("repeat", x))
}

// derived is (name arg s), charged as it is made (madeSeq): derivedFrom
// with the call's arguments.
func derived(th *Thread, s *infiniteSeq, name string, arg Value, reader func(src seqGenerator) seqGenerator) (Value, error) {
	return derivedFrom(th, s, name, []Value{arg, s}, reader)
}
