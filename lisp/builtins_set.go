package lisp

import "slices"

// Set functions (spec 3.9 and clojure.set). Set operations take sets and
// nil, the empty set; another argument gets what Clojure's do with it
// (builtins_setkinds.go).
var setBuiltins = []*Builtin{
	{Name: "set", Sig: "(set coll)", Doc: "set of the items of coll", Category: "set",
		MinArgs: 1, MaxArgs: 1, Fn: builtinSet,
		Cost: cost(hashesItems(arg(0)), chargedInBody("the set as it grows (chargeGrowth)"))},
	{Name: "hash-set", Sig: "(hash-set x ...)", Doc: "set of the arguments", Category: "set",
		MinArgs: 0, MaxArgs: variadic, Fn: func(th *Thread, args []Value) (Value, error) {
			return buildSetOf(th, args)
		},
		Cost: cost(perArg(allArgs), hashes(allArgs), chargedInBody("the set as it grows (chargeGrowth)"))},
	{Name: "union", Sig: "(union s1 s2 ...)", Doc: "items in any of the sets", Category: "set",
		MinArgs: 0, MaxArgs: variadic, Fn: builtinUnion,
		Cost: cost(hashesItems(allArgs), builds)},
	{Name: "intersection", Sig: "(intersection s1 s2 ...)", Doc: "items in every set", Category: "set",
		MinArgs: 1, MaxArgs: variadic, Fn: builtinIntersection,
		Cost: cost(hashesItems(allArgs), chargedInBody("the smaller set's items looked up in each further set: a step and a hash (chargeKey) per lookup"), builds)},
	{Name: "difference", Sig: "(difference s1 s2 ...)", Doc: "items of s1 in none of the others", Category: "set",
		MinArgs: 1, MaxArgs: variadic, Fn: builtinDifference,
		Cost: cost(hashesItems(allArgs), chargedInBody("the first set's items looked up in each further set: a step and a hash (chargeKey) per lookup"), builds)},
	{Name: "subset?", Sig: "(subset? s1 s2)", Doc: "every item of s1 is in s2", Category: "set",
		MinArgs: 2, MaxArgs: 2, Fn: func(th *Thread, args []Value) (Value, error) { return subset(th, "subset?", args[0], args[1]) },
		Cost: cost(hashesItems(allArgs))},
	{Name: "superset?", Sig: "(superset? s1 s2)", Doc: "every item of s2 is in s1", Category: "set",
		MinArgs: 2, MaxArgs: 2, Fn: func(th *Thread, args []Value) (Value, error) { return subset(th, "superset?", args[1], args[0]) },
		Cost: cost(hashesItems(allArgs))},
	{Name: "disj", Sig: "(disj s x ...)", Doc: "set without the given items", Category: "set",
		MinArgs: 1, MaxArgs: variadic, Fn: sortedRemoval("disj", builtinDisj),
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
	return buildSetOf(th, elems)
}

// buildSetOf is the set of elems, charged as it grows (chargeGrowth): a
// set of few distinct items from many costs what it holds.
func buildSetOf(th *Thread, elems []Value) (*Set, error) {
	b := newSetBuilder()
	for _, e := range elems {
		if _, err := b.add(th, e); err != nil {
			return nil, err
		}
	}
	return b.set(), nil
}

func builtinSet(th *Thread, args []Value) (Value, error) { return setOf(th, "set", args[0]) }

func setsOf(th *Thread, fn string, args []Value) ([]*Set, error) {
	sets := make([]*Set, len(args))
	for i, a := range args {
		var err error
		if sets[i], err = setOf(th, fn, a); err != nil {
			return nil, err
		}
	}
	return sets, nil
}

// builtinUnion adds the other sets to the largest, as Clojure's union
// does, so that the result is sorted when that set is: of two, the first
// unless the second is larger; of more, the last of the largest.
func builtinUnion(th *Thread, args []Value) (Value, error) {
	if len(args) == 1 {
		return args[0], nil // Clojure's (union s) is s, nil included
	}
	if !setKindsOnly(args...) || slices.ContainsFunc(args, isNilValue) {
		// Clojure's reduce conj, which keeps a nil base: (union nil nil) is nil
		return unionOfKinds(th, args)
	}
	sets, err := setsOf(th, "union", args)
	if err != nil {
		return nil, err
	}
	if len(sets) == 0 {
		return emptySet, nil
	}
	base := 0
	for i, s := range sets {
		if s.Len() > sets[base].Len() || (s.Len() == sets[base].Len() && len(sets) > 2) {
			base = i
		}
	}
	total := 0
	for _, s := range sets {
		total += s.Len()
	}
	all := append(make([]Value, 0, total), sets[base].elems...)
	for i, s := range sets {
		if i != base {
			all = append(all, s.elems...)
		}
	}
	if o := orderOf(sets[base]); o != nil {
		return resortedSet(th, "union", o, NewSet(all))
	}
	return NewSet(all), nil
}

// builtinIntersection keeps the items of the smaller of each two sets
// that are in the other, as Clojure's intersection does, starting from
// the last of the smallest: the result is sorted when the set it was
// filtered from last is.
func builtinIntersection(th *Thread, args []Value) (Value, error) {
	if len(args) == 1 {
		return args[0], nil // Clojure's (intersection s) is s
	}
	if !setKindsOnly(args...) {
		return intersectionOfKinds(th, args)
	}
	for _, a := range args {
		if _, ok := a.(NilType); ok {
			return smallestFirst(args), nil
		}
	}
	sets, err := setsOf(th, "intersection", args)
	if err != nil {
		return nil, err
	}
	first := 0
	if len(sets) > 2 {
		for i, s := range sets {
			if s.Len() <= sets[first].Len() {
				first = i
			}
		}
	}
	result := sets[first]
	for i, s := range sets {
		if i == first {
			continue
		}
		from, in := result, s
		if s.Len() < result.Len() {
			from, in = s, result
		}
		if result, err = keepItems(th, "intersection", from, in, true, true); err != nil {
			return nil, err
		}
	}
	return result, nil
}

// builtinDifference keeps the items of the first set in none of the others.
func builtinDifference(th *Thread, args []Value) (Value, error) {
	if args[0] == Nil {
		return Nil, nil // Clojure removes from s1 itself
	}
	if len(args) == 1 {
		return args[0], nil // Clojure's (difference s) is s
	}
	if !setKindsOnly(args...) {
		return differenceOfKinds(th, args)
	}
	sets, err := setsOf(th, "difference", args)
	if err != nil {
		return nil, err
	}
	result := sets[0]
	for _, s := range sets[1:] {
		// Clojure looks the smaller set's items up in the larger one, or
		// disj's the second's from the first when it is no larger: a
		// sorted set compares what is looked up in it
		lookupsIn := result.Len() < s.Len()
		if !lookupsIn {
			if err := findSortedKeys(th, "difference", result, s.elems...); err != nil {
				return nil, err
			}
		}
		if result, err = keepItems(th, "difference", result, s, false, lookupsIn); err != nil {
			return nil, err
		}
	}
	return result, nil
}

// smallestFirst is the intersection of sets of which one is nil, as
// Clojure's answers it: the set it starts from, which has no item. Of two
// sets that is the second only when it is smaller; of more, the last of
// the smallest.
func smallestFirst(args []Value) Value {
	count := func(v Value) int {
		if s, ok := v.(*Set); ok {
			return s.Len()
		}
		return 0
	}
	if len(args) == 2 {
		if count(args[1]) < count(args[0]) {
			return args[1]
		}
		return args[0]
	}
	var first Value = Nil
	for _, a := range args {
		if count(a) == 0 {
			first = a
		}
	}
	return first
}

// keepItems is the set of the items of from that are in in (keepIfIn) or
// not, sorted when from is. Each lookup costs a step and the key's hash;
// when lookupsIn, a sorted in compares each item, as Clojure's lookup does.
func keepItems(th *Thread, fn string, from, in *Set, keepIfIn, lookupsIn bool) (*Set, error) {
	if err := th.step(int64(from.Len())); err != nil {
		return nil, err
	}
	if err := chargeKeys(th, from.elems); err != nil {
		return nil, err
	}
	var out []Value
	for _, e := range from.elems {
		if lookupsIn {
			if err := findSortedKeys(th, fn, in, e); err != nil {
				return nil, err
			}
		}
		if in.contains(e) == keepIfIn {
			out = append(out, e)
		}
	}
	return keepSetOrder(NewSet(out), from), nil
}

func subset(th *Thread, fn string, a, b Value) (Value, error) {
	if !setKindsOnly(a, b) {
		return subsetOfKinds(th, fn, a, b)
	}
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
	if len(args) == 1 {
		return args[0], nil // Clojure's (disj x) is x, whatever it is
	}
	switch s := args[0].(type) {
	case NilType:
		return Nil, nil
	case *Set:
		drop := NewSet(args[1:])
		return keepSetOrder(NewSet(slices.DeleteFunc(slices.Clone(s.elems), drop.contains)), s), nil
	}
	return nil, typeErrorf("disj", "a set", args[0]).castFails(args[0])
}

func builtinSelect(th *Thread, args []Value) (Value, error) {
	s, ok := args[1].(*Set)
	if !ok {
		return selectOfKinds(th, args[0], args[1]) // nil is nil, as Clojure's
	}
	elems, err := s.seqElems(th)
	if err != nil {
		return nil, err
	}
	var out []Value
	for _, e := range elems {
		ok, err := truthyCall(th, "select", args[0], e)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, e)
		}
	}
	return keepSetOrder(NewSet(out), s), nil
}
