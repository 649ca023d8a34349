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
// It is immutable like every value: each consumer starts its own
// generator, so (let [s (range)] [(take 2 s) (take 3 s)]) reads s twice.
//
// It prints, and travels on the wire, as the call that made it, e.g.
// (iterate inc 0) or (take-while pos? (range)) — source that evaluates
// back to the same sequence.
type infiniteSeq struct {
	what   string              // how the program made it, for messages
	name   string              // the function that made it
	args   []Value             // and its arguments
	weight int64               // of the arguments; see valueWeight
	start  func() seqGenerator // a fresh generator at the first element
}

func (s *infiniteSeq) heldValues() []Value { return s.args }

// writeText writes the call that makes the sequence.
func (s *infiniteSeq) writeText(p *printer, i int) { writeCall(p, s.name, i, len(s.args)) }

func (s *infiniteSeq) valueWeight() int64 { return max(s.weight, 1) }

// made records the call that made s.
func (s *infiniteSeq) made(name string, args ...Value) *infiniteSeq {
	s.name, s.args, s.weight = name, args, callWeight(name, args)
	return s
}

// seqGenerator yields the next element on each call.
type seqGenerator func(th *Thread) (Value, error)

func (*infiniteSeq) TypeName() string { return "infinite sequence" }

// next charges one produced element and returns it.
func (g seqGenerator) next(th *Thread) (Value, error) {
	if err := th.step(1); err != nil {
		return nil, err
	}
	if err := th.alloc(costElem); err != nil {
		return nil, err
	}
	return g(th)
}

// infiniteError is the refusal of an unbounded sequence where it would
// have to be realized whole.
func infiniteError(fn string, s *infiniteSeq) *Error {
	return Errorf(typeError, "%s cannot consume %s: it never ends", fn, s.what).
		WithHint("bound it first: (take n %s) or (take-while pred %s)", s.what, s.what)
}

// realize returns the first n elements of s.
func (s *infiniteSeq) realize(th *Thread, n int) ([]Value, error) {
	out, err := makeSlice(th, n)
	if err != nil {
		return nil, err
	}
	g := s.start()
	for range n {
		v, err := g.next(th)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func iterateSeq(th *Thread, f, seed Value) *infiniteSeq {
	return (&infiniteSeq{what: "(iterate ...)", start: func() seqGenerator {
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
	}}).made("iterate", f, seed)
}

func cycleSeq(elems []Value) *infiniteSeq {
	return (&infiniteSeq{what: "(cycle ...)", start: func() seqGenerator {
		i := 0
		return func(*Thread) (Value, error) {
			v := elems[i%len(elems)]
			i++
			return v, nil
		}
	}}).made("cycle", NewVector(elems))
}

func rangeSeq(from, step Int) *infiniteSeq {
	return (&infiniteSeq{what: "(range)", start: func() seqGenerator {
		cur := from
		return func(*Thread) (Value, error) {
			v := cur
			next := cur + step
			if (step > 0 && next < cur) || (step < 0 && next > cur) {
				return nil, Errorf(arithmeticError, "(range) passed the largest integer")
			}
			cur = next
			return v, nil
		}
	}}).made("range")
}

func repeatSeq(x Value) *infiniteSeq {
	return (&infiniteSeq{what: "(repeat x)", start: func() seqGenerator {
		return func(*Thread) (Value, error) { return x, nil }
	}}).made("repeat", x)
}

// derived is (what arg s): s with each generator passed through wrap.
func derived(s *infiniteSeq, what string, arg Value, wrap func(g seqGenerator) seqGenerator) *infiniteSeq {
	d := &infiniteSeq{what: fmt.Sprintf("(%s ... %s)", what, s.what), start: func() seqGenerator { return wrap(s.start()) }}
	return d.made(what, arg, s)
}
