package lisp

import (
	"slices"
	"unicode/utf8"
)

// Map operations (spec 8.2). Maps keep insertion order; an updated key keeps
// its place. Keys may be any value: group-by and frequencies produce string
// or integer keys, and only map literals restrict them (spec 3.8).
var mapBuiltins = []*Builtin{
	{Name: "get", Sig: "(get m key) (get m key default)", Doc: "value under key (index of a vector), or nil (or default)", Category: "map",
		MinArgs: 2, MaxArgs: 3, Fn: sortedLookup("get", builtinGet),
		Cost:    cost(lookups),
		borrows: true},
	{Name: "get-in", Sig: "(get-in m path) (get-in m path default)", Doc: "nested value: (get-in m [:user :name]); nil (or default) when missing", Category: "map",
		MinArgs: 2, MaxArgs: 3, Fn: builtinGetIn,
		Cost: cost(visits(arg(1)), lookups)},
	{Name: "assoc", Sig: "(assoc m key val ...)", Doc: "map with key set to val (vector with index set)", Category: "map",
		MinArgs: 3, MaxArgs: variadic, Fn: builtinAssoc,
		Cost: cost(perArg(keyArgs(1)), updates)},
	{Name: "assoc-in", Sig: "(assoc-in m path val)", Doc: "nested assoc, creating maps along the path", Category: "map",
		MinArgs: 3, MaxArgs: 3, Fn: builtinAssocIn,
		Cost: cost(visits(arg(1)), lookups, updates)},
	{Name: "update", Sig: "(update m key f & args)", Doc: "map with key set to (f old-value args...)", Category: "map",
		MinArgs: 3, MaxArgs: variadic, Fn: builtinUpdate,
		Cost: cost(lookups, calls(arg(2)), updates)},
	{Name: "update-in", Sig: "(update-in m path f & args)", Doc: "nested update: (update-in m [:a :b] inc)", Category: "map",
		MinArgs: 3, MaxArgs: variadic, Fn: builtinUpdateIn,
		Cost: cost(visits(arg(1)), lookups, calls(arg(2)), updates)},
	{Name: "dissoc", Sig: "(dissoc m key ...)", Doc: "map without the keys", Category: "map",
		MinArgs: 1, MaxArgs: variadic, Fn: sortedRemoval("dissoc", builtinDissoc),
		Cost: cost(visits(arg(0)), hashes(argsFrom(1)), rehashes(arg(0)), updates)},
	{Name: "merge", Sig: "(merge m1 m2 ...)", Doc: "maps combined; later keys win", Category: "map",
		MinArgs: 0, MaxArgs: variadic, Fn: func(th *Thread, args []Value) (Value, error) { return mergeMaps(th, "merge", args) },
		Cost: cost(visits(allArgs), rehashes(allArgs), updates)},
	{Name: "merge-with", Sig: "(merge-with f m1 m2 ...)", Doc: "maps combined; a key in both gets (f old new)", Category: "map",
		MinArgs: 1, MaxArgs: variadic, Fn: builtinMergeWith,
		Cost: cost(visits(argsFrom(1)), rehashes(argsFrom(1)), calls(argsFrom(1)), updates)},
	{Name: "select-keys", Sig: "(select-keys m keys)", Doc: "map of only the given keys that are present", Category: "map",
		MinArgs: 2, MaxArgs: 2, Fn: sortedLookupKeys("select-keys", func(th *Thread, args []Value) ([]Value, error) {
			return seqOf(th, "select-keys", args[1], anySeq)
		}, builtinSelectKeys),
		Cost: cost(hashesItems(arg(1)), lookups, builds)},
	{Name: "keys", Sig: "(keys m)", Doc: "vector of the keys, in order; nil when empty", Category: "map",
		MinArgs: 1, MaxArgs: 1, Fn: keysOrVals("keys", true),
		Cost: cost(builds)},
	{Name: "vals", Sig: "(vals m)", Doc: "vector of the values, in order; nil when empty", Category: "map",
		MinArgs: 1, MaxArgs: 1, Fn: keysOrVals("vals", false),
		Cost: cost(builds)},
	{Name: "entries", Sig: "(entries m)", Doc: "vector of [key value] pairs", Category: "map",
		MinArgs: 1, MaxArgs: 1, Fn: builtinEntries,
		Cost: cost(chargedInBody("the [key value] entries, charged as seqOf charges a map's entries (mapEntries)")),
		lean: true},
	{Name: "key", Sig: "(key entry)", Doc: "key of a [key value] entry", Category: "map",
		MinArgs: 1, MaxArgs: 1, Fn: entryPart("key", 0),
		Cost: cost(constant)},
	{Name: "val", Sig: "(val entry)", Doc: "value of a [key value] entry", Category: "map",
		MinArgs: 1, MaxArgs: 1, Fn: entryPart("val", 1),
		Cost: cost(constant)},
	{Name: "zipmap", Sig: "(zipmap keys vals)", Doc: "map pairing keys with vals, up to the shorter", Category: "map",
		MinArgs: 2, MaxArgs: 2, Fn: builtinZipmap,
		Cost: cost(hashesItems(arg(0)), chargedInBody("the map as it grows (chargeGrowth)")),
		lazy: boundedByFinite},
	{Name: "hash-map", Sig: "(hash-map k v ...)", Doc: "map of the key/value arguments", Category: "map",
		MinArgs: 0, MaxArgs: variadic, Fn: builtinHashMap,
		Cost: cost(hashesKeys(0), chargedInBody("the map as it grows (chargeGrowth)"))},
	{Name: "update-vals", Sig: "(update-vals m f)", Doc: "map with each value replaced by (f value)", Category: "map",
		MinArgs: 2, MaxArgs: 2, Fn: mapEach("update-vals", false),
		Cost: cost(visits(arg(0)), calls(arg(0)), builds)},
	{Name: "update-keys", Sig: "(update-keys m f)", Doc: "map with each key replaced by (f key)", Category: "map",
		MinArgs: 2, MaxArgs: 2, Fn: mapEach("update-keys", true),
		Cost: cost(visits(arg(0)), calls(arg(0)), chargedInBody("each key f returns, hashed (chargeKey) when it returns, and the room for keys f sends to one"), builds)},
	{Name: "rename-keys", Sig: "(rename-keys m {old new ...})", Doc: "map with keys renamed", Category: "map",
		MinArgs: 2, MaxArgs: 2, Fn: builtinRenameKeys,
		Cost: cost(visits(allArgs), rehashes(allArgs), hashesValues(arg(1)), builds)},
	{Name: "map-invert", Sig: "(map-invert m)", Doc: "map from values to keys", Category: "map",
		MinArgs: 1, MaxArgs: 1, Fn: builtinMapInvert,
		Cost: cost(hashesItems(arg(0)), builds)},
}

// getValue is get: maps by key, vectors and strings by index, sets by
// membership; anything else (nil included) has no keys.
func getValue(th *Thread, coll, key, def Value) (Value, error) {
	if t, ok := coll.(*transient); ok { // get and get-in read one, as Clojure's
		held, err := t.held("get")
		if err != nil {
			return nil, err
		}
		coll = held
	}
	switch coll.(type) {
	case *Map, *Set:
		var err error
		if key, err = realizedKey(th, key); err != nil {
			return nil, err
		}
	}
	switch c := coll.(type) {
	case *Map:
		if v, ok := c.Get(key); ok {
			return v, nil
		}
	case *Vector:
		if i, ok := key.(Int); ok && !c.IsList() && i >= 0 && int64(i) < int64(c.Len()) {
			return c.elems[i], nil
		}
	case *Set:
		if c.contains(key) {
			return key, nil
		}
	case String:
		i, ok := key.(Int)
		if f, isNumber := asFloat(key); !ok && isNumber && f > -1 && f < float64(len(c)) {
			// Clojure's get takes a number's int value on a string only:
			// (get "abc" 1.5) and (get "abc" 1.5M) are \b
			i, ok = Int(f), true
		}
		if ok && i >= 0 && int64(i) < int64(len(c)) {
			if err := scan(th, int(i)*utf8.UTFMax); err != nil {
				return nil, err
			}
			n := Int(0)
			for _, r := range c {
				if n == i {
					return String(string(r)), nil
				}
				n++
			}
		}
	}
	return def, nil
}

func builtinGet(th *Thread, args []Value) (Value, error) {
	def := Value(Nil)
	if len(args) == 3 {
		def = args[2]
	}
	return getValue(th, args[0], args[1], def)
}

// pathOf returns the keys of a get-in/assoc-in path: any collection
// Clojure walks as a sequence, so a string is a path of its characters
// ((get-in {\a 1} "a") is 1) and a map one of its entries.
func pathOf(th *Thread, fn string, path Value) ([]Value, error) {
	switch path.(type) {
	case *Vector, NilType, String, *Map, *Set:
		return seqOf(th, fn, path, anySeq)
	}
	e := javaErrorf(typeError, "IllegalArgumentException", "%s expected a path vector such as [:a :b], got %s", fn, describe(path))
	return nil, e.notSeqable(path) // Clojure's seq of the path
}

func builtinGetIn(th *Thread, args []Value) (Value, error) {
	path, err := pathOf(th, "get-in", args[1])
	if err != nil {
		return nil, err
	}
	def := Value(Nil)
	if len(args) == 3 {
		def = args[2]
	}
	missing := &varRef{} // a sentinel no collection contains
	cur := args[0]
	for _, k := range path {
		var err error
		if cur, err = getValue(th, cur, k, missing); err != nil {
			return nil, err
		}
		if cur == Value(missing) {
			return def, nil
		}
	}
	return cur, nil
}

// assocValue sets key in a map, vector or nil.
func assocValue(th *Thread, fn string, coll, key, val Value) (Value, error) {
	switch c := coll.(type) {
	case *Map:
		return assocMap(th, c, key, val)
	case NilType:
		key, err := realizedKey(th, key)
		if err != nil {
			return nil, err
		}
		if err := th.allocMap(1); err != nil {
			return nil, err
		}
		return emptyMap.assoc(key, val), nil
	case *Vector:
		if c.IsList() {
			return nil, castError(fn, "a map, vector or nil", coll, "clojure.lang.Associative").
				WithHint("a list has no index to set: make a vector of it first, (vec xs)")
		}
		i, ok := key.(Int)
		if _, isFloat := floatValue(key); isFloat { // even 1.0, as Clojure's
			return nil, Errorf(typeError, "%s of a vector takes an integer index, got %s", fn, describe(key)).
				asJava("IllegalArgumentException", "Key must be integer")
		}
		if !ok { // a keyword, a string or nil: Clojure's vector takes only a number
			return nil, Errorf(typeError, "%s of a vector takes an integer index, got %s", fn, describe(key)).
				WithHint("a vector index must be an integer from 0 to its length").
				asJava("IllegalArgumentException", "Key must be integer")
		}
		if i < 0 || int64(i) > int64(c.Len()) {
			return nil, Errorf(executionError, "%s index %s is out of bounds for a vector of %d items", fn, shown(key), c.Len()).
				WithHint("a vector index must be an integer from 0 to its length").
				asJavaWithoutMessage("IndexOutOfBoundsException")
		}
		if int(i) == c.Len() {
			return conjVector(th, c, val)
		}
		if err := chargeCopy(th, vectorHeap, c.Len(), 0); err != nil {
			return nil, err
		}
		elems := slices.Clone(c.elems)
		elems[i] = val
		return NewVector(elems), nil
	}
	return nil, typeErrorf(fn, "a map, vector or nil", coll).castFails(coll)
}

func builtinAssoc(th *Thread, args []Value) (Value, error) {
	if len(args)%2 != 1 {
		return nil, Errorf(arityErrorKind, "assoc expects key/value pairs, got an odd number of them").
			WithHint("call it as (assoc m k1 v1 k2 v2)").
			asJava("IllegalArgumentException", "assoc expects even number of arguments after map/vector, found odd number")
	}
	coll := args[0]
	if m, ok := coll.(*Map); ok && len(args) > 3 {
		// One copy for all pairs instead of one per pair.
		if err := chargeMapKeys(th, m); err != nil {
			return nil, err
		}
		b := NewMapBuilder(m.Len() + len(args)/2)
		b.addAll(m)
		for i := 1; i+1 < len(args); i += 2 {
			k, err := realizedKey(th, args[i])
			if err != nil {
				return nil, err
			}
			b.Set(k, args[i+1])
		}
		if err := chargeCopy(th, mapHeap, m.Len(), b.len()-m.Len()); err != nil {
			return nil, err
		}
		if o := orderOf(m); o != nil {
			return resorted(th, "assoc", o, b.Map())
		}
		return b.Map(), nil
	}
	var err error
	for i := 1; i+1 < len(args); i += 2 {
		if coll, err = assocValue(th, "assoc", coll, args[i], args[i+1]); err != nil {
			return nil, err
		}
	}
	return coll, nil
}

// updateIn replaces the value at path with f(old); missing levels are maps.
func updateIn(th *Thread, fn string, coll Value, path []Value, f func(old Value) (Value, error)) (Value, error) {
	if len(path) > MaxValueNesting { // it recurses once per key
		return nil, Errorf(depthLimit, "%s: a path of %d keys is longer than the deepest a value may nest (%d levels)", fn, len(path), MaxValueNesting).
			WithHint("use a short path of keys, one per level of nesting")
	}
	if err := th.step(1); err != nil {
		return nil, err
	}
	if len(path) == 0 {
		return f(coll)
	}
	k := path[0]
	child, err := getValue(th, coll, k, Nil)
	if err != nil {
		return nil, err
	}
	switch coll.(type) {
	case *Map, *Vector, NilType:
	default:
		// Clojure assocs into the level it reached, a cast to
		// Associative (update-in calls f on the missing child first).
		return nil, Errorf(typeError, "%s cannot step into %s with key %s", fn, describe(coll), shown(k)).
			WithHint("every level of the path must be a map or a vector").notAn("clojure.lang.Associative", coll)
	}
	newChild, err := updateIn(th, fn, child, path[1:], f)
	if err != nil {
		return nil, err
	}
	return assocValue(th, fn, coll, k, newChild)
}

func builtinAssocIn(th *Thread, args []Value) (Value, error) {
	path, err := pathOf(th, "assoc-in", args[1])
	if err != nil {
		return nil, err
	}
	if len(path) == 0 {
		return assocValue(th, "assoc-in", args[0], Nil, args[2])
	}
	return updateIn(th, "assoc-in", args[0], path, func(Value) (Value, error) { return args[2], nil })
}

func builtinUpdate(th *Thread, args []Value) (Value, error) {
	if err := findSortedKeys(th, "update", args[0], args[1]); err != nil {
		return nil, err // Clojure's get compares the key first
	}
	old, err := getValue(th, args[0], args[1], Nil)
	if err != nil {
		return nil, err
	}
	v, err := call(th, "update", args[2], append([]Value{old}, args[3:]...)...)
	if err != nil {
		return nil, err
	}
	return assocValue(th, "update", args[0], args[1], v)
}

func builtinUpdateIn(th *Thread, args []Value) (Value, error) {
	path, err := pathOf(th, "update-in", args[1])
	if err != nil {
		return nil, err
	}
	f, extra := args[2], args[3:]
	apply := func(old Value) (Value, error) {
		return call(th, "update-in", f, append([]Value{old}, extra...)...)
	}
	if len(path) == 0 {
		// As Clojure: an empty path updates the nil key.
		old, err := getValue(th, args[0], Nil, Nil)
		if err != nil {
			return nil, err
		}
		v, err := apply(old)
		if err != nil {
			return nil, err
		}
		return assocValue(th, "update-in", args[0], Nil, v)
	}
	return updateIn(th, "update-in", args[0], path, apply)
}

func builtinDissoc(th *Thread, args []Value) (Value, error) {
	if len(args) == 1 {
		return args[0], nil // Clojure's (dissoc x) is x, whatever it is
	}
	switch m := args[0].(type) {
	case NilType:
		return Nil, nil
	case *Map:
		drop := make(map[any]bool, len(args)-1)
		class := m.class()
		for _, k := range args[1:] {
			drop[hashKey(k)] = true
			class = class.without(k)
		}
		b := NewMapBuilder(m.Len())
		for _, e := range m.entries {
			if !drop[hashKey(e.Key)] {
				b.Set(e.Key, e.Val)
			}
		}
		b.sameKind(m)
		b.m.setClass(class)
		if err := th.alloc(heapMapHead); err != nil {
			return nil, err
		}
		return keepOrder(b.Map(), m), nil
	}
	return nil, typeErrorf("dissoc", "a map", args[0]).castFails(args[0])
}

// mapArg accepts a map or nil.
func mapArg(fn string, v Value) (*Map, error) {
	switch m := v.(type) {
	case *Map:
		return m, nil
	case NilType:
		return nil, nil
	}
	return nil, typeErrorf(fn, "a map", v)
}

// mergedMap is a map argument of merge, or a [key value] vector after
// the first, which Clojure's merge conjoins as one entry (pair).
func mergedMap(fn string, a Value, pair bool) (*Map, error) {
	if v, ok := a.(*Vector); ok && pair && !v.IsList() {
		if v.Len() != 2 {
			return nil, typeErrorf(fn, "a map or a [key value] pair", a).
				asJava("IllegalArgumentException", "Vector arg to map conj must be a pair")
		}
		b := NewMapBuilder(1)
		b.Set(v.index(0), v.index(1))
		return b.Map(), nil
	}
	m, err := mapArg(fn, a)
	if e, ok := err.(*Error); ok && !pair {
		if fn == "merge" {
			e.castFails(a) // Clojure conjoins onto the first: a cast to a collection
		} else {
			e.notSeqable(a) // merge-with seqs each map it merges in
		}
	}
	return m, err
}

func mergeMaps(th *Thread, fn string, args []Value) (Value, error) {
	if len(args) == 1 {
		// Clojure's (merge x) is x, whatever it is, when it is truthy
		if truthy(args[0]) {
			return args[0], nil
		}
		return Nil, nil
	}
	if len(args) > 0 {
		switch args[0].(type) {
		case *Vector, *Set:
			// Clojure's merge conjoins the rest onto the first argument,
			// whatever it is: (merge [1 2] [3 4]) is [1 2 [3 4]].
			acc := args[0]
			for _, a := range args[1:] {
				var err error
				if acc, err = builtinConj(th, []Value{acc, a}); err != nil {
					return nil, err
				}
			}
			return acc, nil
		}
	}
	return mergeWith(th, fn, nil, args)
}

// mergeWith merges maps left to right; nil arguments are skipped and the
// result is nil only when every argument is. The result is sorted when the
// first map is, as Clojure's, which conjoins the others onto it.
func mergeWith(th *Thread, fn string, f Value, args []Value) (Value, error) {
	var b *MapBuilder
	var order *keyOrder
	base := 0 // entries of the first map, which the result copies
	for i, a := range args {
		m, err := mergedMap(fn, a, i > 0 && f == nil)
		if err != nil {
			return nil, err
		}
		if m == nil {
			continue
		}
		if b == nil {
			b = NewMapBuilder(m.Len())
			b.hashLike(m)
			base = m.Len()
			if i == 0 {
				// merge conjoins onto the first map; after a nil first
				// argument, onto {}, a plain map (not a record or sorted)
				b.sameClass(m)
				order = orderOf(m)
			}
		}
		entries, err := m.seqEntries(th)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if old, ok := b.get(e.Key); ok && f != nil {
				v, err := call(th, fn, f, old, e.Val)
				if err != nil {
					return nil, err
				}
				b.Set(e.Key, v)
				continue
			}
			b.Set(e.Key, e.Val)
		}
	}
	if b == nil {
		return Nil, nil
	}
	// The copy of the first map was paid in steps above.
	if err := th.alloc(mapHeap.shape(b.len()-base, b.len() > smallMap)); err != nil {
		return nil, err
	}
	if order != nil {
		return resorted(th, fn, order, b.Map())
	}
	return b.Map(), nil
}

func builtinMergeWith(th *Thread, args []Value) (Value, error) {
	if len(args) == 1 {
		return Nil, nil // Clojure's (merge-with f) merges no map, calling nothing
	}
	if _, ok := args[0].(Callable); !ok {
		return nil, Errorf(typeError, "merge-with expected a function first, got %s", describe(args[0])).
			notAn("clojure.lang.IFn", args[0])
	}
	return mergeWith(th, "merge-with", args[0], args[1:])
}

func builtinSelectKeys(th *Thread, args []Value) (Value, error) {
	if v, ok := args[0].(*Vector); ok && !v.IsList() {
		return selectIndexes(th, v, args[1])
	}
	m, err := mapArg("select-keys", args[0])
	if e, ok := err.(*Error); ok {
		return nil, e.notSeqable(args[0]) // Clojure's find: not supported on any non-map
	}
	ks, err := seqOf(th, "select-keys", args[1], anySeq)
	if err != nil {
		return nil, err
	}
	b := NewMapBuilder(len(ks))
	if m != nil {
		for _, k := range ks {
			if v, ok := m.Get(k); ok {
				b.Set(k, v)
			}
		}
	}
	return b.mapChargingRoom(th)
}

// selectIndexes is select-keys of a vector, which Clojure's find reads as
// the map of its indexes: (select-keys [:a :b] [1 5]) is {1 :b}.
func selectIndexes(th *Thread, v *Vector, keys Value) (Value, error) {
	ks, err := seqOf(th, "select-keys", keys, anySeq)
	if err != nil {
		return nil, err
	}
	b := NewMapBuilder(len(ks))
	for _, k := range ks {
		if i, ok := k.(Int); ok && i >= 0 && int64(i) < int64(v.Len()) {
			b.Set(k, v.elems[i])
		}
	}
	return b.mapChargingRoom(th)
}

func keysOrVals(fn string, keys bool) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		if v, ok := args[0].(*Vector); ok {
			return entriesPart(fn, v, keys)
		}
		m, err := mapArg(fn, args[0])
		if err != nil {
			return nil, err
		}
		if m == nil || m.Len() == 0 {
			return Nil, nil
		}
		entries, err := m.seqEntries(th)
		if err != nil {
			return nil, err
		}
		out := make([]Value, 0, m.Len())
		for _, e := range entries {
			if keys {
				out = append(out, e.Key)
			} else {
				out = append(out, e.Val)
			}
		}
		return NewVector(out), nil
	}
}

// entriesPart is keys or vals of a sequence of map entries, as
// (->> m (sort-by val >) (take 3) keys) makes: Clojure takes any sequence
// of entries, and a sequence function's result is a vector of [key value]
// pairs here. An element that is not a pair is the type error Clojure's
// ClassCastException is.
func entriesPart(fn string, v *Vector, keys bool) (Value, error) {
	if v.Len() == 0 {
		return Nil, nil
	}
	out := make([]Value, 0, v.Len())
	for _, e := range v.elems {
		pair, ok := e.(*Vector)
		if !ok || !pair.isEntry() {
			// A [k v] vector is not a map entry: Clojure's keys and vals
			// cast every element to Map.Entry.
			return nil, Errorf(typeError, "%s expected a map or a sequence of its map entries, got an element %s", fn, describe(e)).
				WithHint("(%s m) takes the map itself, or the entries a sequence function made of it; of [k v] vectors take (map %s pairs)", fn, map[bool]string{true: "first", false: "second"}[keys]).
				asJava("ClassCastException", javaCastMessage(javaValueClass(e), "java.util.Map$Entry"))
		}
		if keys {
			out = append(out, pair.elems[0])
		} else {
			out = append(out, pair.elems[1])
		}
	}
	return NewVector(out), nil
}

func builtinEntries(th *Thread, args []Value) (Value, error) {
	m, err := mapArg("entries", args[0])
	if err != nil {
		return nil, err
	}
	if m == nil {
		return emptyVector, nil
	}
	elems, err := mapEntries(th, m)
	if err != nil {
		return nil, err
	}
	return NewVector(elems), nil
}

func entryPart(fn string, i int) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		if v, ok := args[0].(*Vector); ok && v.isEntry() {
			return v.elems[i], nil
		}
		e := javaErrorf(typeError, "ClassCastException", "%s expected a map entry, got %s", fn, describe(args[0]))
		if args[0] == Nil {
			return nil, e.asJava("NullPointerException", "Cannot invoke \"java.util.Map$Entry.getKey()\" because \"e\" is null")
		}
		// A [k v] vector is not a map entry, as in Clojure.
		return nil, e.WithHint("a map's entries come from (seq m), (first m), (find m k) and the sequence functions of a map; of a [k v] vector take (%s v)", map[int]string{0: "first", 1: "second"}[i]).
			asJava("ClassCastException", javaCastMessage(javaValueClass(args[0]), "java.util.Map$Entry"))
	}
}

func builtinZipmap(th *Thread, args []Value) (Value, error) {
	ks, err := seqOf(th, "zipmap", args[0], anySeq)
	if err != nil {
		return nil, err
	}
	vs, err := seqOf(th, "zipmap", args[1], anySeq)
	if err != nil {
		return nil, err
	}
	n := min(len(ks), len(vs))
	b := NewMapBuilder(0)
	for i := 0; i < n; i++ {
		if err := b.add(th, ks[i], vs[i]); err != nil {
			return nil, err
		}
	}
	return b.Map(), nil
}

// builtinHashMap is hash-map, a hash map at any size but 0 ((hash-map)
// is {} in Clojure).
func builtinHashMap(th *Thread, args []Value) (Value, error) {
	return pairsMap(th, "hash-map", args, len(args) > 0)
}

// builtinArrayMap is array-map, which iterates in the order of its
// arguments at any size, until a key is added to it past 8 entries.
func builtinArrayMap(th *Thread, args []Value) (Value, error) {
	return pairsMap(th, "array-map", args, false)
}

// noValueForKey is the error of a map built from an odd number of
// arguments (hash-map, array-map, sorted-map): Clojure's
// IllegalArgumentException names the key left without a value.
func noValueForKey(fn string, key Value) *Error {
	return Errorf(arityErrorKind, "%s expects key/value pairs, got an odd number of arguments", fn).
		WithHint("write (%s k1 v1 k2 v2)", fn).
		asJava("IllegalArgumentException", "No value supplied for key: "+javaText(key))
}

// javaText is the text Java's string concatenation gives a value: its
// str, and "null" for nil.
func javaText(v Value) string {
	if v == Nil {
		return "null"
	}
	return shownStr(v)
}

func pairsMap(th *Thread, fn string, args []Value, hashed bool) (Value, error) {
	if len(args)%2 != 0 {
		return nil, noValueForKey(fn, args[len(args)-1])
	}
	b := NewMapBuilder(0)
	for i := 0; i+1 < len(args); i += 2 {
		if err := b.add(th, args[i], args[i+1]); err != nil {
			return nil, err
		}
	}
	m := b.Map()
	if hashed {
		m.markHashMap()
	} else {
		m.order.Store(nil)
	}
	return m, nil
}

func mapEach(fn string, onKeys bool) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		m, err := mapArg(fn, args[0])
		if err != nil {
			return nil, err
		}
		if m == nil {
			m = emptyMap
		}
		entries, err := m.seqEntries(th)
		if err != nil {
			return nil, err
		}
		b := NewMapBuilder(m.Len())
		for _, e := range entries {
			if onKeys {
				k, err := call(th, fn, args[1], e.Key)
				if err != nil {
					return nil, err
				}
				if k, err = realizedKey(th, k); err != nil {
					return nil, err
				}
				b.Set(k, e.Val)
				continue
			}
			v, err := call(th, fn, args[1], e.Val)
			if err != nil {
				return nil, err
			}
			b.Set(e.Key, v)
		}
		if !onKeys {
			b.sameKind(m) // update-vals works on a transient of m, update-keys builds from {}
		} else if b.len() < m.Len() {
			// The map keeps the room made for every key of m, which f
			// sent to fewer keys; builds charges the keys it holds.
			if err := th.alloc(mapHeap.built(m.Len()) - mapHeap.built(b.len())); err != nil {
				return nil, err
			}
		}
		return b.Map(), nil
	}
}

func builtinRenameKeys(th *Thread, args []Value) (Value, error) {
	m, err := mapArg("rename-keys", args[0])
	if e, ok := err.(*Error); ok {
		return nil, e.castFails(args[0]) // Clojure's dissoc casts it to a map
	}
	renames, err := mapArg("rename-keys", args[1])
	if err != nil {
		return nil, err
	}
	if m == nil {
		return Nil, nil
	}
	if renames == nil {
		return m, nil
	}
	renamings, err := renames.seqEntries(th)
	if err != nil {
		return nil, err
	}
	b := NewMapBuilder(m.Len())
	b.hashLike(m) // Clojure dissocs the old keys from m, then assocs the new ones
	class := m.class()
	for _, r := range renamings {
		class = class.without(r.Key) // a record stays one unless a field is renamed
	}
	b.m.setClass(class)
	for _, e := range m.entries {
		if _, renamed := renames.Get(e.Key); !renamed {
			b.Set(e.Key, e.Val)
		}
	}
	for _, r := range renamings {
		if v, ok := m.Get(r.Key); ok {
			b.Set(r.Val, v)
		}
	}
	if o := orderOf(m); o != nil {
		return resorted(th, "rename-keys", o, b.Map())
	}
	return b.Map(), nil
}

func builtinMapInvert(th *Thread, args []Value) (Value, error) {
	m, err := mapArg("map-invert", args[0])
	if err != nil {
		return nil, err
	}
	if m == nil {
		return emptyMap, nil
	}
	entries, err := m.seqEntries(th)
	if err != nil {
		return nil, err
	}
	b := NewMapBuilder(m.Len())
	for _, e := range entries {
		b.Set(e.Val, e.Key)
	}
	return b.Map(), nil
}
