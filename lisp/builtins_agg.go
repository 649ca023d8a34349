package lisp

import "unicode/utf8"

// Aggregation and predicates on collections (spec 8.1). The -by
// aggregates skip items whose field is nil or missing and reject any other
// non-number (spec 11.4, 11.5).
var aggregateBuiltins = []*Builtin{
	{Name: "count", Sig: "(count coll)", Doc: "number of items (characters of a string); 0 for nil", Category: "collection",
		MinArgs: 1, MaxArgs: 1, Fn: readingTransient("count", builtinCount),
		Cost:    cost(scans(arg(0))),
		borrows: true},
	{Name: "reduce", Sig: "(reduce f coll) (reduce f init coll)", Doc: "fold: (f (f init x1) x2) ...; map items are [k v]", Category: "collection",
		MinArgs: 2, MaxArgs: 3, Fn: builtinReduce,
		Cost: cost(calls(lastArg)), lazy: lazyReduce},
	{Name: "reduce-kv", Sig: "(reduce-kv f init m)", Doc: "fold over a map calling (f acc k v)", Category: "collection",
		MinArgs: 3, MaxArgs: 3, Fn: builtinReduceKV,
		Cost: cost(calls(lastArg))},
	{Name: "sum-by", Sig: "(sum-by key coll)", Doc: "sum of (key item), nil skipped; 0 when empty", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: builtinSumBy,
		Cost: cost(visits(byColl), calls(byColl)),
		lean: true},
	{Name: "avg-by", Sig: "(avg-by key coll)", Doc: "float average of (key item), nil skipped; nil when none", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: builtinAvgBy,
		Cost: cost(visits(byColl), calls(byColl)),
		lean: true},
	{Name: "min-by", Sig: "(min-by key coll)", Doc: "item with the least (key item), nil skipped; nil when none", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: extremeBy("min-by", -1),
		Cost: cost(visits(byColl), calls(byColl), chargedInBody("each key f returns, visited whole (weigh) to order it")),
		lean: true},
	{Name: "max-by", Sig: "(max-by key coll)", Doc: "item with the greatest (key item), nil skipped; nil when none", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: extremeBy("max-by", 1),
		Cost: cost(visits(byColl), calls(byColl), chargedInBody("each key f returns, visited whole (weigh) to order it")),
		lean: true},
	{Name: "min-key", Sig: "(min-key f x y ...)", Doc: "argument with the least numeric (f x); use apply for a collection", Category: "collection",
		MinArgs: 2, MaxArgs: variadic, Fn: extremeKey("min-key", -1),
		Cost: cost(calls(argsFrom(1)))},
	{Name: "max-key", Sig: "(max-key f x y ...)", Doc: "argument with the greatest numeric (f x); use apply for a collection", Category: "collection",
		MinArgs: 2, MaxArgs: variadic, Fn: extremeKey("max-key", 1),
		Cost: cost(calls(argsFrom(1)))},
	{Name: "distinct-by", Sig: "(distinct-by key coll)", Doc: "first item for each distinct (key item)", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: builtinDistinctBy,
		Cost: cost(visits(byColl), calls(byColl), chargedInBody("each key f returns, hashed (chargeKey) when it returns"),
			chargedInBody("the keys' set and the result as they grow (chargeGrowth)")),
		lean: true},
	{Name: "group-by", Sig: "(group-by key coll)", Doc: "map from (key item) to the vector of items with it, in order", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: builtinGroupBy,
		Cost: cost(visits(byColl), calls(byColl), chargedInBody("each key f returns, hashed (chargeKey) when it returns"),
			chargedInBody("the map as it grows (chargeGrowth), then its groups' vectors"))},
	{Name: "frequencies", Sig: "(frequencies coll)", Doc: "map from each distinct item to how often it occurs", Category: "collection",
		MinArgs: 1, MaxArgs: 1, Fn: builtinFrequencies,
		Cost: cost(hashesItems(arg(0)), chargedInBody("the map as it grows (chargeGrowth)"))},
	{Name: "empty?", Sig: "(empty? coll)", Doc: "true for nil and empty collections or strings", Category: "collection",
		MinArgs: 1, MaxArgs: 1, Fn: builtinIsEmpty,
		Cost: cost(constant), lazy: lazyIsEmpty},
	{Name: "not-empty", Sig: "(not-empty coll)", Doc: "coll, or nil when empty", Category: "collection",
		MinArgs: 1, MaxArgs: 1, Fn: builtinNotEmpty,
		Cost: cost(constant), lazy: lazySeqForm},
	{Name: "some", Sig: "(some pred coll)", Doc: "first truthy (pred item), or nil", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: builtinSome,
		Cost: cost(calls(lastArg)),
		lazy: lazySome},
	{Name: "every?", Sig: "(every? pred coll)", Doc: "pred is truthy for every item (true when empty)", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: quantifier("every?", false, false, true),
		Cost: cost(calls(lastArg)), lazy: quantifierOf("every?", false, false)},
	{Name: "not-any?", Sig: "(not-any? pred coll)", Doc: "pred is truthy for no item", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: quantifier("not-any?", true, false, true),
		Cost: cost(calls(lastArg)), lazy: quantifierOf("not-any?", true, false)},
	{Name: "not-every?", Sig: "(not-every? pred coll)", Doc: "pred is falsy for some item", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: quantifier("not-every?", false, true, false),
		Cost: cost(calls(lastArg)), lazy: quantifierOf("not-every?", false, true)},
	{Name: "contains?", Sig: "(contains? coll x)", Doc: "x is a map's key, a set's member or a vector's item", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: readingTransient("contains?", sortedLookup("contains?", builtinContains)),
		Cost:    cost(hashes(arg(1)), compares(ifVector(arg(0)))),
		borrows: true, lean: true},
}

// keyAndColl returns the key function and collection of a -by aggregate.
// It also accepts them swapped, (group-by coll key), which is what
// (-> coll (group-by key)) produces; the language reference threads
// group-by that way (spec 8.2), and a vector is never a key function.
func keyAndColl(args []Value) (key, coll Value) {
	switch args[0].(type) {
	case *Vector, NilType:
		switch args[1].(type) {
		case *Vector, NilType:
		default:
			return args[1], args[0]
		}
	}
	return args[0], args[1]
}

func builtinCount(th *Thread, args []Value) (Value, error) {
	switch c := args[0].(type) {
	case *Vector:
		return Int(c.Len()), nil
	case *Map:
		return Int(c.Len()), nil
	case *Set:
		return Int(c.Len()), nil
	case String:
		return Int(utf8.RuneCountInString(string(c))), nil
	case NilType:
		return Int(0), nil
	}
	e := typeErrorf("count", "a collection or string", args[0])
	switch args[0].(type) {
	case Int, Float, Float32, *BigInt, *BigDec, Keyword, symbol, Bool:
		e.asJava("UnsupportedOperationException", "count not supported on this type: "+shortJavaClass(args[0]))
	}
	return nil, e
}

func builtinReduce(th *Thread, args []Value) (Value, error) {
	f := args[0]
	elems, err := seqOf(th, "reduce", args[len(args)-1], anySeq)
	if err != nil {
		return nil, err
	}
	var acc Value
	if len(args) == 3 {
		acc = args[1]
	} else {
		switch len(elems) {
		case 0:
			return call(th, "reduce", f)
		case 1:
			return elems[0], nil
		}
		acc, elems = elems[0], elems[1:]
	}
	for _, e := range elems {
		if acc, err = call(th, "reduce", f, acc, e); err != nil {
			return nil, err
		}
		if v, stop := unreduced(acc); stop {
			return v, nil
		}
	}
	return acc, nil
}

func builtinReduceKV(th *Thread, args []Value) (Value, error) {
	acc := args[1]
	var err error
	switch m := args[2].(type) {
	case NilType:
		return acc, nil
	case *Map:
		entries, err := m.seqEntries(th)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if acc, err = call(th, "reduce-kv", args[0], acc, e.Key, e.Val); err != nil {
				return nil, err
			}
		}
		return acc, nil
	case *Vector:
		if m.IsList() {
			return reduceKVEntries(th, args[0], acc, m)
		}
		for i, e := range m.elems {
			if acc, err = call(th, "reduce-kv", args[0], acc, Int(i), e); err != nil {
				return nil, err
			}
		}
		return acc, nil
	}
	return nil, typeErrorf("reduce-kv", "a map", args[2])
}

// reduceKVEntries is Clojure's reduce-kv of a list: a sequence, whose
// items must be map entries, read as key and value.
func reduceKVEntries(th *Thread, f, acc Value, l *Vector) (Value, error) {
	for _, e := range l.elems {
		entry, ok := e.(*Vector)
		if !ok || !entry.isEntry() {
			return nil, castError("reduce-kv", "a map, a vector or a sequence of map entries", e, "java.util.Map$Entry").
				WithHint("reduce-kv reads a map's keys and values or a vector's indexes and items; over a sequence use (reduce (fn [acc x] ...) init xs)")
		}
		var err error
		if acc, err = call(th, "reduce-kv", f, acc, entry.elems[0], entry.elems[1]); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// fieldValues returns (key item) for each item, skipping nil results and
// rejecting non-numbers when numeric is set.
func fieldValues(th *Thread, fn string, key, coll Value, numeric bool) (items, vals []Value, err error) {
	if _, kw := key.(Keyword); kw {
		if _, one := coll.(*Map); one {
			// A keyword of a [key value] entry is always nil: the caller
			// meant a collection of maps, most often (apply max-by :k coll).
			return nil, nil, javaErrorf(typeError, noJavaClass, "%s expected a collection of maps, got a single map", fn).
				WithHint("pass the collection itself, without apply: (%s %s coll)", fn, shown(key))
		}
	}
	elems, err := seqOf(th, fn, coll, anySeq)
	if err != nil {
		return nil, nil, err
	}
	items = make([]Value, 0, len(elems))
	vals = make([]Value, 0, len(elems))
	for _, e := range elems {
		v, err := call(th, fn, key, e)
		if err != nil {
			return nil, nil, err
		}
		if _, isNil := v.(NilType); isNil {
			continue
		}
		if !numeric {
			if _, err := weigh(th, v); err != nil {
				return nil, nil, err
			}
		}
		if _, ok := asFloat(v); numeric && !ok {
			return nil, nil, javaErrorf(typeError, noJavaClass, "%s expected numeric values, got %s", fn, describe(v)).
				WithHint("only nil and missing values are skipped; convert strings with parse-long or parse-double first")
		}
		items = append(items, e)
		vals = append(vals, v)
	}
	return items, vals, nil
}

func builtinSumBy(th *Thread, args []Value) (Value, error) {
	key, coll := keyAndColl(args)
	_, vals, err := fieldValues(th, "sum-by", key, coll, true)
	if err != nil {
		return nil, err
	}
	// Accumulate unboxed: integers exactly until a float appears.
	var isum int64
	var fsum float64
	isFloat := false
	for _, v := range vals {
		switch n := v.(type) {
		case Int:
			if isFloat {
				fsum += float64(n)
				continue
			}
			s := isum + int64(n)
			if (n > 0 && s < isum) || (n < 0 && s > isum) {
				return nil, overflowError("sum-by")
			}
			isum = s
		case Float, Float32:
			if !isFloat {
				isFloat, fsum = true, float64(isum)
			}
			f, _ := floatValue(n)
			fsum += f
		}
	}
	if isFloat {
		return Float(fsum), nil
	}
	return Int(isum), nil
}

func builtinAvgBy(th *Thread, args []Value) (Value, error) {
	key, coll := keyAndColl(args)
	_, vals, err := fieldValues(th, "avg-by", key, coll, true)
	if err != nil {
		return nil, err
	}
	if len(vals) == 0 {
		return Nil, nil
	}
	var sum float64
	for _, v := range vals {
		f, _ := asFloat(v)
		sum += f
	}
	return Float(sum / float64(len(vals))), nil
}

// extremeBy returns the first item whose key is least (dir -1) or greatest
// (dir 1); keys are numbers or strings, ordered as sort orders them.
func extremeBy(fn string, dir int) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		key, coll := keyAndColl(args)
		items, vals, err := fieldValues(th, fn, key, coll, false)
		if err != nil {
			return nil, err
		}
		if len(items) == 0 {
			return Nil, nil
		}
		best := 0
		for i := 1; i < len(items); i++ {
			c, err := compareValues(th, vals[i], vals[best], fn)
			if err != nil {
				return nil, err
			}
			if c*dir > 0 {
				best = i
			}
		}
		return items[best], nil
	}
}

// extremeKey is Clojure's min-key/max-key: keys must be numbers and, among
// equal keys, the last argument wins.
func extremeKey(fn string, dir int) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		f, xs := args[0], args[1:]
		if len(xs) == 1 {
			return xs[0], nil // Clojure does not call f for one item
		}
		var best, bestKey Value
		for _, x := range xs {
			k, err := call(th, fn, f, x)
			if err != nil {
				return nil, err
			}
			if _, err := numberArg(fn, k); err != nil {
				return nil, err
			}
			if best != nil {
				if c, _ := compareNumbers(k, bestKey); c*dir < 0 {
					continue
				}
			}
			best, bestKey = x, k
		}
		return best, nil
	}
}

func builtinDistinctBy(th *Thread, args []Value) (Value, error) {
	key, coll := keyAndColl(args)
	elems, err := seqOf(th, "distinct-by", coll, anySeq)
	if err != nil {
		return nil, err
	}
	seen := newSetBuilder()
	var out []Value
	for _, e := range elems {
		k, err := call(th, "distinct-by", key, e)
		if err != nil {
			return nil, err
		}
		if k, err = realizedKey(th, k); err != nil {
			return nil, err
		}
		added, err := seen.add(th, k)
		if err != nil {
			return nil, err
		}
		if !added {
			continue
		}
		if len(out) == cap(out) {
			if err := chargeGrowth(th, vectorHeap, len(out), heapSlot, false); err != nil {
				return nil, err
			}
		}
		out = appendRoom(out, e)
	}
	return NewVector(out), nil
}

func builtinGroupBy(th *Thread, args []Value) (Value, error) {
	key, coll := keyAndColl(args)
	elems, err := seqOf(th, "group-by", coll, anySeq)
	if err != nil {
		return nil, err
	}
	// Each element's group is found first, its number the place of its
	// key in the map being built; the groups are then laid out in one
	// array, each sized exactly, instead of growing a slice each.
	if err := th.alloc(heapWord * int64(len(elems))); err != nil { // groupOf
		return nil, err
	}
	b := NewMapBuilder(0)
	var sizes []int
	groupOf := make([]int, len(elems))
	for i, e := range elems {
		k, err := call(th, "group-by", key, e)
		if err != nil {
			return nil, err
		}
		if k, err = realizedKey(th, k); err != nil {
			return nil, err
		}
		g, added, err := b.slot(th, k, heapEntry+2*heapWord) // sizes and next beside it
		if err != nil {
			return nil, err
		}
		if added {
			sizes = appendRoom(sizes, 0)
		}
		groupOf[i] = g
		sizes[g]++
	}
	// The groups' vectors: their headers and elements.
	if err := th.alloc(heapVectorHead*int64(len(sizes)) + heapSlot*int64(len(elems))); err != nil {
		return nil, err
	}
	all := make([]Value, len(elems))
	next := make([]int, len(sizes)) // where group g's next element goes
	for g, at := 0, 0; g < len(sizes); g++ {
		next[g] = at
		at += sizes[g]
	}
	for i, e := range elems {
		all[next[groupOf[i]]] = e
		next[groupOf[i]]++
	}
	for g := range sizes {
		end := next[g]
		// A full slice expression, so that conj on one group copies
		// rather than writing into the next.
		b.put(g, NewVector(all[end-sizes[g]:end:end]))
	}
	return b.Map(), nil
}

func builtinFrequencies(th *Thread, args []Value) (Value, error) {
	elems, err := seqOf(th, "frequencies", args[0], anySeq)
	if err != nil {
		return nil, err
	}
	// Counted beside the map, and boxed once each at the end: a count
	// boxed at each increment allocated a word per item.
	b := NewMapBuilder(0)
	var counts []int
	for _, e := range elems {
		i, added, err := b.slot(th, e, heapEntry+heapWord)
		if err != nil {
			return nil, err
		}
		if added {
			counts = appendRoom(counts, 0)
		}
		counts[i]++
	}
	for i, n := range counts {
		b.put(i, Int(n))
	}
	return b.Map(), nil
}

// isEmpty reports whether a seqable value has no items.
func isEmpty(fn string, v Value) (bool, error) {
	switch c := v.(type) {
	case *Vector:
		return c.Len() == 0, nil
	case *Map:
		return c.Len() == 0, nil
	case *Set:
		return c.Len() == 0, nil
	case String:
		return c == "", nil
	case NilType:
		return true, nil
	}
	return false, typeErrorf(fn, "a collection, string or nil", v).notSeqable(v)
}

func builtinIsEmpty(th *Thread, args []Value) (Value, error) {
	e, err := isEmpty("empty?", args[0])
	if err != nil {
		return nil, err
	}
	return boolValue(e), nil
}

func builtinNotEmpty(th *Thread, args []Value) (Value, error) {
	e, err := isEmpty("not-empty", args[0])
	if err != nil {
		return nil, err
	}
	if e {
		return Nil, nil
	}
	return args[0], nil
}

func builtinSome(th *Thread, args []Value) (Value, error) {
	elems, err := seqOf(th, "some", args[1], anySeq)
	if err != nil {
		return nil, err
	}
	for _, e := range elems {
		v, err := call(th, "some", args[0], e)
		if err != nil {
			return nil, err
		}
		if truthy(v) {
			return v, nil
		}
	}
	return Nil, nil
}

// quantifier scans the items until (pred item) has the truthiness
// stopOnTruthy and then answers onStop; when no item stops it, atEnd.
func quantifier(fn string, stopOnTruthy, onStop, atEnd bool) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		elems, err := seqOf(th, fn, args[1], anySeq)
		if err != nil {
			return nil, err
		}
		for _, e := range elems {
			ok, err := truthyCall(th, fn, args[0], e)
			if err != nil {
				return nil, err
			}
			if ok == stopOnTruthy {
				return boolValue(onStop), nil
			}
		}
		return boolValue(atEnd), nil
	}
}

func builtinContains(th *Thread, args []Value) (Value, error) {
	switch c := args[0].(type) {
	case *Map:
		_, ok := c.Get(args[1])
		return boolValue(ok), nil
	case *Set:
		return boolValue(c.contains(args[1])), nil
	case *Vector:
		if c.IsList() {
			return nil, typeErrorf("contains?", "a map, set or vector", args[0]).
				asJava("IllegalArgumentException", "contains? not supported on type: clojure.lang.PersistentList")
		}
		for _, e := range c.elems {
			if Equal(e, args[1]) {
				return trueValue, nil
			}
		}
		return falseValue, nil
	case NilType:
		return falseValue, nil
	case String:
		// An index test, as Clojure's: (contains? "abc" 1) is true.
		var i int64
		switch k := args[1].(type) {
		case Int:
			i = int64(k)
		case Float:
			i = int64(k) // Clojure truncates a float index
		default:
			return nil, typeErrorf("contains?", "an integer index for a string", args[1]).
				WithHint("for substrings use (clojure.string/includes? s sub)").
				asJava("IllegalArgumentException", "contains? not supported on type: java.lang.String")
		}
		if i < 0 || i >= int64(len(c)) {
			return falseValue, nil
		}
		if i < int64(len(c))/utf8.UTFMax { // at least len/4 characters
			return trueValue, nil
		}
		// Counting the characters reads the string.
		if err := scan(th, len(c)); err != nil {
			return nil, err
		}
		return boolValue(i < int64(utf8.RuneCountInString(string(c)))), nil
	}
	return nil, typeErrorf("contains?", "a map, set or vector", args[0]).notSeqable(args[0])
}
