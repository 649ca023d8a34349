package lisp

import "fmt"

// A transducer is what (map f), (filter p), (take n) and the like return
// with their collection left out: a function from a reducing step to a
// reducing step, so that comp chains them as it chains functions and
// (into [] (comp (filter odd?) (map inc)) xs) works as in Clojure. Each
// application starts fresh state (take's count, dedupe's last item).
type transducer struct {
	name  string
	apply func(rf Value) Value
}

func (*transducer) TypeName() string { return "function" }

// Call applies the transducer to a reducing function.
func (t *transducer) Call(th *Thread, args []Value) (Value, error) {
	if len(args) != 1 {
		return nil, arityError("("+t.name+" ...) transducer", "(xform reducing-fn), e.g. (into [] xform coll)", len(args))
	}
	return t.apply(args[0]), nil
}

// stepFn is a reducing function built from Go: called with (acc x) it
// steps, with (acc) it completes.
type stepFn struct {
	step     func(th *Thread, acc, x Value) (Value, error)
	complete func(th *Thread, acc Value) (Value, error)
}

func (*stepFn) TypeName() string { return "function" }

func (s *stepFn) Call(th *Thread, args []Value) (Value, error) {
	switch len(args) {
	case 2:
		return s.step(th, args[0], args[1])
	case 1:
		if s.complete == nil {
			return args[0], nil
		}
		return s.complete(th, args[0])
	}
	return nil, arityError("reducing function", "(rf acc x)", len(args))
}

// wrapStep builds the reducing function a transducer makes of rf.
func wrapStep(rf Value, step func(th *Thread, acc, x Value) (Value, error)) Value {
	return &stepFn{step: step, complete: func(th *Thread, acc Value) (Value, error) { return th.call(rf, []Value{acc}) }}
}

// The transducer forms of the sequence builtins (Builtin.xform): each
// makes, of the call's argument f (Nil when there is none) and a reducing
// function rf, the reducing function the transducer passes items to. The
// state of take's count or dedupe's last item is made fresh for each rf.

// passOn passes x on to rf.
func passOn(th *Thread, rf, acc, x Value) (Value, error) { return th.call(rf, []Value{acc, x}) }

func mapStep(name string, f, rf Value) Value {
	return wrapStep(rf, func(th *Thread, acc, x Value) (Value, error) {
		v, err := call(th, name, f, x)
		if err != nil {
			return nil, err
		}
		return passOn(th, rf, acc, v)
	})
}

// filterStep is filter's and filterv's, and remove's, which keeps the
// items for which f is falsy.
func filterStep(name string, f, rf Value) Value {
	keep := name != "remove"
	return wrapStep(rf, func(th *Thread, acc, x Value) (Value, error) {
		ok, err := truthyCall(th, name, f, x)
		if err != nil || ok != keep {
			return acc, err
		}
		return passOn(th, rf, acc, x)
	})
}

func keepStep(name string, f, rf Value) Value {
	return wrapStep(rf, func(th *Thread, acc, x Value) (Value, error) {
		v, err := call(th, name, f, x)
		if err != nil || v == Nil {
			return acc, err
		}
		return passOn(th, rf, acc, v)
	})
}

func mapcatStep(name string, f, rf Value) Value {
	return wrapStep(rf, func(th *Thread, acc, x Value) (Value, error) {
		v, err := call(th, name, f, x)
		if err != nil {
			return nil, err
		}
		return passEach(th, name, rf, acc, v)
	})
}

// passEach passes each item of coll on to rf, stopping at a reduced value.
func passEach(th *Thread, name string, rf, acc, coll Value) (Value, error) {
	items, err := seqOf(th, name, coll, anySeq)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		if acc, err = passOn(th, rf, acc, it); err != nil {
			return nil, err
		}
		if _, stop := acc.(*reducedValue); stop {
			return acc, nil
		}
	}
	return acc, nil
}

func takeWhileStep(name string, f, rf Value) Value {
	return wrapStep(rf, func(th *Thread, acc, x Value) (Value, error) {
		ok, err := truthyCall(th, name, f, x)
		if err != nil {
			return nil, err
		}
		if !ok {
			return &reducedValue{acc}, nil
		}
		return passOn(th, rf, acc, x)
	})
}

func dropWhileStep(name string, f, rf Value) Value {
	dropping := true
	return wrapStep(rf, func(th *Thread, acc, x Value) (Value, error) {
		if dropping {
			ok, err := truthyCall(th, name, f, x)
			if err != nil {
				return nil, err
			}
			if ok {
				return acc, nil
			}
			dropping = false
		}
		return passOn(th, rf, acc, x)
	})
}

func takeStep(name string, f, rf Value) Value {
	n, _ := toCount(name, f)
	seen := 0
	return wrapStep(rf, func(th *Thread, acc, x Value) (Value, error) {
		seen++
		if seen > n {
			return &reducedValue{acc}, nil
		}
		v, err := passOn(th, rf, acc, x)
		if err != nil || seen < n {
			return v, err
		}
		if _, done := v.(*reducedValue); done {
			return v, nil
		}
		return &reducedValue{v}, nil
	})
}

func dropStep(name string, f, rf Value) Value {
	n, _ := toCount(name, f)
	seen := 0
	return wrapStep(rf, func(th *Thread, acc, x Value) (Value, error) {
		seen++
		if seen <= n {
			return acc, nil
		}
		return passOn(th, rf, acc, x)
	})
}

func dedupeStep(_ string, _, rf Value) Value {
	var last Value
	return wrapStep(rf, func(th *Thread, acc, x Value) (Value, error) {
		k, err := realizedKey(th, x)
		if err != nil {
			return nil, err
		}
		if last != nil && Equal(last, k) {
			return acc, nil
		}
		last = k
		return passOn(th, rf, acc, x)
	})
}

func distinctStep(_ string, _, rf Value) Value {
	seen := newSetBuilder()
	return wrapStep(rf, func(th *Thread, acc, x Value) (Value, error) {
		k, err := realizedKey(th, x)
		if err != nil {
			return nil, err
		}
		added, err := seen.add(th, k)
		if err != nil || !added {
			return acc, err
		}
		return passOn(th, rf, acc, x)
	})
}

// transduceInto runs coll through xform into a Go slice. The items are
// kept in chunks of at most collectChunk as they come, each charged an
// element, and copied once into a slice of their number, which the
// caller charges as the vector it becomes: one slice appended to would
// allocate about five times its final size in the arrays it outgrows,
// which no charge counted (an eduction over an infinite sequence ended at
// its budget with +43 MiB of RSS against 42).
func transduceInto(th *Thread, fn string, xform, coll Value) ([]Value, error) {
	var chunks [][]Value
	var cur []Value
	n := 0
	collect := &stepFn{step: func(th *Thread, acc, x Value) (Value, error) {
		if err := th.alloc(heapSlot); err != nil {
			return nil, err
		}
		if len(cur) == cap(cur) {
			if cur != nil {
				chunks = append(chunks, cur)
			}
			// Doubling from a few: a first chunk of 16 kept 256 bytes
			// for (eduction f [a b]), charged 32.
			cur = make([]Value, 0, min(max(2*cap(cur), 4), collectChunk))
		}
		cur = append(cur, x)
		n++
		return acc, nil
	}}
	if _, err := transduceWith(th, fn, xform, collect, Nil, coll); err != nil {
		return nil, err
	}
	if chunks == nil {
		return cur, nil
	}
	out := make([]Value, 0, n)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return append(out, cur...), nil
}

// collectChunk is the most items one chunk of transduceInto holds.
const collectChunk = 4096

// transduceWith reduces coll with (xform rf) from init and completes.
func transduceWith(th *Thread, fn string, xform, rf, init, coll Value) (Value, error) {
	if _, ok := xform.(Callable); !ok {
		return nil, typeErrorf(fn, "a transducer such as (map f) or (comp (filter p) (map f))", xform)
	}
	xrf, err := th.call(xform, []Value{rf})
	if err != nil {
		return nil, err
	}
	var items []Value
	if s, ok := coll.(*infiniteSeq); ok {
		g, err := s.reader(th)
		if err != nil {
			return nil, err
		}
		acc := init
		for {
			x, err := g.next(th)
			if err == errSeqEnd {
				return th.call(xrf, []Value{acc})
			}
			if err != nil {
				return nil, err
			}
			if acc, err = th.call(xrf, []Value{acc, x}); err != nil {
				return nil, err
			}
			if v, stop := unreduced(acc); stop {
				return th.call(xrf, []Value{v})
			}
		}
	}
	if items, err = seqOf(th, fn, coll, anySeq); err != nil {
		return nil, err
	}
	acc := init
	for _, x := range items { // a step each, declared by the builtins (visits)
		if acc, err = th.call(xrf, []Value{acc, x}); err != nil {
			return nil, err
		}
		if v, stop := unreduced(acc); stop {
			acc = v
			break
		}
	}
	return th.call(xrf, []Value{acc})
}

func builtinTransduce(th *Thread, args []Value) (Value, error) {
	xform, f, coll := args[0], args[1], args[len(args)-1]
	var init Value
	if len(args) == 4 {
		init = args[2]
	} else {
		v, err := call(th, "transduce", f)
		if err != nil {
			return nil, err
		}
		init = v
	}
	rf := &stepFn{
		step:     func(th *Thread, acc, x Value) (Value, error) { return call(th, "transduce", f, acc, x) },
		complete: func(th *Thread, acc Value) (Value, error) { return completeWith(th, f, acc) },
	}
	return transduceWith(th, "transduce", xform, rf, init, coll)
}

// completeWith calls f's one-argument arity, as Clojure's transduce does
// at the end. A fn without one is Clojure's ArityException, with the hint
// to wrap it in completing; a builtin without one leaves acc as it is.
func completeWith(th *Thread, f, acc Value) (Value, error) {
	switch f := f.(type) {
	case *Builtin:
		if f.MinArgs <= 1 && (f.MaxArgs < 0 || f.MaxArgs >= 1) {
			return th.call(f, []Value{acc})
		}
		return acc, nil
	case *closure:
		if f.lam.pick(1) == nil {
			return nil, f.arityError(1).
				WithHint("transduce calls its reducing function with the result alone when it is done: give it a one-argument arity, or wrap it, (transduce xform (completing f) init coll)")
		}
	}
	return th.call(f, []Value{acc})
}

// builtinCompleting is (completing f) and (completing f cf): f as a
// reducing function whose one-argument arity, called when the reduction
// is done, is cf (identity by default).
func builtinCompleting(th *Thread, args []Value) (Value, error) {
	f := args[0]
	return madeFn(th, "completing", args, func(th *Thread, xs []Value) (Value, error) {
		switch len(xs) {
		case 0:
			return th.call(f, nil)
		case 1:
			if len(args) == 2 {
				return th.call(args[1], xs)
			}
			return xs[0], nil
		}
		return th.call(f, xs)
	})
}

// builtinEduction is (eduction xform ... coll): the items of coll passed
// through the transducers composed in order, as sequence gives them.
func builtinEduction(th *Thread, args []Value) (Value, error) {
	xforms, coll := args[:len(args)-1], args[len(args)-1]
	xform := xforms[0]
	if len(xforms) > 1 {
		var err error
		if xform, err = builtinComp(th, xforms); err != nil {
			return nil, err
		}
	}
	return builtinSequence(th, []Value{xform, coll})
}

// builtinCat is the cat transducer: each item's items passed on in turn.
func builtinCat(th *Thread, args []Value) (Value, error) {
	rf := args[0]
	return wrapStep(rf, func(th *Thread, acc, x Value) (Value, error) { return passEach(th, "cat", rf, acc, x) }), nil
}

func builtinSequence(th *Thread, args []Value) (Value, error) {
	if len(args) == 1 {
		return builtinSeqOrEmpty(th, args[0])
	}
	items, err := transduceInto(th, "sequence", args[0], args[1])
	if err != nil {
		return nil, err
	}
	return newVector(th, items)
}

func builtinSeqOrEmpty(th *Thread, coll Value) (Value, error) {
	elems, err := seqOf(th, "sequence", coll, anySeq)
	if err != nil {
		return nil, err
	}
	return newVector(th, append([]Value(nil), elems...))
}

// intoXform is (into to xform from).
func intoXform(th *Thread, args []Value) (Value, error) {
	items, err := transduceInto(th, "into", args[1], args[2])
	if err != nil {
		return nil, err
	}
	return builtinInto(th, []Value{args[0], NewVector(items)})
}

// indexedStep is map-indexed's and keep-indexed's: f takes the item's
// index, counted from 0 per application, and the item; keep-indexed drops
// a nil result.
func indexedStep(name string, f, rf Value) Value {
	keepOnly := name == "keep-indexed"
	i := -1
	return wrapStep(rf, func(th *Thread, acc, x Value) (Value, error) {
		i++
		v, err := call(th, name, f, Int(i), x)
		if err != nil || (keepOnly && v == Nil) {
			return acc, err
		}
		return passOn(th, rf, acc, v)
	})
}

func takeNthStep(name string, f, rf Value) Value {
	n, _ := toCount(name, f)
	i := -1
	return wrapStep(rf, func(th *Thread, acc, x Value) (Value, error) {
		if n == 0 {
			return nil, divideByZero("take-nth") // Clojure's (rem i 0)
		}
		i++
		if i%n != 0 {
			return acc, nil
		}
		return passOn(th, rf, acc, x)
	})
}

func interposeStep(_ string, sep, rf Value) Value {
	started := false
	return wrapStep(rf, func(th *Thread, acc, x Value) (Value, error) {
		if started {
			v, err := passOn(th, rf, acc, sep)
			if _, stop := v.(*reducedValue); err != nil || stop {
				return v, err
			}
			acc = v
		}
		started = true
		return passOn(th, rf, acc, x)
	})
}

// chunkStep is partition-all's and partition-by's: items gather in a chunk
// that is passed on whole when it is full (partition-all, f the count) or
// when (f item) changes (partition-by), and at completion when it holds
// any, as Clojure's transducers flush theirs (a count below 1 is never
// reached, so everything comes in one chunk at the end, as in Clojure).
func chunkStep(name string, f, rf Value) Value {
	byKey := name == "partition-by"
	n := 0
	if !byKey {
		n, _ = toCount(name, f)
	}
	var chunk []Value
	var last Value
	flush := func(th *Thread, acc Value) (Value, error) {
		v, err := newVector(th, chunk)
		chunk = nil
		if err != nil {
			return nil, err
		}
		return passOn(th, rf, acc, v)
	}
	// Clojure's partition-all makes its buffer of n places when applied:
	// a negative n fails there, before any item.
	badSize := func() error {
		if byKey || n >= 0 {
			return nil
		}
		return Errorf(executionError, "%s of a negative size %d", name, n).
			asJava("IllegalArgumentException", fmt.Sprintf("Illegal Capacity: %d", n))
	}
	return &stepFn{
		step: func(th *Thread, acc, x Value) (Value, error) {
			if err := badSize(); err != nil {
				return nil, err
			}
			if byKey {
				k, err := call(th, name, f, x)
				if err != nil {
					return nil, err
				}
				if err := chargeEqual(th, []Value{k}); err != nil {
					return nil, err
				}
				same := last == nil || Equal(k, last)
				last = k
				if !same {
					v, err := flush(th, acc)
					if _, stop := v.(*reducedValue); err != nil || stop {
						return v, err
					}
					acc = v
				}
			}
			chunk = append(chunk, x)
			if !byKey && len(chunk) == n {
				return flush(th, acc)
			}
			return acc, nil
		},
		complete: func(th *Thread, acc Value) (Value, error) {
			if err := badSize(); err != nil {
				return nil, err
			}
			if len(chunk) > 0 {
				v, err := flush(th, acc)
				if err != nil {
					return nil, err
				}
				acc, _ = unreduced(v)
			}
			return th.call(rf, []Value{acc})
		},
	}
}
