package lisp

// The builtins' forms on an infinite sequence argument (Builtin.lazy):
// each bounds the sequence, or makes another infinite one, where the
// builtin's Fn would have to realize it whole.
// lazyTake is (take ...) on an infinite sequence.
func lazyTake(th *Thread, args []Value, s *infiniteSeq, _ func(*Thread, []Value) (Value, error)) (Value, error) {
	n, err := toCount("take", args[0])
	if err != nil {
		return nil, err
	}
	elems, err := s.realize(th, max(n, 0))
	if err != nil {
		return nil, err
	}
	return NewVector(elems), nil
}

// lazyTakeWhile is (take-while pred s) of a lazy or infinite sequence:
// lazy, as Clojure's, so (take 3 (take-while pos? (iterate inc 1))) reads
// three items. It may end though s does not, so it is read whole as one
// that may end: to its end, or to a budget.
func lazyTakeWhile(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	if len(args) != 2 || args[1] != s {
		return plain(th, args)
	}
	pred := args[0]
	v, err := derived(th, s, "take-while", pred, func(g seqGenerator) seqGenerator {
		taking := true
		return func(th *Thread) (Value, error) {
			if !taking {
				return nil, errSeqEnd
			}
			v, err := g.pull(th)
			if err != nil {
				return nil, err
			}
			ok, err := truthyCall(th, "take-while", pred, v)
			if err != nil {
				return nil, err
			}
			if !ok {
				taking = false
				return nil, errSeqEnd
			}
			return v, nil
		}
	})
	if err != nil {
		return nil, err
	}
	d := v.(*infiniteSeq)
	d.origin.ends, d.origin.memo = true, true
	return d, nil
}

// eachOfInfinite calls visit with the elements of s in order, with a reader
// of this evaluation's own, until visit is done or fails.
func eachOfInfinite(th *Thread, s *infiniteSeq, visit func(Value) (done bool, err error)) error {
	g, err := s.reader(th)
	if err != nil {
		return err
	}
	for {
		v, err := g.next(th)
		if err == errSeqEnd {
			return nil
		}
		if err != nil {
			return err
		}
		if done, err := visit(v); done || err != nil {
			return err
		}
	}
}

// lazyNth is (nth ...) on an infinite sequence.
func lazyNth(th *Thread, args []Value, s *infiniteSeq, _ func(*Thread, []Value) (Value, error)) (Value, error) {
	n, err := toInt("nth", args[1])
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, Errorf(executionError, "nth index %d is out of range", n).asJavaWithoutMessage("IndexOutOfBoundsException")
	}
	elems, err := s.realize(th, n+1)
	if err != nil {
		return nil, err
	}
	if len(elems) <= n {
		if len(args) > 2 {
			return args[2], nil
		}
		return nil, Errorf(executionError, "nth index %d is out of range", n).asJavaWithoutMessage("IndexOutOfBoundsException")
	}
	return elems[n], nil
}

// lazyDrop is (drop ...) on an infinite sequence.
func lazyDrop(th *Thread, args []Value, s *infiniteSeq, _ func(*Thread, []Value) (Value, error)) (Value, error) {
	n, err := toCount("drop", args[0])
	if err != nil {
		return nil, err
	}
	return dropSeq(th, s, n)
}

// lazyDropWhile is (drop-while ...) on an infinite sequence.
func lazyDropWhile(th *Thread, args []Value, s *infiniteSeq, _ func(*Thread, []Value) (Value, error)) (Value, error) {
	return derived(th, s, "drop-while", args[0], func(g seqGenerator) seqGenerator {
		dropping := true
		return func(th *Thread) (Value, error) {
			for {
				v, err := g.pull(th)
				if err != nil || !dropping {
					return v, err
				}
				ok, err := truthyCall(th, "drop-while", args[0], v)
				if err != nil {
					return nil, err
				}
				if !ok {
					dropping = false
					return v, nil
				}
				if err := th.step(1); err != nil {
					return nil, err
				}
			}
		}
	})
}

// lazySome is (some ...) on an infinite sequence.
func lazySome(th *Thread, args []Value, s *infiniteSeq, _ func(*Thread, []Value) (Value, error)) (Value, error) {
	var found Value
	err := eachOfInfinite(th, s, func(v Value) (bool, error) {
		r, err := call(th, "some", args[0], v)
		if err == nil && truthy(r) {
			found = r
			return true, nil
		}
		return false, err
	})
	if err != nil {
		return nil, err
	}
	return found, nil
}

var (
	lazyFirst  = firstOfInfinite(0)
	lazySecond = firstOfInfinite(1)
	lazyFilter = filterInfinite("filter", true)
	lazyRemove = filterInfinite("remove", false)
)

func firstOfInfinite(i int) func(*Thread, []Value, *infiniteSeq, func(*Thread, []Value) (Value, error)) (Value, error) {
	return func(th *Thread, args []Value, s *infiniteSeq, _ func(*Thread, []Value) (Value, error)) (Value, error) {
		elems, err := s.realize(th, i+1)
		if err != nil {
			return nil, err
		}
		if len(elems) <= i {
			return Nil, nil
		}
		return elems[i], nil
	}
}

func filterInfinite(fn string, keep bool) func(*Thread, []Value, *infiniteSeq, func(*Thread, []Value) (Value, error)) (Value, error) {
	return func(th *Thread, args []Value, s *infiniteSeq, _ func(*Thread, []Value) (Value, error)) (Value, error) {
		pred := args[0]
		return derived(th, s, fn, pred, func(g seqGenerator) seqGenerator {
			return func(th *Thread) (Value, error) {
				for {
					v, err := g.pull(th)
					if err != nil {
						return nil, err
					}
					ok, err := truthyCall(th, fn, pred, v)
					if err != nil {
						return nil, err
					}
					if ok == keep {
						return v, nil
					}
					if err := th.step(1); err != nil {
						return nil, err
					}
				}
			}
		})
	}
}

// lazyMap is map over one infinite sequence (another infinite one),
// or over several where one is finite (bounded by it).
func lazyMap(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	if len(args) == 2 {
		f := args[0]
		return derived(th, s, "map", f, func(g seqGenerator) seqGenerator {
			return func(th *Thread) (Value, error) {
				v, err := g.pull(th)
				if err != nil {
					return nil, err
				}
				return call(th, "map", f, v)
			}
		})
	}
	if len(args) < 3 {
		return boundedByFinite(th, args, s, plain)
	}
	var srcs []*infiniteSeq
	for _, a := range args[1:] {
		inf, ok := a.(*infiniteSeq)
		if !ok {
			return boundedByFinite(th, args, s, plain)
		}
		srcs = append(srcs, inf)
	}
	return mapSeqs(th, args[0], srcs)
}

// mapSeqs is (map f s1 s2 ...) over sequences none of which is finite: a
// sequence that ends when the first of them ends.
func mapSeqs(th *Thread, f Value, srcs []*infiniteSeq) (Value, error) {
	d := newSeq(srcs[0], seqOrigin{})
	for _, s := range srcs {
		if s.ends() {
			d.origin.ends, d.origin.memo = true, true
		}
	}
	d.origin.start = func() seqGenerator {
		gs := make([]seqGenerator, len(srcs))
		for i, s := range srcs {
			gs[i] = s.sourceReader()
		}
		return func(th *Thread) (Value, error) {
			vs := make([]Value, len(gs))
			for i, g := range gs {
				v, err := g.pull(th)
				if err != nil {
					return nil, err
				}
				vs[i] = v
			}
			return call(th, "map", f, vs...)
		}
	}
	args := make([]Value, 0, len(srcs)+1)
	args = append(args, f)
	for _, s := range srcs {
		args = append(args, s)
	}
	d.made("map", args...)
	for _, s := range srcs[1:] {
		d.origin.levels += s.levels()
	}
	return madeSeq(th, d)
}

// boundedByFinite realizes every infinite argument to the length of the
// shortest finite collection argument, then runs the builtin.
func boundedByFinite(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	n := -1
	for _, a := range args {
		switch a.(type) {
		case *infiniteSeq, *Builtin, *closure, Keyword:
			continue
		}
		if _, fn := a.(Callable); fn {
			if _, coll := a.(*Vector); !coll {
				if _, m := a.(*Map); !m {
					if _, set := a.(*Set); !set {
						continue
					}
				}
			}
		}
		elems, err := seqOf(th, "map", a, anySeq)
		if err != nil {
			return nil, err
		}
		if n < 0 || len(elems) < n {
			n = len(elems)
		}
	}
	if n < 0 {
		if !allEnd(args) {
			return nil, infiniteError("this call", s)
		}
		whole, err := realizedArgs(th, args)
		if err != nil {
			return nil, err
		}
		return plain(th, whole)
	}
	bounded := make([]Value, len(args))
	for i, a := range args {
		bounded[i] = a
		if inf, ok := a.(*infiniteSeq); ok {
			elems, err := inf.realize(th, n)
			if err != nil {
				return nil, err
			}
			bounded[i] = NewVector(elems)
		}
	}
	return plain(th, bounded)
}

// firstInfinite returns the first infinite argument, if any.
func firstInfinite(args []Value) (*infiniteSeq, bool) {
	for _, a := range args {
		if s, ok := a.(*infiniteSeq); ok {
			return s, true
		}
	}
	return nil, false
}

// allEnd reports whether every sequence among args may end.
func allEnd(args []Value) bool {
	for _, a := range args {
		if s, ok := a.(*infiniteSeq); ok && !s.ends() {
			return false
		}
	}
	return true
}
