package lisp

// Volatiles: a volatile is an atom cell without validators or watches,
// and, as in Clojure, the two are not interchangeable: vswap! and vreset!
// take only a volatile, swap! and reset! only an atom (each the other's
// ClassCastException), and deref either. Like idiomBuiltins they cost no
// prompt tokens. Transients are transient.go's.
var aliasBuiltins = []*Builtin{
	{Name: "volatile!", Sig: "(volatile! x)", Doc: "a mutable cell holding x, for this evaluation only", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Cost: rowNamed(idiomBuiltins, "atom").Cost,
		Fn: func(th *Thread, args []Value) (Value, error) {
			if err := th.alloc(heapAtom); err != nil {
				return nil, err
			}
			return &atom{value: args[0], volatile: true}, nil
		}},
	{Name: "vswap!", Sig: "(vswap! v f args...)", Doc: "set volatile v to (f @v args...) and return it", Category: "idiom",
		MinArgs: 2, MaxArgs: variadic, Cost: rowNamed(idiomBuiltins, "swap!").Cost,
		Fn: func(th *Thread, args []Value) (Value, error) {
			v, err := volatileArg("vswap!", args[0])
			if err != nil {
				return nil, err
			}
			return v.swap(th, args[1], args[2:])
		}},
	{Name: "vreset!", Sig: "(vreset! v x)", Doc: "set volatile v to x and return x", Category: "idiom",
		MinArgs: 2, MaxArgs: 2, Cost: cost(constant),
		Fn: func(th *Thread, args []Value) (Value, error) {
			v, err := volatileArg("vreset!", args[0])
			if err != nil {
				return nil, err
			}
			return args[1], v.set(th, args[1])
		}},
	{Name: "volatile?", Sig: "(volatile? x)", Doc: "x was made by volatile!", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Fn: func(th *Thread, args []Value) (Value, error) {
			a, ok := args[0].(*atom)
			return boolValue(ok && a.volatile), nil
		},
		Cost: cost(constant)},
	{Name: "compare-and-set!", Sig: "(compare-and-set! a old new)", Doc: "set atom a to new when it holds old (the same collection, or an equal scalar), and say whether it did", Category: "idiom",
		MinArgs: 3, MaxArgs: 3, Cost: cost(compares(arg(1))),
		Fn: func(th *Thread, args []Value) (Value, error) {
			a, err := atomArg("compare-and-set!", args[0])
			if err != nil {
				return nil, err
			}
			if !sameForSwap(a.value, args[1]) {
				return falseValue, nil
			}
			return trueValue, a.set(th, args[2])
		}},
}

// volatileArg is v as a volatile, or Clojure's ClassCastException.
func volatileArg(fn string, v Value) (*atom, error) {
	a, ok := v.(*atom)
	if !ok || !a.volatile {
		return nil, castError(fn, "a volatile", v, "clojure.lang.Volatile").
			WithHint("make one with (volatile! initial-value); an atom takes swap! and reset!")
	}
	return a, nil
}

// aliasOf is a copy of row under another name, an idiom the prompt does
// not describe.
func aliasOf(name, sig, doc string, row *Builtin) *Builtin {
	b := *row
	b.Name, b.Sig, b.Doc, b.Category, b.lean, b.aliases = name, sig, doc, "idiom", false, nil
	return &b
}

// rowNamed is the row of section called name; the tables are literals,
// so a missing one is a programming error.
func rowNamed(section []*Builtin, name string) *Builtin {
	for _, b := range section {
		if b.Name == name {
			return b
		}
	}
	panic("lisp: no builtin " + name + " to alias")
}

// Bitwise operations on 64-bit integers, and comparator and
// parse-boolean, as Clojure's.
var bitBuiltins = []*Builtin{
	bitFold("bit-and", func(a, b int64) int64 { return a & b }),
	bitFold("bit-or", func(a, b int64) int64 { return a | b }),
	bitFold("bit-xor", func(a, b int64) int64 { return a ^ b }),
	bitFold("bit-and-not", func(a, b int64) int64 { return a &^ b }),
	{Name: "bit-not", Sig: "(bit-not x)", Doc: "x with every bit flipped", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			x, err := bitArg("bit-not", args[0])
			return Int(^x), err
		}},
	bitAt("bit-shift-left", func(x int64, n uint) int64 { return x << n }),
	bitAt("bit-shift-right", func(x int64, n uint) int64 { return x >> n }),
	bitAt("unsigned-bit-shift-right", func(x int64, n uint) int64 { return int64(uint64(x) >> n) }),
	bitAt("bit-set", func(x int64, n uint) int64 { return x | 1<<n }),
	bitAt("bit-clear", func(x int64, n uint) int64 { return x &^ (1 << n) }),
	bitAt("bit-flip", func(x int64, n uint) int64 { return x ^ 1<<n }),
	{Name: "bit-test", Sig: "(bit-test x n)", Doc: "bit n of x is set", Category: "idiom",
		MinArgs: 2, MaxArgs: 2, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			x, n, err := bitAndIndex("bit-test", args)
			return boolValue(x&(1<<n) != 0), err
		}},
	{Name: "comparator", Sig: "(comparator pred)", Doc: "a comparator from a less-than predicate: -1, 1 or 0", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Cost: cost(builds), Fn: func(th *Thread, args []Value) (Value, error) {
			pred := args[0]
			return madeFn(th, "comparator", args, func(th *Thread, xs []Value) (Value, error) {
				if len(xs) != 2 {
					return nil, arityError("comparator", "(f a b)", len(xs))
				}
				for _, order := range [][2]int{{0, 1}, {1, 0}} {
					v, err := call(th, "comparator", pred, xs[order[0]], xs[order[1]])
					if err != nil {
						return nil, err
					}
					if truthy(v) {
						return Int(order[0] - order[1]), nil // (pred a b): -1; (pred b a): 1
					}
				}
				return Int(0), nil
			})
		}},
	{Name: "parse-boolean", Sig: "(parse-boolean s)", Doc: `true for "true", false for "false", else nil`, Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Cost: cost(scans(arg(0))), Fn: func(th *Thread, args []Value) (Value, error) {
			s, ok := args[0].(String)
			if !ok {
				// Clojure's parse-boolean checks its argument is a string
				return nil, typeErrorf("parse-boolean", "a string", args[0]).asJava("IllegalArgumentException", "")
			}
			switch s { // exactly, as Clojure: "TRUE" is nil
			case "true":
				return trueValue, nil
			case "false":
				return falseValue, nil
			}
			return Nil, nil
		}},
}

func bitArg(fn string, v Value) (int64, error) {
	switch x := v.(type) {
	case Int:
		return int64(x), nil
	case NilType:
		return 0, asNumberError(typeErrorf(fn, "a long", v), v)
	}
	// Clojure's bit operations take longs only: a big integer, a decimal,
	// a float or a string is refused by its class.
	e := Errorf(typeError, "%s expected a long, got %s", fn, describe(v)).
		asJava("IllegalArgumentException", "bit operation not supported for: class "+javaValueClass(v))
	if _, isStr := v.(String); isStr {
		return 0, e.WithHint("bit operations take longs: read the number first with (parse-long s)")
	}
	return 0, e.WithHint("bit operations take longs: convert with (long x) first")
}

// bitFold is a bitwise operation of two or more integers.
func bitFold(name string, op func(a, b int64) int64) *Builtin {
	return &Builtin{Name: name, Sig: "(" + name + " x y ...)", Doc: "bitwise, of integers", Category: "idiom",
		MinArgs: 2, MaxArgs: variadic, Cost: cost(perArg(allArgs)), Fn: func(th *Thread, args []Value) (Value, error) {
			acc, err := bitArg(name, args[0])
			if err != nil {
				return nil, err
			}
			for _, a := range args[1:] {
				x, err := bitArg(name, a)
				if err != nil {
					return nil, err
				}
				acc = op(acc, x)
			}
			return Int(acc), nil
		}}
}

// bitAndIndex reads (f x n): an integer and a bit index, which Java takes
// modulo 64.
func bitAndIndex(fn string, args []Value) (int64, uint, error) {
	x, err := bitArg(fn, args[0])
	if err != nil {
		return 0, 0, err
	}
	n, err := bitArg(fn, args[1])
	return x, uint(n & 63), err
}

// bitAt is an operation on integer x at bit n (or by n bits).
func bitAt(name string, op func(x int64, n uint) int64) *Builtin {
	return &Builtin{Name: name, Sig: "(" + name + " x n)", Doc: "bitwise, of an integer", Category: "idiom",
		MinArgs: 2, MaxArgs: 2, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			x, n, err := bitAndIndex(name, args)
			if err != nil {
				return nil, err
			}
			return Int(op(x, n)), nil
		}}
}

// sameForSwap is compare-and-set!'s test of the value an atom holds
// against old. Clojure tests identity: a collection is the same only as
// itself (what @a gave), never as an equal literal, except that every
// empty one of a kind is one object; a scalar is compared by =, which is
// what identity gives for the value read from @a (Clojure's own answer for
// a number literal past 127, a different object, is false).
func sameForSwap(held, old Value) bool {
	switch h := held.(type) {
	case *Vector:
		o, ok := old.(*Vector)
		return ok && (h == o || h.Len() == 0 && o.Len() == 0 && h.IsList() == o.IsList())
	case *Map:
		o, ok := old.(*Map)
		return ok && (h == o || h.Len() == 0 && o.Len() == 0 && h.class() == nil && o.class() == nil)
	case *Set:
		o, ok := old.(*Set)
		return ok && (h == o || len(h.elems) == 0 && len(o.elems) == 0)
	}
	return Equal(held, old)
}
