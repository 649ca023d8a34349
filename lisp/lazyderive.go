package lisp

import "slices"

// The lazy forms (Builtin.lazy) of the builtins that are lazy in Clojure
// beyond the ones of builtins_lazy.go. Most are one mechanism: a builtin
// whose row declares lazyXform takes a lazy or infinite sequence in its
// collection position through its own transducer (transducedSeq), so
// (take 3 (distinct (cycle xs))) reads only what take asks for. The rest
// derive a sequence with a generator of their own (derivedFrom), or bound
// what they read (every?, reduce with reduced).
//
// Every derivation starts fresh state for each reader (inside the reader
// function, never outside it), so a sequence kept in memory or previous
// results reads the same for every caller, and each reader pays for the
// elements it realizes.

// derivedFrom is the sequence (name args...) derived from s, printed as
// that call. Each reader of it gets reader(src), src a fresh generator of
// s; whatever the generator reader returns changes is declared inside
// reader.
func derivedFrom(th *Thread, s *infiniteSeq, name string, args []Value, reader func(src seqGenerator) seqGenerator) (Value, error) {
	d := newSeq(s, seqOrigin{ends: s.ends(), memo: s.ends()})
	d.origin.start = func() seqGenerator {
		return reader(s.sourceReader())
	}
	return madeSeq(th, d.made(name, args...))
}

// heldInBuffer is the charge of an element a reader holds in a slice that
// append grows: its slot, and as much again for the slack and the copies
// that growing by doubling leaves (a reader that holds without bound
// allocated about 2.5 times what one element each charged).
const heldInBuffer = 2 * heapSlot

// reducingStep makes a transducer's reducing function of rf.
type reducingStep func(th *Thread, rf Value) (Value, error)

// transducedSeq is (name args...): s passed through the reducing function
// step makes, as Clojure's (sequence xform s).
func transducedSeq(th *Thread, s *infiniteSeq, name string, args []Value, step reducingStep) (Value, error) {
	return derivedFrom(th, s, name, args, func(src seqGenerator) seqGenerator { return transducing(src, step) })
}

// transducing reads src through a fresh reducing function of step (fresh
// transducer state), fed one element at a time until it passes something
// on, and completed when src ends or the step stops with reduced
// (partition-all's last chunk comes then).
func transducing(src seqGenerator, step reducingStep) seqGenerator {
	// What the step passed on and no one has read yet: out[head:]. Its
	// array is reused once read, and each item held is charged an element.
	var out []Value
	head := 0
	var xrf Value
	done := false
	collect := &stepFn{step: func(th *Thread, acc, x Value) (Value, error) {
		if err := th.alloc(heapSlot); err != nil {
			return nil, err
		}
		out = append(out, x)
		return acc, nil
	}}
	complete := func(th *Thread) error {
		done = true
		_, err := th.call(xrf, []Value{Nil})
		return err
	}
	// The arguments of each step, reused: a reducing function built in Go
	// or a closure keeps no part of its argument slice (callClosure), and
	// one slice made per element would allocate several times what the
	// element is charged.
	var argv [2]Value
	stepArgs := func(x Value) []Value {
		switch xrf.(type) {
		case *stepFn, *closure:
			argv[0], argv[1] = Nil, x
			return argv[:]
		}
		return []Value{Nil, x}
	}
	return func(th *Thread) (Value, error) {
		if xrf == nil {
			f, err := step(th, collect)
			if err != nil {
				return nil, err
			}
			xrf = f
		}
		if head == len(out) {
			out, head = out[:0], 0
		}
		for len(out) == 0 {
			if done {
				return nil, errSeqEnd
			}
			x, err := src.pull(th)
			if err == errSeqEnd {
				if err := complete(th); err != nil {
					return nil, err
				}
				continue
			}
			if err != nil {
				return nil, err
			}
			// A step may hold what it reads (partition-all's chunk,
			// distinct's set): each element read is charged as one held
			// in a buffer that append grows (heldInBuffer).
			if err := th.alloc(heldInBuffer); err != nil {
				return nil, err
			}
			acc, err := th.call(xrf, stepArgs(x))
			if err != nil {
				return nil, err
			}
			if _, stop := acc.(*reducedValue); stop {
				if err := complete(th); err != nil {
					return nil, err
				}
			}
			if len(out) == 0 {
				if err := th.step(1); err != nil { // an element read that passed nothing on
					return nil, err
				}
			}
		}
		v := out[head]
		out[head] = nil
		head++
		return v, nil
	}
}

// lazyThroughXform runs a builtin that declares lazyXform on a lazy or
// infinite sequence in its collection position (the last argument, in a
// call with the transducer's arguments and that collection) through its
// transducer. ok is false for any other call.
func (b *Builtin) lazyThroughXform(th *Thread, args []Value) (v Value, ok bool, err error) {
	if len(args) != b.xform.args+1 {
		return nil, false, nil
	}
	s, isSeq := args[len(args)-1].(*infiniteSeq)
	if !isSeq {
		return nil, false, nil
	}
	var f Value = Nil
	if b.xform.args == 1 {
		f = args[0]
	}
	name, step := b.Name, b.xform.step
	v, err = transducedSeq(th, s, name, args, func(_ *Thread, rf Value) (Value, error) { return step(name, f, rf), nil })
	return v, true, err
}

// lazyMapcat is mapcat over sequences of which one is lazy or infinite:
// the concatenation of map's lazy result, as Clojure's (apply concat (map
// f colls)).
func lazyMapcat(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	mapped, err := lazyMap(th, args, s, mapping("map"))
	if err != nil {
		return nil, err
	}
	m, ok := mapped.(*infiniteSeq)
	if !ok { // bounded by a finite collection
		colls, err := seqOf(th, "mapcat", mapped, anySeq)
		if err != nil {
			return nil, err
		}
		return concatValues(th, "mapcat", colls)
	}
	return transducedSeq(th, m, "mapcat", args, catStep("mapcat"))
}

// catStep passes on each item of each item, as Clojure's cat.
func catStep(name string) reducingStep {
	return func(_ *Thread, rf Value) (Value, error) {
		return wrapStep(rf, func(th *Thread, acc, x Value) (Value, error) { return passEach(th, name, rf, acc, x) }), nil
	}
}

// lazyInterleave is interleave where every argument is a sequence that
// may not end: the first items of each, then the second ..., as
// (mapcat vector cs...); with a finite collection among them it is that
// many rounds (boundedByFinite).
func lazyInterleave(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	srcs := make([]*infiniteSeq, 0, len(args))
	for _, a := range args {
		inf, ok := a.(*infiniteSeq)
		if !ok {
			return boundedByFinite(th, args, s, plain)
		}
		srcs = append(srcs, inf)
	}
	rounds, err := mapSeqs(th, vectorOfArgs, srcs)
	if err != nil {
		return nil, err
	}
	return transducedSeq(th, rounds.(*infiniteSeq), "interleave", args, catStep("interleave"))
}

// vectorOfArgs is the function (vector a b ...) for interleave's rounds.
var vectorOfArgs = &Builtin{Name: "vector", MinArgs: 0, MaxArgs: variadic,
	Fn: func(th *Thread, args []Value) (Value, error) { return newVector(th, append([]Value(nil), args...)) }}

// quantifierOf is every?, not-any? and not-every? on a lazy or infinite
// sequence: the first item whose (pred item) is stopAt decides (answer),
// as Clojure's stop there; a sequence that ends without one gives
// !answer, and one that never does runs into the budgets, as Clojure's
// never returns.
func quantifierOf(name string, stopAt, answer bool) lazyForm {
	return func(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
		if args[1] != s {
			return plain(th, args)
		}
		found := false
		err := eachOfInfinite(th, s, func(v Value) (bool, error) {
			ok, err := truthyCall(th, name, args[0], v)
			found = err == nil && ok == stopAt
			return found, err
		})
		if err != nil {
			return nil, err
		}
		return boolValue(found == answer), nil
	}
}

// lazyReduce is reduce over a lazy or infinite sequence, read an item at
// a time: (reduced x) stops it, as Clojure's; without one, a sequence
// that never ends runs into the budgets.
func lazyReduce(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	f := args[0]
	if args[len(args)-1] != s {
		return plain(th, args) // a lazy init is passed on as it is
	}
	var acc Value
	started := len(args) == 3
	if started {
		acc = args[1]
	}
	err := eachOfInfinite(th, s, func(v Value) (bool, error) {
		if !started {
			acc, started = v, true
			return false, nil
		}
		r, err := call(th, "reduce", f, acc, v)
		if err != nil {
			return true, err
		}
		if x, stop := unreduced(r); stop {
			acc = x
			return true, nil
		}
		acc = r
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	if !started {
		return call(th, "reduce", f)
	}
	return acc, nil
}

// lazyReductions is reductions over a lazy or infinite sequence: each
// value reduce passes through, made when it is read.
func lazyReductions(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	f := args[0]
	if args[len(args)-1] != s {
		return plain(th, args)
	}
	hasInit := len(args) == 3
	return derivedFrom(th, s, "reductions", args, func(g seqGenerator) seqGenerator {
		var acc Value
		started, done := false, false
		return func(th *Thread) (Value, error) {
			if done {
				return nil, errSeqEnd
			}
			if !started {
				started = true
				if hasInit {
					acc = args[1]
				} else {
					v, err := g.pull(th)
					if err == errSeqEnd {
						done = true
						return call(th, "reductions", f)
					}
					if err != nil {
						return nil, err
					}
					acc = v
				}
				if x, stop := unreduced(acc); stop {
					done = true
					return x, nil
				}
				return acc, nil
			}
			v, err := g.pull(th)
			if err != nil {
				return nil, err
			}
			r, err := call(th, "reductions", f, acc, v)
			if err != nil {
				return nil, err
			}
			if x, stop := unreduced(r); stop {
				done = true
				return x, nil
			}
			acc = r
			return r, nil
		}
	})
}

// lazyPartition is partition and partition-all over a lazy or infinite
// sequence: chunks of n items every step items, made as they are read,
// the last one padded (partition with pad) or short (partition-all) when
// the sequence ends. A size or step below 1, which Clojure never gets
// past on an endless sequence, is the builtin's Fn (which refuses one).
func lazyPartition(all bool) lazyForm {
	name := "partition"
	if all {
		name = "partition-all"
	}
	return func(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
		if args[len(args)-1] != s {
			return plain(th, args)
		}
		n, err := toCount(name, args[0])
		if err != nil {
			return nil, err
		}
		step := n
		if len(args) >= 3 {
			if step, err = toCount(name, args[1]); err != nil {
				return nil, err
			}
		}
		var pad []Value
		padded := len(args) == 4
		if padded {
			if pad, err = seqOf(th, name, args[2], anySeq); err != nil {
				return nil, err
			}
		}
		if n < 1 || step < 1 {
			return plain(th, args)
		}
		return derivedFrom(th, s, name, args, func(g seqGenerator) seqGenerator {
			var buf []Value
			skip, ended := 0, false
			return func(th *Thread) (Value, error) {
				for !ended && (skip > 0 || len(buf) < n) {
					v, err := g.pull(th)
					if err == errSeqEnd {
						ended = true
						break
					}
					if err != nil {
						return nil, err
					}
					if skip > 0 {
						skip--
						continue
					}
					if err := th.alloc(heldInBuffer); err != nil {
						return nil, err
					}
					buf = append(buf, v)
				}
				if len(buf) == 0 || (len(buf) < n && !all && !padded) {
					return nil, errSeqEnd
				}
				chunk := append([]Value(nil), buf[:min(n, len(buf))]...)
				if len(chunk) < n && padded {
					chunk = append(chunk, pad[:min(n-len(chunk), len(pad))]...)
				}
				if len(buf) < n {
					buf = nil // the last chunk
				} else if step < len(buf) {
					buf = buf[step:]
				} else {
					skip, buf = step-len(buf), nil
				}
				if ended && len(buf) == 0 {
					buf = nil
				}
				return newVector(th, chunk)
			}
		})
	}
}

// lazyDropLast is drop-last over a lazy or infinite sequence: each item
// once n more have been read after it.
func lazyDropLast(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	if args[len(args)-1] != s {
		return plain(th, args)
	}
	n := 1
	if len(args) == 2 {
		var err error
		if n, err = toCount("drop-last", args[0]); err != nil {
			return nil, err
		}
	}
	return derivedFrom(th, s, "drop-last", args, func(g seqGenerator) seqGenerator {
		var buf []Value
		return func(th *Thread) (Value, error) {
			for len(buf) <= n {
				v, err := g.pull(th)
				if err != nil {
					return nil, err
				}
				if err := th.alloc(heldInBuffer); err != nil {
					return nil, err
				}
				buf = append(buf, v)
			}
			v := buf[0]
			buf = buf[1:]
			return v, nil
		}
	})
}

// lazySplit is split-at and split-with: [(take ...) (drop ...)] of a lazy
// or infinite sequence, the second part lazy.
func lazySplit(take, drop lazyForm) lazyForm {
	return func(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
		if args[1] != s {
			return plain(th, args)
		}
		head, err := take(th, args, s, plain)
		if err != nil {
			return nil, err
		}
		tail, err := drop(th, args, s, plain)
		if err != nil {
			return nil, err
		}
		return newVector(th, []Value{head, tail})
	}
}

// lazyNthrest is nthrest and nthnext: (drop n s), the sequence itself
// for n below 1; nthnext gives nil for an empty rest.
func lazyNthrest(next bool) lazyForm {
	return func(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
		if args[0] != s {
			return plain(th, args)
		}
		n, err := toCount("nthrest", args[1])
		if err != nil {
			return nil, err
		}
		var r Value = s
		if n > 0 {
			if r, err = lazyDrop(th, []Value{args[1], s}, s, nil); err != nil {
				return nil, err
			}
		}
		if next {
			return nilWhenEmpty(th, r)
		}
		return r, nil
	}
}

// lazyConj is conj onto a lazy or infinite sequence: each x at its front,
// as Clojure's conj onto a seq.
func lazyConj(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	if args[0] != s {
		return plain(th, args)
	}
	out := s
	for _, x := range args[1:] {
		v, err := consSeq(th, x, out)
		if err != nil {
			return nil, err
		}
		out = v.(*infiniteSeq)
	}
	return out, nil
}

// lazyListStar is (list* x ... s): the xs in front of s.
func lazyListStar(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	if args[len(args)-1] != s {
		return plain(th, args)
	}
	out := s
	for i := len(args) - 2; i >= 0; i-- {
		v, err := consSeq(th, args[i], out)
		if err != nil {
			return nil, err
		}
		out = v.(*infiniteSeq)
	}
	return out, nil
}

// lazyCycle is cycle of a sequence that never ends: the sequence itself.
// One that may end is read whole and cycled.
func lazyCycle(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	if !s.ends() {
		return s, nil
	}
	return readWhole(th, args, plain)
}

func readWhole(th *Thread, args []Value, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	whole, err := realizedArgs(th, args)
	if err != nil {
		return nil, err
	}
	return plain(th, whole)
}

// lazySequence is (sequence s), s itself, and (sequence xform s), s
// through the transducer.
func lazySequence(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	if args[len(args)-1] != s {
		return plain(th, args)
	}
	if len(args) == 1 {
		return s, nil
	}
	return lazyEduction(th, args, s, plain)
}

// lazyEduction is (eduction xf ... s): s through the transducers, the
// first outermost, as (comp xf ...).
func lazyEduction(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	if args[len(args)-1] != s {
		return plain(th, args)
	}
	xforms := args[:len(args)-1]
	v, err := transducedSeq(th, s, "eduction", args, func(th *Thread, rf Value) (Value, error) {
		for i := len(xforms) - 1; i >= 0; i-- {
			next, err := call(th, "eduction", xforms[i], rf)
			if err != nil {
				return nil, err
			}
			rf = next
		}
		return rf, nil
	})
	if err != nil || s.ends() {
		return v, err
	}
	stops, err := stopsEarly(th, xforms)
	if stops {
		// It may end though s does not, as a map over sequences of which
		// one may end (mapSeqs): read whole, it ends or meets a budget.
		d := v.(*infiniteSeq)
		d.origin.ends, d.origin.memo = true, true
	}
	return v, err
}

// stopsEarly reports whether a reduction through xforms may stop before
// its source ends: one of them is take or take-while, a comp holding
// one, or a function of the program's own, which may return reduced.
// Each transducer looked at is a step.
func stopsEarly(th *Thread, xforms []Value) (bool, error) {
	pending := slices.Clone(xforms)
	for len(pending) > 0 {
		if err := th.step(1); err != nil {
			return false, err
		}
		x := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		switch x := x.(type) {
		case *closure:
			return true, nil
		case *combined:
			switch x.name {
			case "take", "take-while":
				return true, nil
			case "comp":
				pending = append(pending, x.args...)
			}
		}
	}
	return false, nil
}

// lazyReplace is (clojure.core/replace smap s): each item that is a key of
// smap replaced by its value.
func lazyReplace(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	if len(args) != 2 || args[1] != s {
		return plain(th, args)
	}
	smap := args[0]
	return derivedFrom(th, s, "clojure.core/replace", args, func(g seqGenerator) seqGenerator {
		return func(th *Thread) (Value, error) {
			v, err := g.pull(th)
			if err != nil {
				return nil, err
			}
			r, err := builtinCoreReplace(th, []Value{smap, NewVector([]Value{v})})
			if err != nil {
				return nil, err
			}
			return positional("replace", 0)(th, []Value{r})
		}
	})
}

// lazyFlatten is flatten of a lazy or infinite sequence: the leaves of
// each item, read an item at a time.
func lazyFlatten(th *Thread, args []Value, s *infiniteSeq, _ func(*Thread, []Value) (Value, error)) (Value, error) {
	return transducedSeq(th, s, "flatten", args, func(_ *Thread, rf Value) (Value, error) {
		return wrapStep(rf, func(th *Thread, acc, x Value) (Value, error) {
			leaves, err := builtinFlatten(th, []Value{NewVector([]Value{x})})
			if err != nil {
				return nil, err
			}
			return passEach(th, "flatten", rf, acc, leaves)
		}), nil
	})
}

// realizesWhole is the lazy form of a builtin that reads its sequence to
// the end (doall, dorun): a sequence that may end is read whole, one that
// never ends refused, as Clojure's never returns.
func realizesWhole(name string) lazyForm {
	return func(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
		if !s.ends() {
			return nil, infiniteError(name, s)
		}
		return readWhole(th, args, plain)
	}
}
