package lisp

import "errors"

// Lazy sequences that may end: (lazy-seq body...), (lazy-cat a b ...),
// (cons x s) and (concat ... s ...) of a lazy or infinite s, and every
// derivation (map, filter, rest, drop ...) of one. They are infiniteSeqs
// whose generators may stop (errSeqEnd), so everything that bounds an
// infinite sequence bounds them, and what must read one whole (count,
// reduce, =, str, the result) reads it to its end, each element charged a
// step and its memory, so the budgets stop one that never ends, as
// Clojure's would run until it ran out of memory.
//
// A body runs when a reader first needs what it makes, as Clojure's does,
// so a definition may refer to itself: (def fib (lazy-cat [0 1] (map +
// fib (rest fib)))). What a body made, and the elements a derivation of a
// lazy sequence produced, are kept for the rest of the evaluation that
// realized them (Thread.lazy), as Clojure's LazySeq caches its value: fib
// reads each element once, not once per path to it. The cache lives in
// the evaluation, never in the value, so a lazy sequence kept between
// turns or read by many callers at once reads the same for each, each
// caller realizing, and paying for, what it reads.

// errSeqEnd is how a generator of a sequence that may end says it ended;
// the readers that bound a sequence (realize, eachOfInfinite) stop there.
var errSeqEnd = errors.New("end of sequence")

// seqMemo is what one evaluation realized of one lazy sequence: the value
// its body made (a lazy-seq), or the elements its generator produced so
// far (a derivation of a lazy sequence).
type seqMemo struct {
	made    bool
	value   Value
	failure error
	gen     seqGenerator
	elems   valueChunks // the elements its generator produced (keep)
	ended   bool
	busy    bool
}

func (th *Thread) memoOf(s *infiniteSeq) *seqMemo {
	if th.lazy == nil {
		th.lazy = map[*infiniteSeq]*seqMemo{}
	}
	m := th.lazy[s]
	if m == nil {
		m = &seqMemo{}
		th.lazy[s] = m
	}
	return m
}

// compileLazySeq compiles (lazy-seq body...) as a function of no
// arguments that the sequence calls when first read.
func compileLazySeq(c *compiler, l *list, tail bool) (node, error) {
	fn, err := compileThunk(c, l)
	if err != nil {
		return nil, err
	}
	return &lazySeqNode{fn: fn}, nil
}

// compileLazyCat compiles (lazy-cat a b ...) as Clojure's macro expands
// it: (concat (lazy-seq a) (lazy-seq b) ...).
func compileLazyCat(c *compiler, l *list, tail bool) (node, error) {
	parts := make([]node, 0, len(l.Elems)-1)
	for _, f := range l.Elems[1:] {
		n, err := compileLazySeq(c, &list{Pos: l.Pos, Elems: []Value{symbol("lazy-seq"), f}}, false)
		if err != nil {
			return nil, err
		}
		parts = append(parts, n)
	}
	return &lazyCatNode{parts: parts}, nil
}

type lazySeqNode struct{ fn node }

func (n *lazySeqNode) eval(th *Thread, fr *frame) (Value, error) {
	f, err := n.fn.eval(th, fr)
	if err != nil {
		return nil, err
	}
	return lazySeqOf(th, f)
}

type lazyCatNode struct{ parts []node }

func (n *lazyCatNode) eval(th *Thread, fr *frame) (Value, error) {
	parts, err := evalNodes(th, fr, n.parts)
	if err != nil {
		return nil, err
	}
	return catSeq(th, parts)
}

// lazySeqOf is (lazy-seq (f)): a sequence whose body f runs when it is
// first read. It prints as (lazy-seq/call f), which makes it again.
func lazySeqOf(th *Thread, f Value) (Value, error) {
	s := newSeq(nil, seqOrigin{source: "(lazy-seq ...)", ends: true, body: true})
	s.origin.start = func() seqGenerator { return walkLazy(s) }
	return madeSeq(th, s.made("lazy-seq/call", f))
}

// consSeq is (cons x s) of a sequence s that is lazy or infinite: x, then
// s, s read only when a reader passes x.
func consSeq(th *Thread, x Value, rest *infiniteSeq) (Value, error) {
	s := newSeq(nil, seqOrigin{source: rest.sourceText(), ends: rest.ends(), cell: true})
	s.origin.start = func() seqGenerator { return walkLazy(s) }
	return madeSeq(th, s.made("cons", x, rest))
}

// catSeq is (concat parts...) where a part is lazy or infinite: each
// part read when a reader reaches it.
func catSeq(th *Thread, parts []Value) (Value, error) {
	s := newSeq(nil, seqOrigin{source: "(concat ...)", ends: true, cat: true})
	for _, p := range parts {
		if inf, ok := p.(*infiniteSeq); ok && !inf.ends() {
			s.origin.ends = false // a part that never ends: neither does the whole
			s.origin.source = inf.sourceText()
		}
	}
	s.origin.start = func() seqGenerator { return walkLazy(s) }
	return madeSeq(th, s.made("concat", parts...))
}

// walkLazy reads a lazy-seq, cons or concat node and what follows it
// without nesting a call per node: a body's value that is itself such a
// node is walked in place, as Clojure's LazySeq.sval unwraps nested lazy
// sequences, so a recursive lazy-seq of a million elements reads at
// constant depth. Any other sequence met on the way is read by its own
// reader.
func walkLazy(s *infiniteSeq) seqGenerator {
	var cur Value = s
	var after []Value // what follows cur, the next last
	var elems []Value // a finite collection being read
	var inner seqGenerator
	return func(th *Thread) (Value, error) {
		for {
			if inner != nil {
				v, err := inner.pull(th)
				if err != errSeqEnd {
					return v, err
				}
				inner = nil
			}
			if len(elems) > 0 {
				v := elems[0]
				elems = elems[1:]
				return v, nil
			}
			if cur == nil {
				if len(after) == 0 {
					return nil, errSeqEnd
				}
				cur, after = after[len(after)-1], after[:len(after)-1]
				continue
			}
			if err := th.step(1); err != nil {
				return nil, err
			}
			switch c := cur.(type) {
			case NilType:
				cur = nil
			case *infiniteSeq:
				switch o := c.origin; {
				case o != nil && o.body:
					v, err := c.realizeBody(th)
					if err != nil {
						return nil, err
					}
					cur = v
				case o != nil && o.cell:
					cur = o.args[1]
					return o.args[0], nil
				case o != nil && o.cat:
					th.memoOf(c).made = true
					for i := len(o.args) - 1; i > 0; i-- {
						after = append(after, o.args[i])
					}
					if len(o.args) == 0 {
						cur = nil
					} else {
						cur = o.args[0]
					}
				default:
					// Read through this evaluation's memo, as Clojure's
					// sequence caches what it realized: a lazy-seq whose
					// tail is a (filter ... (iterate ...)) reading the
					// sequence itself (a prime sieve) makes each element
					// once, not once per reader.
					if c.walkedBy(th) {
						inner, cur = c.walkReader(), nil
						continue
					}
					if err := th.alloc(heapGenerator * c.levels()); err != nil {
						return nil, err
					}
					inner, cur = c.memoReader(), nil
				}
			default:
				xs, err := seqOf(th, "lazy-seq", cur, anySeq)
				if err != nil {
					return nil, err
				}
				elems, cur = xs, nil
			}
		}
	}
}

// realizeBody runs a lazy-seq's body once per evaluation and gives what
// it made; an exception it threw is what every later read throws.
func (s *infiniteSeq) realizeBody(th *Thread) (Value, error) {
	m := th.memoOf(s)
	if m.failure != nil {
		return nil, m.failure
	}
	if m.made {
		return m.value, nil
	}
	if m.busy {
		// Clojure's body runs again, until the stack overflows.
		return nil, Errorf(executionError, "a lazy-seq's body needs its own value to make it").
			asJava("StackOverflowError", "")
	}
	m.busy = true
	v, err := th.call(s.origin.args[0], nil)
	m.busy = false
	if err != nil {
		m.failure = err
		return nil, err
	}
	m.made, m.value = true, v
	return v, nil
}

// memoReader reads a derivation of a lazy sequence through the elements
// this evaluation has produced of it: one generator per evaluation makes
// them, whichever reader asks first.
func (s *infiniteSeq) memoReader() seqGenerator {
	i := 0
	return func(th *Thread) (Value, error) {
		m := th.memoOf(s)
		if i < m.elems.len() {
			i++
			return m.elems.at(i - 1), nil
		}
		switch {
		case m.failure != nil:
			return nil, m.failure
		case m.ended:
			return nil, errSeqEnd
		case m.busy:
			return nil, Errorf(executionError, "%s needs its own next element to make it", s.what()).
				asJava("StackOverflowError", "")
		}
		if m.gen == nil {
			m.gen = s.fresh()
		}
		m.busy = true
		v, err := m.gen.pull(th)
		m.busy = false
		switch {
		case err == errSeqEnd:
			m.ended = true
			return nil, err
		case err != nil:
			m.failure = err
			return nil, err
		}
		if err := m.keep(th, v); err != nil {
			return nil, err
		}
		i++
		return v, nil
	}
}

// keep adds v to what the evaluation realized of a sequence, which it
// keeps until it ends, charged the room it takes as it is made.
func (m *seqMemo) keep(th *Thread, v Value) error {
	if room := m.elems.room(); room > 0 {
		if err := th.alloc(heapSlot * int64(room)); err != nil {
			return err
		}
	}
	m.elems.add(v)
	return nil
}

// realizedIn reports whether this evaluation has begun to read s, as
// Clojure's realized? of a LazySeq: its body ran, or its first element
// was asked for.
func (s *infiniteSeq) realizedIn(th *Thread) bool {
	if s.walkedBy(th) {
		return s.walk.base == nil && s.walk.at != nil // it has begun
	}
	m := th.lazy[s]
	return m != nil && (m.made || m.gen != nil)
}

// realizeAll reads a sequence that may end to its end, as a list.
func (s *infiniteSeq) realizeAll(th *Thread) (*Vector, error) {
	g, err := s.reader(th)
	if err != nil {
		return nil, err
	}
	// Each element is charged its slot as it is read (next), and the list
	// it ends as is one copy more: the heap holds both at the end.
	var read valueChunks
	for {
		v, err := g.next(th)
		if err == errSeqEnd {
			if err := th.alloc(heapSlot * int64(read.len())); err != nil {
				return nil, err
			}
			return newList(read.values()), nil
		}
		if err != nil {
			return nil, err
		}
		read.add(v)
	}
}

// realizeEnds gives v with every sequence that may end read to its end,
// in v and in the vectors, lists and map values it holds: what a program
// returns, and what the printing builtins print, as Clojure prints a lazy
// sequence as the list it reads as. It recurses once per level of v, and
// a program can nest a value far deeper than printing, comparing or
// returning it allows (MaxValueNesting): past that the walk stops, with
// their error, before the Go stack grows with the value (100,000 levels
// grew it by 32 MiB no budget saw).
func realizeEnds(th *Thread, v Value) (Value, error) {
	out, err := realizeEndsWithin(th, v, MaxValueNesting)
	if err == errTooDeep {
		return nil, walkTooDeepError()
	}
	return out, err
}

// realizeEndsWithin is realizeEnds of a value that may nest at most limit
// levels: deeper, it stops with errTooDeep.
func realizeEndsWithin(th *Thread, v Value, limit int) (Value, error) {
	return realizeEndsFrom(th, v, 1, limit)
}

// realizeEndsFrom is realizeEnds of v found depth levels down. A value
// known to hold no sequence that may end is not entered, and the rest of
// the walk is charged a step per part it visits: a lookup keyed by a
// vector of vectors walked 160,000 parts for one step.
func realizeEndsFrom(th *Thread, v Value, depth, limit int) (Value, error) {
	if holdsNoEndingSeq(v) {
		return v, nil
	}
	if depth > limit {
		return nil, errTooDeep
	}
	switch v := v.(type) {
	case *infiniteSeq:
		if v.ends() {
			whole, err := v.realizeAll(th)
			if err != nil {
				return nil, err
			}
			return realizeEndsFrom(th, whole, depth, limit)
		}
	case *Vector:
		if err := th.step(int64(len(v.elems))); err != nil {
			return nil, err
		}
		var out []Value
		for i, x := range v.elems {
			y, err := realizeEndsFrom(th, x, depth+1, limit)
			if err != nil {
				return nil, err
			}
			if y != x && out == nil {
				out = append(make([]Value, 0, len(v.elems)), v.elems...)
			}
			if out != nil {
				out[i] = y
			}
		}
		if out != nil {
			if v.IsList() {
				return newList(out), nil
			}
			return NewVector(out), nil
		}
	case *Map:
		if err := th.step(int64(len(v.entries))); err != nil {
			return nil, err
		}
		m := v
		for _, e := range v.entries {
			y, err := realizeEndsFrom(th, e.Val, depth+1, limit)
			if err != nil {
				return nil, err
			}
			if y != e.Val {
				m = m.assoc(e.Key, y)
			}
		}
		return m, nil
	}
	return v, nil
}

// holdsNoEndingSeq reports whether v is known, without walking it, to
// hold no sequence that may end where realizeEnds looks for one: a plain
// scalar, a sequence that never ends, data Freeze measured (what a
// request or a literal holds), or a vector built of such parts
// (seqFreeBit). A map built by a program is not known so, and is walked.
func holdsNoEndingSeq(v Value) bool {
	switch c := v.(type) {
	case *infiniteSeq:
		return !c.ends()
	case *Vector:
		if c.weight&seqFreeBit != 0 {
			return true
		}
	case *Map:
	default:
		return true
	}
	_, measured := nestsMeasured(v)
	return measured
}

// realizedToEmit is v, a value the turn sends back (the result, what
// return or fail gives, a definition, a tool call's arguments), with the
// lazy sequences it holds read as realizeEnds reads them: every path out
// sends a held lazy sequence as the list it reads as, never as the call
// that makes it, so that a builtin may store one unread (holdsArgs). A
// value nested deeper than nesting is refused as what.
func realizedToEmit(th *Thread, v Value, what string, nesting int) (Value, error) {
	out, err := realizeEndsWithin(th, v, nesting)
	if err == errTooDeep {
		return nil, tooDeepError(what, nesting)
	}
	return out, err
}

// definedToEmit is realizedToEmit of a definition's value, but a lazy
// sequence defined by name is kept as the call that makes it, as
// Clojure's def does not read it: (def fib (lazy-cat [0 1] (map + fib
// (rest fib)))) never ends, and is read only as far as a later turn asks.
func definedToEmit(th *Thread, v Value, what string, nesting int) (Value, error) {
	if _, ok := v.(*infiniteSeq); ok {
		return v, nil
	}
	return realizedToEmit(th, v, what, nesting)
}

// realizedDeep gives args with realizeEnds applied to each argument read
// picks, or args itself when that changes none (args may be borrowed: it
// is not changed).
func realizedDeep(th *Thread, args []Value, read partsRead) ([]Value, error) {
	var out []Value
	for i, a := range args {
		switch a.(type) {
		case *infiniteSeq, *Vector, *Map:
		default:
			continue
		}
		if !read(args, i) {
			continue
		}
		v, err := realizeEnds(th, a)
		if err != nil {
			return nil, err
		}
		if v != a && out == nil {
			out = append([]Value(nil), args...)
		}
		if out != nil {
			out[i] = v
		}
	}
	if out == nil {
		return args, nil
	}
	return out, nil
}

// realizedKey is k, to be hashed as a key of a map or set, with the lazy
// sequences it holds read as realizeEnds reads them, and charged as a key
// (chargeKey): a lazy sequence equals the list it reads as, so it must
// hash as that list too. Keys a program builds and keys a function
// returns to a builtin (group-by's) go through it.
func realizedKey(th *Thread, k Value) (Value, error) {
	switch k.(type) {
	case *infiniteSeq, *Vector, *Map:
		var err error
		if k, err = realizeEnds(th, k); err != nil {
			return nil, err
		}
	}
	return k, chargeKey(th, k)
}

// partsRead picks the arguments, by position, whose parts a builtin
// prints, compares or hashes whole. Only those are read: reading walks
// them whole, which the builtin's cost charges for exactly these (a
// default value, a map's values, a function's arguments are not walked).
type partsRead func(args []Value, i int) bool

func everyArg([]Value, int) bool { return true }

// onlyArg picks argument i: the key of get, the path of get-in.
func onlyArg(i int) partsRead { return func(_ []Value, j int) bool { return j == i } }

// afterCollection picks the keys and items given after a collection.
func afterCollection(_ []Value, i int) bool { return i > 0 }

// ontoSet picks the items put into a set (conj, into): onto a vector or
// a list nothing is hashed, and onto a map only an entry's key, which is
// left as it is.
func ontoSet(args []Value, i int) bool {
	coll := args[0]
	if t, ok := coll.(*transient); ok {
		coll = t.coll
	}
	_, isSet := coll.(*Set)
	return isSet && i > 0
}

// keysAfterFirst picks the keys of key/value pairs after a map (assoc).
func keysAfterFirst(_ []Value, i int) bool { return i%2 == 1 }

// keysOfPairs picks the keys of key/value pair arguments (hash-map).
func keysOfPairs(_ []Value, i int) bool { return i%2 == 0 }

// readsPartsWhole are the builtins that print, compare or hash
// parts of their arguments, with the arguments each reads so: a lazy
// sequence inside one is read before they run, as Clojure's = and hash
// read it, so that a lazy sequence held in a vector, a map or a set
// prints, compares and hashes as the list it reads as (flatten reads one
// as it meets it). Maps
// and sets a builtin looks keys up in are left unread: their keys and
// items were read when they were put in (realizedKey, and the builtins
// here that build them), and the keys a function returns to group-by or
// distinct-by are read as they are hashed (realizedKey).
var readsPartsWhole = map[string]partsRead{
	"str": everyArg, "pr-str": everyArg, "prn-str": everyArg, "print-str": everyArg, "println-str": everyArg,
	"pr": everyArg, "prn": everyArg, "print": everyArg, "println": everyArg,
	"=": everyArg, "not=": everyArg, "identical?": everyArg, "distinct?": everyArg, "hash": everyArg,
	"isa?": everyArg, "compare-and-set!": everyArg, "dedupe": everyArg,
	"set": everyArg, "hash-set": everyArg, "sorted-set": everyArg, "distinct": everyArg, "frequencies": everyArg,
	"map-invert": everyArg, "union": everyArg, "intersection": everyArg, "difference": everyArg,
	"subset?": everyArg, "superset?": everyArg, "select": everyArg,
	"hash-map": keysOfPairs, "array-map": keysOfPairs, "sorted-map": keysOfPairs, "sorted-map-by": keysAfterFirst,
	"assoc": keysAfterFirst, "assoc!": keysAfterFirst, "sorted-set-by": afterCollection,
	"get": onlyArg(1), "contains?": onlyArg(1), "find": onlyArg(1), "get-in": onlyArg(1), "update": onlyArg(1),
	"update-in": onlyArg(1), "assoc-in": onlyArg(1), "rename-keys": onlyArg(1), "zipmap": onlyArg(0),
	"dissoc": afterCollection, "disj": afterCollection, "dissoc!": afterCollection, "disj!": afterCollection,
	"select-keys": afterCollection, "conj": ontoSet, "conj!": ontoSet, "into": ontoSet,
}

// holdsArgs are the builtins that keep or pass on arguments without
// reading their elements, with the arguments each holds so. A lazy
// sequence there is kept as it is, as Clojure keeps it, where a builtin
// with no form of its own for lazy sequences reads it whole first: one
// that never ends (a lazy-seq that calls itself) or whose body reads a
// cell set later (an atom that holds it) is read when it is used, not
// when it is stored. The builders that store one in a collection are
// here too: the turn's answer, its definitions and a tool call's
// arguments read a held lazy sequence as the list it reads as
// (realizedToEmit).
var holdsArgs = map[string]partsRead{
	"identity": everyArg, "constantly": everyArg, "some?": everyArg, "nil?": everyArg, "force": everyArg,
	"atom": onlyArg(0), "volatile!": onlyArg(0), "reset!": onlyArg(1), "vreset!": onlyArg(1), "reset-vals!": onlyArg(1),
	"swap!": passedOn, "vswap!": passedOn, "swap-vals!": passedOn, "update": passedOn, "update-in": passedOn,
	"repeat": repeated, "partial": afterCollection, "assoc-in": onlyArg(2),
	"hash-map": valuesOfPairs, "array-map": valuesOfPairs, "sorted-map": valuesOfPairs,
	"sorted-map-by": valuesAfterFirst, "assoc": valuesAfterFirst, "assoc!": valuesAfterFirst,
	"tree-seq": onlyArg(2), "merge": ontoVector, "vector": everyArg, "list": everyArg,
}

// ontoVector picks the items merge conjoins onto a vector or a list; onto
// a map, a sequence is read as the entries it holds.
func ontoVector(args []Value, i int) bool {
	_, isVector := args[0].(*Vector)
	return isVector && i > 0
}

// repeated picks what repeat repeats, its last argument.
func repeated(args []Value, i int) bool { return i == len(args)-1 }

// valuesOfPairs picks the values of key/value pair arguments (hash-map).
func valuesOfPairs(_ []Value, i int) bool { return i%2 == 1 }

// valuesAfterFirst picks the values of key/value pairs after a map (assoc).
func valuesAfterFirst(_ []Value, i int) bool { return i > 0 && i%2 == 0 }

// passedOn picks the arguments swap! passes on to its function, after the
// cell and the function.
func passedOn(_ []Value, i int) bool { return i > 1 }

// realizedArgs gives args with every sequence that may end read whole, or
// args itself when none is one.
func realizedArgs(th *Thread, args []Value) ([]Value, error) {
	return realizedArgsBut(th, args, nil)
}

// realizedArgsBut is realizedArgs leaving the arguments held picks (none
// when held is nil) as they are.
func realizedArgsBut(th *Thread, args []Value, held partsRead) ([]Value, error) {
	var out []Value
	for i, a := range args {
		s, ok := a.(*infiniteSeq)
		if !ok || !s.ends() || held != nil && held(args, i) {
			continue
		}
		if out == nil {
			out = append([]Value(nil), args...)
		}
		v, err := s.realizeAll(th)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	if out == nil {
		return args, nil
	}
	return out, nil
}

// peek reports whether s has a first element, reading at most that one.
func (s *infiniteSeq) peek(th *Thread) (bool, error) {
	switch {
	case !s.ends():
		return true, nil
	case s.walkedBy(th):
		return s.peekWalk(th)
	}
	first, err := s.realize(th, 1)
	return len(first) > 0, err
}

// endingArg reports whether some argument is a sequence that may end.
func endingArg(args []Value) bool {
	for _, a := range args {
		if s, ok := a.(*infiniteSeq); ok && s.ends() {
			return true
		}
	}
	return false
}

// The forms on a lazy or infinite sequence (Builtin.lazy) of the
// builtins that take a sequence apart or put one together, which keep it
// lazy where the builtin's Fn would read it whole.

func lazyRest(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	if args[0] != s {
		return plain(th, args)
	}
	return lazyDrop(th, []Value{Int(1), s}, s, nil)
}

func lazyNext(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	r, err := lazyRest(th, args, s, plain)
	if err != nil {
		return nil, err
	}
	return nilWhenEmpty(th, r)
}

// lazySeqForm is seq and not-empty: the sequence, or nil when it has no
// first element.
func lazySeqForm(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	return nilWhenEmpty(th, s)
}

func nilWhenEmpty(th *Thread, v Value) (Value, error) {
	s, ok := v.(*infiniteSeq)
	if !ok {
		return v, nil
	}
	some, err := s.peek(th)
	if err != nil || !some {
		return Nil, err
	}
	return s, nil
}

func lazyIsEmpty(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	some, err := s.peek(th)
	if err != nil {
		return nil, err
	}
	return boolValue(!some), nil
}

func lazyCons(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	rest, ok := args[1].(*infiniteSeq)
	if !ok {
		return plain(th, args)
	}
	return consSeq(th, args[0], rest)
}

func lazyConcat(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	return catSeq(th, args)
}

// lazySeqCall is lazy-seq/call, what a lazy-seq prints as: (lazy-seq/call
// f) is (lazy-seq (f)).
var lazySeqBuiltins = []*Builtin{
	unlisted(&Builtin{Name: "lazy-seq/call", Sig: "(lazy-seq/call f)", Doc: "(lazy-seq (f)): a sequence f makes when it is first read; what a lazy-seq prints as", Category: "idiom",
		reach: qualified, MinArgs: 1, MaxArgs: 1, Cost: cost(chargedInBody("the sequence as it is made (madeSeq); its body when read, each element a step")),
		Fn: func(th *Thread, args []Value) (Value, error) { return lazySeqOf(th, args[0]) }}),
}
