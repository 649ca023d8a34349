package lisp

import (
	"slices"
)

// Functional tools: apply (spec 8.11), juxt (spec 8.10) and the Clojure
// combinators LLMs write beyond the spec. A combinator returns a function
// that prints as the call that made it, (comp inc :n), and calls its
// functions back through the thread, so depth and step budgets apply.
var functionBuiltins = []*Builtin{
	{Name: "apply", Sig: "(apply f args... coll)", Doc: "call f with the items of coll as arguments: (apply max [1 2 3])", Category: "function",
		MinArgs: 2, MaxArgs: variadic, Fn: builtinApply, lazy: lazyApply,
		Cost: cost(visits(lastArg), chargedInBody("the argument list it spreads: an element per argument"), calls(arg(0)))},
	{Name: "juxt", Sig: "(juxt f1 f2 ...)", Doc: "function returning [(f1 x) (f2 x) ...]: (sort-by (juxt :a :b) xs)", Category: "function",
		MinArgs: 0, MaxArgs: variadic, Fn: builtinJuxt,
		Cost: cost(builds)},
	{Name: "comp", Sig: "(comp f g ...)", Doc: "function composition, right to left: ((comp inc :n) m) is (inc (:n m))", Category: "function",
		MinArgs: 0, MaxArgs: variadic, Fn: builtinComp,
		Cost: cost(builds)},
	{Name: "partial", Sig: "(partial f args...)", Doc: "f with its first arguments fixed: ((partial + 10) 5) is 15", Category: "function",
		MinArgs: 1, MaxArgs: variadic, Fn: builtinPartial,
		Cost: cost(builds, chargedInBody("on each call of the function it makes, a step per 8 arguments it fixed, which that call copies"))},
	{Name: "complement", Sig: "(complement f)", Doc: "function returning (not (f args...))", Category: "function",
		MinArgs: 1, MaxArgs: 1, Fn: builtinComplement,
		Cost: cost(builds)},
	{Name: "constantly", Sig: "(constantly x)", Doc: "function that ignores its arguments and returns x", Category: "function",
		MinArgs: 1, MaxArgs: 1, Fn: builtinConstantly,
		Cost: cost(builds)},
	{Name: "every-pred", Sig: "(every-pred p1 p2 ...)", Doc: "predicate: every p is truthy for every argument", Category: "function",
		MinArgs: 1, MaxArgs: variadic, Fn: builtinEveryPred,
		Cost: cost(builds)},
	{Name: "some-fn", Sig: "(some-fn f1 f2 ...)", Doc: "function returning the first truthy (f x) over fs and arguments, else the last falsy one", Category: "function",
		MinArgs: 1, MaxArgs: variadic, Fn: builtinSomeFn,
		Cost: cost(builds)},
	{Name: "fnil", Sig: "(fnil f default ...)", Doc: "f with nil arguments replaced by defaults: (update m :n (fnil inc 0))", Category: "function",
		MinArgs: 2, MaxArgs: 4, Fn: builtinFnil,
		Cost: cost(builds)},
}

// combined is a function built by a combinator. It remembers the call that
// made it, (comp inc :n), and prints and serializes as that call, so that a
// definition such as (def f (partial + 10)) keeps working when memory
// travels to the next turn.
type combined struct {
	name   string  // the combinator
	args   []Value // its arguments
	fn     func(th *Thread, args []Value) (Value, error)
	weight int64 // of the arguments it prints with; see valueWeight
}

// TypeName implements Value.
func (*combined) TypeName() string { return "function" }

// Call implements Callable.
func (c *combined) Call(th *Thread, args []Value) (Value, error) { return c.fn(th, args) }

// ParamNames implements Function: a combined function takes any arguments.
func (*combined) ParamNames() []string { return []string{"&", "args"} }

// writeText writes the combinator call that rebuilds the function.
func (c *combined) writeText(p *printer, i int) { writeCall(p, c.name, i, len(c.args)) }

// writeCall writes the text of a call (name arg ...) around its argument i
// of n (see holder.writeText).
func writeCall(p *printer, name string, i, n int) {
	if i == 0 {
		p.out.writeByte('(')
		p.out.writeString(name)
	}
	if i < n {
		p.out.writeByte(' ')
	} else {
		p.out.writeByte(')')
	}
}

// heldValues are the arguments the function was built from.
func (c *combined) heldValues() []Value { return c.args }

// valueWeight is the weight of the arguments it prints with.
func (c *combined) valueWeight() int64 { return max(c.weight, 1) }

// callWeight is the weight of a function that prints as the call
// (name arg ...) of args: its own text and theirs.
func callWeight(name string, args []Value) int64 {
	w := int64(2 + len(name) + len(args))
	for _, v := range args {
		w = addWeight(w, weightOf(v))
	}
	return w
}

// madeFn returns a function built by the combinator name from args; the
// combinators' builds terms charge it like a closure.
func madeFn(th *Thread, name string, args []Value, f func(th *Thread, args []Value) (Value, error)) (Value, error) {
	return &combined{name: name, args: slices.Clone(args), fn: f, weight: callWeight(name, args)}, nil
}

func builtinApply(th *Thread, args []Value) (Value, error) {
	f, last := args[0], args[len(args)-1]
	if _, sym := f.(symbol); !sym && f != Nil && !isCallable(f) {
		// Clojure casts f to IFn before it reads the arguments: its
		// ClassCastException comes first (nil passes the cast)
		return call(th, "apply", f)
	}
	var spread []Value
	var err error
	switch last.(type) {
	case *Vector, *Set, *Map, String, NilType:
		// nil is the empty sequence, as in Clojure: (apply + nil) is (+).
		if spread, err = seqOf(th, "apply", last, anySeq); err != nil {
			return nil, err
		}
	default:
		return nil, Errorf(typeError, "apply expected a collection as its last argument, got %s", describe(last)).
			WithHint("call it as (apply f [x y z]) or (apply f a b [c d])").walkFails(last)
	}
	callArgs, err := makeSlice(th, len(args)-2+len(spread))
	if err != nil {
		return nil, err
	}
	callArgs = append(append(callArgs, args[1:len(args)-1]...), spread...)
	return call(th, "apply", f, callArgs...)
}

// lazyApply is apply whose last argument is a lazy or infinite sequence
// s. Clojure passes s to f unread: a function of a rest parameter reads
// what it needs of it (closure.applyLazy), and concat makes the lazy
// concatenation of the parts, printed as the call that makes it. Any
// other function reads s whole, as builtinApply does: one that never
// ends is refused, where Clojure never returns.
func lazyApply(th *Thread, args []Value, _ *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error) {
	s, ok := args[len(args)-1].(*infiniteSeq)
	if !ok {
		// The lazy sequence is a fixed argument: read as before apply.
		whole, err := realizedArgsBut(th, args, nil)
		if err != nil {
			return nil, err
		}
		return plain(th, whole)
	}
	f, fixed, outer, err := unwrapCombinators(th, args[0], args[1:len(args)-1])
	if err != nil {
		return nil, err
	}
	var v Value
	switch g := f.(type) {
	case *closure:
		if ar := g.lam.variadic(); ar != nil {
			v, err = g.applyLazy(th, ar, fixed, s)
		}
	case *Builtin:
		if g.Name == "concat" {
			v, err = transducedSeq(th, s, "apply", []Value{g, s}, catStep("concat"))
			if err == nil && len(fixed) > 0 {
				v, err = catSeq(th, append(slices.Clone(fixed), v))
			}
		}
	}
	switch {
	case err != nil:
		return nil, err
	case v == nil && !s.ends():
		return nil, infiniteError("apply", s)
	case v == nil:
		whole, err := realizedArgsBut(th, args, nil)
		if err != nil {
			return nil, err
		}
		return plain(th, whole)
	}
	for i := len(outer) - 1; i >= 0 && err == nil; i-- {
		v, err = call(th, "apply", outer[i], v)
	}
	return v, err
}

// unwrapCombinators is the function apply reaches through what partial
// and comp made, and the arguments it takes before the sequence: (apply
// (partial g a) s) is (apply g a s), and (apply (comp h g) s) is (h
// (apply g s)), h in outer, which applies last first. Each combinator
// unwrapped is a step, and the arguments it adds their elements.
func unwrapCombinators(th *Thread, f Value, fixed []Value) (Value, []Value, []Value, error) {
	var outer []Value
	for {
		c, ok := f.(*combined)
		if !ok || len(c.args) == 0 || c.name != "partial" && c.name != "comp" {
			return f, fixed, outer, nil
		}
		if err := th.step(1); err != nil {
			return nil, nil, nil, err
		}
		last := len(c.args) - 1
		if c.name == "comp" {
			if err := th.allocVector(last); err != nil {
				return nil, nil, nil, err
			}
			outer = append(outer, c.args[:last]...)
			f = c.args[last]
			continue
		}
		if err := th.allocVector(last + len(fixed)); err != nil {
			return nil, nil, nil, err
		}
		f, fixed = c.args[0], slices.Concat(c.args[1:], fixed)
	}
}

func builtinJuxt(th *Thread, args []Value) (Value, error) {
	fs := slices.Clone(args)
	return madeFn(th, "juxt", args, func(th *Thread, xs []Value) (Value, error) {
		out, err := makeSlice(th, len(fs))
		if err != nil {
			return nil, err
		}
		for _, f := range fs {
			v, err := th.call(f, xs)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return NewVector(out), nil
	})
}

func builtinComp(th *Thread, args []Value) (Value, error) {
	if len(args) == 1 {
		return args[0], nil // Clojure's (comp f) is f itself
	}
	fs := slices.Clone(args)
	return madeFn(th, "comp", args, func(th *Thread, xs []Value) (Value, error) {
		if len(fs) == 0 {
			if len(xs) != 1 {
				return nil, Errorf(arityErrorKind, "(comp) is identity and takes 1 argument, got %d", len(xs)).
					asJava("ArityException", wrongArgs(len(xs), "clojure.core/identity"))
			}
			return xs[0], nil
		}
		v, err := th.call(fs[len(fs)-1], xs)
		if err != nil {
			return nil, err
		}
		for i := len(fs) - 2; i >= 0; i-- {
			if v, err = th.call(fs[i], []Value{v}); err != nil {
				return nil, err
			}
		}
		return v, nil
	})
}

// partialCopyBatch is how many fixed arguments a partial's call copies
// for a step.
const partialCopyBatch = 8

func builtinPartial(th *Thread, args []Value) (Value, error) {
	if len(args) == 1 {
		return args[0], nil // Clojure's (partial f) is f itself
	}
	f, fixed := args[0], slices.Clone(args[1:])
	return madeFn(th, "partial", args, func(th *Thread, xs []Value) (Value, error) {
		// Each call copies the fixed arguments ahead of its own, work a
		// callee that ignores them ((constantly x), a builtin that reads
		// one) would not charge: 40,000 fixed arguments cost 0.4 ms a call.
		if err := th.step(int64(len(fixed)) / partialCopyBatch); err != nil {
			return nil, err
		}
		return th.call(f, slices.Concat(fixed, xs))
	})
}

func builtinComplement(th *Thread, args []Value) (Value, error) {
	f := args[0]
	return madeFn(th, "complement", args, func(th *Thread, xs []Value) (Value, error) {
		v, err := th.call(f, xs)
		if err != nil {
			return nil, err
		}
		return boolValue(!truthy(v)), nil
	})
}

func builtinConstantly(th *Thread, args []Value) (Value, error) {
	x := args[0]
	return madeFn(th, "constantly", args, func(*Thread, []Value) (Value, error) { return x, nil })
}

func builtinEveryPred(th *Thread, args []Value) (Value, error) {
	ps := slices.Clone(args)
	return madeFn(th, "every-pred", args, func(th *Thread, xs []Value) (Value, error) {
		for _, p := range ps {
			for _, x := range xs {
				v, err := th.call(p, []Value{x})
				if err != nil {
					return nil, err
				}
				if !truthy(v) {
					return falseValue, nil
				}
			}
		}
		return trueValue, nil
	})
}

func builtinSomeFn(th *Thread, args []Value) (Value, error) {
	fs := slices.Clone(args)
	return madeFn(th, "some-fn", args, func(th *Thread, xs []Value) (Value, error) {
		var last Value = Nil
		for _, f := range fs {
			for _, x := range xs {
				v, err := th.call(f, []Value{x})
				if err != nil {
					return nil, err
				}
				if truthy(v) {
					return v, nil
				}
				last = v
			}
		}
		return last, nil
	})
}

func builtinFnil(th *Thread, args []Value) (Value, error) {
	f, defaults := args[0], slices.Clone(args[1:])
	return madeFn(th, "fnil", args, func(th *Thread, xs []Value) (Value, error) {
		if len(xs) < min(len(defaults), 2) {
			// Clojure's fnil of one default takes one argument or more, of
			// two or three defaults two or more
			return nil, arityError("the function fnil returned", "(f x ...), with two arguments or more when fnil had two defaults or three", len(xs)).
				asJava("ArityException", wrongArgs(len(xs), "clojure.core/fnil/fn"))
		}
		patched := slices.Clone(xs)
		for i, d := range defaults {
			if i < len(patched) {
				if _, isNil := patched[i].(NilType); isNil {
					patched[i] = d
				}
			}
		}
		return th.call(f, patched)
	})
}
