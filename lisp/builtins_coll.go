package lisp

import (
	"cmp"
	"math"
	"math/big"
	"slices"
	"unicode/utf8"
)

// Collection operations of spec 8.1: filtering, transforming, ordering and
// combining. Every sequence function takes vectors, sets, maps (as
// [key value] entries), strings (as one-character strings) and nil (as
// empty), and returns a vector: there are no lazy sequences or lists at run
// time.
var collectionBuiltins = []*Builtin{
	{Name: "filter", Sig: "(filter pred coll)", Doc: "items for which pred is truthy", Category: "collection",
		MinArgs: 1, MaxArgs: 2, Fn: selectBy("filter", true),
		Cost:  cost(visits(lastArg), calls(lastArg), builds),
		xform: &xform{1, filterStep}, lazy: lazyFilter},
	{Name: "filterv", Sig: "(filterv pred coll)", Doc: "same as filter", Category: "collection",
		MinArgs: 1, MaxArgs: 2, Fn: selectBy("filterv", true),
		Cost:  cost(visits(lastArg), calls(lastArg), builds),
		xform: &xform{1, filterStep}},
	{Name: "remove", Sig: "(remove pred coll)", Doc: "items for which pred is falsy", Category: "collection",
		MinArgs: 1, MaxArgs: 2, Fn: selectBy("remove", false),
		Cost:  cost(visits(lastArg), calls(lastArg), builds),
		xform: &xform{1, filterStep}, lazy: lazyRemove},
	{Name: "find", Sig: "(find pred coll) (find map key)", Doc: "first item for which pred is truthy, or nil; on a map, the [key value] entry of key, or nil", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: readingTransient("find", sortedLookup("find", builtinFind)),
		Cost: cost(calls(lastArg), lookups, chargedInBody("the [key value] entry it returns from a map or vector"))},
	{Name: "map", Sig: "(map f coll) (map f c1 c2 ...)", Doc: "f applied to each item (or to items of several collections in step, up to the shortest)", Category: "collection",
		MinArgs: 1, MaxArgs: variadic, Fn: mapping("map"),
		Cost:  cost(visits(argsFrom(1)), calls(argsFrom(1)), builds),
		xform: &xform{1, mapStep}, lazy: lazyMap},
	{Name: "mapv", Sig: "(mapv f coll) (mapv f c1 c2 ...)", Doc: "same as map", Category: "collection",
		MinArgs: 1, MaxArgs: variadic, Fn: mapping("mapv"),
		Cost:  cost(visits(argsFrom(1)), calls(argsFrom(1)), builds),
		xform: &xform{1, mapStep}, lazy: boundedByFinite},
	{Name: "pmap", Sig: "(pmap f coll)", Doc: "map, run sequentially", Category: "collection",
		MinArgs: 2, MaxArgs: variadic, Fn: mapping("pmap"),
		Cost: cost(visits(argsFrom(1)), calls(argsFrom(1)), builds),
		lean: true},
	{Name: "pcalls", Sig: "(pcalls f1 f2 ...)", Doc: "vector of the results of calling each zero-argument function, in order", Category: "collection",
		MinArgs: 0, MaxArgs: variadic, Fn: builtinPcalls,
		Cost: cost(calls(allArgs), builds)},
	{Name: "map-indexed", Sig: "(map-indexed f coll)", Doc: "(f index item) for each item", Category: "collection",
		MinArgs: 1, MaxArgs: 2, Fn: builtinMapIndexed,
		Cost:  cost(visits(lastArg), calls(lastArg), builds),
		xform: &xform{1, indexedStep}, lazyXform: true},
	{Name: "mapcat", Sig: "(mapcat f coll)", Doc: "concatenation of the collections (f item) returns", Category: "collection",
		MinArgs: 1, MaxArgs: variadic, Fn: builtinMapcat,
		Cost:  cost(visits(argsFrom(1)), calls(argsFrom(1)), chargedInBody("the concatenation of what f returns: a step and an element per item, charged before it is built (concatValues)")),
		xform: &xform{1, mapcatStep}, lazyXform: true, lazy: lazyMapcat},
	{Name: "keep", Sig: "(keep f coll)", Doc: "non-nil results of (f item)", Category: "collection",
		MinArgs: 1, MaxArgs: 2, Fn: builtinKeep,
		Cost:  cost(visits(lastArg), calls(lastArg), builds),
		xform: &xform{1, keepStep}, lazyXform: true},
	{Name: "keep-indexed", Sig: "(keep-indexed f coll)", Doc: "non-nil results of (f index item)", Category: "collection",
		MinArgs: 1, MaxArgs: 2, Fn: builtinKeepIndexed,
		Cost:  cost(visits(lastArg), calls(lastArg), builds),
		xform: &xform{1, indexedStep}, lazyXform: true},
	{Name: "pluck", Sig: "(pluck key coll)", Doc: "the key's value in each map: (pluck :name users)", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: builtinPluck,
		Cost: cost(visits(lastArg), chargedInBody("the key hashed for each lookup (getValue)"), builds),
		lean: true},
	{Name: "sort", Sig: "(sort coll) (sort :desc coll) (sort comparator coll)", Doc: "comparator may also be :asc or :desc", Category: "collection",
		MinArgs: 1, MaxArgs: 2, Fn: builtinSort,
		Cost: cost(orderingItems(lastArg), sorts(lastArg), calls(argsFrom(1)), builds),
		lean: true},
	{Name: "sort-by", Sig: "(sort-by keyfn coll) (sort-by keyfn comparator coll)", Doc: "comparator may also be :asc or :desc", Category: "collection",
		MinArgs: 2, MaxArgs: 3, Fn: builtinSortBy,
		Cost: cost(visits(lastArg), sorts(lastArg), calls(lastArg), chargedInBody("each key keyfn returns, visited whole (weigh) to order it"), builds),
		lean: true},
	{Name: "reverse", Sig: "(reverse coll)", Doc: "items in reverse order", Category: "collection",
		MinArgs: 1, MaxArgs: 1, Fn: builtinReverse,
		Cost: cost(visits(lastArg), builds)},
	{Name: "conj", Sig: "(conj coll x ...)", Doc: "add to the end of a vector, the front of a list, to a set, or [k v] entries to a map", Category: "collection",
		MinArgs: 0, MaxArgs: variadic, Fn: builtinConj,
		Cost: cost(perArg(argsFrom(1)), updates), lazy: lazyConj},
	{Name: "cons", Sig: "(cons x coll)", Doc: "vector of x followed by the items of coll", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: builtinCons,
		Cost: cost(visits(lastArg), builds), lazy: lazyCons},
	unlisted(&Builtin{Name: "list*", Sig: "(list* x ... coll)", Doc: "list of the xs followed by the items of coll; (list* nil) is nil", Category: "collection",
		MinArgs: 1, MaxArgs: variadic, Fn: builtinListStar,
		Cost: cost(visits(lastArg), builds), lazy: lazyListStar}),
	{Name: "concat", Sig: "(concat c1 c2 ...)", Doc: "items of all collections, in order", Category: "collection",
		MinArgs: 0, MaxArgs: variadic, Fn: builtinConcat,
		Cost: cost(generates(totalItems(allArgs))), lazy: lazyConcat},
	{Name: "into", Sig: "(into to from)", Doc: "items of from added to to: (into {} [[:a 1]]), (into #{} xs), (into [] m)", Category: "collection",
		MinArgs: 0, MaxArgs: 3, Fn: builtinInto,
		Cost: cost(visits(lastArg), calls(arg(1)), rehashes(ontoMap(arg(1))), updates)},
	{Name: "flatten", Sig: "(flatten coll)", Doc: "nested vectors flattened into one vector; maps and strings stay whole", Category: "collection",
		MinArgs: 1, MaxArgs: 1, Fn: builtinFlatten,
		Cost: cost(chargedInBody("a step per node of the nested vectors"), builds),
		lazy: lazyFlatten},
	{Name: "interleave", Sig: "(interleave c1 c2 ...)", Doc: "first items of each, then second items, ... up to the shortest", Category: "collection",
		MinArgs: 0, MaxArgs: variadic, Fn: builtinInterleave,
		Cost: cost(generates(interleavedCount)),
		lazy: lazyInterleave},
	{Name: "interpose", Sig: "(interpose sep coll)", Doc: "items with sep between them", Category: "collection",
		MinArgs: 1, MaxArgs: 2, Fn: builtinInterpose,
		Cost:  cost(visits(lastArg), builds),
		xform: &xform{1, interposeStep}, lazyXform: true},
	{Name: "zip", Sig: "(zip c1 c2)", Doc: "[a b] pairs of items in step, up to the shorter", Category: "collection",
		MinArgs: 1, MaxArgs: variadic, Fn: builtinZip,
		Cost: cost(visits(allArgs), buildsItems),
		lazy: boundedByFinite, lean: true},
	{Name: "seq", Sig: "(seq coll)", Doc: "items as a vector, or nil when empty; map entries as [k v], strings as characters", Category: "collection",
		MinArgs: 1, MaxArgs: 1, Fn: builtinSeq,
		Cost: cost(visits(unlessVector(arg(0))), builds), lazy: lazySeqForm},
	{Name: "vec", Sig: "(vec coll)", Doc: "items as a vector", Category: "collection",
		MinArgs: 1, MaxArgs: 1, Fn: builtinVec,
		Cost: cost(visits(unlessVector(arg(0))), builds)},
	{Name: "vector", Sig: "(vector x ...)", Doc: "vector of the arguments", Category: "collection",
		MinArgs: 0, MaxArgs: variadic, Fn: builtinVector,
		Cost: cost(builds)},
	{Name: "list", Sig: "(list x ...)", Doc: "list of the arguments: conj adds at its front, peek and pop work there", Category: "collection",
		MinArgs: 0, MaxArgs: variadic, Fn: builtinMakeList,
		Cost: cost(builds)},
	{Name: "doall", Sig: "(doall coll)", Doc: "coll itself: everything is already eager", Category: "collection",
		MinArgs: 1, MaxArgs: 2, Fn: func(th *Thread, args []Value) (Value, error) {
			if err := checkRealizeCount(th, "doall", args); err != nil {
				return nil, err
			}
			return args[len(args)-1], nil
		},
		Cost: cost(constant), lazy: realizesWhole("doall")},
	{Name: "dorun", Sig: "(dorun coll)", Doc: "nil: everything is already eager", Category: "collection",
		MinArgs: 1, MaxArgs: 2, Fn: func(th *Thread, args []Value) (Value, error) {
			if err := checkRealizeCount(th, "dorun", args); err != nil {
				return nil, err
			}
			return Nil, nil
		},
		Cost: cost(constant), lazy: realizesWhole("dorun")},
	{Name: "run!", Sig: "(run! f coll)", Doc: "call f on each item for its effect (println, tool calls); returns nil", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: builtinRun,
		Cost: cost(calls(lastArg))},
	{Name: "empty", Sig: "(empty coll)", Doc: "empty collection of the same kind", Category: "collection",
		MinArgs: 1, MaxArgs: 1, Fn: builtinEmpty,
		Cost: cost(constant)},
}

// Subsetting and generation (spec 8.1).
var sequenceBuiltins = []*Builtin{
	{Name: "first", Sig: "(first coll)", Doc: "first item, or nil", Category: "collection",
		MinArgs: 1, MaxArgs: 1, Fn: positional("first", 0),
		Cost: cost(chargedInBody("the character or [key value] entry it builds from a string or map (nthItem)")),
		lazy: lazyFirst, borrows: true},
	{Name: "second", Sig: "(second coll)", Doc: "second item, or nil", Category: "collection",
		MinArgs: 1, MaxArgs: 1, Fn: positional("second", 1),
		Cost: cost(chargedInBody("the character or [key value] entry it builds from a string or map (nthItem)")),
		lazy: lazySecond, borrows: true},
	{Name: "last", Sig: "(last coll)", Doc: "last item, or nil", Category: "collection",
		MinArgs: 1, MaxArgs: 1, Fn: builtinLast,
		Cost: cost(chargedInBody("the character or [key value] entry it builds from a string or map (nthItem)"))},
	{Name: "nth", Sig: "(nth coll index) (nth coll index default)", Doc: "item at index (from 0), or nil (or default) when out of range", Category: "collection",
		MinArgs: 2, MaxArgs: 3, Fn: readingTransient("nth", builtinNth),
		Cost: cost(chargedInBody("a step per character it skips in a string, and the character or [key value] entry it builds (nthItem)")),
		lazy: lazyNth, borrows: true},
	{Name: "rest", Sig: "(rest coll)", Doc: "all but the first item ([] when none)", Category: "collection",
		MinArgs: 1, MaxArgs: 1, Fn: restOf("rest", false),
		Cost: cost(views), lazy: lazyRest},
	{Name: "next", Sig: "(next coll)", Doc: "all but the first item, or nil when none", Category: "collection",
		MinArgs: 1, MaxArgs: 1, Fn: restOf("next", true),
		Cost: cost(views), lazy: lazyNext},
	{Name: "ffirst", Sig: "(ffirst coll)", Doc: "(first (first coll))", Category: "collection",
		MinArgs: 1, MaxArgs: 1, Fn: chain("ffirst", "first", "first"),
		Cost: cost(views, chargedInBody("the character or [key value] entry it builds from a string or map (nthItem)")), asksLazy: true},
	{Name: "fnext", Sig: "(fnext coll)", Doc: "(first (next coll))", Category: "collection",
		MinArgs: 1, MaxArgs: 1, Fn: chain("fnext", "next", "first"),
		Cost: cost(views, chargedInBody("the character or [key value] entry it builds from a string or map (nthItem)")), asksLazy: true},
	{Name: "nfirst", Sig: "(nfirst coll)", Doc: "(next (first coll))", Category: "collection",
		MinArgs: 1, MaxArgs: 1, Fn: chain("nfirst", "first", "next"),
		Cost: cost(views, chargedInBody("the character or [key value] entry it builds from a string or map (nthItem)")), asksLazy: true},
	{Name: "nnext", Sig: "(nnext coll)", Doc: "(next (next coll))", Category: "collection",
		MinArgs: 1, MaxArgs: 1, Fn: chain("nnext", "next", "next"),
		Cost: cost(views), asksLazy: true},
	{Name: "butlast", Sig: "(butlast coll)", Doc: "all but the last item, or nil when none", Category: "collection",
		MinArgs: 1, MaxArgs: 1, Fn: builtinButlast,
		Cost: cost(views)},
	{Name: "nthrest", Sig: "(nthrest coll n)", Doc: "all but the first n items", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: func(th *Thread, args []Value) (Value, error) {
			n, ok := args[1].(Int)
			if empty, err := isEmpty("nthrest", args[0]); ok && (n <= 0 || err == nil && empty) {
				// Clojure drops nothing and returns coll itself: nil,
				// {} and "" stay what they are.
				return args[0], nil
			}
			return takeDrop("nthrest", false, false)(th, []Value{args[1], args[0]})
		},
		Cost: cost(views), lazy: lazyNthrest(false)},
	{Name: "nthnext", Sig: "(nthnext coll n)", Doc: "all but the first n items, or nil when none", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: builtinNthnext,
		Cost: cost(views), lazy: lazyNthrest(true)},
	{Name: "take-nth", Sig: "(take-nth n coll)", Doc: "every nth item, starting with the first", Category: "collection",
		MinArgs: 1, MaxArgs: 2, Fn: builtinTakeNth,
		Cost:  cost(builds),
		xform: &xform{1, takeNthStep}, lazyXform: true},
	{Name: "take", Sig: "(take n coll)", Doc: "first n items", Category: "collection",
		MinArgs: 1, MaxArgs: 2, Fn: takeDrop("take", true, false),
		Cost:  cost(views),
		xform: &xform{1, takeStep}, lazy: lazyTake},
	{Name: "drop", Sig: "(drop n coll)", Doc: "all but the first n items", Category: "collection",
		MinArgs: 1, MaxArgs: 2, Fn: takeDrop("drop", false, false),
		Cost:  cost(views),
		xform: &xform{1, dropStep}, lazy: lazyDrop},
	{Name: "take-last", Sig: "(take-last n coll)", Doc: "last n items", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: takeDrop("take-last", true, true),
		Cost: cost(views)},
	{Name: "drop-last", Sig: "(drop-last coll) (drop-last n coll)", Doc: "all but the last n (default 1) items", Category: "collection",
		MinArgs: 1, MaxArgs: 2, Fn: builtinDropLast,
		Cost: cost(views), lazy: lazyDropLast},
	{Name: "take-while", Sig: "(take-while pred coll)", Doc: "leading items for which pred is truthy", Category: "collection",
		MinArgs: 1, MaxArgs: 2, Fn: whileBy("take-while", true),
		Cost:  cost(calls(lastArg), views),
		xform: &xform{1, takeWhileStep}, lazy: lazyTakeWhile},
	{Name: "drop-while", Sig: "(drop-while pred coll)", Doc: "items from the first one for which pred is falsy", Category: "collection",
		MinArgs: 1, MaxArgs: 2, Fn: whileBy("drop-while", false),
		Cost:  cost(calls(lastArg), views),
		xform: &xform{1, dropWhileStep}, lazy: lazyDropWhile},
	{Name: "split-at", Sig: "(split-at n coll)", Doc: "[(take n coll) (drop n coll)]", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: builtinSplitAt,
		Cost: cost(views, builds), lazy: lazySplit(lazyTake, lazyDrop)},
	{Name: "split-with", Sig: "(split-with pred coll)", Doc: "[(take-while pred coll) (drop-while pred coll)]", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: builtinSplitWith,
		Cost: cost(calls(lastArg), views, builds), lazy: lazySplit(lazyTakeWhile, lazyDropWhile)},
	{Name: "subvec", Sig: "(subvec v start) (subvec v start end)", Doc: "items of vector v from start up to end (exclusive)", Category: "collection",
		MinArgs: 2, MaxArgs: 3, Fn: builtinSubvec,
		Cost: cost(views)},
	{Name: "peek", Sig: "(peek v)", Doc: "last item of a vector, first of a list, or nil", Category: "collection",
		MinArgs: 1, MaxArgs: 1, Fn: builtinPeek,
		Cost: cost(constant)},
	{Name: "pop", Sig: "(pop v)", Doc: "vector without its last item, list without its first", Category: "collection",
		MinArgs: 1, MaxArgs: 1, Fn: builtinPop,
		Cost: cost(views)},
	{Name: "distinct", Sig: "(distinct coll)", Doc: "items without duplicates, first occurrence kept", Category: "collection",
		MinArgs: 0, MaxArgs: 1, Fn: builtinDistinct,
		Cost:  cost(hashesItems(arg(0)), chargedInBody("the set of the items seen as it grows (chargeGrowth), whose array the result is")),
		xform: &xform{0, distinctStep}, lazyXform: true},
	{Name: "dedupe", Sig: "(dedupe coll)", Doc: "items without consecutive duplicates", Category: "collection",
		MinArgs: 0, MaxArgs: 1, Fn: builtinDedupe,
		Cost:  cost(comparesItems(arg(0)), builds),
		xform: &xform{0, dedupeStep}, lazyXform: true},
	{Name: "partition", Sig: "(partition n coll) (partition n step coll) (partition n step pad coll)", Doc: "chunks of n items, every step items; an incomplete last chunk is dropped unless padded", Category: "collection",
		MinArgs: 2, MaxArgs: 4, Fn: partitioning("partition", false),
		Cost: cost(counts("a step per chunk and per item in it (a chunk sums its items' weights)", partitionWork), views,
			chargedInBody("the padded last chunk, a vector built when the items run out before it is full"), builds), lazy: lazyPartition(false)},
	{Name: "partition-all", Sig: "(partition-all n coll) (partition-all n step coll)", Doc: "chunks of n items; the last chunk may be shorter", Category: "collection",
		MinArgs: 1, MaxArgs: 3, Fn: partitioning("partition-all", true),
		Cost:  cost(counts("a step per chunk and per item in it (a chunk sums its items' weights)", partitionWork), views, builds),
		xform: &xform{1, chunkStep}, lazyXform: true, lazy: lazyPartition(true)},
	{Name: "partition-by", Sig: "(partition-by f coll)", Doc: "runs of consecutive items with equal (f item)", Category: "collection",
		MinArgs: 1, MaxArgs: 2, Fn: builtinPartitionBy,
		Cost:  cost(visits(lastArg), calls(lastArg), chargedInBody("each key f returns, compared whole (chargeEqual) with the one before"), views, builds),
		xform: &xform{1, chunkStep}, lazyXform: true},
	{Name: "range", Sig: "(range end) (range start end) (range start end step)", Doc: "numbers from start (0) up to end, exclusive, by step (1)", Category: "collection",
		MinArgs: 0, MaxArgs: 3, Fn: builtinRange,
		Cost: cost(generates(rangeCount))},
	{Name: "repeat", Sig: "(repeat n x)", Doc: "vector of n copies of x", Category: "collection",
		MinArgs: 1, MaxArgs: 2, Fn: builtinRepeat,
		Cost: cost(generates(repeatCount))},
	{Name: "repeatedly", Sig: "(repeatedly n f)", Doc: "vector of n results of calling f with no arguments", Category: "collection",
		MinArgs: 1, MaxArgs: 2, Fn: builtinRepeatedly,
		Cost: cost(generates(repeatCount), calls(arg(1)))},
}

// sub returns elems[i:j] as a vector that shares the backing array, and
// charges its header (the views of the cost declarations); the capacity is
// cut so that conj on it can never write into the original. parent is the
// collection elems came from.
func sub(th *Thread, parent Value, elems []Value, i, j int) (Value, error) {
	if err := th.allocVector(0); err != nil {
		return nil, err
	}
	switch p := parent.(type) {
	case *Vector:
		if len(elems) == p.Len() {
			return subVector(p, i, j), nil
		}
	case *Set:
		// A set's elements in its order are a cached slice: the view
		// shares it, and its weight comes from the set's as a vector's
		// does, so that (rest s) in a loop is not a walk of the whole set
		// that no step counts.
		if len(elems) == p.Len() {
			return newVectorWithTail(elems[i:j:j], j-i, subWeight(elems, weightOf(p), i, j)), nil
		}
	}
	return NewVector(elems[i:j:j]), nil
}

// subVector is v's items i..j: part of a vector known to hold no lazy
// sequence holds none either.
func subVector(v *Vector, i, j int) *Vector {
	w := subWeight(v.elems, v.valueWeight(), i, j)
	if holdsNoEndingSeq(v) {
		w |= seqFreeBit
	}
	return newVectorWithTail(v.elems[i:j:j], j-i, w)
}

// subWeight is the weight of elems[i:j], where whole is the weight of all
// of elems. It comes from whichever side is shorter, the items kept or the
// items dropped, so that taking all but a few items is O(1) per call.
func subWeight(elems []Value, whole int64, i, j int) int64 {
	const saturated = 1 << (nestsShift - 2) // addWeight's ceiling
	dropped := len(elems) - (j - i)
	if j-i <= dropped || whole >= saturated {
		w := int64(1)
		for _, e := range elems[i:j] {
			w = addWeight(w, weightOf(e))
		}
		return w
	}
	for _, e := range elems[:i] {
		whole -= weightOf(e)
	}
	for _, e := range elems[j:] {
		whole -= weightOf(e)
	}
	return whole
}

func selectBy(fn string, keep bool) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		elems, err := seqOf(th, fn, args[1], anySeq)
		if err != nil {
			return nil, err
		}
		// The kept elements gather on the scratch stack (the predicate's
		// calls push above them and pop back), then move to a vector of
		// their exact number: one allocation instead of a growing slice.
		base := len(th.scratch)
		for _, e := range elems {
			ok, err := truthyCall(th, fn, args[0], e)
			if err != nil {
				th.popScratch(base)
				return nil, err
			}
			if ok == keep {
				th.scratch = append(th.scratch, e)
			}
		}
		return NewVector(th.popCollected(base)), nil
	}
}

// mapEntryOf is find's answer: an entry, charged as a vector of two.
func mapEntryOf(th *Thread, k, v Value) (Value, error) {
	e, err := newVector(th, []Value{k, v})
	if err != nil {
		return nil, err
	}
	e.(*Vector).form = entryForm
	return e, nil
}

func builtinFind(th *Thread, args []Value) (Value, error) {
	// (find m k) is Clojure's entry lookup: using the map as a predicate
	// over k's items would answer nil where the caller means the entry.
	switch c := args[0].(type) {
	case *Map:
		k, err := realizedKey(th, args[1])
		if err != nil {
			return nil, err
		}
		if v, ok := c.Get(k); ok {
			return mapEntryOf(th, args[1], v)
		}
		return Nil, nil
	case *Vector:
		if i, ok := args[1].(Int); ok && !c.IsList() {
			if i >= 0 && int64(i) < int64(c.Len()) {
				return mapEntryOf(th, i, c.elems[i])
			}
			return Nil, nil
		}
	case NilType:
		return Nil, nil // Clojure's (find nil k); nil is no function either
	}
	elems, err := seqOf(th, "find", args[1], anySeq)
	if err != nil {
		return nil, err
	}
	for _, e := range elems {
		ok, err := truthyCall(th, "find", args[0], e)
		if err != nil {
			return nil, err
		}
		if ok {
			return e, nil
		}
	}
	return Nil, nil
}

func mapping(fn string) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		f := args[0]
		colls := make([][]Value, len(args)-1)
		n := math.MaxInt
		for i, c := range args[1:] {
			elems, err := seqOf(th, fn, c, anySeq)
			if err != nil {
				return nil, err
			}
			colls[i] = elems
			n = min(n, len(elems))
		}
		out := make([]Value, 0, n)
		callArgs := make([]Value, len(colls))
		for i := 0; i < n; i++ {
			for j, c := range colls {
				callArgs[j] = c[i]
			}
			v, err := call(th, fn, f, callArgs...)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return NewVector(out), nil
	}
}

func builtinPcalls(th *Thread, args []Value) (Value, error) {
	out := make([]Value, 0, len(args))
	for _, f := range args {
		v, err := call(th, "pcalls", f)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return NewVector(out), nil
}

func builtinMapIndexed(th *Thread, args []Value) (Value, error) {
	elems, err := seqOf(th, "map-indexed", args[1], anySeq)
	if err != nil {
		return nil, err
	}
	out := make([]Value, 0, len(elems))
	for i, e := range elems {
		v, err := call(th, "map-indexed", args[0], Int(i), e)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return NewVector(out), nil
}

func builtinMapcat(th *Thread, args []Value) (Value, error) {
	parts, err := mapping("mapcat")(th, args)
	if err != nil {
		return nil, err
	}
	// What f returned is known only now: the concatenation is charged
	// as concat's generates term would charge it.
	colls := parts.(*Vector).elems
	n := totalItems(allArgs)(colls)
	if err := th.step(n); err != nil {
		return nil, err
	}
	if err := th.alloc(vectorHeap.shape(len(colls), false) + vectorHeap.shape(int(n), false)); err != nil {
		return nil, err
	}
	return concatValues(th, "mapcat", colls)
}

func builtinKeep(th *Thread, args []Value) (Value, error) {
	elems, err := seqOf(th, "keep", args[1], anySeq)
	if err != nil {
		return nil, err
	}
	var out []Value
	for _, e := range elems {
		v, err := call(th, "keep", args[0], e)
		if err != nil {
			return nil, err
		}
		if _, isNil := v.(NilType); !isNil {
			out = append(out, v)
		}
	}
	return NewVector(out), nil
}

func builtinKeepIndexed(th *Thread, args []Value) (Value, error) {
	elems, err := seqOf(th, "keep-indexed", args[1], anySeq)
	if err != nil {
		return nil, err
	}
	var out []Value
	for i, e := range elems {
		v, err := call(th, "keep-indexed", args[0], Int(i), e)
		if err != nil {
			return nil, err
		}
		if _, isNil := v.(NilType); !isNil {
			out = append(out, v)
		}
	}
	return NewVector(out), nil
}

func builtinPluck(th *Thread, args []Value) (Value, error) {
	elems, err := seqOf(th, "pluck", args[1], anySeq)
	if err != nil {
		return nil, err
	}
	out := make([]Value, 0, len(elems))
	for _, e := range elems {
		v, err := getValue(th, e, args[0], Nil)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return NewVector(out), nil
}

// sorter orders items by keys with an optional comparator; the first error
// a comparison meets stops the sort and is returned.
type sorter struct {
	th   *Thread
	fn   string
	cmp  Value // nil: natural order; else :asc, :desc or a function
	desc bool
	err  error
	// perComparison charges a step per comparison (sorted collections,
	// which cannot declare how many they make); sort declares n log n.
	perComparison bool
}

func (s *sorter) compare(a, b Value) int {
	if s.err != nil {
		return 0
	}
	if s.perComparison {
		if s.err = s.th.step(1); s.err != nil {
			return 0
		}
	}
	var c int
	if s.cmp == nil {
		c, s.err = compareValues(s.th, a, b, s.fn)
	} else {
		c, s.err = s.callComparator(a, b)
	}
	if s.desc {
		c = -c
	}
	return c
}

// callComparator supports both comparator styles Clojure accepts: a function
// returning a number (compare) and a boolean "less than" (<, >). A number
// is read as Java's intValue reads it, as Clojure's comparator does: a
// float truncated toward zero (0.5 is equal), an integer cut to its low 32
// bits (4294967296 is equal, 2147483648 negative).
func (s *sorter) callComparator(a, b Value) (int, error) {
	v, err := call(s.th, s.fn, s.cmp, a, b)
	if err != nil {
		return 0, err
	}
	switch v := v.(type) {
	case NilType:
		// Clojure takes an answer that is not a boolean as a number: nil
		// fails there, it does not say "equal".
		return 0, javaErrorf(typeError, "NullPointerException", "%s comparator must return a number or a boolean, got nil", s.fn)
	case Bool:
		if truthy(v) {
			return -1, nil
		}
		w, err := call(s.th, s.fn, s.cmp, b, a)
		if err != nil {
			return 0, err
		}
		if truthy(w) {
			return 1, nil
		}
		return 0, nil
	}
	if n, ok := javaIntValue(v); ok {
		return cmp.Compare(n, 0), nil
	}
	return 0, javaErrorf(typeError, "ClassCastException", "%s comparator must return a number or a boolean, got %s", s.fn, describe(v))
}

// javaIntValue is a number as Java's Number.intValue gives it: an integer
// cut to its low 32 bits, a float or a decimal truncated toward zero (a
// float saturating at the int range, NaN 0, a decimal then cut to 32
// bits). ok is false for anything but a number.
func javaIntValue(v Value) (n int32, ok bool) {
	switch x := v.(type) {
	case Int:
		return int32(x), true
	case Float, Float32:
		f, _ := floatValue(x)
		switch {
		case f != f:
			return 0, true
		case f >= math.MaxInt32:
			return math.MaxInt32, true
		case f <= math.MinInt32:
			return math.MinInt32, true
		}
		return int32(f), true
	case *BigInt:
		return lowInt32(x.n), true
	case *BigDec:
		switch {
		case x.scale <= -32:
			return 0, true // a multiple of 10^32, so of 2^32
		case x.scale < 0:
			p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-x.scale)), nil)
			return lowInt32(p.Mul(p, x.unscaled)), true
		case int64(x.scale) > int64(len(x.unscaled.Bits()))*20:
			return 0, true // |unscaled| < 2^(64 words) < 10^scale
		}
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.scale)), nil)
		return lowInt32(p.Quo(x.unscaled, p)), true
	}
	return 0, false
}

// lowInt32 is the low 32 bits of x in two's complement, as a signed int.
func lowInt32(x *big.Int) int32 {
	return int32(uint32(new(big.Int).And(x, big.NewInt(math.MaxUint32)).Uint64()))
}

// newSorter interprets a comparator argument.
func newSorter(th *Thread, fn string, cmp Value) (*sorter, error) {
	s := &sorter{th: th, fn: fn}
	switch c := cmp.(type) {
	case nil:
	case Keyword:
		switch c {
		case "asc":
		case "desc":
			s.desc = true
		default:
			return nil, Errorf(typeError, "%s order must be :asc or :desc, got :%s", fn, string(c)).
				notAn("java.util.Comparator", c)
		}
	default:
		_, callable := cmp.(Callable)
		switch cmp.(type) {
		case *Vector, *Set, *Map:
			callable = false // callable, but a collection here is a misplaced argument
		}
		if !callable {
			e := javaErrorf(typeError, noJavaClass, "%s expected a comparator (:asc, :desc or a function), got %s", fn, describe(cmp))
			if cmp != Nil || fn == "sort-by" { // (sort nil coll) sorts in Clojure: nil is no comparator
				e.notAn("java.util.Comparator", cmp)
			}
			switch cmp.(type) {
			case *Vector, *Set, *Map, NilType:
				if fn == "sort-by" {
					return nil, e.WithHint("the comparator goes before the collection: (sort-by keyfn > coll)")
				}
				return nil, e.WithHint("the comparator goes before the collection: (%s > coll)", fn)
			}
			return nil, e
		}
		s.cmp = cmp
	}
	return s, nil
}

func builtinSort(th *Thread, args []Value) (Value, error) {
	var cmp Value
	coll := args[len(args)-1]
	if len(args) == 2 {
		cmp = args[0]
	}
	s, err := newSorter(th, "sort", cmp)
	if err != nil {
		return nil, err
	}
	elems, err := seqOf(th, "sort", coll, anySeq)
	if err != nil {
		return nil, err
	}
	return sortedBy(th, s, elems, elems)
}

// sortedBy returns items ordered by their keys, stably: equal keys keep the
// items' order. Sorting positions with the position as the last tie-break
// is stable with Go's (faster, unstable) pattern-defeating quicksort. A
// comparator function may answer what no order answers ((fn [a b] -1)):
// a merge sort, like Java's, then gives what Clojure gives for a
// comparator of one answer (the items reversed for -1 or true, as they
// are for 1, 0 or false), where the quicksort scrambles them.
func sortedBy(th *Thread, s *sorter, keys, items []Value) (Value, error) {
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	if _, ascDesc := s.cmp.(Keyword); s.cmp != nil && !ascDesc {
		slices.SortStableFunc(order, func(a, b int) int { return s.compare(keys[a], keys[b]) })
	} else {
		slices.SortFunc(order, func(a, b int) int {
			if c := s.compare(keys[a], keys[b]); c != 0 {
				return c
			}
			return a - b
		})
	}
	if s.err != nil {
		return nil, s.err
	}
	out := make([]Value, 0, len(items))
	for _, i := range order {
		out = append(out, items[i])
	}
	return NewVector(out), nil
}

func builtinSortBy(th *Thread, args []Value) (Value, error) {
	var cmp Value
	keyfn, coll := args[0], args[len(args)-1]
	if len(args) == 3 {
		cmp = args[1]
	}
	s, err := newSorter(th, "sort-by", cmp)
	if err != nil {
		return nil, err
	}
	elems, err := seqOf(th, "sort-by", coll, anySeq)
	if err != nil {
		return nil, err
	}
	keys := make([]Value, len(elems))
	for i, e := range elems {
		k, err := call(th, "sort-by", keyfn, e)
		if err != nil {
			return nil, err
		}
		if _, err := weigh(th, k); err != nil {
			return nil, err
		}
		keys[i] = k
	}
	return sortedBy(th, s, keys, elems)
}

func builtinReverse(th *Thread, args []Value) (Value, error) {
	elems, err := seqOf(th, "reverse", args[0], orderedSeq)
	if err != nil {
		return nil, err
	}
	out := make([]Value, 0, len(elems))
	for i := len(elems) - 1; i >= 0; i-- {
		out = append(out, elems[i])
	}
	return NewVector(out), nil
}

func builtinConj(th *Thread, args []Value) (Value, error) {
	switch len(args) {
	case 0:
		return emptyVector, nil
	case 1:
		return args[0], nil // Clojure's (conj x) is x, whatever it is
	}
	return conjAll(th, args[0], args[1:])
}

// conjAll adds xs to coll, charging the update as it makes it.
func conjAll(th *Thread, coll Value, xs []Value) (Value, error) {
	switch c := coll.(type) {
	case NilType:
		// Clojure's (conj nil x) is a list: (conj nil 1 2) is (2 1).
		if len(xs) == 0 {
			return Nil, nil
		}
		return conjList(th, emptyList, xs)
	case *Vector:
		if c.IsList() {
			return conjList(th, c, xs)
		}
		if err := th.alloc(vectorHeap.shape(len(xs), false)); err != nil {
			return nil, err
		}
		for _, x := range xs {
			if err := chargeMove(th, c.conjMoves(), heapSlot); err != nil {
				return nil, err
			}
			c = c.conj(x)
		}
		return c, nil
	case *Set:
		if o := orderOf(c); o != nil && len(xs) > 1 {
			// One sort for all items instead of one insertion each.
			if err := chargeKeys(th, xs); err != nil {
				return nil, err
			}
			return conjAllSorted(th, o, c, xs)
		}
		var err error
		for _, x := range xs {
			if c, err = conjSet(th, c, x); err != nil {
				return nil, err
			}
		}
		return c, nil
	case *Map:
		if len(xs) == 1 {
			if pair, ok := xs[0].(*Vector); ok && !pair.IsList() && pair.Len() == 2 {
				// One entry: the in-place growth of assoc, not a copy.
				return assocValue(th, "conj", c, pair.elems[0], pair.elems[1])
			}
		}
		if err := chargeMapKeys(th, c); err != nil {
			return nil, err
		}
		// The copy of c is sized and charged as one; the entries added
		// grow it, each growth charged (chargeGrowth), so that many
		// entries of few keys cost what the map holds.
		if err := chargeCopy(th, mapHeap, c.Len(), 0); err != nil {
			return nil, err
		}
		b := NewMapBuilder(c.Len())
		b.addAll(c)
		for _, x := range xs {
			if err := addEntry(th, b, "conj", x); err != nil {
				return nil, err
			}
		}
		if o := orderOf(c); o != nil {
			return resorted(th, "conj", o, b.Map())
		}
		return b.Map(), nil
	}
	return nil, typeErrorf("conj", "a vector, set, map or nil", coll).castFails(coll)
}

// conjList adds xs at the front of l, one after another as Clojure does:
// (conj '(1) 2 3) is (3 2 1). The list is copied, and paid for as a copy.
func conjList(th *Thread, l *Vector, xs []Value) (Value, error) {
	if err := chargeCopy(th, vectorHeap, l.Len(), len(xs)); err != nil {
		return nil, err
	}
	if err := th.allocVector(l.Len() + len(xs)); err != nil {
		return nil, err
	}
	out := make([]Value, 0, l.Len()+len(xs))
	for i := len(xs) - 1; i >= 0; i-- {
		out = append(out, xs[i])
	}
	return newList(append(out, l.elems...)), nil
}

// addEntry adds a [key value] vector, or every entry of a map, to b.
func addEntry(th *Thread, b *MapBuilder, fn string, x Value) error {
	switch x := x.(type) {
	case *Vector:
		if x.IsList() {
			// Clojure's map conj takes a seq as a seq of map entries,
			// which no list here holds: (into {} '((:a 1))) casts :a.
			if x.Len() == 0 {
				return nil
			}
			return Errorf(typeError, "%s expected [key value] vectors for a map, got %s", fn, describe(x)).
				asJava("ClassCastException", javaCastMessage(javaValueClass(x.elems[0]), "java.util.Map$Entry")).
				WithHint("write each entry as a vector: [k v]")
		}
		if x.Len() != 2 {
			return Errorf(typeError, "%s expected [key value] pairs for a map, got a vector of %d items", fn, x.Len()).
				asJava("IllegalArgumentException", "Vector arg to map conj must be a pair")
		}
		k, err := realizedKey(th, x.elems[0])
		if err != nil {
			return err
		}
		return b.add(th, k, x.elems[1])
	case *Map:
		if err := chargeMapKeys(th, x); err != nil {
			return err
		}
		entries, err := x.seqEntries(th) // conj of a map adds its entries in its order
		if err != nil {
			return err
		}
		for _, e := range entries {
			if err := b.add(th, e.Key, e.Val); err != nil {
				return err
			}
		}
		return nil
	case NilType:
		return nil
	}
	return Errorf(typeError, "%s expected [key value] pairs for a map, got %s", fn, describe(x)).walkFails(x)
}

func builtinCons(th *Thread, args []Value) (Value, error) {
	elems, err := seqOf(th, "cons", args[1], anySeq)
	if err != nil {
		return nil, err
	}
	out := make([]Value, 0, len(elems)+1)
	out = append(append(out, args[0]), elems...)
	return NewVector(out), nil
}

// builtinListStar is Clojure's list*: the leading arguments consed onto
// the seq of the last, which is nil when all of it is empty.
func builtinListStar(th *Thread, args []Value) (Value, error) {
	last := len(args) - 1
	elems, err := seqOf(th, "list*", args[last], anySeq)
	if err != nil {
		return nil, err
	}
	if last == 0 && len(elems) == 0 {
		return Nil, nil
	}
	out := make([]Value, 0, last+len(elems))
	out = append(append(out, args[:last]...), elems...)
	return newList(out), nil
}

func builtinConcat(th *Thread, args []Value) (Value, error) {
	return concatValues(th, "concat", args)
}

func concatValues(th *Thread, fn string, colls []Value) (Value, error) {
	parts := make([][]Value, len(colls))
	n := 0
	for i, c := range colls {
		elems, err := seqOf(th, fn, c, anySeq)
		if err != nil {
			return nil, err
		}
		parts[i] = elems
		n += len(elems)
	}
	out := make([]Value, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return NewVector(out), nil
}

func builtinInto(th *Thread, args []Value) (Value, error) {
	switch len(args) {
	case 0:
		return emptyVector, nil
	case 1:
		return args[0], nil
	case 3:
		return intoXform(th, args)
	}
	to, from := args[0], args[1]
	if m, ok := to.(*Map); ok {
		if fm, ok := from.(*Map); ok {
			return mergeMaps(th, "into", []Value{m, fm})
		}
	}
	elems, err := seqOf(th, "into", from, anySeq)
	if err != nil {
		return nil, err
	}
	switch to.(type) {
	case *Map, *Set, *Vector, NilType:
		return conjAll(th, to, elems)
	}
	return nil, typeErrorf("into", "a vector, set, map or nil to add to", to).castFails(to)
}

// flattenFrameBytes is one frame of flatten's stack: a slice header and
// an index.
const flattenFrameBytes = 32

func builtinFlatten(th *Thread, args []Value) (Value, error) {
	root, ok := args[0].(*Vector)
	if !ok {
		return emptyVector, nil
	}
	// An explicit stack instead of recursion: a value built in a loop can
	// nest deeper than the Go stack should go.
	type frame struct {
		elems []Value
		i     int
	}
	var out []Value
	stack := []frame{{root.elems, 0}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.i == len(top.elems) {
			stack = stack[:len(stack)-1]
			continue
		}
		e := top.elems[top.i]
		top.i++
		if err := th.step(1); err != nil {
			return nil, err
		}
		if s, ok := e.(*infiniteSeq); ok && s.ends() {
			// A lazy sequence inside is flattened as the list it reads as,
			// read here rather than before: the value may nest deeper
			// than a walk of it goes.
			whole, err := s.realizeAll(th)
			if err != nil {
				return nil, err
			}
			e = whole
		}
		if v, ok := e.(*Vector); ok {
			// The stack is as deep as the value: a frame and the copy
			// its growth makes are charged as they are pushed.
			if err := th.alloc(2 * flattenFrameBytes); err != nil {
				return nil, err
			}
			stack = append(stack, frame{v.elems, 0})
			continue
		}
		out = append(out, e)
	}
	return NewVector(out), nil
}

// interleavedCount is the length of interleave's result: the shortest
// collection's length times their number.
func interleavedCount(args []Value) int64 {
	if len(args) == 0 {
		return 0
	}
	n := int64(math.MaxInt64)
	for _, c := range args {
		n = min(n, itemCount(c))
	}
	return n * int64(len(args))
}

func builtinInterleave(th *Thread, args []Value) (Value, error) {
	colls := make([][]Value, len(args))
	n := math.MaxInt
	for i, c := range args {
		elems, err := seqOf(th, "interleave", c, anySeq)
		if err != nil {
			return nil, err
		}
		colls[i] = elems
		n = min(n, len(elems))
	}
	if len(args) == 0 {
		n = 0
	}
	out := make([]Value, 0, n*len(colls))
	for i := 0; i < n; i++ {
		for _, c := range colls {
			out = append(out, c[i])
		}
	}
	return NewVector(out), nil
}

func builtinInterpose(th *Thread, args []Value) (Value, error) {
	elems, err := seqOf(th, "interpose", args[1], anySeq)
	if err != nil {
		return nil, err
	}
	out := make([]Value, 0, max(2*len(elems)-1, 0))
	for i, e := range elems {
		if i > 0 {
			out = append(out, args[0])
		}
		out = append(out, e)
	}
	return NewVector(out), nil
}

func builtinZip(th *Thread, args []Value) (Value, error) {
	colls := make([][]Value, len(args))
	n := math.MaxInt
	for i, c := range args {
		elems, err := seqOf(th, "zip", c, anySeq)
		if err != nil {
			return nil, err
		}
		colls[i] = elems
		n = min(n, len(elems))
	}
	out := make([]Value, 0, n)
	for i := 0; i < n; i++ {
		tuple := make([]Value, len(colls))
		for j, c := range colls {
			tuple[j] = c[i]
		}
		out = append(out, NewVector(tuple))
	}
	return NewVector(out), nil
}

func builtinSeq(th *Thread, args []Value) (Value, error) {
	if v, ok := args[0].(*Vector); ok {
		if v.Len() == 0 {
			return Nil, nil
		}
		return v, nil
	}
	elems, err := seqOf(th, "seq", args[0], anySeq)
	if err != nil {
		return nil, err
	}
	if len(elems) == 0 {
		return Nil, nil
	}
	return NewVector(slices.Clone(elems)), nil
}

func builtinVec(th *Thread, args []Value) (Value, error) {
	if v, ok := args[0].(*Vector); ok && !v.IsList() {
		return v, nil
	}
	elems, err := seqOf(th, "vec", args[0], anySeq)
	if e, ok := err.(*Error); ok && e.class != "" {
		// Clojure's vec copies an array, not a seq, so it fails otherwise.
		return nil, e.asJava("RuntimeException", "Unable to convert: class "+javaValueClass(args[0])+" to Object[]")
	}
	if err != nil {
		return nil, err
	}
	return NewVector(slices.Clone(elems)), nil
}

func builtinVector(th *Thread, args []Value) (Value, error) {
	return NewVector(slices.Clone(args)), nil
}

func builtinMakeList(th *Thread, args []Value) (Value, error) {
	return newList(slices.Clone(args)), nil
}

func builtinEmpty(th *Thread, args []Value) (Value, error) {
	switch v := args[0].(type) {
	case *Vector:
		if v.IsList() {
			return emptyList, nil
		}
		return emptyVector, nil
	case *Map:
		if o := orderOf(v); o != nil {
			return emptySorted(o, false), nil
		}
		if v.class() != nil {
			return nil, Errorf(typeError, "empty of a record (%s): Clojure cannot make an empty record", v.class().name).
				WithHint("write {} for (empty r): Clojure has no empty record").
				asJava("UnsupportedOperationException", "Can't create empty: "+v.class().name)
		}
		if v.isHashMap() {
			// Clojure's (empty m) of a hash map is an empty hash map,
			// which stays one as keys are added.
			m := &Map{weight: 1 << nestsShift}
			m.markHashMap()
			return m, nil
		}
		return emptyMap, nil
	case *Set:
		if o := orderOf(v); o != nil {
			return emptySorted(o, true), nil
		}
		return emptySet, nil
	}
	return Nil, nil // a string or anything else that is not a collection, as Clojure
}

// nthItem returns item i of coll without materializing strings or maps.
func nthItem(th *Thread, fn string, coll Value, i int) (Value, bool, error) {
	if i < 0 {
		return Nil, false, nil
	}
	switch c := coll.(type) {
	case *Vector:
		if i < c.Len() {
			return c.elems[i], true, nil
		}
		return Nil, false, nil
	case String:
		if err := th.step(int64(min(i, len(c)))); err != nil {
			return nil, false, err
		}
		n := 0
		for _, r := range c {
			if n == i {
				v, err := newString(th, string(r))
				return v, err == nil, err
			}
			n++
		}
		return Nil, false, nil
	case *Map:
		if i < c.Len() {
			if err := th.allocVector(2); err != nil {
				return nil, false, err
			}
			entries, err := c.seqEntries(th)
			if err != nil {
				return nil, false, err
			}
			e := entries[i]
			return newMapEntry(e.Key, e.Val), true, nil
		}
		return Nil, false, nil
	}
	elems, err := seqOf(th, fn, coll, orderedSeq) // a sorted set, or an error
	if err != nil || i >= len(elems) {
		return Nil, false, err
	}
	return elems[i], true, nil
}

func positional(fn string, i int) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		v, _, err := nthItem(th, fn, args[0], i)
		return v, err
	}
}

func builtinLast(th *Thread, args []Value) (Value, error) {
	switch c := args[0].(type) {
	case *Vector:
		if c.Len() == 0 {
			return Nil, nil
		}
		return c.elems[c.Len()-1], nil
	case String:
		if c == "" {
			return Nil, nil
		}
		r, _ := utf8.DecodeLastRuneInString(string(c))
		return newString(th, string(r))
	case *Map:
		return positional("last", c.Len()-1)(th, args)
	}
	elems, err := seqOf(th, "last", args[0], orderedSeq) // a sorted set, or an error
	if err != nil || len(elems) == 0 {
		return Nil, err
	}
	return elems[len(elems)-1], nil
}

func builtinNth(th *Thread, args []Value) (Value, error) {
	switch args[0].(type) {
	case *Map, *Set:
		return nil, nthUnsupported(typeErrorf("nth", "a vector, list, string or nil", args[0]).
			WithHint("take the item of its sequence: (nth (seq coll) i)"), args[0])
	case Int, Float, Keyword, Bool:
		return nil, nthUnsupported(typeErrorf("nth", "a vector, list, string or nil", args[0]), args[0])
	}
	i, err := toInt("nth", args[1])
	if err != nil {
		return nil, err
	}
	v, found, err := nthItem(th, "nth", args[0], i)
	if err != nil {
		return nil, err
	}
	if !found && len(args) == 3 {
		return args[2], nil
	}
	return v, nil
}

func restOf(fn string, nilWhenEmpty bool) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		elems, err := seqOf(th, fn, args[0], anySeq)
		if err != nil {
			return nil, err
		}
		if len(elems) <= 1 {
			if nilWhenEmpty {
				return Nil, nil
			}
			return emptyVector, nil
		}
		return sub(th, args[0], elems, 1, len(elems))
	}
}

// chain is ffirst, fnext, nfirst and nnext: (outer (inner coll)), each
// step first or next. Each step takes a lazy sequence by its lazy form,
// reading no more of it than the step needs, the outer step too: the
// inner one may give a lazy sequence a vector holds, and (ffirst (vector
// (nat 0))) is 0 in Clojure.
func chain(fn, inner, outer string) func(*Thread, []Value) (Value, error) {
	step := func(name string) func(*Thread, Value) (Value, error) {
		plain, lazy := restOf(fn, true), lazyNext
		if name == "first" {
			plain, lazy = positional(fn, 0), lazyFirst
		}
		return func(th *Thread, v Value) (Value, error) {
			if s, ok := v.(*infiniteSeq); ok {
				return lazy(th, []Value{v}, s, plain)
			}
			return plain(th, []Value{v})
		}
	}
	in, out := step(inner), step(outer)
	return func(th *Thread, args []Value) (Value, error) {
		v, err := in(th, args[0])
		if err != nil {
			return nil, err
		}
		return out(th, v)
	}
}

func builtinButlast(th *Thread, args []Value) (Value, error) {
	elems, err := seqOf(th, "butlast", args[0], anySeq)
	if err != nil {
		return nil, err
	}
	if len(elems) <= 1 {
		return Nil, nil
	}
	return sub(th, args[0], elems, 0, len(elems)-1)
}

func takeDrop(fn string, take, fromEnd bool) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		n, err := toCount(fn, args[0])
		if err != nil {
			return nil, err
		}
		elems, err := seqOf(th, fn, args[1], anySeq)
		if err != nil {
			return nil, err
		}
		n = max(0, min(n, len(elems)))
		switch {
		case take && !fromEnd:
			return sub(th, args[1], elems, 0, n)
		case take && fromEnd:
			if n == 0 {
				return Nil, nil // Clojure's take-last of nothing is nil
			}
			return sub(th, args[1], elems, len(elems)-n, len(elems))
		case !take && fromEnd:
			return sub(th, args[1], elems, 0, len(elems)-n)
		}
		return sub(th, args[1], elems, n, len(elems))
	}
}

func builtinDropLast(th *Thread, args []Value) (Value, error) {
	if len(args) == 1 {
		return takeDrop("drop-last", false, true)(th, []Value{Int(1), args[0]})
	}
	return takeDrop("drop-last", false, true)(th, args)
}

// leadingCount is how many leading items satisfy pred.
func leadingCount(th *Thread, fn string, pred Value, elems []Value) (int, error) {
	for i, e := range elems {
		ok, err := truthyCall(th, fn, pred, e)
		if err != nil {
			return 0, err
		}
		if !ok {
			return i, nil
		}
	}
	return len(elems), nil
}

func whileBy(fn string, take bool) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		elems, err := seqOf(th, fn, args[1], anySeq)
		if err != nil {
			return nil, err
		}
		n, err := leadingCount(th, fn, args[0], elems)
		if err != nil {
			return nil, err
		}
		if take {
			return sub(th, args[1], elems, 0, n)
		}
		return sub(th, args[1], elems, n, len(elems))
	}
}

func builtinSplitAt(th *Thread, args []Value) (Value, error) {
	n, err := toCount("split-at", args[0])
	if err != nil {
		return nil, err
	}
	elems, err := seqOf(th, "split-at", args[1], anySeq)
	if err != nil {
		return nil, err
	}
	return splitPair(th, args[1], elems, max(0, min(n, len(elems))))
}

func builtinSplitWith(th *Thread, args []Value) (Value, error) {
	elems, err := seqOf(th, "split-with", args[1], anySeq)
	if err != nil {
		return nil, err
	}
	n, err := leadingCount(th, "split-with", args[0], elems)
	if err != nil {
		return nil, err
	}
	return splitPair(th, args[1], elems, n)
}

func splitPair(th *Thread, parent Value, elems []Value, n int) (Value, error) {
	a, err := sub(th, parent, elems, 0, n)
	if err != nil {
		return nil, err
	}
	b, err := sub(th, parent, elems, n, len(elems))
	if err != nil {
		return nil, err
	}
	return NewVector([]Value{a, b}), nil
}

func builtinSubvec(th *Thread, args []Value) (Value, error) {
	v, ok := args[0].(*Vector)
	if !ok || v.IsList() {
		switch args[0].(type) {
		case NilType:
			return nil, typeErrorf("subvec", "a vector", args[0])
		case String, *Vector, *Map, *Set:
			return nil, castError("subvec", "a vector", args[0], "clojure.lang.IPersistentVector")
		}
		// Clojure counts it first: count is not supported on a number
		return nil, typeErrorf("subvec", "a vector", args[0]).asJava("UnsupportedOperationException", "count not supported on this type: "+javaSimpleName(javaValueClass(args[0])))
	}
	start, err := toInt("subvec", args[1])
	if err != nil {
		return nil, err
	}
	end := v.Len()
	if len(args) == 3 {
		if end, err = toInt("subvec", args[2]); err != nil {
			return nil, err
		}
	}
	if start < 0 || end > v.Len() || start > end {
		return nil, Errorf(executionError, "subvec range %d..%d is out of bounds for a vector of %d items", start, end, v.Len()).
			WithHint("use take and drop, which clamp to the vector's length").
			asJavaWithoutMessage("IndexOutOfBoundsException")
	}
	return sub(th, v, v.elems, start, end)
}

func builtinPeek(th *Thread, args []Value) (Value, error) {
	switch v := args[0].(type) {
	case *Vector:
		if v.Len() == 0 {
			return Nil, nil
		}
		if v.IsList() {
			return v.elems[0], nil
		}
		return v.elems[v.Len()-1], nil
	case NilType:
		return Nil, nil
	}
	return nil, typeErrorf("peek", "a vector", args[0]).castFails(args[0])
}

func builtinPop(th *Thread, args []Value) (Value, error) {
	switch v := args[0].(type) {
	case *Vector:
		if v.Len() == 0 {
			kind := "vector"
			if v.IsList() {
				kind = "list"
			}
			return nil, Errorf(executionError, "pop of an empty %s", v.TypeName()).
				asJava("IllegalStateException", "Can't pop empty "+kind)
		}
		if v.IsList() {
			if err := th.allocVector(0); err != nil {
				return nil, err
			}
			rest := subVector(v, 1, v.Len())
			rest.form = listForm
			return rest, nil
		}
		return sub(th, v, v.elems, 0, v.Len()-1)
	case NilType:
		return Nil, nil
	}
	return nil, typeErrorf("pop", "a vector", args[0]).castFails(args[0])
}

// nthUnsupported is Clojure's UnsupportedOperationException for nth of a
// map or set, which has no index: nth itself, and what Clojure reads with
// nth (a [...] pattern, distinct's first step).
func nthUnsupported(e *Error, v Value) *Error {
	return e.asJava("UnsupportedOperationException", "nth not supported on this type: "+shortJavaClass(v))
}

func builtinDistinct(th *Thread, args []Value) (Value, error) {
	switch args[0].(type) {
	case Int, Float, Keyword, Bool:
		// Clojure 1.11's distinct destructures its argument with [f :as xs].
		return nil, nthUnsupported(typeErrorf("distinct", "a vector, list, string or nil", args[0]), args[0])
	case *Map, *Set:
		// Clojure 1.11's distinct destructures its argument with [f :as xs].
		return nil, nthUnsupported(typeErrorf("distinct", "a vector, list, string or nil", args[0]).
			WithHint("its entries or members are distinct already; for a sequence of them use (seq coll)"), args[0])
	}
	elems, err := seqOf(th, "distinct", args[0], anySeq)
	if err != nil {
		return nil, err
	}
	// The set of the items seen holds them in their first order: the
	// result is its array.
	seen := newSetBuilder()
	for _, e := range elems {
		if _, err := seen.add(th, e); err != nil {
			return nil, err
		}
	}
	return NewVector(seen.s.elems), nil
}

func builtinDedupe(th *Thread, args []Value) (Value, error) {
	elems, err := seqOf(th, "dedupe", args[0], anySeq)
	if err != nil {
		return nil, err
	}
	var out []Value
	for i, e := range elems {
		if i == 0 || !Equal(e, elems[i-1]) {
			out = append(out, e)
		}
	}
	return NewVector(out), nil
}

func partitioning(fn string, all bool) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		elems, err := seqOf(th, fn, args[len(args)-1], anySeq)
		if err != nil {
			return nil, err
		}
		if len(elems) == 0 {
			return emptyVector, nil // Clojure reads n and step only once coll has an item
		}
		n, err := toCount(fn, args[0])
		if err != nil {
			return nil, err
		}
		step := n
		if len(args) >= 3 {
			if step, err = toCount(fn, args[1]); err != nil {
				return nil, err
			}
		}
		if !all && fractional(args[0]) {
			return fractionalPartition(th, args, n)
		}
		var pad []Value
		padded := false
		if len(args) == 4 {
			if pad, err = seqOf(th, fn, args[2], anySeq); err != nil {
				return nil, err
			}
			padded = true
		}
		if !all && n < 0 {
			// no chunk has a negative count: only the padded chunk is made
			if padded {
				return NewVector([]Value{emptyVector}), nil
			}
			return emptyVector, nil
		}
		if n <= 0 && step > 0 {
			// as Clojure's: an empty chunk at each step
			count := (len(elems) + step - 1) / step
			if err := th.allocVector(count); err != nil {
				return nil, err
			}
			return NewVector(slices.Repeat([]Value{emptyVector}, count)), nil
		}
		if n <= 0 || step <= 0 {
			return nil, javaErrorf(executionError, noJavaClass, "%s size and step must be positive, got %d and %d", fn, n, step)
		}
		var out []Value
		for i := 0; i < len(elems); i += step {
			end := i + n
			if end <= len(elems) {
				chunk, err := sub(th, args[len(args)-1], elems, i, end)
				if err != nil {
					return nil, err
				}
				out = append(out, chunk)
				continue
			}
			// An incomplete chunk: partition-all keeps every one, a padded
			// partition keeps the first and stops, plain partition drops it.
			if all {
				chunk, err := sub(th, args[len(args)-1], elems, i, len(elems))
				if err != nil {
					return nil, err
				}
				out = append(out, chunk)
				continue
			}
			if padded {
				rest := elems[i:]
				fill := pad[:min(len(pad), n-len(rest))]
				if err := th.allocVector(n); err != nil {
					return nil, err
				}
				out = append(out, NewVector(slices.Concat(rest, fill)))
			}
			break
		}
		return NewVector(out), nil
	}
}

// fractionalPartition is (partition n ...) for an n with a fraction:
// Clojure's keeps a chunk whose count equals n, which none does, so
// without padding there is no chunk, and with padding the one it makes
// for an incomplete chunk, the first n (rounded up) of coll and pad.
func fractionalPartition(th *Thread, args []Value, n int) (Value, error) {
	elems, err := seqOf(th, "partition", args[len(args)-1], anySeq)
	if err != nil || len(args) < 4 || len(elems) == 0 {
		return emptyVector, err
	}
	pad, err := seqOf(th, "partition", args[2], anySeq)
	if err != nil {
		return nil, err
	}
	if err := th.allocVector(n + 1); err != nil {
		return nil, err
	}
	// Only the part of pad the chunk takes is copied: a whole pad of
	// thousands copied on every call was work no charge counted.
	head := elems[:min(n, len(elems))]
	chunk := slices.Concat(head, pad[:min(n-len(head), len(pad))])
	return NewVector([]Value{NewVector(chunk)}), nil
}

// partitionWork is the work of (partition n step coll): a step per chunk
// started, and per item of each full chunk.
func partitionWork(args []Value) int64 {
	n, err := toCount("", args[0])
	step := n
	if err == nil && len(args) >= 3 {
		step, err = toCount("", args[1])
	}
	if err != nil || n <= 0 || step <= 0 {
		return 0
	}
	items := itemCount(args[len(args)-1])
	work := (items + int64(step) - 1) / int64(step) // chunks started
	if full := items - int64(n); full >= 0 {
		work += (full/int64(step) + 1) * int64(n)
	}
	return work
}

func builtinPartitionBy(th *Thread, args []Value) (Value, error) {
	elems, err := seqOf(th, "partition-by", args[1], anySeq)
	if err != nil {
		return nil, err
	}
	var out []Value
	start := 0
	var prev Value
	for i, e := range elems {
		k, err := call(th, "partition-by", args[0], e)
		if err != nil {
			return nil, err
		}
		if err := chargeEqual(th, []Value{k}); err != nil {
			return nil, err
		}
		if i > 0 && !Equal(k, prev) {
			chunk, err := sub(th, args[1], elems, start, i)
			if err != nil {
				return nil, err
			}
			out = append(out, chunk)
			start = i
		}
		prev = k
	}
	if len(elems) > 0 {
		chunk, err := sub(th, args[1], elems, start, len(elems))
		if err != nil {
			return nil, err
		}
		out = append(out, chunk)
	}
	return NewVector(out), nil
}

// maxRangeLen bounds the length a range may be asked for before the budget
// is consulted, so that the size computation itself cannot overflow.
const maxRangeLen = 1 << 50

func builtinRange(th *Thread, args []Value) (Value, error) {
	if len(args) == 0 {
		return rangeSeq(th, 0, 1)
	}
	start, step, n, err := rangeSpec(args)
	if err != nil || n == 0 {
		return emptyVector, err
	}
	out := make([]Value, 0, n)
	si, sInt := start.(Int)
	di, dInt := step.(Int)
	if sInt && dInt {
		for i := 0; i < n; i++ {
			out = append(out, si+Int(i)*di)
		}
	} else {
		// As Clojure's Range: start as given, then each item the one
		// before plus step, while short of end: (range 0 1 0.25) is
		// (0 0.25 0.5 0.75), and (range 0 1 0.1) ends at
		// 0.9999999999999999. n, one more than the items step divides
		// the span into, bounds what the additions' rounding adds.
		end := args[min(1, len(args)-1)]
		up := Value(Int(0))
		for x := start; len(out) < n; {
			c, _ := compareNumbers(x, end)
			if d, _ := compareNumbers(step, up); d > 0 && c >= 0 || d < 0 && c <= 0 {
				break
			}
			out = append(out, x)
			if x, err = addNumbers("range", x, step); err != nil {
				return nil, err
			}
		}
	}
	return NewVector(out), nil
}

// rangeCount is the length of range's result, for its cost declaration:
// charged before the body, (range 1e12) fails allocating nothing.
func rangeCount(args []Value) int64 {
	_, _, n, _ := rangeSpec(args)
	return int64(n)
}

// rangeSpec reads range's arguments: its first number, its step and its
// length (0 for (range), which has no end and builds no vector).
func rangeSpec(args []Value) (start, step Value, n int, err error) {
	if len(args) == 0 {
		return Int(0), Int(1), 0, nil
	}
	for _, a := range args {
		if _, err := numberArg("range", a); err != nil {
			return nil, nil, 0, err
		}
	}
	start, end, step := Value(Int(0)), args[0], Value(Int(1))
	if len(args) >= 2 {
		start, end = args[0], args[1]
	}
	if len(args) == 3 {
		step = args[2]
	}
	fs, _ := asFloat(start)
	fe, _ := asFloat(end)
	fst, _ := asFloat(step)
	if math.IsNaN(fs) || math.IsNaN(fe) || math.IsNaN(fst) {
		return nil, nil, 0, javaErrorf(executionError, noJavaClass, "range bounds must be numbers, got ##NaN")
	}
	if fst == 0 {
		if fs == fe {
			return start, step, 0, nil
		}
		return nil, nil, 0, javaErrorf(executionError, noJavaClass, "range with step 0 never ends").
			WithHint("use (repeat n x) for n copies of a value")
	}
	count := math.Ceil((fe - fs) / fst)
	if !(count > 0) {
		return start, step, 0, nil
	}
	_, intStart := start.(Int)
	if _, intStep := step.(Int); !intStep || !intStart {
		count++ // what the rounding of the additions may add (builtinRange)
	}
	return start, step, int(min(count, maxRangeLen)), nil
}

// repeatCount is the length of repeat's and repeatedly's result, for
// their cost declarations.
func repeatCount(args []Value) int64 {
	if len(args) != 2 {
		return 0
	}
	n, err := toCount("repeat", args[0]) // an upper bound of both
	if err != nil {
		return 0
	}
	return int64(max(n, 0))
}

func countArg(fn string, v Value, hint string) (int, error) {
	read := toInt // (repeat 2.5 x) casts, two copies
	if fn == "repeatedly" {
		read = toCount // (take n (repeatedly f)), three calls
	}
	n, err := read(fn, v)
	if err != nil {
		return 0, err.(*Error).WithHint("%s", hint)
	}
	return max(n, 0), nil
}

func builtinRepeat(th *Thread, args []Value) (Value, error) {
	if len(args) == 1 {
		return repeatSeq(th, args[0])
	}
	n, err := countArg("repeat", args[0], "call it as (repeat n x)")
	if err != nil {
		return nil, err
	}
	out := make([]Value, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, args[1])
	}
	return NewVector(out), nil
}

func builtinRepeatedly(th *Thread, args []Value) (Value, error) {
	if len(args) == 1 {
		return repeatedlySeq(th, args[0])
	}
	n, err := countArg("repeatedly", args[0], "call it as (repeatedly n f)")
	if err != nil {
		return nil, err
	}
	out := make([]Value, 0, n)
	for i := 0; i < n; i++ {
		v, err := call(th, "repeatedly", args[1])
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return NewVector(out), nil
}

func builtinRun(th *Thread, args []Value) (Value, error) {
	elems, err := seqOf(th, "run!", args[1], anySeq)
	if err != nil {
		return nil, err
	}
	for _, e := range elems {
		if _, err := call(th, "run!", args[0], e); err != nil {
			return nil, err
		}
	}
	return Nil, nil
}

func builtinNthnext(th *Thread, args []Value) (Value, error) {
	v, err := takeDrop("nthnext", false, false)(th, []Value{args[1], args[0]})
	if err != nil {
		// Clojure takes (seq coll) before it looks at n: a coll that is no
		// sequence is its error, and an empty one is nil whatever n is.
		elems, serr := seqOf(th, "nthnext", args[0], anySeq)
		if serr != nil {
			return nil, serr
		}
		if len(elems) == 0 {
			return Nil, nil
		}
		return nil, err
	}
	if v.(*Vector).Len() == 0 {
		return Nil, nil
	}
	return v, nil
}

func builtinTakeNth(th *Thread, args []Value) (Value, error) {
	elems, err := seqOf(th, "take-nth", args[1], anySeq)
	if err != nil || len(elems) == 0 {
		return emptyVector, err // Clojure reads n only once coll has an item
	}
	n, err := toCount("take-nth", args[0])
	if err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, javaErrorf(executionError, noJavaClass, "take-nth step must be positive, got %d", n)
	}
	out := make([]Value, 0, (len(elems)+n-1)/n)
	for i := 0; i < len(elems); i += n {
		out = append(out, elems[i])
	}
	return NewVector(out), nil
}

// checkRealizeCount checks (doall coll), (doall n coll) and their dorun
// as Clojure's dorun reads them: coll must be seqable (an
// IllegalArgumentException otherwise), and n a number once coll has an
// item, since (pos? n) is asked only then.
func checkRealizeCount(th *Thread, fn string, args []Value) error {
	if len(args) < 2 {
		switch args[0].(type) {
		case *Map, *Vector, *Set, String, NilType:
			return nil
		}
		_, err := seqOf(th, fn, args[0], anySeq)
		return err
	}
	items, err := seqOf(th, fn, args[1], anySeq)
	if err == nil && len(items) > 0 {
		_, err = numberArg(fn, args[0])
	}
	return err
}
