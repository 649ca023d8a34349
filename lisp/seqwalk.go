package lisp

// Walking a sequence step by step: (loop [s xs] (recur (rest s))), next,
// nthnext, drop, and the & part of a destructuring. Each step is a drop
// of the sequence before it; read from its source's start, walking n
// elements would read n^2, and nested a derivation per step, n levels of
// Go stack. Instead a drop of a drop is one drop of the first's source
// (dropSeq), and the evaluation that makes it reads it through the
// places of its walk (seqPlace), as Clojure's realized cells: each
// element is read once, at constant depth, and the places behind a walk
// that no value refers to any more are garbage, so an endless walk that
// keeps no head holds no walked element.
//
// The places are the making evaluation's alone: any other evaluation, or
// caller, that reads a drop kept in memory reads it from its source's
// start, as every sequence reads (lazy.go), and pays for what it reads.

// walkOwner names the evaluation that walks a sequence (Thread.walks):
// only it reads or changes the places of its walks.
type walkOwner struct{ _ byte }

func (th *Thread) walker() *walkOwner {
	if th.walks == nil {
		th.walks = &walkOwner{}
	}
	return th.walks
}

// seqPlace is one place in an evaluation's walk of a sequence: the
// element there once read, and the place after it. The place at the
// walk's frontier holds the generator, which moves on to the next place
// as its element is read. A walk that keeps its head keeps every place,
// so a place is kept to its 32 bytes (heapPlace): while its element is
// being read it has neither generator nor next place, and a read that
// failed leaves a placeFailure where the element would be.
type seqPlace struct {
	gen   seqGenerator // at the frontier: reads this place's element
	value any          // the element, a Value; or a placeFailure
	next  *seqPlace    // the place after this one, once it is read
}

// placeFailure is what reading a place threw: errSeqEnd at the end, or
// what the generator threw, which every later read of the place throws.
type placeFailure struct{ err error }

// seqWalk is where a drop begins in the walk of the evaluation that made
// it: ahead places past at, or past the source's start while at is nil;
// or, until it begins, ahead places past where the drop it was made of
// begins (base). owner never changes; the rest is read and moved by
// owner only.
type seqWalk struct {
	owner *walkOwner
	base  *seqWalk
	at    *seqPlace
	ahead int
}

// walkedBy reports whether th made s, a drop, and so reads it through
// the places of its walk.
func (s *infiniteSeq) walkedBy(th *Thread) bool {
	return s.walk != nil && s.walk.owner == th.walks
}

// read gives the element at p and the place after it, reading the
// element from the generator when p is the frontier, charged the place
// it adds.
func (p *seqPlace) read(th *Thread) (Value, *seqPlace, error) {
	if gen := p.gen; gen != nil {
		if err := th.alloc(heapPlace); err != nil {
			return nil, nil, err
		}
		p.gen = nil // reading: a read of p from inside gen finds neither
		v, err := gen.pull(th)
		if err != nil {
			p.value = placeFailure{err}
		} else {
			p.value, p.next = v, &seqPlace{gen: gen}
		}
	}
	switch {
	case p.next != nil:
		v, _ := p.value.(Value)
		return v, p.next, nil
	case p.value == nil:
		return nil, nil, Errorf(executionError, "a sequence needs its own next element to make it").
			asJava("StackOverflowError", "")
	}
	return nil, nil, p.value.(placeFailure).err
}

// begin gives the place where s begins in th's walk, moving the walk
// there: each place passed is charged a step, as a dropped element is,
// and so is each drop between s and the first of those it was made of
// that has begun (a walk by rest that reads nothing reads no place).
func (s *infiniteSeq) begin(th *Thread) (*seqPlace, error) {
	w := s.walk
	if w.base != nil {
		ahead, b := w.ahead, w.base
		for b.base != nil {
			if err := th.step(1); err != nil {
				return nil, err
			}
			ahead, b = addCounts(ahead, b.ahead), b.base
		}
		if err := s.startWalk(th, b); err != nil {
			return nil, err
		}
		w.at, w.ahead, w.base = b.at, addCounts(b.ahead, ahead), nil
	}
	if err := s.startWalk(th, w); err != nil {
		return nil, err
	}
	for w.ahead > 0 {
		if err := th.step(1); err != nil {
			return nil, err
		}
		_, next, err := w.at.read(th)
		if err == errSeqEnd {
			break // past the end: the walk stays there
		}
		if err != nil {
			return nil, err
		}
		w.at, w.ahead = next, w.ahead-1
	}
	return w.at, nil
}

// startWalk gives w, a walk of s's source that has not begun, its first
// place: a generator at the source's first element.
func (s *infiniteSeq) startWalk(th *Thread, w *seqWalk) error {
	if w.at != nil {
		return nil
	}
	if err := th.alloc(heapGenerator * s.from.levels()); err != nil {
		return err
	}
	w.at = &seqPlace{gen: s.from.readerIn(th)}
	return nil
}

// walkReader reads s, a drop th made, through the places of th's walk.
func (s *infiniteSeq) walkReader() seqGenerator {
	var p *seqPlace
	return func(th *Thread) (Value, error) {
		if p == nil {
			at, err := s.begin(th)
			if err != nil {
				return nil, err
			}
			p = at
		}
		v, next, err := p.read(th)
		if err != nil {
			return nil, err
		}
		p = next
		return v, nil
	}
}

// dropSeq is (drop n s): a drop of a drop is one drop of its source, n
// more; in the evaluation that made s it begins n places past s in the
// same walk, in any other n places past its source's start.
func dropSeq(th *Thread, s *infiniteSeq, n int) (Value, error) {
	n = max(n, 0) // (drop -1 s) drops nothing
	src, dropped := s, n
	w := &seqWalk{owner: th.walker(), ahead: n}
	if s.isDrop() {
		src, dropped = s.from, addCounts(s.dropped, n)
		if s.walk.owner == w.owner {
			w.base = s.walk
		} else {
			w.ahead = dropped
		}
	}
	d := &infiniteSeq{from: src, dropped: dropped, walk: w}
	return madeSeq(th, d)
}

// addCounts is a+b, at most the largest int: a drop that far never
// begins, and the budgets stop a reader that tries.
func addCounts(a, b int) int {
	if a > maxInt-b {
		return maxInt
	}
	return a + b
}

const maxInt = int(^uint(0) >> 1)

// skipping reads src past its first n elements, each charged a step.
func skipping(src seqGenerator, n int) seqGenerator {
	return func(th *Thread) (Value, error) {
		for ; n > 0; n-- {
			if err := th.step(1); err != nil {
				return nil, err
			}
			if _, err := src.pull(th); err != nil {
				return nil, err
			}
		}
		return src.pull(th)
	}
}

// peekWalk reports whether s, a drop th made, has a first element,
// reading at most that one into th's walk.
func (s *infiniteSeq) peekWalk(th *Thread) (bool, error) {
	p, err := s.begin(th)
	if err != nil {
		return false, err
	}
	_, _, err = p.read(th)
	if err == errSeqEnd {
		return false, nil
	}
	return err == nil, err
}
