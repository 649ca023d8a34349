package lisp

import "slices"

// Set functions (spec 3.9 and clojure.set). Set operations accept sets and,
// for convenience, any other collection, which is read as the set of its
// items; nil is the empty set.
var setBuiltins = []*Builtin{
	{Name: "set", Sig: "(set coll)", Doc: "set of the items of coll", Category: "set",
		MinArgs: 1, MaxArgs: 1, Fn: builtinSet,
		Cost: cost(hashesItems(arg(0)), builds)},
	{Name: "hash-set", Sig: "(hash-set x ...)", Doc: "set of the arguments", Category: "set",
		MinArgs: 0, MaxArgs: variadic, Fn: func(th *Thread, args []Value) (Value, error) {
			return NewSet(args), nil
		},
		Cost: cost(perArg(allArgs), hashes(allArgs), builds)},
	{Name: "union", Sig: "(union s1 s2 ...)", Doc: "items in any of the sets", Category: "set",
		MinArgs: 0, MaxArgs: variadic, Fn: builtinUnion,
		Cost: cost(hashesItems(allArgs), builds)},
	{Name: "intersection", Sig: "(intersection s1 s2 ...)", Doc: "items in every set", Category: "set",
		MinArgs: 1, MaxArgs: variadic, Fn: setFilter("intersection", true),
		Cost: cost(hashesItems(allArgs), chargedInBody("the first set's items looked up in each further set: a step and a hash (chargeKey) per lookup"), builds)},
	{Name: "difference", Sig: "(difference s1 s2 ...)", Doc: "items of s1 in none of the others", Category: "set",
		MinArgs: 1, MaxArgs: variadic, Fn: setFilter("difference", false),
		Cost: cost(hashesItems(allArgs), chargedInBody("the first set's items looked up in each further set: a step and a hash (chargeKey) per lookup"), builds)},
	{Name: "subset?", Sig: "(subset? s1 s2)", Doc: "every item of s1 is in s2", Category: "set",
		MinArgs: 2, MaxArgs: 2, Fn: func(th *Thread, args []Value) (Value, error) { return subset(th, "subset?", args[0], args[1]) },
		Cost: cost(hashesItems(allArgs))},
	{Name: "superset?", Sig: "(superset? s1 s2)", Doc: "every item of s2 is in s1", Category: "set",
		MinArgs: 2, MaxArgs: 2, Fn: func(th *Thread, args []Value) (Value, error) { return subset(th, "superset?", args[1], args[0]) },
		Cost: cost(hashesItems(allArgs))},
	{Name: "disj", Sig: "(disj s x ...)", Doc: "set without the given items", Category: "set",
		MinArgs: 1, MaxArgs: variadic, Fn: builtinDisj,
		Cost: cost(hashesItems(arg(0)), hashes(argsFrom(1)), builds)},
	{Name: "select", Sig: "(select pred s)", Doc: "set of the items for which pred is truthy", Category: "set",
		MinArgs: 2, MaxArgs: 2, Fn: builtinSelect,
		Cost: cost(hashesItems(arg(1)), calls(arg(1)), builds)},
}

// setOf reads a value as a set; the set builtins' hashesItems terms pay
// for hashing its items.
func setOf(th *Thread, fn string, v Value) (*Set, error) {
	switch s := v.(type) {
	case *Set:
		return s, nil
	case NilType:
		return emptySet, nil
	}
	elems, err := seqOf(th, fn, v, anySeq)
	if err != nil {
		return nil, err
	}
	return NewSet(elems), nil
}

func builtinSet(th *Thread, args []Value) (Value, error) { return setOf(th, "set", args[0]) }

func builtinUnion(th *Thread, args []Value) (Value, error) {
	var all []Value
	for _, a := range args {
		s, err := setOf(th, "union", a)
		if err != nil {
			return nil, err
		}
		all = append(all, s.elems...)
	}
	return NewSet(all), nil
}

// setFilter keeps the items of the first set that are in every other set
// (keepIfIn) or in none of them.
func setFilter(fn string, keepIfIn bool) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		first, err := setOf(th, fn, args[0])
		if err != nil {
			return nil, err
		}
		others := make([]*Set, len(args)-1)
		for i, a := range args[1:] {
			if others[i], err = setOf(th, fn, a); err != nil {
				return nil, err
			}
		}
		for range len(others) - 1 {
			if err := th.step(int64(first.Len())); err != nil {
				return nil, err
			}
			if err := chargeKeys(th, first.elems); err != nil {
				return nil, err
			}
		}
		var out []Value
		for _, e := range first.elems {
			keep := true
			for _, o := range others {
				if o.contains(e) != keepIfIn {
					keep = false
					break
				}
			}
			if keep {
				out = append(out, e)
			}
		}
		return NewSet(out), nil
	}
}

func subset(th *Thread, fn string, a, b Value) (Value, error) {
	sa, err := setOf(th, fn, a)
	if err != nil {
		return nil, err
	}
	sb, err := setOf(th, fn, b)
	if err != nil {
		return nil, err
	}
	for _, e := range sa.elems {
		if !sb.contains(e) {
			return falseValue, nil
		}
	}
	return trueValue, nil
}

func builtinDisj(th *Thread, args []Value) (Value, error) {
	switch s := args[0].(type) {
	case NilType:
		return Nil, nil
	case *Set:
		drop := NewSet(args[1:])
		return NewSet(slices.DeleteFunc(slices.Clone(s.elems), drop.contains)), nil
	}
	return nil, typeErrorf("disj", "a set", args[0])
}

func builtinSelect(th *Thread, args []Value) (Value, error) {
	s, err := setOf(th, "select", args[1])
	if err != nil {
		return nil, err
	}
	var out []Value
	for _, e := range s.elems {
		ok, err := truthyCall(th, "select", args[0], e)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, e)
		}
	}
	return NewSet(out), nil
}
