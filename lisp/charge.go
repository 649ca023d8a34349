package lisp

// Charging a thread for the work builtins do on values: building
// vectors and strings, reading strings, updating collections, and
// weighing whole values before printing, hashing or comparing them.

// newVector charges for and returns a vector owning elems.
func newVector(th *Thread, elems []Value) (Value, error) {
	if err := th.allocVector(len(elems)); err != nil {
		return nil, err
	}
	return NewVector(elems), nil
}

// makeSlice returns an empty slice with capacity n once the vector of n
// elements it will become has been charged, so that no Go allocation ever
// exceeds what the budget allows.
func makeSlice(th *Thread, n int) ([]Value, error) {
	if n < 0 {
		n = 0
	}
	if err := th.allocVector(n); err != nil {
		return nil, err
	}
	return make([]Value, 0, n), nil
}

// newString charges for and returns a string.
func newString(th *Thread, s string) (Value, error) {
	if err := th.allocString(len(s)); err != nil {
		return nil, err
	}
	return String(s), nil
}

// scan charges for reading n bytes of a string: a step per 64 bytes, so
// that string functions called in a loop over a long string pay for the
// scans they repeat.
func scan(th *Thread, n int) error { return th.step(1 + int64(n)/64) }

// steps charges one step per element about to be visited.
func steps(th *Thread, n int) error { return th.step(int64(n)) }

// The updates of collections (conj, assoc, and the builtins made of them)
// are charged here, by the operation that makes them: steps for the work
// on the items already there, and memory for what the new version holds
// of its own. An update that extends the longest version in place adds
// only the growth; one that copies (a replaced value, dissoc, an older
// version extended, any sorted insertion) makes a whole new collection,
// charged whole: the old version may be kept ([m (assoc m k v)] a
// thousand times), and a copy charged only its steps let 900 versions of
// a map of 1,000 entries take 75 MiB for 269 KiB charged.

// chargeCopy charges an update of a collection of kind c that copies
// rebuilt parts (a step each, hashing them again, and their bytes in the
// new version) and adds added new ones.
func chargeCopy(th *Thread, c collHeap, rebuilt, added int) error {
	if err := steps(th, rebuilt); err != nil {
		return err
	}
	if rebuilt <= 0 {
		return th.alloc(c.shape(added, false))
	}
	return th.alloc(c.built(rebuilt + max(added, 0))) // with the hash index a copy builds
}

// chargeMove charges moving n items of size bytes to a larger array, as
// extending a collection in place past its capacity does: a step per 64
// bytes, as reading a string is.
func chargeMove(th *Thread, n, size int) error {
	return th.step(int64(n) * int64(size) / 64)
}

// conjVector is v.conj(x), charged.
func conjVector(th *Thread, v *Vector, x Value) (*Vector, error) {
	if err := chargeMove(th, v.conjMoves(), heapSlot); err != nil {
		return nil, err
	}
	if err := th.alloc(vectorHeap.shape(1, false)); err != nil {
		return nil, err
	}
	return v.conj(x), nil
}

// assocMap is m.assoc(k, v), charged; the key is hashed too.
func assocMap(th *Thread, m *Map, k, v Value) (*Map, error) {
	k, err := realizedKey(th, k)
	if err != nil {
		return nil, err
	}
	if m.tail != nil && m.tail.order != nil {
		return assocSorted(th, m, k, v)
	}
	_, exists := m.find(k)
	rebuilt, moved := m.assocWork(exists)
	if rebuilt > 0 {
		if err := chargeMapKeys(th, m); err != nil {
			return nil, err
		}
	}
	if err := chargeMove(th, moved, heapEntry); err != nil {
		return nil, err
	}
	if moved > 0 {
		if err := chargeGrowth(th, mapHeap, moved, heapEntry, true); err != nil {
			return nil, err
		}
	}
	if err := chargeCopy(th, mapHeap, rebuilt, 1); err != nil {
		return nil, err
	}
	return m.assocKnown(k, v, exists), nil
}

// conjSet is s.conj(x), charged; x is hashed too.
func conjSet(th *Thread, s *Set, x Value) (*Set, error) {
	x, err := realizedKey(th, x)
	if err != nil {
		return nil, err
	}
	if s.contains(x) {
		return s, nil
	}
	if s.tail != nil && s.tail.order != nil {
		return conjSorted(th, s, x)
	}
	rebuilt, moved := s.conjWork() // x is not in s: looked up above, once
	if rebuilt > 0 {
		if err := chargeKeys(th, s.elems); err != nil {
			return nil, err
		}
	}
	if err := chargeMove(th, moved, heapSlot); err != nil {
		return nil, err
	}
	if moved > 0 {
		if err := chargeGrowth(th, setHeap, moved, heapSlot, true); err != nil {
			return nil, err
		}
	}
	if err := chargeCopy(th, setHeap, rebuilt, 1); err != nil {
		return nil, err
	}
	return s.conj(x), nil
}

// weigh visits every node of v, charging a step per node and per 64 bytes
// of the strings inside, and returns an estimate of its printed size.
// Builtins that print, hash or compare whole values call it first,
// because structure sharing hides work from the budgets: (repeat 1000 v)
// costs 1,000 elements but prints, hashes and compares v a thousand
// times, and nesting that three deep would print gigabytes. The steps are
// charged as the walk goes, so the walk itself stops at the step budget
// and at the evaluation's deadline. Scalars cost nothing.
func weigh(th *Thread, v Value) (int64, error) {
	size, _, _, err := measureOrdering(th, v)
	return size, err
}

// measure is weigh that also reports whether v holds a map or a set. It
// refuses a value nesting deeper than MaxValueNesting, so the walks that
// follow it (printing, comparing, hashing) visit no deeper.
func measure(th *Thread, v Value) (size int64, unordered bool, err error) {
	size, _, unordered, err = measureOrdering(th, v)
	return size, unordered, err
}

// measureOrdering is measure that also reports what hashing v as a key
// builds besides its text: ordering the parts of its sets and maps of
// more than one part (canonicalOrder, canonicalEntries; a set's parts are
// sorted by their hashes and copied, heapOrderedElem each, a map's keys
// gathered, sorted and copied with their values, heapOrderedEntry each),
// and the stacks of its walks, for a value nesting deeper than the
// pooled ones hold (heapKeyLevel a level).
func measureOrdering(th *Thread, v Value) (size, ordering int64, unordered bool, err error) {
	switch s := v.(type) {
	case *Vector, *Map, *Set, holder:
	case String, Keyword, symbol:
		// Compared or hashed whole, as a text inside a collection is
		// below: compare of two strings of megabytes was charged a step
		// however often a loop called it.
		return scalarSize(s), 0, false, chargeText(th, s)
	default:
		return scalarSize(v), 0, false, nil
	}
	w := newWalk(th, v, MaxValueNesting)
	// Every key hashed is measured first: a pooled stack keeps a key
	// holding collections from allocating one per hash.
	sp := takeWalkStack()
	w.stack = *sp
	defer func() { putWalkStack(sp, w.stack) }()
	var bytes int64 // of strings: a step per 64
	var deepest int64
	for ev, at := w.next(); ev != walkDone; ev, at = w.next() {
		if ev == walkLeave {
			continue
		}
		if d := int64(len(w.stack)); d > deepest {
			deepest = d
		}
		switch c := at.(type) {
		case *Vector:
			size += 2 + int64(c.Len())
		case *Set:
			size += 3 + int64(c.Len())
			unordered = true
			if c.Len() > 1 {
				ordering += heapOrderedElem * int64(c.Len())
			}
		case *Map:
			size += 2 + 3*int64(c.Len())
			unordered = true
			if c.Len() > 1 {
				ordering += heapOrderedEntry * int64(c.Len())
			}
		case String, Keyword, symbol:
			size += scalarSize(c)
			if bytes += int64(textLen(c)); bytes >= 64*walkBatch {
				if err := th.step(bytes / 64); err != nil {
					return 0, 0, false, err
				}
				bytes %= 64
			}
		case *BigDec:
			// Hashing or comparing a long one strips or aligns its
			// digits, wherever in a collection it is.
			size += scalarSize(c)
			if err := decDigitWork(th, decWords(c)); err != nil {
				return 0, 0, false, err
			}
		case *BigInt:
			// Hashed or compared by its words (bigHashKey).
			size += scalarSize(c)
			if err := chargeBigScan(th, c.n); err != nil {
				return 0, 0, false, err
			}
		default: // a function holding values prints with them, as other scalars
			size += scalarSize(c)
		}
	}
	if w.err == errTooDeep {
		return 0, 0, false, walkTooDeepError()
	}
	if w.err != nil {
		return 0, 0, false, w.err
	}
	if deepest > maxPooledLevels {
		// The walks that hash it grow stacks of their own that deep.
		ordering += heapKeyLevel * deepest
	}
	return size, ordering, unordered, th.step(bytes / 64)
}

// chargeKey charges for using v as a key of a map or set: hashing a
// collection visits it (weigh) and builds its canonical text (hashKey),
// about as many bytes as it prints as. Other values are their own keys;
// a string is hashed and compared in place, a step per 64 bytes.
func chargeKey(th *Thread, v Value) error {
	switch v := v.(type) {
	case *Vector, *Map, *Set:
	case String, Keyword, symbol:
		return chargeText(th, v)
	case *BigDec:
		// Its key is the text of its value with the trailing zeros
		// stripped (decHashKey).
		return decimalsWork(th, []Value{v}, false)
	case *BigInt:
		// Its key is a copy of its words (bigHashKey).
		return chargeBigScan(th, v.n)
	default:
		return nil
	}
	size, ordering, _, err := measureOrdering(th, v)
	if err != nil {
		return err
	}
	// Its key is its text, with its sets' and maps' parts ordered first,
	// boxed as an interface (a string's header).
	charge := size + ordering + heapString
	if flatColl(v) {
		// flatCanonicalText's buffer, besides the text copied from it.
		charge += int64(flatTextRoom(2, flatKeyParts(v)))
	} else {
		// A key holding collections is hashed by a walk that finds the
		// structural hashes of its sets and maps (flatCanonicalText is
		// the way around it for a key of scalars), and its text grows
		// by doubling.
		charge += size + heapNestedKey
	}
	return th.alloc(charge)
}

// flatKeyParts is how many scalars a flat key's text holds: a key and a
// value per map entry.
func flatKeyParts(v Value) int {
	switch c := v.(type) {
	case *Vector:
		return c.Len()
	case *Set:
		return c.Len()
	case *Map:
		return 2 * c.Len()
	}
	return 0
}

// chargeKeys is chargeKey of each value.
func chargeKeys(th *Thread, vs []Value) error {
	for _, v := range vs {
		if err := chargeKey(th, v); err != nil {
			return err
		}
	}
	return nil
}

// chargeMapKeys charges for hashing every key of m again, as copying m
// does; only collection keys cost anything.
func chargeMapKeys(th *Thread, m *Map) error {
	for _, e := range m.entries {
		if err := chargeKey(th, e.Key); err != nil {
			return err
		}
	}
	return nil
}

// chargeText charges for hashing or comparing the text of v, a string,
// keyword or symbol: a step per 64 bytes, nothing for a short one. A
// keyword or symbol built by (keyword s) or (symbol s) is as long as its
// string, and is hashed and compared as whole as one.
func chargeText(th *Thread, v Value) error {
	n := textLen(v)
	if n < 64 {
		return nil
	}
	return th.step(int64(n) / 64)
}

// textLen is how many bytes comparing or hashing v reads: the length of
// a string's, a keyword's or a symbol's text, 0 for any other value.
func textLen(v Value) int {
	switch t := v.(type) {
	case String:
		return len(t)
	case Keyword:
		return len(t)
	case symbol:
		return len(t)
	}
	return 0
}

// chargeEqualScalar is chargeEqual of one value that is its own hash key.
func chargeEqualScalar(th *Thread, v Value) error {
	switch v := v.(type) {
	case String, Keyword, symbol:
		return chargeText(th, v)
	case *BigDec:
		return decimalsWork(th, []Value{v}, false)
	case *BigInt:
		return chargeBigScan(th, v.n)
	}
	return nil
}

// chargeEqual charges for comparing vs with Equal: a visit of each, and
// for one holding maps or sets, the keys Equal builds to look their
// entries up.
func chargeEqual(th *Thread, vs []Value) error {
	for _, v := range vs {
		switch s := v.(type) {
		case String, Keyword, symbol, *BigDec, *BigInt:
			if err := chargeEqualScalar(th, s); err != nil {
				return err
			}
			continue
		}
		size, unordered, err := measure(th, v)
		if err != nil {
			return err
		}
		if unordered {
			if err := th.alloc(size); err != nil {
				return err
			}
		}
	}
	return nil
}

// weighAll weighs each value.
func weighAll(th *Thread, vs []Value) (int64, error) {
	var total int64
	for _, v := range vs {
		n, err := weigh(th, v)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// scalarSize estimates the printed size of a value that is not a vector,
// map or set.
func scalarSize(v Value) int64 {
	switch v := v.(type) {
	case String:
		return int64(len(v)) + 2
	case Keyword:
		return int64(len(v)) + 1
	case *regex:
		return int64(len(v.source)) + 3
	case javaClass:
		return int64(len(v))
	case *BigInt:
		return int64(bigTextLen(v)) + 1
	case *BigDec:
		return int64(decTextLen(v)) + 1
	case Int:
		n := int64(1)
		for x := v; x >= 10 || x <= -10; x /= 10 {
			n++
		}
		if v < 0 {
			n++
		}
		return n
	case NilType, Bool:
		return 5
	}
	return 24
}
