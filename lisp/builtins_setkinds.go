package lisp

import "unicode/utf8"

// The set functions given an argument that is neither a set nor nil.
// Clojure's clojure.set is written with count, conj, disj and contains?,
// so such an argument gets what those give it there: disj of a vector is
// a ClassCastException, contains? of a list an IllegalArgumentException,
// contains? of a vector reads an index, and a union whose largest
// argument is a vector conjoins onto it ((union [1 2] #{1}) is
// [1 2 1]). The functions below follow Clojure's source step by step for
// that case; sets and nil keep the builtins' own path.

// setKindsOnly reports whether every value is a set or nil.
func setKindsOnly(vs ...Value) bool {
	for _, v := range vs {
		switch v.(type) {
		case *Set, NilType:
		default:
			return false
		}
	}
	return true
}

// setOpItems is what Clojure's reduce walks in a set function: a step
// per item.
func setOpItems(th *Thread, fn string, v Value) ([]Value, error) {
	items, err := seqOf(th, fn, v, anySeq)
	if err != nil {
		return nil, err
	}
	return items, th.step(int64(len(items)))
}

// setOpCount is Clojure's count of a set function's argument.
func setOpCount(th *Thread, fn string, v Value) (int, error) {
	n, err := builtinCount(th, []Value{v})
	if err != nil {
		return 0, typeErrorf(fn, "a set", v).asJava("UnsupportedOperationException",
			"count not supported on this type: "+shortJavaClass(v))
	}
	return int(n.(Int)), nil
}

// setOpContains is Clojure's contains? as clojure.set calls it: a key of
// a map, a member of a set, an index of a vector or string.
func setOpContains(fn string, coll, k Value) (bool, error) {
	switch c := coll.(type) {
	case *Set:
		return c.contains(k), nil
	case *Map:
		_, ok := c.Get(k)
		return ok, nil
	case NilType:
		return false, nil
	case *Vector:
		if !c.IsList() {
			i, ok := k.(Int)
			return ok && i >= 0 && int(i) < c.Len(), nil
		}
	case String:
		i, ok := k.(Int)
		return ok && i >= 0 && int(i) < utf8.RuneCountInString(string(c)), nil
	}
	return false, typeErrorf(fn, "a set", coll).asJava("IllegalArgumentException",
		"contains? not supported on type: "+javaValueClass(coll))
}

// setOpDisj is Clojure's disj of each of ks in turn, which casts its
// collection to a set at the first. The keys go to one disj, which makes
// the set once: a disj per key would copy it per key.
func setOpDisj(th *Thread, fn string, s Value, ks []Value) (Value, error) {
	if len(ks) == 0 {
		return s, nil
	}
	switch s.(type) {
	case *Set, NilType:
		return builtinDisj(th, append([]Value{s}, ks...))
	}
	return nil, notASet(fn, s)
}

// notASet is Clojure's ClassCastException for a set function's argument
// that is not a set.
func notASet(fn string, v Value) *Error {
	return castError(fn, "a set", v, "clojure.lang.IPersistentSet").WithHint("make a set of it first: (set coll)")
}

// shortJavaClass is v's class without its package, as Clojure's messages
// name it.
func shortJavaClass(v Value) string {
	c := javaValueClass(v)
	for i := len(c) - 1; i >= 0; i-- {
		if c[i] == '.' {
			return c[i+1:]
		}
	}
	return c
}

// setOpMaxByCount is Clojure's bubble-max-key: the argument of greatest
// (or, least) count, the last of equals, followed by the others in order.
func setOpMaxByCount(th *Thread, fn string, args []Value, least bool) ([]Value, error) {
	best, bestN := 0, 0
	for i, a := range args {
		n, err := setOpCount(th, fn, a)
		if err != nil {
			return nil, err
		}
		if least {
			n = -n
		}
		if i == 0 || n >= bestN {
			best, bestN = i, n
		}
	}
	out := append([]Value{args[best]}, args[:best]...)
	return append(out, args[best+1:]...), nil
}

// setOpInto conjoins the items of from onto to, as Clojure's into and
// (reduce conj to from).
func setOpInto(th *Thread, to, from Value) (Value, error) {
	items, err := setOpItems(th, "union", from)
	if err != nil || len(items) == 0 {
		return to, err
	}
	return conjAll(th, to, items) // one conj of all: the same as one per item, made once
}

// unionOfKinds is Clojure's union of two or more arguments.
func unionOfKinds(th *Thread, args []Value) (Value, error) {
	if len(args) == 2 {
		n1, err := setOpCount(th, "union", args[0])
		if err != nil {
			return nil, err
		}
		n2, err := setOpCount(th, "union", args[1])
		if err != nil {
			return nil, err
		}
		if n1 < n2 {
			return setOpInto(th, args[1], args[0])
		}
		return setOpInto(th, args[0], args[1])
	}
	order, err := setOpMaxByCount(th, "union", args, false)
	if err != nil {
		return nil, err
	}
	acc := order[0]
	for _, s := range order[1:] {
		if acc, err = setOpInto(th, acc, s); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// intersectionOfKinds is Clojure's intersection of two or more arguments.
func intersectionOfKinds(th *Thread, args []Value) (Value, error) {
	order := args
	if len(args) > 2 {
		var err error
		if order, err = setOpMaxByCount(th, "intersection", args, true); err != nil {
			return nil, err
		}
	}
	acc := order[0]
	for _, s := range order[1:] {
		var err error
		if acc, err = intersectTwo(th, acc, s); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

func intersectTwo(th *Thread, s1, s2 Value) (Value, error) {
	n1, err := setOpCount(th, "intersection", s1)
	if err != nil {
		return nil, err
	}
	n2, err := setOpCount(th, "intersection", s2)
	if err != nil {
		return nil, err
	}
	if n2 < n1 {
		s1, s2 = s2, s1
	}
	items, err := setOpItems(th, "intersection", s1)
	if err != nil {
		return nil, err
	}
	var out []Value
	for _, x := range items {
		in, err := setOpContains("intersection", s2, x)
		if err != nil {
			return nil, err
		}
		if !in {
			out = append(out, x)
		}
	}
	return setOpDisj(th, "intersection", s1, out)
}

// differenceOfKinds is Clojure's difference of two or more arguments.
func differenceOfKinds(th *Thread, args []Value) (Value, error) {
	acc := args[0]
	for _, s2 := range args[1:] {
		n1, err := setOpCount(th, "difference", acc)
		if err != nil {
			return nil, err
		}
		n2, err := setOpCount(th, "difference", s2)
		if err != nil {
			return nil, err
		}
		if n1 < n2 {
			items, err := setOpItems(th, "difference", acc)
			if err != nil {
				return nil, err
			}
			var out []Value
			for _, x := range items {
				in, err := setOpContains("difference", s2, x)
				if err != nil {
					return nil, err
				}
				if in {
					out = append(out, x)
				}
			}
			if acc, err = setOpDisj(th, "difference", acc, out); err != nil {
				return nil, err
			}
			continue
		}
		items, err := setOpItems(th, "difference", s2)
		if err != nil {
			return nil, err
		}
		if acc, err = setOpDisj(th, "difference", acc, items); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// subsetOfKinds is Clojure's (subset? a b): no larger, and every item of a
// is in b.
func subsetOfKinds(th *Thread, fn string, a, b Value) (Value, error) {
	na, err := setOpCount(th, fn, a)
	if err != nil {
		return nil, err
	}
	nb, err := setOpCount(th, fn, b)
	if err != nil {
		return nil, err
	}
	if na > nb {
		return falseValue, nil
	}
	items, err := setOpItems(th, fn, a)
	if err != nil {
		return nil, err
	}
	for _, x := range items {
		in, err := setOpContains(fn, b, x)
		if err != nil {
			return nil, err
		}
		if !in {
			return falseValue, nil
		}
	}
	return trueValue, nil
}

// selectOfKinds is Clojure's select: the items pred refuses disj'd from
// xset itself.
func selectOfKinds(th *Thread, pred, xset Value) (Value, error) {
	items, err := setOpItems(th, "select", xset)
	if err != nil {
		return nil, err
	}
	var out []Value
	for _, x := range items {
		keep, err := truthyCall(th, "select", pred, x)
		if err != nil {
			return nil, err
		}
		if !keep {
			out = append(out, x)
		}
	}
	return setOpDisj(th, "select", xset, out)
}
