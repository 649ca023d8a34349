package lisp

// clojure.data/diff, as Clojure 1.11's: two values are compared by their
// equality partition (map, set, sequential or atom); maps by key and
// sequentials by index recursively, sets by difference and intersection,
// and anything else, or two values of different partitions, as wholes.
// The result is [only-in-a only-in-b in-both], nil where a part is empty.

type diffPartition int

const (
	diffAtom diffPartition = iota
	diffMap
	diffSet
	diffSequential
)

// equalityPartition is Clojure's: a record is a map, a list a sequential,
// a string or nil an atom.
func equalityPartition(v Value) diffPartition {
	switch v.(type) {
	case *Map:
		return diffMap
	case *Set:
		return diffSet
	case *Vector:
		return diffSequential
	}
	return diffAtom
}

func builtinDataDiff(th *Thread, args []Value) (Value, error) {
	parts, equal, err := diffValues(th, args[0], args[1])
	if err != nil {
		return nil, err
	}
	if !equal && equalityPartition(args[0]) == diffMap && equalityPartition(args[1]) == diffMap {
		// Clojure's map diff is a lazy seq of the three parts, printed (...).
		return newList(parts[:]), nil
	}
	return NewVector(parts[:]), nil
}

// diffValues is (clojure.data/diff a b) as its three parts, and whether a
// and b are equal. Clojure compares a and b whole first at every level;
// for two maps or two sequentials here they are equal exactly when
// neither has a part of its own, which the walk finds without comparing
// the deeper levels again at each.
func diffValues(th *Thread, a, b Value) ([3]Value, bool, error) {
	if err := th.step(1); err != nil {
		return [3]Value{}, false, err
	}
	p := equalityPartition(a)
	if p != equalityPartition(b) {
		return [3]Value{a, b, Nil}, false, nil
	}
	var parts [3]Value
	var err error
	switch p {
	case diffAtom, diffSet:
		if eq, err := equalCharged(th, a, b); err != nil || eq {
			return [3]Value{Nil, Nil, a}, eq, err
		}
		if p == diffAtom {
			return [3]Value{a, b, Nil}, false, nil
		}
		parts, err = diffSets(th, a, b)
		return parts, false, err
	case diffMap:
		parts, err = diffMaps(th, a.(*Map), b.(*Map))
	case diffSequential:
		av, bv := a.(*Vector).Elems(), b.(*Vector).Elems()
		ks := make([]Value, max(len(av), len(bv)))
		for i := range ks {
			ks[i] = Int(i)
		}
		parts, err = diffAssociative(th, ks, indexGetter(av), indexGetter(bv))
		for i, m := range parts {
			parts[i] = vectorize(m)
		}
	}
	if err != nil {
		return parts, false, err
	}
	if isNilValue(parts[0]) && isNilValue(parts[1]) {
		return [3]Value{Nil, Nil, a}, true, nil
	}
	return parts, false, nil
}

// diffMaps is diffAssociative over the keys in the order Clojure walks
// them, (set/union (keys a) (keys b)): the keys of the smaller map
// conjoined onto the seq of the other's, so in front of it and reversed.
// It is the order of the keys in the parts.
func diffMaps(th *Thread, a, b *Map) ([3]Value, error) {
	ka, err := mapKeysInOrder(th, a)
	if err != nil {
		return [3]Value{}, err
	}
	kb, err := mapKeysInOrder(th, b)
	if err != nil {
		return [3]Value{}, err
	}
	if len(ka) < len(kb) {
		ka, kb = kb, ka
	}
	ks := make([]Value, 0, len(ka)+len(kb))
	for i := len(kb) - 1; i >= 0; i-- {
		ks = append(ks, kb[i])
	}
	ks = append(ks, ka...)
	// Each key is hashed twice, to look it up in a and in b.
	for range 2 {
		if err := chargeKeys(th, ks); err != nil {
			return [3]Value{}, err
		}
	}
	return diffAssociative(th, ks, a.Get, b.Get)
}

func mapKeysInOrder(th *Thread, m *Map) ([]Value, error) {
	entries, err := m.seqEntries(th)
	if err != nil {
		return nil, err
	}
	keys := make([]Value, len(entries))
	for i, e := range entries {
		keys[i] = e.Key
	}
	return keys, nil
}

func indexGetter(elems []Value) func(Value) (Value, bool) {
	return func(k Value) (Value, bool) {
		i := int(k.(Int))
		if i < len(elems) {
			return elems[i], true
		}
		return Nil, false
	}
}

// diffAssociative is Clojure's diff-associative: each key's values
// diffed, the parts merged into maps in the order of keys.
func diffAssociative(th *Thread, keys []Value, getA, getB func(Value) (Value, bool)) ([3]Value, error) {
	// Builders, not assoc: a key both maps hold comes twice in keys, and
	// assoc of a key already there copies the map.
	var out [3]*MapBuilder
	put := func(i int, k, v Value) {
		if out[i] == nil {
			out[i] = NewMapBuilder(0)
		}
		out[i].Set(k, v)
	}
	for _, k := range keys {
		va, inA := getA(k)
		vb, inB := getB(k)
		if !inA {
			va = Nil
		}
		if !inB {
			vb = Nil
		}
		d, _, err := diffValues(th, va, vb)
		if err != nil {
			return [3]Value{}, err
		}
		same := inA && inB && (!isNilValue(d[2]) || isNilValue(va) && isNilValue(vb))
		if inA && (!isNilValue(d[0]) || !same) {
			put(0, k, d[0])
		}
		if inB && (!isNilValue(d[1]) || !same) {
			put(1, k, d[1])
		}
		if same {
			put(2, k, d[2])
		}
	}
	var parts [3]Value
	for i, b := range out {
		parts[i] = Nil
		if b != nil {
			parts[i] = b.Map()
		}
	}
	return parts, nil
}

func isNilValue(v Value) bool {
	_, ok := v.(NilType)
	return ok
}

// vectorize is Clojure's: a map of indexes to values as the vector with
// each value at its index and nil between, nil for no map.
func vectorize(v Value) Value {
	m, ok := v.(*Map)
	if !ok || m.Len() == 0 {
		return Nil
	}
	top := 0
	for _, e := range m.Entries() {
		top = max(top, int(e.Key.(Int)))
	}
	elems := make([]Value, top+1)
	for i := range elems {
		elems[i] = Nil
	}
	for _, e := range m.Entries() {
		elems[int(e.Key.(Int))] = e.Val
	}
	return NewVector(elems)
}

// diffSets is [(not-empty (difference a b)) (not-empty (difference b a))
// (not-empty (intersection a b))].
func diffSets(th *Thread, a, b Value) ([3]Value, error) {
	var parts [3]Value
	for i, f := range []func() (Value, error){
		func() (Value, error) { return builtinDifference(th, []Value{a, b}) },
		func() (Value, error) { return builtinDifference(th, []Value{b, a}) },
		func() (Value, error) { return builtinIntersection(th, []Value{a, b}) },
	} {
		v, err := f()
		if err != nil {
			return parts, err
		}
		if s, ok := v.(*Set); !ok || s.Len() == 0 {
			v = Nil
		}
		parts[i] = v
	}
	return parts, nil
}
