package lisp

import (
	"math"
	"math/bits"
	"slices"
	"strings"
)

// Clojure's hash functions (hasheq, the hash its hash maps and hash sets
// place keys by), so that maps and sets iterate in Clojure's order.
//
// Clojure 1.11 iterates a PersistentHashMap or PersistentHashSet in the
// order of its hash array mapped trie: the key whose hash has the smallest
// low 5 bits first, ties broken by the next 5 bits, and so on; keys of
// equal hash (a collision node) in the order they were added; a nil key
// before every other. A map of at most 8 entries built by assoc, conj,
// into, a literal and the rest is an array map, which iterates in
// insertion order; adding a 9th key makes it a hash map, which it stays.
// Every set is a hash set. The hashes below are Clojure's, checked
// against values recorded from Clojure itself (hashorder_test.go).
//
// Where a value here stands for something Clojure hashes differently, the
// order follows the value it is here:
//   - a character is a one-character string, hashed as that string
//     (Clojure hashes \a as 97, "a" as 1455541201);
//   - a date (LocalDate/parse) is its ISO string;
//   - a regex hashes as its source string, a class as its name, a var as
//     its symbol: Clojure hashes them by identity, which differs from one
//     run to the next, so no program can rely on their order;
//   - other identity-hashed values (functions, atoms, exceptions) hash as
//     0: they keep the order they were added in among themselves.

// Murmur3 as clojure.lang.Murmur3 computes it: seed 0, 32-bit arithmetic.
const (
	murmurC1 uint32 = 0xcc9e2d51
	murmurC2 uint32 = 0x1b873593
)

func murmurMixK1(k1 uint32) uint32 {
	k1 *= murmurC1
	k1 = bits.RotateLeft32(k1, 15)
	return k1 * murmurC2
}

func murmurMixH1(h1, k1 uint32) uint32 {
	h1 ^= k1
	h1 = bits.RotateLeft32(h1, 13)
	return h1*5 + 0xe6546b64
}

func murmurFmix(h1, length uint32) uint32 {
	h1 ^= length
	h1 ^= h1 >> 16
	h1 *= 0x85ebca6b
	h1 ^= h1 >> 13
	h1 *= 0xc2b2ae35
	return h1 ^ h1>>16
}

// murmurHashInt is Murmur3.hashInt.
func murmurHashInt(x uint32) uint32 {
	if x == 0 {
		return 0
	}
	return murmurFmix(murmurMixH1(0, murmurMixK1(x)), 4)
}

// murmurHashLong is Murmur3.hashLong.
func murmurHashLong(x int64) uint32 {
	if x == 0 {
		return 0
	}
	h1 := murmurMixH1(0, murmurMixK1(uint32(x)))
	h1 = murmurMixH1(h1, murmurMixK1(uint32(uint64(x)>>32)))
	return murmurFmix(h1, 8)
}

// mixCollHash is Murmur3.mixCollHash, the last step of hashOrdered and
// hashUnordered.
func mixCollHash(hash uint32, count int) uint32 {
	return murmurFmix(murmurMixH1(0, murmurMixK1(hash)), uint32(count))
}

// utf16Units calls f with the UTF-16 code units of s, as a Java string
// holds it (an invalid UTF-8 byte is U+FFFD, as a decoder gives).
func utf16Units(s string, f func(u uint32)) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			f(uint32(0xd800 + (r >> 10)))
			f(uint32(0xdc00 + (r & 0x3ff)))
			n += 2
			continue
		}
		f(uint32(r))
		n++
	}
	return n
}

// javaStringHash is String.hashCode.
func javaStringHash(s string) uint32 {
	var h uint32
	utf16Units(s, func(u uint32) { h = 31*h + u })
	return h
}

// murmurHashUnencodedChars is Murmur3.hashUnencodedChars: the UTF-16
// units two at a time.
func murmurHashUnencodedChars(s string) uint32 {
	var h1, pending uint32
	odd := false
	n := utf16Units(s, func(u uint32) {
		if !odd {
			pending, odd = u, true
			return
		}
		h1 = murmurMixH1(h1, murmurMixK1(pending|u<<16))
		odd = false
	})
	if odd {
		h1 ^= murmurMixK1(pending)
	}
	return murmurFmix(h1, uint32(2*n))
}

// symbolHash is Symbol.hasheq of a name written ns/name or name: the
// namespace is what comes before the first slash, unless the name is "/".
func symbolHash(s string) uint32 {
	ns, name := "", s
	hasNS := false
	if i := strings.IndexByte(s, '/'); i >= 0 && s != "/" {
		ns, name, hasNS = s[:i], s[i+1:], true
	}
	var nsHash uint32
	if hasNS {
		nsHash = javaStringHash(ns)
	}
	return hashCombine(murmurHashUnencodedChars(name), nsHash)
}

// hashCombine is Util.hashCombine (a signed shift right, as Java's >>).
func hashCombine(seed, hash uint32) uint32 {
	return seed ^ (hash + 0x9e3779b9 + seed<<6 + uint32(int32(seed)>>2))
}

// hasheq is Clojure's hash of v (see the top of this file for the values
// that are not Clojure's own). The result is Java's int, as bits.
func hasheq(v Value) uint32 {
	switch v := v.(type) {
	case NilType:
		return 0
	case Bool:
		if v {
			return 1231
		}
		return 1237
	case Int:
		return murmurHashLong(int64(v))
	case *BigInt:
		return bigHasheq(v)
	case *BigDec:
		return decHasheq(v)
	case Float:
		return doubleHash(float64(v))
	case Float32:
		return float32Hash(float32(v))
	case String:
		return murmurHashInt(javaStringHash(string(v)))
	case Keyword:
		return symbolHash(string(v)) + 0x9e3779b9
	case symbol:
		return symbolHash(string(v))
	case *varRef:
		return symbolHash(v.Name)
	case javaClass:
		return murmurHashInt(javaStringHash(string(v)))
	case *regex:
		return murmurHashInt(javaStringHash(v.source))
	case *Vector:
		hash := uint32(1)
		for _, x := range v.elems {
			hash = 31*hash + hasheq(x)
		}
		return mixCollHash(hash, len(v.elems))
	case *Map:
		var hash uint32
		for _, e := range v.entries {
			hash += mixCollHash((31*(31+hasheq(e.Key)) + hasheq(e.Val)), 2)
		}
		if v.class() != nil {
			// defrecord's hasheq: the map's, mixed with its class name's
			return mixCollHash(hash, v.Len()) ^ symbolHash(v.class().name)
		}
		return mixCollHash(hash, v.Len())
	case *Set:
		var hash uint32
		for _, x := range v.elems {
			hash += hasheq(x)
		}
		return mixCollHash(hash, len(v.elems))
	}
	return 0
}

// doubleHash is Numbers.hasheq of a Double: Double.hashCode, with -0.0
// hashing as 0.0. NaN is Java's canonical NaN.
func doubleHash(f float64) uint32 {
	if f == 0 {
		return 0
	}
	b := math.Float64bits(f)
	if f != f {
		b = 0x7ff8000000000000
	}
	return uint32(b ^ b>>32)
}

// float32Hash is Java's Float.hashCode, its bits, with -0.0 as 0 and
// every NaN as the canonical one, as Clojure hashes a Float.
func float32Hash(f float32) uint32 {
	if f == 0 {
		return 0
	}
	if f != f {
		return 0x7fc00000
	}
	return math.Float32bits(f)
}

// hamtKey orders hashes as a hash array mapped trie lays them out: by the
// low 5 bits, then the next 5, up to the top 2. Its bits are those
// groups, lowest group first, so that comparing keys compares the groups
// in turn.
func hamtKey(h uint32) uint32 {
	var k uint32
	for shift := 0; shift < 30; shift += 5 {
		k = k<<5 | (h>>shift)&31
	}
	return k<<2 | h>>30
}

// hamtPerm returns the positions 0..n-1 in the order of Clojure's hash
// trie of the given keys (key(i) is the i-th in insertion order): nil
// first, then by hamtKey, equal hashes in insertion order. It charges th
// (which may be nil) what hashing each key costs (chargeKey, as a lookup
// does), a step per key, and the bytes of its work slices and of the
// ordered copy the caller builds, itemBytes a key: the sort is of machine
// integers, measured at well under a step per key (BenchmarkHashOrder).
func hamtPerm(th *Thread, n int, itemBytes int64, key func(i int) Value) ([]int32, error) {
	if err := chargeHashOrder(th, n, itemBytes, key); err != nil {
		return nil, err
	}
	// Each slot is the key's place in the trie above its position: 33
	// bits (nil below every hash) over 31, so that sorting the numbers
	// sorts by place, equal hashes by position. A collection holds far
	// fewer than 2^31 items (maxValueWeight).
	slots := make([]uint64, n)
	for i := range n {
		var place uint64
		if k := key(i); k != Nil {
			place = 1<<32 | uint64(hamtKey(hasheq(k)))
		}
		slots[i] = place<<31 | uint64(i)
	}
	slices.Sort(slots)
	perm := make([]int32, n)
	for i, s := range slots {
		perm[i] = int32(s & (1<<31 - 1))
	}
	return perm, nil
}

// chargeKeptOrder charges th for the order kept by c, a hash map or set
// whose order was found before, by this evaluation or another: an
// evaluation pays for the order of c once, as if it found it itself, so
// that no caller's outcome depends on whether another caller sharing c
// asked first.
func chargeKeptOrder(th *Thread, c Value, n int, itemBytes int64, key func(i int) Value) error {
	if th == nil || !th.firstOrderAsk(c) {
		return nil
	}
	return chargeHashOrder(th, n, itemBytes, key)
}

// firstOrderAsk records that th's evaluation asked for the order of c and
// reports whether it had not before.
func (th *Thread) firstOrderAsk(c Value) bool {
	if th.prog == nil {
		return true
	}
	if th.prog.ordersAsked[c] {
		return false
	}
	if th.prog.ordersAsked == nil {
		th.prog.ordersAsked = map[Value]bool{}
	}
	th.prog.ordersAsked[c] = true
	return true
}

// chargeHashOrder charges th (which may be nil) what hamtPerm charges for
// ordering n keys.
func chargeHashOrder(th *Thread, n int, itemBytes int64, key func(i int) Value) error {
	if th == nil {
		return nil
	}
	for i := range n {
		if err := chargeKey(th, key(i)); err != nil {
			return err
		}
	}
	if err := th.step(int64(n)); err != nil {
		return err
	}
	return th.alloc(int64(n) * (12 + itemBytes)) // 8 a slot, 4 a position
}

// mapOrder is a hash map's entries in Clojure's order.
type mapOrder struct{ entries []MapEntry }

// unorderedHashMap marks a hash map whose order is not computed yet. It is
// never written: a computed order is a new mapOrder.
var unorderedHashMap = &mapOrder{}

// isHashMap reports whether m iterates as Clojure's hash map rather than
// in insertion order. A sorted map keeps its own order, whatever its size.
func (m *Map) isHashMap() bool {
	return m.order.Load() != nil && orderOf(m) == nil && m.class() == nil
}

// markHashMap makes m, which its builder has not handed out yet, a hash
// map, as (hash-map ...) makes one at any size.
func (m *Map) markHashMap() { m.order.Store(unorderedHashMap) }

// seqEntries returns m's entries in the order a Clojure program sees them:
// insertion order for an array map or a sorted map, the hash trie's order
// for a hash map. A hash map computes its order once, charged to th (which
// may be nil), and keeps it; values are shared between goroutines, and two
// computing it at once store the same order. The slice must not be
// modified.
func (m *Map) seqEntries(th *Thread) ([]MapEntry, error) {
	o := m.order.Load()
	if o == nil || len(m.entries) < 2 || orderOf(m) != nil || m.class() != nil {
		return m.entries, nil
	}
	if o != unorderedHashMap {
		return o.entries, chargeKeptOrder(th, m, len(m.entries), heapEntry, func(i int) Value { return m.entries[i].Key })
	}
	perm, err := hamtPerm(th, len(m.entries), heapEntry, func(i int) Value { return m.entries[i].Key })
	if err != nil {
		return nil, err
	}
	out := make([]MapEntry, len(perm))
	for i, p := range perm {
		out[i] = m.entries[p]
	}
	m.order.Store(&mapOrder{entries: out})
	if th != nil {
		th.firstOrderAsk(m)
	}
	return out, nil
}

// seqElems is seqEntries for a set: every set but a sorted one is a hash
// set.
func (s *Set) seqElems(th *Thread) ([]Value, error) {
	if len(s.elems) < 2 || orderOf(s) != nil {
		return s.elems, nil
	}
	if o := s.order.Load(); o != nil {
		return *o, chargeKeptOrder(th, s, len(s.elems), heapSlot, func(i int) Value { return s.elems[i] })
	}
	perm, err := hamtPerm(th, len(s.elems), heapSlot, func(i int) Value { return s.elems[i] })
	if err != nil {
		return nil, err
	}
	out := make([]Value, len(perm))
	for i, p := range perm {
		out[i] = s.elems[p]
	}
	s.order.Store(&out)
	if th != nil {
		th.firstOrderAsk(s)
	}
	return out, nil
}
