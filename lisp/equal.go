package lisp

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Equal is Clojure's =: numbers equal only within the same category (1 and
// 1.0 differ), vectors compare element-wise, maps and sets regardless of order.
//
// It walks a (walk.go) with b's counterpart of each value beside it: the
// element at the same index of a vector, the value under the same key of
// a map. Sets, and map keys, are compared by lookup; functions are equal
// only to themselves.
func Equal(a, b Value) bool {
	eq, _ := equalCharged(nil, a, b)
	return eq
}

// equalCharged is Equal charging th for what it reads (nil: not
// charged): a step per part its walk reaches, each key it hashes to
// look an entry or an element up (chargeKey), and a step per 64 bytes of
// two texts of one length. A builtin that tests equality in a loop whose
// length is not its arguments' (isa? over a hierarchy, a multimethod's
// dispatch over its methods) pays for each test, not once per call.
func equalCharged(th *Thread, a, b Value) (eq bool, err error) {
	if _, ok := a.(*Vector); !ok {
		if _, ok := a.(*Map); !ok {
			if th != nil {
				if err := th.step(1); err != nil { // the part reached, as a walk charges it
					return false, err
				}
			}
			return equalNode(th, a, b)
		}
	}
	w := newWalk(th, a, math.MaxInt)
	defer func() { err = w.ended(err) }()
	others := []Value{} // b's counterparts of the levels being walked
	for ev, at := w.next(); ev != walkDone; ev, at = w.next() {
		if ev == walkLeave {
			others = others[:len(others)-1]
			continue
		}
		var y Value
		switch parent := w.parent().(type) {
		case nil:
			y = b
		case *Vector:
			y = others[len(others)-1].(*Vector).elems[w.index]
		case *Map:
			if w.index%2 == 0 {
				w.skip() // a key: looked up with its value
				continue
			}
			key := parent.entries[w.index/2].Key
			if err := chargeLookup(th, key); err != nil {
				return false, err
			}
			var ok bool
			if y, ok = others[len(others)-1].(*Map).Get(key); !ok {
				return false, nil
			}
		}
		if eq, err := equalNode(th, at, y); err != nil || !eq {
			return false, err
		}
		switch at.(type) {
		case *Vector, *Map:
			others = append(others, y)
		default:
			w.skip() // compared whole by equalNode
		}
	}
	return true, nil
}

// equalPairs reports whether a equals b and c equals d, charging th as
// equalCharged does; c and d are compared only when a and b are equal.
func equalPairs(th *Thread, a, b, c, d Value) (bool, error) {
	if eq, err := equalCharged(th, a, b); err != nil || !eq {
		return false, err
	}
	return equalCharged(th, c, d)
}

// chargeLookup charges th, when there is one, for hashing key to look it
// up (chargeKey).
func chargeLookup(th *Thread, key Value) error {
	if th == nil {
		return nil
	}
	return chargeKey(th, key)
}

// equalNode compares x and y as Equal does, except that for two vectors
// or two maps it compares only their lengths (and for maps nothing more):
// Equal's walk compares their parts. It charges th as equalCharged does.
func equalNode(th *Thread, x, y Value) (bool, error) {
	switch x := x.(type) {
	case *Vector:
		y, ok := y.(*Vector)
		return ok && x.Len() == y.Len(), nil
	case *Map:
		y, ok := y.(*Map)
		return ok && x.Len() == y.Len() && sameRecordClass(x, y), nil
	case *Set:
		y, ok := y.(*Set)
		if !ok || x.Len() != y.Len() {
			return false, nil
		}
		for _, e := range x.elems {
			if err := chargeLookup(th, e); err != nil {
				return false, err
			}
			if !y.contains(e) {
				return false, nil
			}
		}
		return true, nil
	}
	if th != nil {
		if err := chargeScalarPair(th, x, y); err != nil {
			return false, err
		}
	}
	return equalScalar(x, y), nil
}

// chargeScalarPair charges th for testing the equality of x and y, not
// collections: two texts of one length are read whole, a step per 64
// bytes (texts of different lengths differ at once); a big number's
// words are read (chargeEqualScalar).
func chargeScalarPair(th *Thread, x, y Value) error {
	switch x.(type) {
	case *BigInt, *BigDec:
		return chargeEqualScalar(th, x)
	}
	if n := textLen(x); n > 0 && n == textLen(y) {
		return chargeText(th, x)
	}
	return nil
}

// equalScalar is equalNode of x and y, x not a collection.
func equalScalar(x, y Value) bool {
	switch x := x.(type) {
	case Float, Float32:
		// A 32-bit float equals the double of its value, as Clojure's =
		// compares the two as doubles: (= (float 0.5) 0.5) but not
		// (= (float 0.1) 0.1).
		fx, _ := floatValue(x)
		fy, ok := floatValue(y)
		return ok && fx == fy
	case *varRef:
		y, ok := y.(*varRef)
		return ok && x.Name == y.Name
	case *BigDec:
		// By value, whatever the scales, without building their texts.
		y, ok := y.(*BigDec)
		return ok && decCompare(x, y) == 0
	}
	switch y.(type) {
	case *Vector, *Map, *Set, Float, Float32, *varRef, *BigDec:
		return false // x is none of these: its hash key is not theirs
	}
	return hashKey(x) == hashKey(y)
}

// hashKey returns a comparable Go value such that Equal(a, b) implies
// hashKey(a) == hashKey(b). Scalars map to themselves; collections to a
// canonical text with unordered parts in a canonical order.
//
// Building the text takes time and memory in proportion to it, about
// weightOf(v) bytes: builtins charge for it before they hash a collection
// (chargeKey).
func hashKey(v Value) any {
	switch v := v.(type) {
	case NilType, Bool, Int, String, Keyword, symbol, javaClass:
		return v
	case Float:
		if math.IsNaN(float64(v)) {
			return "##NaN" // NaN keys stay findable, as in Clojure's hash maps
		}
		if v == 0 {
			return Float(0) // -0.0 and 0.0 are the same key
		}
		return v
	case Float32:
		return hashKey(Float(v)) // the key of the double it equals
	case *varRef:
		return "#'" + v.Name
	case *BigInt:
		return bigHashKey(v)
	case *BigDec:
		return decHashKey(v)
	case *Vector, *Map, *Set:
		if text, ok := flatCanonicalText(v); ok {
			return collKey(text)
		}
		return collKey(canonicalText(v, nil))
	}
	return collKey(appendScalarKey(nil, v)) // a function: itself only
}

// flatCanonicalText is canonicalText of a collection whose parts are all
// scalars, the commonest key ([k1 k2], #{a b}, a record of a few fields),
// written without a walk or a table of structural hashes: those cost
// several times the text in garbage for each key hashed, which the
// allocation charge of the text does not cover. ok is false for a
// collection holding a collection or a function.
// flatTextRoom is the buffer flatCanonicalText writes a key's text in:
// its opening and 16 bytes a part, which chargeKey charges too.
func flatTextRoom(opening, parts int) int { return opening + 16*parts }

func flatCanonicalText(v Value) (text []byte, ok bool) {
	var elems []Value
	var entries []MapEntry
	var open, sep string
	switch c := v.(type) {
	case *Vector:
		elems, open = c.elems, "["
	case *Set:
		elems, open = c.elems, "#{"
	case *Map:
		entries, open = c.entries, c.class().opening()
	default:
		return nil, false
	}
	n := len(open) + 1
	if !flatColl(v) {
		return nil, false
	}
	buf := make([]byte, 0, flatTextRoom(n, len(elems)+2*len(entries)))
	buf = append(buf, open...)
	switch c := v.(type) {
	case *Vector:
		for i, e := range elems {
			if i > 0 {
				buf = append(buf, ' ')
			}
			buf = appendScalarKey(buf, e)
		}
		return append(buf, ']'), true
	case *Set:
		if len(elems) > 1 {
			elems = canonicalOrder(elems, nil)
		}
		sep = " "
	case *Map:
		keys := make([]Value, len(entries))
		for i, e := range entries {
			keys[i] = e.Key
		}
		if len(keys) > 1 {
			keys = canonicalOrder(keys, nil)
		}
		for i, k := range keys {
			if i > 0 {
				buf = append(buf, ',')
			}
			val, _ := c.Get(k)
			buf = append(appendScalarKey(buf, k), ' ')
			buf = appendScalarKey(buf, val)
		}
		return append(buf, '}'), true
	}
	for i, e := range elems {
		if i > 0 {
			buf = append(buf, sep...)
		}
		buf = appendScalarKey(buf, e)
	}
	return append(buf, '}'), true
}

// flatParts reports whether each of vs is a scalar part or a collection
// of scalar parts, whose structural hash flatHash finds without a walk.
func flatParts(vs []Value) bool {
	for _, v := range vs {
		if !scalarPart(v) && !flatColl(v) {
			return false
		}
	}
	return true
}

// flatKeys is flatParts of m's keys, the parts a map's order hashes.
func flatKeys(m *Map) bool {
	for _, e := range m.entries {
		if !scalarPart(e.Key) && !flatColl(e.Key) {
			return false
		}
	}
	return true
}

// flatColl reports whether v is a collection of scalar parts.
func flatColl(v Value) bool {
	switch c := v.(type) {
	case *Vector:
		return flatScalars(c.elems)
	case *Set:
		return flatScalars(c.elems)
	case *Map:
		for _, e := range c.entries {
			if !scalarPart(e.Key) || !scalarPart(e.Val) {
				return false
			}
		}
		return true
	}
	return false
}

func flatScalars(vs []Value) bool {
	for _, v := range vs {
		if !scalarPart(v) {
			return false
		}
	}
	return true
}

// flatHash is the structural hash structuralHashes finds for a collection
// of scalar parts, found here without a walk or a table; ok is false for
// any other value.
func flatHash(v Value) (h uint64, ok bool) {
	if !flatColl(v) {
		return 0, false
	}
	switch c := v.(type) {
	case *Vector:
		h = 'v'
		for _, e := range c.elems {
			h = mix64(h + hashOf(e, nil))
		}
		return h, true
	case *Set:
		for _, e := range c.elems {
			h += mix64(hashOf(e, nil))
		}
		return mix64(h ^ 'S'), true
	case *Map:
		for _, e := range c.entries {
			h += mix64(hashOf(e.Key, nil) ^ mix64(hashOf(e.Val, nil)+'m'))
		}
		return mix64(h ^ 'm'), true
	}
	return 0, false
}

// scalarPart reports whether v is a part canonicalText writes as a
// scalar key: not a collection, nor a function or form holding values.
func scalarPart(v Value) bool {
	switch v.(type) {
	case NilType, Bool, Int, String, Keyword, symbol, Float:
		return true
	case *Vector, *Map, *Set:
		return false
	}
	_, _, isLevel := parts(v)
	return !isLevel
}

// canonicalText is the text of a collection's hash key, written in time
// linear in the text: the entries of a map and the elements of a set are
// ordered by a structural hash, and only two parts with the same hash are
// ordered by their own text. Ordering by text alone would build every
// part's text once per level it nests in, quadratic for deeply nested
// values. hashes are the structural hashes of collections, found by an
// earlier walk (nil: found here, once a map or set of more than one part
// needs them: most keys have none).
func canonicalText(v Value, hashes *structHashes) []byte {
	var buf []byte
	w := newWalk(nil, v, math.MaxInt)
	sp := takeWalkStack() // a stack per key hashed would be garbage beside its text
	w.stack = *sp
	defer func() { putWalkStack(sp, w.stack) }()
	for ev, at := w.next(); ev != walkDone; ev, at = w.next() {
		if ev == walkLeave {
			buf = append(buf, '}')
			if _, ok := at.(*Vector); ok {
				buf[len(buf)-1] = ']'
			}
			continue
		}
		switch w.parent().(type) {
		case *Vector, *Set:
			if w.index > 0 {
				buf = append(buf, ' ')
			}
		case *Map:
			switch {
			case w.index%2 == 1:
				buf = append(buf, ' ')
			case w.index > 0:
				buf = append(buf, ',')
			}
		}
		switch x := at.(type) {
		case *Vector:
			buf = append(buf, '[')
		case *Map:
			buf = append(buf, x.class().opening()...) // a record is not a map with its entries
			if x.Len() > 1 {
				if hashes == nil && !flatKeys(x) {
					hashes = structuralHashes(v)
				}
				w.enterWith(canonicalEntries(x, hashes))
			}
		case *Set:
			buf = append(buf, "#{"...)
			if x.Len() > 1 {
				if hashes == nil && !flatParts(x.elems) {
					hashes = structuralHashes(v)
				}
				w.enterWith(canonicalOrder(x.elems, hashes))
			}
		default:
			if _, ok := x.(holder); ok {
				w.skip() // a function: itself only
			}
			buf = appendScalarKey(buf, x)
		}
	}
	return buf
}

// canonicalEntries returns m's keys and values, key then value, with the
// entries in canonical order.
func canonicalEntries(m *Map, hashes *structHashes) []Value {
	keys := make([]Value, len(m.entries))
	for i, e := range m.entries {
		keys[i] = e.Key
	}
	keys = canonicalOrder(keys, hashes)
	out := make([]Value, 0, 2*len(keys))
	for _, k := range keys {
		v, _ := m.Get(k)
		out = append(out, k, v)
	}
	return out
}

// canonicalOrder returns vs sorted by structural hash, and by canonical
// text where two hashes are equal (keys of one map and elements of one set
// are never equal, so the order is total).
func canonicalOrder(vs []Value, hashes *structHashes) []Value {
	type hashed struct {
		h uint64
		v Value
	}
	hs := make([]hashed, len(vs))
	for i, v := range vs {
		hs[i] = hashed{hashOf(v, hashes), v}
	}
	slices.SortFunc(hs, func(a, b hashed) int {
		if a.h != b.h {
			return cmp.Compare(a.h, b.h)
		}
		return strings.Compare(string(canonicalText(a.v, hashes)), string(canonicalText(b.v, hashes)))
	})
	out := make([]Value, len(hs))
	for i, h := range hs {
		out[i] = h.v
	}
	return out
}

// structuralHashes returns the structural hash of every collection in v
// (hashOf), each shared one computed once.
func structuralHashes(v Value) *structHashes { return walkHashes(v, false) }

// walkHashes is structuralHashes, keeping the hashes of collections of
// scalars too when all is set (the tests hold flatHash to them).
func walkHashes(v Value, all bool) *structHashes {
	hashes := &structHashes{}
	w := newWalk(nil, v, math.MaxInt)
	sp := takeWalkStack()
	w.stack = *sp
	defer func() { putWalkStack(sp, w.stack) }()
	w.visitOnce()
	// For each collection being walked: a vector's running hash, or a
	// map's or set's running sum, and a map's last key's hash.
	type open struct{ h, key uint64 }
	acc := make([]open, 0, 8)
	feed := func(h uint64) { // the hash of the value at w.index in w.parent()
		if len(acc) == 0 {
			return
		}
		top := &acc[len(acc)-1]
		switch w.parent().(type) {
		case *Vector:
			top.h = mix64(top.h + h)
		case *Map:
			if w.index%2 == 0 {
				top.key = h
			} else {
				top.h += mix64(top.key ^ mix64(h+'m'))
			}
		case *Set:
			top.h += mix64(h)
		}
	}
	for ev, at := w.next(); ev != walkDone; ev, at = w.next() {
		if ev == walkLeave {
			h := acc[len(acc)-1].h
			acc = acc[:len(acc)-1]
			switch at.(type) {
			case *Map:
				h = mix64(h ^ 'm')
			case *Set:
				h = mix64(h ^ 'S')
			}
			if all || !flatColl(at) { // flatHash finds those again without the table
				hashes.put(at, h)
			}
			feed(h)
			continue
		}
		if _, ok := at.(holder); ok {
			w.skip() // a function: itself only
		}
		if !w.entered() {
			feed(hashOf(at, hashes))
			continue
		}
		if _, ok := at.(*Vector); ok {
			acc = append(acc, open{h: 'v'})
		} else {
			acc = append(acc, open{})
		}
	}
	return hashes
}

// structHashes are the structural hashes of the collections of collections
// in one value. A key holds few: they are kept in a short list, searched
// in order, until there are more than maxListedHashes, then in a map. A map
// per key hashed was most of what hashing a key of nested sets allocated.
type structHashes struct {
	listed []hashedValue
	index  map[Value]uint64
}

type hashedValue struct {
	v Value
	h uint64
}

// maxListedHashes is the most hashes a structHashes searches in order.
const maxListedHashes = 16

func (t *structHashes) get(v Value) (uint64, bool) {
	if t == nil {
		return 0, false
	}
	if t.index != nil {
		h, ok := t.index[v]
		return h, ok
	}
	for _, e := range t.listed {
		if e.v == v {
			return e.h, true
		}
	}
	return 0, false
}

func (t *structHashes) put(v Value, h uint64) {
	if t.index == nil && len(t.listed) < maxListedHashes {
		t.listed = append(t.listed, hashedValue{v, h})
		return
	}
	if t.index == nil {
		t.index = make(map[Value]uint64, 2*maxListedHashes)
		for _, e := range t.listed {
			t.index[e.v] = e.h
		}
		t.listed = nil
	}
	t.index[v] = h
}

// hashOf is the structural hash of v, consistent with Equal: equal values
// hash alike, whatever the order of their map entries or set elements. A
// collection's comes from hashes (structuralHashes).
func hashOf(v Value, hashes *structHashes) uint64 {
	switch x := v.(type) {
	case String:
		return mix64(maphash.String(hashSeed, string(x)) ^ 's')
	case *Vector, *Map, *Set:
		if h, ok := hashes.get(v); ok {
			return h
		}
		h, _ := flatHash(v) // what structuralHashes finds for it
		return h
	}
	var small [32]byte
	return mix64(maphash.Bytes(hashSeed, appendScalarKey(small[:0], v)))
}

// cheapKey reports whether hashKey(v) is found without building a text:
// the values hashKey returns as they are, or nearly.
func cheapKey(v Value) bool {
	switch v.(type) {
	case NilType, Bool, Int, String, Keyword, symbol, Float, Float32, *varRef, javaClass:
		return true
	case *BigInt:
		return v.(*BigInt).n.IsInt64() // its key is then the Int's
	}
	return false
}

// collKey keeps collection hash keys apart from plain string values.
type collKey string

// hashSeed keys the structural hash; it is set once when the process
// starts and only orders parts within one process.
var hashSeed = maphash.MakeSeed()

// mix64 is the finalizer of SplitMix64: every input bit affects every
// output bit.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// appendScalarKey appends the canonical text of a value that is not a
// vector, map or set. Strings are length-prefixed rather than quoted, so
// their text is their bytes plus a few, whatever they hold.
func appendScalarKey(buf []byte, v Value) []byte {
	switch v := v.(type) {
	case String:
		buf = append(strconv.AppendInt(append(buf, 's'), int64(len(v)), 10), ':')
		return append(buf, v...)
	case Keyword:
		// Length-prefixed too: a keyword's name may hold spaces
		// ((keyword "a 1")), which must not read as two parts.
		buf = append(strconv.AppendInt(append(buf, ':'), int64(len(v)), 10), ':')
		return append(buf, v...)
	case symbol:
		buf = append(strconv.AppendInt(append(buf, '\''), int64(len(v)), 10), ':')
		return append(buf, v...)
	case Int:
		return strconv.AppendInt(buf, int64(v), 10)
	case *BigInt:
		return v.n.Append(buf, 10) // the Int's text within the 64-bit range: 1N is the key 1
	case *BigDec:
		return appendDecKey(buf, v) // 1.50M is the key 1.5M, apart from 1 and 1.5
	case Float32:
		return appendScalarKey(buf, Float(v))
	case Float:
		if v == 0 {
			return append(buf, "f0"...) // -0.0 equals 0.0
		}
		return strconv.AppendFloat(append(buf, 'f'), float64(v), 'g', -1, 64)
	case Bool:
		return strconv.AppendBool(buf, bool(v))
	case NilType:
		return append(buf, "nil"...)
	case *varRef:
		return append(append(buf, "#'"...), v.Name...)
	case javaClass:
		return append(append(buf, "class "...), v...)
	}
	// Functions and other reference values are equal only to themselves.
	return fmt.Appendf(buf, "#<%s %p>", v.TypeName(), v)
}
