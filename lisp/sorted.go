package lisp

import "slices"

// Sorted maps and sets: sorted-map, sorted-map-by, sorted-set and
// sorted-set-by. A sorted collection is a *Map or *Set like any other (it
// equals, hashes, prints and looks keys up as one) whose entries are kept
// in its comparator's order; its lineage's tail carries the ordering
// (lineageTail.order). The operations Clojure keeps sorted keep it here:
// assoc, dissoc, conj, disj, into, merge, merge-with, update, update-in,
// assoc-in, rename-keys, empty, the clojure.set operations whose result
// Clojure builds from a sorted argument, and the clojure.walk functions.
// Those that build a new map (select-keys, update-vals, update-keys,
// zipmap, (into {} m)) return a plain one, as in Clojure.
//
// A key is found by the ordering, as in Clojure ((get (sorted-map 1 :a)
// 1.0) is :a). Two differences from Clojure, both documented in
// docs/LANGUAGE.md: a sorted collection, like every map and set, holds no
// two = keys, where Clojure's keeps both when its comparator never calls
// them equal ((sorted-set-by (fn [a b] 1) 1 1) is #{1 1} there); and on
// the wire a sorted collection is a plain map or set in its order, read
// back as a plain one (docs/VALUES.md). TestSortedAgreesWithClojure
// replays generated programs against Clojure's recorded answers.
//
// Each key a sorted collection orders is visited whole once (weigh) and
// each comparison costs a step; a comparator function is charged as a
// call each time it is called. A single assoc or conj finds its place by
// binary search, and copies the entries as an assoc that cannot extend in
// place does.

// keyOrder is how a sorted collection orders its keys.
type keyOrder struct {
	by Value // the comparator of sorted-map-by or sorted-set-by; nil: compare
}

// naturalOrder is compare's order, shared by every sorted-map and sorted-set.
var naturalOrder = &keyOrder{}

var sortedBuiltins = []*Builtin{
	{Name: "sorted-map", Sig: "(sorted-map k v ...)", Doc: "map of the pairs, kept in key order", Category: "idiom",
		MinArgs: 0, MaxArgs: variadic, Fn: func(th *Thread, args []Value) (Value, error) {
			return newSortedMap(th, "sorted-map", naturalOrder, args)
		},
		Cost: cost(hashes(keyArgs(0)), ordering(keyArgs(0)), chargedInBody("a step per comparison of two keys"), builds)},
	{Name: "sorted-map-by", Sig: "(sorted-map-by comparator k v ...)", Doc: "map of the pairs, kept in the comparator's order", Category: "idiom",
		MinArgs: 1, MaxArgs: variadic, Fn: func(th *Thread, args []Value) (Value, error) {
			o, err := comparatorOrder("sorted-map-by", args[0])
			if err != nil {
				return nil, err
			}
			return newSortedMap(th, "sorted-map-by", o, args[1:])
		},
		Cost: cost(ordering(arg(0)), hashes(keyArgs(1)), ordering(keyArgs(1)), calls(keyArgs(1)), chargedInBody("a step per comparison of two keys"), builds)},
	{Name: "sorted-set", Sig: "(sorted-set x ...)", Doc: "set of the arguments, kept in order", Category: "idiom",
		MinArgs: 0, MaxArgs: variadic, Fn: func(th *Thread, args []Value) (Value, error) {
			return newSortedSet(th, "sorted-set", naturalOrder, args)
		},
		Cost: cost(hashes(allArgs), ordering(allArgs), chargedInBody("a step per comparison of two items"), builds)},
	{Name: "sorted-set-by", Sig: "(sorted-set-by comparator x ...)", Doc: "set of the arguments, kept in the comparator's order", Category: "idiom",
		MinArgs: 1, MaxArgs: variadic, Fn: func(th *Thread, args []Value) (Value, error) {
			o, err := comparatorOrder("sorted-set-by", args[0])
			if err != nil {
				return nil, err
			}
			return newSortedSet(th, "sorted-set-by", o, args[1:])
		},
		Cost: cost(ordering(arg(0)), hashes(argsFrom(1)), ordering(argsFrom(1)), calls(argsFrom(1)), chargedInBody("a step per comparison of two items"), builds)},
	{Name: "subseq", Sig: "(subseq sc test key) (subseq sc start-test start-key end-test end-key)", Doc: "the items of a sorted collection for which (test item key) holds, tests being < <= > >=", Category: "idiom",
		MinArgs: 3, MaxArgs: 5, arities: []int{3, 5}, Fn: func(th *Thread, args []Value) (Value, error) { return subseq(th, "subseq", args, false) },
		Cost: cost(visits(arg(0)), ordering(argsFrom(1)), calls(arg(0)), chargedInBody("a step per comparison of an item with a bound"), builds)},
	{Name: "rsubseq", Sig: "(rsubseq sc test key) (rsubseq sc start-test start-key end-test end-key)", Doc: "subseq in reverse order", Category: "idiom",
		MinArgs: 3, MaxArgs: 5, arities: []int{3, 5}, Fn: func(th *Thread, args []Value) (Value, error) { return subseq(th, "rsubseq", args, true) },
		Cost: cost(visits(arg(0)), ordering(argsFrom(1)), calls(arg(0)), chargedInBody("a step per comparison of an item with a bound"), builds)},
}

// orderOf returns the ordering of a sorted map or set, nil for any other value.
func orderOf(v Value) *keyOrder {
	switch c := v.(type) {
	case *Map:
		if c.tail != nil {
			return c.tail.order
		}
	case *Set:
		if c.tail != nil {
			return c.tail.order
		}
	}
	return nil
}

// comparatorOrder is the ordering of a comparator given to sorted-map-by
// or sorted-set-by. The comparator is frozen (Freeze), as it travels with
// every version of the collection, which Freeze leaves sorted without
// walking into it; the declaration's visit of it pays for that.
func comparatorOrder(fn string, cmp Value) (*keyOrder, error) {
	_, callable := cmp.(Callable)
	switch cmp.(type) {
	case Keyword, *Vector, *Map, *Set:
		callable = false
	}
	if !callable {
		return nil, Errorf(typeError, "%s expected a comparator function, got %s", fn, describe(cmp)).
			WithHint("pass a function of two items: (%s > ...) or (%s (fn [a b] (compare b a)) ...)", fn, fn).
			notAn("java.util.Comparator", cmp)
	}
	return &keyOrder{by: Freeze(cmp)}, nil
}

// comparer returns a sorter that orders keys as o does, a step per
// comparison.
func (o *keyOrder) comparer(th *Thread, fn string) *sorter {
	return &sorter{th: th, fn: fn, cmp: o.by, perComparison: true}
}

// inOrder sorts items by their keys, stably, and keeps one item of each
// run the ordering calls equal: kept(first, later) is what stays of two
// such items, so that items added one after another give what adding them
// one by one to a sorted collection gives. Each key is visited whole once.
func inOrder[T any](th *Thread, s *sorter, items []T, key func(T) Value, kept func(first, later T) T) ([]T, error) {
	for _, x := range items {
		if _, err := weigh(th, key(x)); err != nil {
			return nil, err
		}
	}
	if len(items) == 1 {
		if err := s.comparable(key(items[0])); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(items, func(a, b T) int { return s.compare(key(a), key(b)) })
	if s.err != nil {
		return nil, s.err
	}
	out := items[:0]
	for _, x := range items {
		if n := len(out); n > 0 && s.compare(key(out[n-1]), key(x)) == 0 {
			out[n-1] = kept(out[n-1], x)
			continue
		}
		if s.err != nil {
			return nil, s.err
		}
		out = append(out, x)
	}
	return out, s.err
}

// search finds where key goes among n keys in order: the position of the
// key the ordering calls equal (found), or where to insert it.
func search(s *sorter, n int, keyAt func(int) Value, key Value) (i int, found bool) {
	if n == 0 {
		s.err = s.comparable(key)
		return 0, false
	}
	lo, hi := 0, n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		c := s.compare(key, keyAt(mid))
		switch {
		case s.err != nil:
			return 0, false
		case c == 0:
			return mid, true
		case c > 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return lo, false
}

// comparable is the error of a key the natural order cannot order, the
// first key of a sorted collection too: Clojure's default comparator
// refuses a map, set or list as the only key, where it makes no
// comparison with another (sorted-set-by's function is not called then).
// It asks only whether the key is Comparable, as Clojure does: a vector
// is, whatever it holds ((sorted-set [(list 1)]) is a set there).
func (s *sorter) comparable(key Value) error {
	if s.cmp != nil || s.err != nil {
		return s.err
	}
	if v, ok := key.(*Vector); ok && !v.IsList() {
		return nil
	}
	_, err := compareValues(s.th, key, key, s.fn)
	return err
}

func entryKey(e MapEntry) Value { return e.Key }

func laterValue(first, later MapEntry) MapEntry { return MapEntry{first.Key, later.Val} }

func firstItem(first, _ Value) Value { return first }

func itemKey(v Value) Value { return v }

// sortedMapOf builds the sorted map of entries, taken in order as assoc
// would take them: of keys the ordering calls equal, the first key stays
// with the last value. It takes entries for its own.
func sortedMapOf(th *Thread, fn string, o *keyOrder, entries []MapEntry) (*Map, error) {
	entries, err := inOrder(th, o.comparer(th, fn), entries, entryKey, laterValue)
	if err != nil {
		return nil, err
	}
	b := NewMapBuilder(len(entries))
	for _, e := range entries {
		b.Set(e.Key, e.Val)
	}
	return b.sortedMap(o), nil
}

// sortedMap returns the built map, whose entries are in o's order, as a
// sorted map.
func (b *MapBuilder) sortedMap(o *keyOrder) *Map {
	m := b.Map()
	m.tail.order = o
	return m
}

// sortedSetOf is sortedMapOf for a set: of items the ordering calls
// equal, the first stays. It takes items for its own.
func sortedSetOf(th *Thread, fn string, o *keyOrder, items []Value) (*Set, error) {
	items, err := inOrder(th, o.comparer(th, fn), items, itemKey, firstItem)
	if err != nil {
		return nil, err
	}
	return setInOrder(items, o), nil
}

// setInOrder is the sorted set of items, which are in o's order.
func setInOrder(items []Value, o *keyOrder) *Set {
	s := NewSet(items)
	s.tail.order = o
	return s
}

func newSortedMap(th *Thread, fn string, o *keyOrder, kvs []Value) (Value, error) {
	if len(kvs)%2 != 0 {
		return nil, noValueForKey(fn, kvs[len(kvs)-1])
	}
	entries := make([]MapEntry, 0, len(kvs)/2)
	for i := 0; i < len(kvs); i += 2 {
		entries = append(entries, MapEntry{kvs[i], kvs[i+1]})
	}
	return sortedMapOf(th, fn, o, entries)
}

func newSortedSet(th *Thread, fn string, o *keyOrder, items []Value) (Value, error) {
	return sortedSetOf(th, fn, o, slices.Clone(items))
}

// resorted is the sorted map of m's entries in o's order, m being a map
// just built from a sorted one and changed (merged into, renamed): the
// sorted map's entries come first in it, in order, and then the added
// ones, in the order they were added. The copy is charged as a map's.
func resorted(th *Thread, fn string, o *keyOrder, m *Map) (*Map, error) {
	if err := chargeCopy(th, mapHeap, m.Len(), m.Len()); err != nil {
		return nil, err
	}
	return sortedMapOf(th, fn, o, slices.Clone(m.entries))
}

// resortedSet is resorted for a set.
func resortedSet(th *Thread, fn string, o *keyOrder, s *Set) (*Set, error) {
	if err := chargeCopy(th, setHeap, s.Len(), s.Len()); err != nil {
		return nil, err
	}
	return sortedSetOf(th, fn, o, slices.Clone(s.elems))
}

// conjAllSorted is s with xs added, by one sort of them all: every item
// meets the ordering before = merges any, so that the comparator sees
// each pair it would see adding them one by one ((into (sorted-set)
// [[(list 1)] [(list 1)]]) cannot order the lists, as in Clojure). The
// copy is charged as a set's.
func conjAllSorted(th *Thread, o *keyOrder, s *Set, xs []Value) (*Set, error) {
	all := append(slices.Clone(s.elems), xs...)
	if err := chargeCopy(th, setHeap, len(all), len(all)); err != nil {
		return nil, err
	}
	return sortedSetOf(th, "conj", o, all)
}

// keepOrder gives m, just built from from's entries in their order (a
// dissoc, a filter), from's ordering when from is sorted.
func keepOrder(m *Map, from Value) *Map {
	if o := orderOf(from); o != nil {
		m.tail.order = o
	}
	return m
}

// keepSetOrder is keepOrder for a set.
func keepSetOrder(s *Set, from Value) *Set {
	if o := orderOf(from); o != nil {
		s.tail.order = o
	}
	return s
}

// assocSorted is assocMap for a sorted map: the key goes where it sorts,
// found by binary search; a key the ordering calls equal to one in the map
// keeps that key with the new value, as in Clojure.
func assocSorted(th *Thread, m *Map, k, v Value) (*Map, error) {
	o := m.tail.order
	if _, err := weigh(th, k); err != nil {
		return nil, err
	}
	s := o.comparer(th, "assoc")
	i, found := search(s, m.Len(), func(i int) Value { return m.entries[i].Key }, k)
	if s.err != nil {
		return nil, s.err
	}
	if err := chargeMapKeys(th, m); err != nil {
		return nil, err
	}
	if err := chargeCopy(th, mapHeap, m.Len(), 1); err != nil {
		return nil, err
	}
	b := NewMapBuilder(m.Len() + 1)
	for j, e := range m.entries {
		switch {
		case j == i && found:
			b.Set(e.Key, v)
			continue
		case j == i:
			b.Set(k, v)
		}
		b.Set(e.Key, e.Val)
	}
	if i == m.Len() {
		b.Set(k, v)
	}
	return b.sortedMap(o), nil
}

// conjSorted is conjSet for a sorted set.
func conjSorted(th *Thread, s *Set, x Value) (*Set, error) {
	o := s.tail.order
	if _, err := weigh(th, x); err != nil {
		return nil, err
	}
	c := o.comparer(th, "conj")
	i, found := search(c, s.Len(), func(i int) Value { return s.elems[i] }, x)
	if c.err != nil {
		return nil, c.err
	}
	if found {
		return s, nil
	}
	if err := chargeKeys(th, s.elems); err != nil {
		return nil, err
	}
	if err := chargeCopy(th, setHeap, s.Len(), 1); err != nil {
		return nil, err
	}
	// One array, built in place: a clone, a grown insert and the set's own
	// copy made three, two of them garbage on every insertion.
	elems := make([]Value, 0, s.Len()+1)
	elems = append(append(append(elems, s.elems[:i]...), x), s.elems[i:]...)
	out := buildSet(elems[:0], elems, len(elems))
	out.tail = &lineageTail{used: len(out.elems), order: o}
	return out, nil
}

// emptySorted is the empty sorted map (or set) ordered by o.
func emptySorted(o *keyOrder, set bool) Value {
	if set {
		return setInOrder(nil, o)
	}
	return NewMapBuilder(0).sortedMap(o)
}

// sortedItems returns the items of a sorted collection in order (the
// entries of a map as [key value] vectors) and their keys, or an error
// naming fn for any other value.
func sortedItems(th *Thread, fn string, v Value) (items, keys []Value, o *keyOrder, err error) {
	o = orderOf(v)
	if o == nil {
		return nil, nil, nil, typeErrorf(fn, "a sorted map or set", v).castFails(v).
			WithHint("make one with (sorted-map k v ...) or (sorted-set x ...), or filter a sorted sequence: (filter #(> %% k) (sort coll))")
	}
	if s, ok := v.(*Set); ok {
		return s.elems, s.elems, o, nil
	}
	m := v.(*Map)
	if items, err = mapEntries(th, m); err != nil {
		return nil, nil, nil, err
	}
	keys = make([]Value, m.Len())
	for i, e := range m.entries {
		keys[i] = e.Key
	}
	return items, keys, o, nil
}

// subseq is (subseq sc test key) and (subseq sc start-test start-key
// end-test end-key), and rsubseq (reverse), as Clojure runs them: an item
// passes a test when (test c 0) holds, c comparing its key with the
// test's key. A > or >= test (< or <= for rsubseq) starts from the first
// item at or past its key, skipping it when it does not pass; otherwise
// the items are taken from the start while the test holds. Like Clojure's,
// the result is nil when no item is at or past the key it starts from,
// and () when the items taken while a test holds are none.
func subseq(th *Thread, fn string, args []Value, reverse bool) (Value, error) {
	if len(args) == 4 {
		return nil, arityError(fn, "("+fn+" sc test key) or ("+fn+" sc start-test start-key end-test end-key)", len(args))
	}
	items, keys, o, err := sortedItems(th, fn, args[0])
	if err != nil {
		return nil, err
	}
	s := o.comparer(th, fn)
	passes := func(test, key Value, j int) (bool, error) {
		c := s.compare(keys[j], key)
		if s.err != nil {
			return false, s.err
		}
		v, err := call(th, fn, test, Int(c), Int(0))
		return truthy(v), err
	}
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	if reverse {
		slices.Reverse(order)
	}
	// from returns the items from the first at or past key, skipping it
	// unless it passes test; found is false when no item is. As Clojure's
	// seqFrom, it compares the key with the item (passes compares the item
	// with the key), which a comparator that is not antisymmetric tells
	// apart.
	from := func(test, key Value) (rest []int, found bool, err error) {
		for i, j := range order {
			c := s.compare(key, keys[j])
			if s.err != nil {
				return nil, false, s.err
			}
			if (!reverse && c <= 0) || (reverse && c >= 0) {
				ok, err := passes(test, key, j)
				if err != nil || ok {
					return order[i:], true, err
				}
				return order[i+1:], true, nil
			}
		}
		return nil, false, nil
	}
	vector := func(at []int) Value {
		if len(at) == 0 {
			return emptyList
		}
		out := make([]Value, len(at))
		for i, j := range at {
			out[i] = items[j]
		}
		return NewVector(out)
	}
	// while returns the items of at up to the first that fails test.
	while := func(test, key Value, at []int) (Value, error) {
		for n, j := range at {
			ok, err := passes(test, key, j)
			if err != nil {
				return nil, err
			}
			if !ok {
				return vector(at[:n]), nil
			}
		}
		return vector(at), nil
	}
	for i := 1; i < len(args); i += 2 {
		if _, ok := args[i].(Callable); !ok {
			return nil, typeErrorf(fn, "a test such as < or >=", args[i])
		}
	}
	if len(args) == 3 {
		test, key := args[1], args[2]
		startTests := []string{">", ">="}
		if reverse {
			startTests = []string{"<", "<="}
		}
		if b, ok := test.(*Builtin); !ok || !slices.Contains(startTests, b.Name) {
			return while(test, key, order)
		}
		rest, _, err := from(test, key)
		if err != nil || len(rest) == 0 {
			return Nil, err
		}
		return vector(rest), nil
	}
	fromTest, fromKey, whileTest, whileKey := args[1], args[2], args[3], args[4]
	if reverse {
		fromTest, fromKey, whileTest, whileKey = whileTest, whileKey, fromTest, fromKey
	}
	rest, found, err := from(fromTest, fromKey)
	if err != nil || !found {
		return Nil, err
	}
	return while(whileTest, whileKey, rest)
}

// sortedLookupKeys wraps a builtin that looks keys up in its first
// argument (select-keys): when that is a sorted collection with an item,
// each key (keysOf the arguments) is first found by its ordering, as
// Clojure's sorted collections find it, so that a key the ordering cannot
// compare with the collection's keys fails with the ordering's error
// (Clojure's ClassCastException) instead of being missed. An empty sorted
// collection compares nothing, as in Clojure. Each comparison is a step;
// a comparator function is charged as a call.
func sortedLookupKeys(fn string, keysOf func(th *Thread, args []Value) ([]Value, error), f func(*Thread, []Value) (Value, error)) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		if len(args) < 2 || orderOf(args[0]) == nil {
			return f(th, args)
		}
		wanted, err := keysOf(th, args)
		if err != nil {
			return nil, err
		}
		if err := findSortedKeys(th, fn, args[0], wanted...); err != nil {
			return nil, err
		}
		return f(th, args)
	}
}

// sortedLookup wraps a builtin that looks its second argument up in its
// first (get, contains?, find): in a sorted collection with an item the
// key is found by the ordering, as Clojure finds it, and f looks up the
// collection's own key the ordering calls equal to it, or, when there is
// none, looks in the empty collection. So (get (sorted-map 1 :a) 1.0) is
// :a, and a comparator that never answers 0 finds nothing, as in Clojure.
func sortedLookup(fn string, f func(*Thread, []Value) (Value, error)) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		if len(args) < 2 {
			return f(th, args)
		}
		stored, found, sorted, err := keyByOrder(th, fn, args[0], args[1])
		switch {
		case err != nil:
			return nil, err
		case !sorted:
			return f(th, args)
		}
		args = slices.Clone(args)
		if found {
			args[1] = stored
		} else {
			args[0] = emptySorted(orderOf(args[0]), isSet(args[0]))
		}
		return f(th, args)
	}
}

// sortedRemoval wraps a builtin that removes its arguments after the first
// from it (dissoc, disj): in a sorted collection with an item each key is
// found by the ordering, and f removes the collection's own keys the
// ordering calls equal to them; a key it does not find removes nothing.
func sortedRemoval(fn string, f func(*Thread, []Value) (Value, error)) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		if len(args) < 2 || orderOf(args[0]) == nil {
			return f(th, args)
		}
		kept := []Value{args[0]}
		for _, k := range args[1:] {
			stored, found, sorted, err := keyByOrder(th, fn, args[0], k)
			switch {
			case err != nil:
				return nil, err
			case !sorted:
				return f(th, args) // empty: nothing to remove
			case found:
				kept = append(kept, stored)
			}
		}
		return f(th, kept)
	}
}

func isSet(v Value) bool {
	_, ok := v.(*Set)
	return ok
}

// keyByOrder finds k in coll by coll's ordering, as Clojure's sorted
// collections find a key: stored is coll's key the ordering calls equal
// to k (found), and sorted is false when coll is not a sorted collection
// with an item, whose keys are found by equality. A key the ordering
// cannot compare with coll's keys is its error.
func keyByOrder(th *Thread, fn string, coll, k Value) (stored Value, found, sorted bool, err error) {
	o := orderOf(coll)
	if o == nil {
		return nil, false, false, nil
	}
	n, keyAt := sortedKeys(coll)
	if n == 0 {
		return nil, false, false, nil
	}
	s := o.comparer(th, fn)
	i, found := search(s, n, keyAt, k)
	if s.err != nil {
		return nil, false, false, s.err
	}
	if !found {
		return nil, false, true, nil
	}
	return keyAt(i), true, true, nil
}

// sortedKeys is how many keys a sorted map or set holds and the key at
// each place, in order.
func sortedKeys(coll Value) (n int, keyAt func(int) Value) {
	switch c := coll.(type) {
	case *Map:
		return c.Len(), func(i int) Value { return c.entries[i].Key }
	case *Set:
		return c.Len(), func(i int) Value { return c.elems[i] }
	}
	return 0, nil
}

// findSortedKeys finds each key in coll by its ordering when coll is a
// sorted collection with an item, and returns the ordering's error for a
// key it cannot compare; nothing for any other collection.
func findSortedKeys(th *Thread, fn string, coll Value, wanted ...Value) error {
	o := orderOf(coll)
	if o == nil {
		return nil
	}
	n, keyAt := sortedKeys(coll)
	if n == 0 {
		return nil
	}
	s := o.comparer(th, fn)
	for _, k := range wanted {
		if search(s, n, keyAt, k); s.err != nil {
			return s.err
		}
	}
	return nil
}

// sortedGet is what (coll k default) gives in a sorted collection where
// keyByOrder found stored for k (found): its value in a map, the item
// itself in a set, or else the default, nil without one.
func sortedGet(coll, stored Value, found bool, def []Value) Value {
	switch {
	case !found && len(def) == 1:
		return def[0]
	case !found:
		return Nil
	}
	if m, ok := coll.(*Map); ok {
		v, _ := lookup(m, stored, nil)
		return v
	}
	return stored
}
