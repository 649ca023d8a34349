package lisp

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// The builtin table is assembled once from one slice per section of the
// language reference (builtins_*.go). Keeping the sections as plain data
// means the system prompt, the "did you mean" hints and the arity checks all
// read the same source, and a builtin cannot exist without its documentation.
var builtinSections = [][]*Builtin{
	collectionBuiltins,
	sequenceBuiltins,
	aggregateBuiltins,
	walkBuiltins,
	mapBuiltins,
	setBuiltins,
	stringBuiltins,
	regexBuiltins,
	mathBuiltins,
	compareBuiltins,
	logicBuiltins,
	predicateBuiltins,
	functionBuiltins,
	idiomBuiltins,
	sortedBuiltins,
	classBuiltins,
	aliasBuiltins,
	bitBuiltins,
}

var builtinList, builtinIndex = buildBuiltinTable(builtinSections)

// lookupBuiltin returns the builtin function called name.
func lookupBuiltin(name string) (*Builtin, bool) {
	b, ok := builtinIndex[name]
	return b, ok
}

// Builtins returns every builtin, sorted by name. The slice is shared and
// must not be modified.
func Builtins() []*Builtin { return builtinList }

func buildBuiltinTable(sections [][]*Builtin) ([]*Builtin, map[string]*Builtin) {
	index := make(map[string]*Builtin)
	var list []*Builtin
	for _, section := range sections {
		for _, b := range section {
			if _, dup := index[b.Name]; dup {
				panic("lisp: builtin " + b.Name + " defined twice")
			}
			index[b.Name] = b
			list = append(list, b)
		}
	}
	slices.SortFunc(list, func(a, b *Builtin) int { return strings.Compare(a.Name, b.Name) })
	return list, index
}

// seqMode says which values a sequence function accepts besides vectors,
// strings, maps and nil.
type seqMode int

const (
	// anySeq accepts sets too (iterated in insertion order).
	anySeq seqMode = iota
	// orderedSeq rejects sets: the spec (3.9) gives sets no order, so
	// positional access such as first or nth is an error. A sorted set
	// has an order, and is accepted.
	orderedSeq
)

// seqOf returns the elements of a seqable value: a vector's elements, a set's
// elements, a map's entries as [key value] vectors, a string's characters as
// one-character strings, nothing for nil. The slice must not be modified.
// Building entries or characters is charged to the thread.
func seqOf(th *Thread, fn string, v Value, mode seqMode) ([]Value, error) {
	switch v := v.(type) {
	case *Vector:
		return v.elems, nil
	case NilType:
		return nil, nil
	case *Set:
		if mode == orderedSeq && orderOf(v) == nil {
			return nil, Errorf(typeError, "%s is not supported on sets: sets have no order", fn).
				WithHint("convert the set first, e.g. (%s (vec s)), or use (sort (vec s))", fn)
		}
		return v.elems, nil
	case *Map:
		return mapEntries(th, v)
	case String:
		return stringChars(th, string(v))
	case *infiniteSeq:
		return nil, infiniteError(fn, v)
	}
	e := typeErrorf(fn, "a collection (vector, map, set, string or nil)", v)
	if _, ok := v.(Callable); ok {
		e.WithHint("the collection is the last argument: (%s f coll); to thread a collection into it use ->>, not ->", fn)
	}
	return nil, e
}

// mapEntries returns m's entries as [key value] vectors.
func mapEntries(th *Thread, m *Map) ([]Value, error) {
	n := m.Len()
	if err := th.allocVector(n); err != nil {
		return nil, err
	}
	if err := th.alloc(int64(n) * (costCollHead + 2*costElem)); err != nil {
		return nil, err
	}
	out := make([]Value, n)
	// The n pairs and their vectors are allocated together, three
	// allocations instead of three per entry. Each pair is a full slice
	// expression, so conj on one copies rather than writing into the next.
	pairs := make([]Value, 2*n)
	vecs := make([]vectorWithTail, n)
	for i, e := range m.entries {
		pairs[2*i], pairs[2*i+1] = e.Key, e.Val
		vt := &vecs[i]
		vt.v = Vector{elems: pairs[2*i : 2*i+2 : 2*i+2], weight: addWeight(addWeight(1, weightOf(e.Key)), weightOf(e.Val))}
		vt.t.used = 2
		vt.v.tail = &vt.t
		out[i] = &vt.v
	}
	return out, nil
}

// stringChars splits s into one-character strings (code points).
func stringChars(th *Thread, s string) ([]Value, error) {
	n := utf8.RuneCountInString(s)
	if err := th.allocVector(n); err != nil {
		return nil, err
	}
	if err := th.alloc(int64(n)*costString + int64(len(s))); err != nil {
		return nil, err
	}
	out := make([]Value, 0, n)
	for _, r := range s {
		out = append(out, String(string(r)))
	}
	return out, nil
}

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

// toInt returns v as an int for counts and indexes; floats are truncated as
// Clojure does for (take 2.0 xs).
func toInt(fn string, v Value) (int, error) {
	switch v := v.(type) {
	case Int:
		return clampInt(int64(v)), nil
	case Float:
		f := float64(v)
		if f != f {
			return 0, Errorf(typeError, "%s expected an integer, got NaN", fn)
		}
		if f > 1<<62 {
			return 1 << 62, nil
		}
		if f < -(1 << 62) {
			return -(1 << 62), nil
		}
		return int(f), nil
	}
	return 0, typeErrorf(fn, "an integer", v)
}

func clampInt(n int64) int {
	const limit = 1 << 62
	if n > limit {
		return limit
	}
	if n < -limit {
		return -limit
	}
	return int(n)
}

// call applies f and names fn in a type error when f cannot be called.
func call(th *Thread, fn string, f Value, args ...Value) (Value, error) {
	switch f := f.(type) {
	case *closure:
		return th.callClosure(f, args)
	case Keyword:
		if err := th.enterCall(); err != nil {
			return nil, err
		}
		return f.Call(th, args)
	case *Builtin:
		if f.borrows {
			return th.callBorrowed(f, args)
		}
	}
	if _, ok := f.(Callable); !ok {
		return nil, Errorf(typeError, "%s expected a function, got %s", fn, describe(f)).
			WithHint("pass a function, keyword, map or set, e.g. (%s :key coll) or (%s #(...) coll)", fn, fn)
	}
	// Other callables (vector, list, ...) may keep the slice they get.
	return th.call(f, append([]Value(nil), args...))
}

// truthyCall applies a predicate.
func truthyCall(th *Thread, fn string, pred Value, x Value) (bool, error) {
	v, err := call(th, fn, pred, x)
	if err != nil {
		return false, err
	}
	return truthy(v), nil
}

// describe names a value's type, with the value itself when it is short, so
// that an error says "got string \"abc\"" rather than only "got string".
func describe(v Value) string {
	switch v.(type) {
	case NilType:
		return "nil"
	case *Vector, *Map, *Set:
		return TypeLabel(v)
	}
	r := shownIn(v, 160)
	if runes := []rune(r); len(runes) > 40 {
		r = string(runes[:37]) + "..."
	}
	return fmt.Sprintf("%s %s", v.TypeName(), r)
}

func boolValue(b bool) Value {
	if b {
		return trueValue
	}
	return falseValue
}

// The updates of collections (conj, assoc, and the builtins made of them)
// are charged here, by the operation that makes them: steps for the work
// on the items already there, and memory for what the new version holds
// of its own. An update that extends the longest version in place adds
// only the growth; one that copies (a replaced value, dissoc, an older
// version extended, any sorted insertion) makes a whole new collection,
// charged whole: the old version may be kept ([m (assoc m k v)] a
// thousand times), and a copy charged only its steps let 900 versions of
// a map of 1,000 entries take 75 MiB for 269 KiB charged.

// chargeCopy charges an update that copies rebuilt items (a step each,
// hashing them again, and perItem bytes each in the new version) and adds
// added new ones of perItem bytes.
func chargeCopy(th *Thread, rebuilt, added int, perItem int64) error {
	if err := steps(th, rebuilt); err != nil {
		return err
	}
	if rebuilt <= 0 {
		return th.alloc(costCollHead + perItem*int64(max(added, 0)))
	}
	n := rebuilt + max(added, 0)
	return th.alloc(collShape(n, perItem, n > smallMap)) // with the hash index a copy builds
}

// chargeMove charges moving n items of size bytes to a larger array, as
// extending a collection in place past its capacity does: a step per 64
// bytes, as reading a string is.
func chargeMove(th *Thread, n, size int) error {
	return th.step(int64(n) * int64(size) / 64)
}

// conjVector is v.conj(x), charged.
func conjVector(th *Thread, v *Vector, x Value) (*Vector, error) {
	if err := chargeMove(th, v.conjMoves(), costElem); err != nil {
		return nil, err
	}
	if err := th.alloc(costCollHead + costElem); err != nil {
		return nil, err
	}
	return v.conj(x), nil
}

// assocMap is m.assoc(k, v), charged; the key is hashed too.
func assocMap(th *Thread, m *Map, k, v Value) (*Map, error) {
	if err := chargeKey(th, k); err != nil {
		return nil, err
	}
	if m.tail != nil && m.tail.order != nil {
		return assocSorted(th, m, k, v)
	}
	rebuilt, moved := m.assocWork(k)
	if rebuilt > 0 {
		if err := chargeMapKeys(th, m); err != nil {
			return nil, err
		}
	}
	if err := chargeMove(th, moved, costMapEntry); err != nil {
		return nil, err
	}
	if err := chargeCopy(th, rebuilt, 1, costMapEntry); err != nil {
		return nil, err
	}
	return m.assoc(k, v), nil
}

// conjSet is s.conj(x), charged; x is hashed too.
func conjSet(th *Thread, s *Set, x Value) (*Set, error) {
	if err := chargeKey(th, x); err != nil {
		return nil, err
	}
	if s.contains(x) {
		return s, nil
	}
	if s.tail != nil && s.tail.order != nil {
		return conjSorted(th, s, x)
	}
	rebuilt, moved := s.conjWork(x)
	if rebuilt > 0 {
		if err := chargeKeys(th, s.elems); err != nil {
			return nil, err
		}
	}
	if err := chargeMove(th, moved, costElem); err != nil {
		return nil, err
	}
	if err := chargeCopy(th, rebuilt, 1, costElem); err != nil {
		return nil, err
	}
	return s.conj(x), nil
}

// arity bounds used in the tables.
const variadic = -1

// weigh visits every node of v, charging a step per node and per 64 bytes
// of the strings inside, and returns an estimate of its printed size.
// Builtins that print, hash or compare whole values call it first,
// because structure sharing hides work from the budgets: (repeat 1000 v)
// costs 1,000 elements but prints, hashes and compares v a thousand
// times, and nesting that three deep would print gigabytes. The steps are
// charged as the walk goes, so the walk itself stops at the step budget
// and at the evaluation's deadline. Scalars cost nothing.
func weigh(th *Thread, v Value) (int64, error) {
	size, _, err := measure(th, v)
	return size, err
}

// measure is weigh that also reports whether v holds a map or a set. It
// refuses a value nesting deeper than MaxValueNesting, so the walks that
// follow it (printing, comparing, hashing) visit no deeper.
func measure(th *Thread, v Value) (size int64, unordered bool, err error) {
	switch v.(type) {
	case *Vector, *Map, *Set, holder:
	default:
		return scalarSize(v), false, nil
	}
	w := newWalk(th, v, MaxValueNesting)
	var bytes int64 // of strings: a step per 64
	for ev, at := w.next(); ev != walkDone; ev, at = w.next() {
		if ev == walkLeave {
			continue
		}
		switch c := at.(type) {
		case *Vector:
			size += 2 + int64(c.Len())
		case *Set:
			size += 3 + int64(c.Len())
			unordered = true
		case *Map:
			size += 2 + 3*int64(c.Len())
			unordered = true
		case String:
			size += scalarSize(c)
			if bytes += int64(len(c)); bytes >= 64*walkBatch {
				if err := th.step(bytes / 64); err != nil {
					return 0, false, err
				}
				bytes %= 64
			}
		default: // a function holding values prints with them, as other scalars
			size += scalarSize(c)
		}
	}
	if w.err == errTooDeep {
		return 0, false, walkTooDeepError()
	}
	if w.err != nil {
		return 0, false, w.err
	}
	return size, unordered, th.step(bytes / 64)
}

// chargeKey charges for using v as a key of a map or set: hashing a
// collection visits it (weigh) and builds its canonical text (hashKey),
// about as many bytes as it prints as. Other values are their own keys;
// a string is hashed and compared in place, a step per 64 bytes.
func chargeKey(th *Thread, v Value) error {
	switch v := v.(type) {
	case *Vector, *Map, *Set:
	case String:
		return chargeStringCompare(th, v)
	default:
		return nil
	}
	size, err := weigh(th, v)
	if err != nil {
		return err
	}
	return th.alloc(size)
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

// chargeStringCompare charges for hashing or comparing s: a step per 64
// bytes, nothing for a short string.
func chargeStringCompare(th *Thread, s String) error {
	if len(s) < 64 {
		return nil
	}
	return th.step(int64(len(s)) / 64)
}

// chargeEqualScalar is chargeEqual of one value that is its own hash key.
func chargeEqualScalar(th *Thread, v Value) error {
	if s, ok := v.(String); ok {
		return chargeStringCompare(th, s)
	}
	return nil
}

// chargeEqual charges for comparing vs with Equal: a visit of each, and
// for one holding maps or sets, the keys Equal builds to look their
// entries up.
func chargeEqual(th *Thread, vs []Value) error {
	for _, v := range vs {
		if s, ok := v.(String); ok {
			if err := chargeStringCompare(th, s); err != nil {
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
