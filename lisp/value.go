package lisp

import (
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
)

// Value is any PTC-Lisp value. Values are immutable once built: collection
// "updates" return new collections, which is what makes a failed program
// unable to change memory and replayed evaluations deterministic.
type Value interface {
	// TypeName is the short name used in error messages ("integer", "map", ...).
	TypeName() string
}

// Callable is a value that can be applied to arguments: builtins, closures,
// keywords, maps, sets and vars.
type Callable interface {
	Value
	Call(th *Thread, args []Value) (Value, error)
}

// NilType is the type of Nil. Go's nil interface is never a valid Value; use Nil.
type NilType struct{}

// Nil is the single nil value.
var Nil Value = NilType{}

// Bool is true or false.
type Bool bool

// Int is a 64-bit integer. Arithmetic that overflows is an error, as in
// Clojure's default (non-promoting) operators.
type Int int64

// Float is an IEEE 754 double.
type Float float64

// Float32 is what (float x) makes, Clojure's java.lang.Float: a 32-bit
// float that prints with the digits a 32-bit float needs ((float 1/3) is
// 0.33333334). Arithmetic on it is a double's, as in Clojure, so it
// stays a Float32 only until it is computed with.
type Float32 float32

// String is a UTF-8 string. Character literals are one-character strings.
type String string

// Keyword is a keyword without its leading colon (":a/b" is Keyword("a/b")).
type Keyword string

// symbol appears only in code read by the reader; evaluation resolves it.
type symbol string

// varRef is a reference to a user binding, written #'name.
type varRef struct{ Name string }

// varNamed is the var name names. A var prints with its namespace
// (#'user/f, #'clojure.core/inc), and both namespaces are the program's
// own names: #'f, #'user/f and (var user/f) are one var, equal and of
// one hash, whichever way it was written or sent back.
func varNamed(name string) *varRef {
	for _, ns := range [...]string{"user/", "clojure.core/"} {
		if rest, ok := strings.CutPrefix(name, ns); ok && rest != "" {
			return &varRef{Name: rest}
		}
	}
	return &varRef{Name: name}
}

// qualifiedName is the var's name as Clojure prints it, with its
// namespace: a clojure.core name is clojure.core's (#'clojure.core/inc),
// any other a program's own, in user (#'user/f). The reader takes both
// back to the same var.
func (v *varRef) qualifiedName() string {
	if strings.Contains(v.Name, "/") && v.Name != "/" {
		return v.Name
	}
	if clojureNames()[v.Name] {
		return "clojure.core/" + v.Name
	}
	return "user/" + v.Name
}

// list is a parenthesized form in code. A list value ('(1 2), (list 1 2))
// is a *Vector marked as a list (see Vector).
type list struct {
	Elems []Value
	Pos   Pos
}

// Pos is a 1-based source position; the zero Pos means "unknown".
type Pos struct{ Line, Col int }

func (NilType) TypeName() string { return "nil" }
func (Bool) TypeName() string    { return "boolean" }
func (Int) TypeName() string     { return "integer" }
func (Float) TypeName() string   { return "float" }
func (Float32) TypeName() string { return "float" }
func (String) TypeName() string  { return "string" }
func (Keyword) TypeName() string { return "keyword" }
func (symbol) TypeName() string  { return "symbol" }
func (*varRef) TypeName() string { return "var" }
func (*list) TypeName() string   { return "list" }
func (v *Vector) TypeName() string {
	if v.IsList() {
		return "list"
	}
	return "vector"
}
func (m *Map) TypeName() string {
	if m.class() != nil {
		return "record"
	}
	return "map"
}
func (*Set) TypeName() string     { return "set" }
func (*Builtin) TypeName() string { return "function" }

// trueValue and falseValue are the boolean values.
var (
	trueValue  Value = Bool(true)
	falseValue Value = Bool(false)
)

// truthy reports whether v counts as true: everything but nil and false.
func truthy(v Value) bool {
	switch v := v.(type) {
	case NilType:
		return false
	case Bool:
		return bool(v)
	}
	return true
}

// Vector is an immutable indexed sequence.
//
// Its conj appends in place when the vector is the longest user of its backing
// array, so building a vector one element at a time in a loop is amortized
// O(1) per element while every earlier version stays unchanged.
//
// A list ('(3 2 1), (list ...), (into () xs)) is a Vector with list set:
// every walk over values (printing, hashing, equality, measuring,
// freezing) treats the two alike, as Clojure's = does, and only the
// builtins where Clojure's lists behave differently look at the mark:
// conj and into add at the front, peek and pop work at the front, and a
// list prints as (...). Sequence functions return vectors.
type Vector struct {
	elems  []Value
	tail   *vectorTail
	weight int64 // see valueWeight; its top bits hold nestsMeasured's count
	// form is nil for a plain vector without metadata. One pointer for
	// what is rare keeps the header at 48 bytes, so that a request of
	// one-element arrays decodes to under 16 times its size.
	form *vectorForm
}

// vectorForm is what a vector rarely has; it is never changed once made.
type vectorForm struct {
	list bool // a list rather than a vector
	// entry marks the [key value] pair a map yields (seq, first, find,
	// the walks): it is a vector in every other way, as Clojure's
	// MapEntry is, and map-entry? tells it from a vector written as one.
	entry bool
	meta  *Map // its metadata (meta.go), nil for none
}

// The forms of a list and of a map entry without metadata, shared.
var (
	listForm  = &vectorForm{list: true}
	entryForm = &vectorForm{entry: true}
)

// newVectorForm returns the form of a list, an entry or a vector with
// meta, nil for a plain vector without metadata.
func newVectorForm(list, entry bool, meta *Map) *vectorForm {
	switch {
	case meta != nil:
		return &vectorForm{list: list, entry: entry, meta: meta}
	case list:
		return listForm
	case entry:
		return entryForm
	}
	return nil
}

// isEntry reports whether v is the [key value] entry of a map.
func (v *Vector) isEntry() bool { return v.form != nil && v.form.entry }

// metadata returns v's metadata, nil for none.
func (v *Vector) metadata() *Map {
	if v.form == nil {
		return nil
	}
	return v.form.meta
}

// emptyList is the list ().
var emptyList = &Vector{form: listForm, weight: 1 << nestsShift}

// newList returns a list that takes ownership of elems, in order.
func newList(elems []Value) *Vector {
	if len(elems) == 0 {
		return emptyList
	}
	v := NewVector(elems)
	v.form = listForm
	return v
}

// newMapEntry is the [k v] entry a map yields.
func newMapEntry(k, v Value) *Vector {
	e := NewVector([]Value{k, v})
	e.form = entryForm
	return e
}

// IsList reports whether v is a list rather than a vector.
func (v *Vector) IsList() bool { return v.form != nil && v.form.list }

// vectorTail records how far any vector has extended a shared backing array.
type vectorTail struct{ used int }

// emptyVector is the vector [], frozen (its nesting measured).
var emptyVector = &Vector{weight: 1 << nestsShift}

// NewVector returns a vector that takes ownership of elems.
func NewVector(elems []Value) *Vector {
	w, free := int64(1), true
	for _, e := range elems {
		w = addWeight(w, weightOf(e))
		free = free && holdsNoEndingSeq(e)
	}
	if free {
		w |= seqFreeBit
	}
	return newVectorWithTail(elems, len(elems), w)
}

// newReadVector is a vector as the reader builds it: elems already sized
// exactly, and no lineage to extend in place (a conj copies), which what
// is read has no use for, since it is frozen and shared once read; the
// empty vector is emptyVector. It comes frozen, its nesting measured when
// it holds only plain data (see Freeze): freezing what was read then
// walks no part of it again.
func newReadVector(elems []Value) *Vector {
	if len(elems) == 0 {
		return emptyVector
	}
	w := int64(1)
	nests, plain := 0, true
	for _, e := range elems {
		w = addWeight(w, weightOf(e))
		nests, plain = readNests(nests, plain, e)
	}
	v := &Vector{elems: elems, weight: w}
	if plain {
		setNests(v, nests+1)
	}
	return v
}

// readNests adds e, a part of a collection being read, to the levels the
// parts read before it nest and whether they are all plain data (a plain
// scalar, or a collection whose nesting is measured).
func readNests(nests int, plain bool, e Value) (int, bool) {
	if !plain {
		return 0, false
	}
	switch e.(type) {
	case NilType, Bool, Int, Float, String, Keyword:
		return nests, true
	}
	n, ok := nestsMeasured(e)
	return max(nests, n), ok
}

// measureReadMap measures the nesting of a map as the reader builds it,
// as newReadVector does a vector's.
func measureReadMap(m *Map) *Map {
	nests, plain := 0, true
	for _, e := range m.entries {
		nests, plain = readNests(nests, plain, e.Key)
		nests, plain = readNests(nests, plain, e.Val)
	}
	if plain {
		setNests(m, nests+1)
	}
	return m
}

// newReadList is newReadVector for a list; the empty list is emptyList.
func newReadList(elems []Value) *Vector {
	if len(elems) == 0 {
		return emptyList
	}
	v := newReadVector(elems)
	v.form = listForm
	return v
}

// vectorWithTail puts a new lineage's first vector and its tail in one
// allocation.
type vectorWithTail struct {
	v Vector
	t vectorTail
}

func newVectorWithTail(elems []Value, used int, weight int64) *Vector {
	vt := &vectorWithTail{v: Vector{elems: elems, weight: weight}, t: vectorTail{used: used}}
	vt.v.tail = &vt.t
	return &vt.v
}

// Len is the number of elements.
func (v *Vector) Len() int { return len(v.elems) }

// index returns element i; the caller checks bounds.
func (v *Vector) index(i int) Value { return v.elems[i] }

// Elems returns the elements. The slice must not be modified.
func (v *Vector) Elems() []Value { return v.elems }

// conjMoves is how many elements conj moves to a new array (all of them,
// or none when it appends in place), so callers can charge what it costs.
func (v *Vector) conjMoves() int {
	n := len(v.elems)
	if v.tail != nil && v.tail.used == n && n < cap(v.elems) {
		return 0
	}
	return n
}

// conj returns a new vector with x appended.
func (v *Vector) conj(x Value) *Vector {
	n := len(v.elems)
	w := addWeight(v.valueWeight(), weightOf(x))
	if holdsNoEndingSeq(v) && holdsNoEndingSeq(x) {
		w |= seqFreeBit
	}
	if v.tail != nil && v.tail.used == n && n < cap(v.elems) {
		v.tail.used++
		return &Vector{elems: append(v.elems, x), tail: v.tail, weight: w, form: newVectorForm(false, false, v.metadata())}
	}
	elems := make([]Value, n, 2*n+4)
	copy(elems, v.elems)
	elems = append(elems, x)
	out := newVectorWithTail(elems, n+1, w)
	out.form = newVectorForm(false, false, v.metadata())
	return out
}

// MapEntry is one key/value pair of a map.
type MapEntry struct{ Key, Val Value }

// Map is an immutable association that remembers insertion order, so that
// printing, iteration and memory serialization are deterministic. Programs
// iterate it in Clojure's order (seqEntries, hashorder.go): insertion order
// while it is an array map, the hash trie's once it is a hash map.
//
// Like Vector.conj, assoc of a new key appends in place when the map is the
// longest version of its lineage: versions that extend one another share the
// entries array, the index and a tail counter, and each sees only the
// positions below its own length. Building a map key by key in a loop is then
// amortized O(1) per key. Replacing a key's value, dissoc, and extending an
// older version copy, so no version ever changes. In-place growth writes
// the shared index, so one lineage must not be extended from two goroutines
// at once: a value shared between evaluations running at once (data the
// server remembers between requests) is frozen first (Freeze), which ends
// its lineages, so that extending it copies.
type Map struct {
	entries []MapEntry
	index   map[any]int // hash key -> position in entries; shared by the lineage; nil while small with cheap keys (cheapKey)
	tail    *lineageTail
	weight  int64 // see valueWeight; its top bits hold nestsMeasured's count
	// order is nil for an array map, which iterates in insertion order;
	// a hash map (hashorder.go) holds unorderedHashMap until its order
	// is first asked for, then that order.
	order atomic.Pointer[mapOrder]
	// traits is nil for a plain map without metadata. One pointer for what
	// is rare keeps the header at 64 bytes (a size class of its own, not
	// 80), as Vector's form does.
	traits *mapTraits
}

// mapTraits is what a map rarely has; it is never changed once made, so
// the versions of a map share it.
type mapTraits struct {
	// class is the record type the map is an instance of (record.go), nil
	// for a plain map.
	class *recordClass
	meta  *Map // its metadata (meta.go), nil for none
}

// newMapTraits is the traits of a map of record type class carrying meta:
// nil for a plain map without metadata, and the type's own shared traits
// for a record without metadata, so that building records allocates no
// traits.
func newMapTraits(class *recordClass, meta *Map) *mapTraits {
	switch {
	case meta != nil:
		return &mapTraits{class: class, meta: meta}
	case class != nil:
		return class.traits
	}
	return nil
}

// class is the record type m is an instance of, nil for a plain map.
func (m *Map) class() *recordClass {
	if m.traits == nil {
		return nil
	}
	return m.traits.class
}

// metadata is m's metadata, nil for none.
func (m *Map) metadata() *Map {
	if m.traits == nil {
		return nil
	}
	return m.traits.meta
}

// setClass makes m, while it is being built, an instance of class.
func (m *Map) setClass(class *recordClass) { m.traits = newMapTraits(class, m.metadata()) }

// smallMap is the most entries a map holds without an index. Most maps
// of agent data are records of a few fields, where a linear scan beats
// hashing and saves allocating a Go map per value.
const smallMap = 8

// lineageTail records how far any version has extended a shared backing
// array; only the version whose length equals it may extend in place.
//
// A sorted map or set (sorted.go) carries its ordering here, shared by
// every version made from it: a sorted lineage never extends in place (a
// new key goes where it sorts, not at the end), so nothing writes its
// tail and Freeze keeps it.
type lineageTail struct {
	used  int
	order *keyOrder
}

// extendsAt reports whether the version of length n may extend the
// lineage in place.
func (t *lineageTail) extendsAt(n int) bool { return t != nil && t.order == nil && t.used == n }

// emptyMap is the map {}, frozen (its nesting measured).
var emptyMap = &Map{weight: 1 << nestsShift}

// Len is the number of entries.
func (m *Map) Len() int { return len(m.entries) }

// Entries returns the entries in insertion order, the host's order (JSON,
// memory text); programs see seqEntries' order. The slice must not be modified.
func (m *Map) Entries() []MapEntry { return m.entries }

// Get returns the value stored under k.
func (m *Map) Get(k Value) (Value, bool) {
	if i, ok := m.find(k); ok {
		return m.entries[i].Val, true
	}
	return Nil, false
}

// find returns where k sits in this version, if it is in it.
func (m *Map) find(k Value) (int, bool) {
	if len(m.entries) == 0 {
		return 0, false
	}
	if m.index != nil {
		i, ok := m.index[hashKey(k)]
		return i, ok && i < len(m.entries)
	}
	switch k.(type) {
	case NilType, Bool, Int, String, Keyword, symbol:
		// These are their own hash key: equal keys are equal interfaces,
		// but for an integer, which a big integer of its value equals.
		_, isInt := k.(Int)
		for i, e := range m.entries {
			if e.Key == k {
				return i, true
			}
			if b, ok := e.Key.(*BigInt); ok && isInt && hashKey(b) == k {
				return i, true // 1N is the key 1
			}
		}
		return 0, false
	}
	hk := hashKey(k)
	for i, e := range m.entries {
		if hashKey(e.Key) == hk {
			return i, true
		}
	}
	return 0, false
}

// indexKey records a new entry at position i in the index, building the
// index when the map outgrows smallMap or gains a key whose hash key is
// built (a collection): without an index, looking up a collection would
// build the hash key of every such entry, work no builtin is charged for.
func (m *Map) indexKey(k Value, i int) {
	switch {
	case m.index != nil:
		m.index[hashKey(k)] = i
	case i+1 > smallMap || !cheapKey(k):
		// Sized by the keys it holds, not the room of the entries: a
		// literal of a million pairs of one key holds one.
		m.index = make(map[any]int, 2*(i+1))
		for j, e := range m.entries[:i+1] {
			m.index[hashKey(e.Key)] = j
		}
	}
}

// assoc returns a map with k set to v. An existing key keeps its position.
func (m *Map) assoc(k, v Value) *Map {
	_, exists := m.find(k)
	return m.assocKnown(k, v, exists)
}

// assocKnown is assoc where whether k is in m is known: assocMap has
// looked it up once, and a key holding collections builds its text each
// time it is hashed.
func (m *Map) assocKnown(k, v Value, exists bool) *Map {
	n := len(m.entries)
	if !exists && m.tail.extendsAt(n) {
		m.tail.used++
		out := &Map{entries: appendRoom(m.entries, MapEntry{k, v}), index: m.index, tail: m.tail,
			weight: addWeight(weightOf(m), addWeight(weightOf(k), weightOf(v))), traits: m.traits}
		if (n >= smallMap || m.isHashMap()) && m.class() == nil {
			out.order.Store(unorderedHashMap)
		}
		out.indexKey(k, n)
		return out
	}
	b := NewMapBuilder(n + 1)
	b.addAll(m)
	b.Set(k, v)
	return mapWithMeta(b.Map(), m.metadata())
}

// assocWork is what assoc(k, ...) does to the entries already there,
// given whether k is one of them, so
// callers can charge what it costs: rebuilt (hashed again into a new map)
// when it must copy, moved to a larger array when it extends them in place
// past their capacity, else neither.
func (m *Map) assocWork(exists bool) (rebuilt, moved int) {
	n := len(m.entries)
	switch {
	case exists || !m.tail.extendsAt(n):
		return n, 0
	case n == cap(m.entries):
		return 0, n
	}
	return 0, 0
}

// dissoc returns a map without k.
func (m *Map) dissoc(k Value) *Map {
	if _, ok := m.find(k); !ok {
		return m
	}
	hk := hashKey(k)
	b := NewMapBuilder(m.Len())
	for _, e := range m.entries {
		if hashKey(e.Key) != hk {
			b.Set(e.Key, e.Val)
		}
	}
	b.sameKind(m)
	b.m.setClass(m.class().without(k))
	return mapWithMeta(b.Map(), m.metadata())
}

// MapBuilder builds a map in place; builtins use it to avoid copying per entry.
type MapBuilder struct {
	m    *Map
	tail *lineageTail // given to the map by Map()
}

// NewMapBuilder returns a builder with room for n entries.
func NewMapBuilder(n int) *MapBuilder {
	m, t := newBuilderMap(n)
	return &MapBuilder{m: m, tail: t} // inlined, so that the builder can live on the stack
}

// newBuilderMap allocates an empty map with room for n entries, and the
// tail its lineage will start with.
func newBuilderMap(n int) (*Map, *lineageTail) {
	var m *Map
	var t *lineageTail
	// Records of a few fields are most maps; the entries of two, four or
	// eight come in the same allocation as the map and its tail. Other
	// sizes get room for exactly their entries: a map keeps all its room,
	// and its shape counts its entries (five in room for eight kept 352
	// bytes for 224 charged).
	switch n {
	case 2:
		mt := &mapWithEntries2{}
		m, t = &mt.m, &mt.t
		m.entries = mt.e[:0]
	case 4:
		mt := &mapWithEntries4{}
		m, t = &mt.m, &mt.t
		m.entries = mt.e[:0]
	case smallMap:
		mt := &mapWithEntries8{}
		m, t = &mt.m, &mt.t
		m.entries = mt.e[:0]
	default:
		mt := &mapWithTail{}
		m, t = &mt.m, &mt.t
		if n > 0 {
			m.entries = make([]MapEntry, 0, n)
		}
	}
	m.weight = 1
	return m, t
}

// mapWithTail puts a built map and the tail its lineage starts with in one
// allocation; the mapWithEntries types add room for a few entries.
type mapWithTail struct {
	m Map
	t lineageTail
}

type mapWithEntries2 struct {
	mapWithTail
	e [2]MapEntry
}

type mapWithEntries4 struct {
	mapWithTail
	e [4]MapEntry
}

type mapWithEntries8 struct {
	mapWithTail
	e [smallMap]MapEntry
}

// The builder owns its map until Map() hands it over: only then does the map
// start a lineage that assoc may extend in place.

// Set adds or replaces an entry; a replaced key keeps its position.
func (b *MapBuilder) Set(k, v Value) {
	m := b.m
	if i, ok := m.find(k); ok {
		m.weight = addWeight(m.weight-weightOf(m.entries[i].Val), weightOf(v))
		m.entries[i].Val = v
		return
	}
	m.weight = addWeight(m.weight, addWeight(weightOf(k), weightOf(v)))
	if len(m.entries) >= smallMap && m.order.Load() == nil {
		m.order.Store(unorderedHashMap) // a key added past 8 makes a hash map, as in Clojure
	}
	m.entries = appendRoom(m.entries, MapEntry{k, v})
	m.indexKey(k, len(m.entries)-1)
}

// sameClass makes the map an instance of m's record type, if m is a
// record: what Clojure derives from a record by assoc, conj, merge or
// into stays one.
func (b *MapBuilder) sameClass(m *Map) { b.m.setClass(m.class()) }

// hashLike makes the map a hash map if m is one: what Clojure derives from
// a hash map by assoc, dissoc or a transient of it stays one.
func (b *MapBuilder) hashLike(m *Map) {
	if m.isHashMap() {
		b.m.order.Store(unorderedHashMap)
	}
}

// sameKind makes the map, which holds keys of m only, the kind m is: an
// array map of more than 8 entries ((array-map ...)) stays one when
// Clojure replaces or removes its entries.
func (b *MapBuilder) sameKind(m *Map) {
	if !m.isHashMap() {
		b.m.order.Store(nil)
		return
	}
	b.m.order.Store(unorderedHashMap)
}

// get returns the value stored so far under k.
func (b *MapBuilder) get(k Value) (Value, bool) { return b.m.Get(k) }

// addAll sets every entry of m, into a map that is a hash map if m is
// one: builders start from m this way where Clojure derives a map from m.
func (b *MapBuilder) addAll(m *Map) {
	for _, e := range m.entries {
		b.Set(e.Key, e.Val)
	}
	b.sameKind(m)
	b.sameClass(m)
}

// len is the number of entries so far.
func (b *MapBuilder) len() int { return len(b.m.entries) }

// Map returns the built map; the builder must not be used afterwards.
// A builder without a tail (the reader's) gives a map no lineage to
// extend in place.
func (b *MapBuilder) Map() *Map {
	m := b.m
	b.m = nil
	m.entries = fitted(m.entries)
	if b.tail != nil {
		b.tail.used = len(m.entries)
		m.tail = b.tail
	}
	return m
}

// mapChargingRoom is Map for a builder made with room for more entries
// than it may get (select-keys of keys that are absent): the room left is
// charged, as the map keeps it and its shape counts only its entries
// (builds). (select-keys m [:a :b]) of neither key kept 143 bytes for 64.
func (b *MapBuilder) mapChargingRoom(th *Thread) (Value, error) {
	m := b.Map()
	if err := th.alloc(heapEntry * int64(cap(m.entries)-len(m.entries))); err != nil {
		return nil, err
	}
	return m, nil
}

// Set is an immutable set that remembers insertion order internally; programs
// iterate it in Clojure's hash set order (seqElems, hashorder.go), and
// printing and rendering order elements by their text where the spec asks
// for it.
// Its conj extends in place the way Map.assoc does.
type Set struct {
	elems []Value
	// index is shared by the lineage, as Map's, and nil while the set is
	// small with cheap elements (cheapKey), which are found by a scan.
	index  map[any]int
	tail   *lineageTail
	weight int64 // see valueWeight
	// order caches the elements in the order of Clojure's hash set
	// (hashorder.go) once it is first asked for.
	order atomic.Pointer[[]Value]
	meta  *Map // its metadata (meta.go), nil for none
}

// emptySet is the set #{}.
var emptySet = &Set{}

// NewSet returns a set of the given elements, duplicates removed.
func NewSet(elems []Value) *Set {
	return newSetIndexed(elems, len(elems))
}

// newLiteralSet is NewSet for the elements a set literal spells, which
// its text may repeat any number of times: its index grows with what it
// holds.
func newLiteralSet(elems []Value) *Set {
	return newSetIndexed(elems, 0)
}

// newSetIndexed is NewSet with room for indexRoom elements in its index.
func newSetIndexed(elems []Value, indexRoom int) *Set {
	s := buildSet(make([]Value, 0, len(elems)), elems, indexRoom)
	s.tail = &lineageTail{used: len(s.elems)}
	return s
}

// newReadSet is a set as the reader builds it (see newReadVector): it
// takes elems, which the reader sized exactly, for its own. Its index
// grows with what it holds: sized by every element read, a million reads
// of one element held an index for a million.
func newReadSet(elems []Value) *Set {
	if len(elems) == 0 {
		return emptySet
	}
	return buildSet(elems[:0], elems, 0)
}

// buildSet builds the set of elems, duplicates removed, in into (which may
// be elems[:0]: it is written no faster than elems is read), without a
// lineage to extend in place; its index, when it needs one, starts with
// room for indexRoom elements.
func buildSet(into, elems []Value, indexRoom int) *Set {
	s := &Set{elems: into, weight: 1}
	small := len(elems) <= smallMap
	for _, e := range elems {
		small = small && cheapKey(e)
	}
	if !small {
		s.index = make(map[any]int, indexRoom)
	}
	for _, e := range elems {
		if small {
			if s.contains(e) {
				continue
			}
		} else {
			hk := hashKey(e)
			if _, ok := s.index[hk]; ok {
				continue
			}
			s.index[hk] = len(s.elems)
		}
		s.elems = append(s.elems, e)
		s.weight = addWeight(s.weight, weightOf(e))
	}
	s.elems = fitted(s.elems)
	return s
}

// fitted is elems copied to its length when duplicates left most of its
// room unused: a set or map keeps what it holds, not what was read.
func fitted[T any](elems []T) []T {
	if cap(elems) > 2*len(elems)+smallMap {
		return slices.Clone(elems)
	}
	return elems
}

// Len is the number of elements.
func (s *Set) Len() int { return len(s.elems) }

// Elems returns the elements in insertion order. The slice must not be modified.
func (s *Set) Elems() []Value { return s.elems }

// contains reports membership.
func (s *Set) contains(e Value) bool {
	if len(s.elems) == 0 {
		return false
	}
	if s.index != nil {
		i, ok := s.index[hashKey(e)]
		return ok && i < len(s.elems)
	}
	if !cheapKey(e) {
		return false // a collection equals none of the set's cheap elements
	}
	hk := hashKey(e)
	for _, x := range s.elems {
		if hashKey(x) == hk {
			return true
		}
	}
	return false
}

// conjWork is Map.assocWork for conj(e), of an e not in s.
func (s *Set) conjWork() (rebuilt, moved int) {
	n := len(s.elems)
	switch {
	case !s.tail.extendsAt(n):
		return n, 0
	case n == cap(s.elems):
		return 0, n
	}
	return 0, 0
}

// conj returns a set with e added.
func (s *Set) conj(e Value) *Set {
	n := len(s.elems)
	if s.index == nil && n+1 <= smallMap && cheapKey(e) {
		if s.contains(e) {
			return s
		}
		if s.tail.extendsAt(n) {
			s.tail.used++
			return &Set{elems: appendRoom(s.elems, e), tail: s.tail, weight: addWeight(weightOf(s), weightOf(e)), meta: s.meta}
		}
		return setWithMeta(NewSet(append(append(make([]Value, 0, n+1), s.elems...), e)), s.meta)
	}
	hk := hashKey(e) // once: building it is the work conj is charged for
	if s.index != nil {
		if i, ok := s.index[hk]; ok && i < n {
			return s
		}
	} else if s.contains(e) {
		return s
	}
	if s.tail.extendsAt(n) {
		index := s.index
		if index == nil { // the set outgrows a scan: its lineage gets an index
			index = make(map[any]int, 2*n+1)
			for i, x := range s.elems {
				index[hashKey(x)] = i
			}
		}
		s.tail.used++
		index[hk] = n
		return &Set{elems: appendRoom(s.elems, e), index: index, tail: s.tail, weight: addWeight(weightOf(s), weightOf(e)), meta: s.meta}
	}
	return setWithMeta(NewSet(append(append(make([]Value, 0, n+1), s.elems...), e)), s.meta)
}

// Call looks k up in a map argument: (:k m) and (:k m default).
func (k Keyword) Call(th *Thread, args []Value) (Value, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, arityError(":"+string(k), "(:"+string(k)+" map) or (:"+string(k)+" map default)", len(args))
	}
	if t, ok := args[0].(*transient); ok { // (:a t) reads it, as Clojure's
		coll, err := t.held(":" + string(k))
		if err != nil {
			return nil, err
		}
		return k.get(coll, args[1:]), nil
	}
	stored, found, sorted, err := keyByOrder(th, ":"+string(k), args[0], k)
	switch {
	case err != nil:
		return nil, err
	case sorted:
		return sortedGet(args[0], stored, found, args[1:]), nil
	}
	return k.get(args[0], args[1:]), nil
}

// get is (k coll) and (k coll default). A keyword looking itself up in a
// small map, the commonest call of agent programs, is found without boxing
// the keyword into an interface (an allocation).
func (k Keyword) get(coll Value, def []Value) Value {
	if m, ok := coll.(*Map); ok && m.index == nil {
		for _, e := range m.entries {
			if kk, ok := e.Key.(Keyword); ok && kk == k {
				return e.Val
			}
		}
		if len(def) == 1 {
			return def[0]
		}
		return Nil
	}
	v, _ := lookup(coll, k, def)
	return v
}

// Call looks a key up in the map: (m k) and (m k default).
func (m *Map) Call(th *Thread, args []Value) (Value, error) {
	if m.class() != nil {
		return nil, m.class().notCallable()
	}
	if len(args) < 1 || len(args) > 2 {
		return nil, arityError("map", "(m key) or (m key default)", len(args))
	}
	k, err := realizedKey(th, args[0])
	if err != nil {
		return nil, err
	}
	stored, found, sorted, err := keyByOrder(th, "map", m, k)
	switch {
	case err != nil:
		return nil, err
	case sorted:
		return sortedGet(m, stored, found, args[1:]), nil
	}
	return lookup(m, k, args[1:])
}

// Call tests membership: (#{1 2} 2) is 2, (#{1 2} 3) is nil.
func (s *Set) Call(th *Thread, args []Value) (Value, error) {
	if len(args) != 1 {
		return nil, arityError("set", "(s x)", len(args))
	}
	k, err := realizedKey(th, args[0])
	if err != nil {
		return nil, err
	}
	stored, found, sorted, err := keyByOrder(th, "set", s, k)
	switch {
	case err != nil:
		return nil, err
	case sorted:
		return sortedGet(s, stored, found, nil), nil
	}
	if s.contains(k) {
		return args[0], nil
	}
	return Nil, nil
}

// Call indexes a vector: ([:a :b] 1) is :b. A list is not a function.
func (v *Vector) Call(th *Thread, args []Value) (Value, error) {
	if v.IsList() {
		return nil, Errorf(typeError, "a list is not a function, so (%s ...) cannot be called", Repr(v)).
			WithHint("take an item with (nth coll i)").notAn("clojure.lang.IFn", v)
	}
	if len(args) != 1 {
		return nil, arityError("vector", "(v index)", len(args))
	}
	i, ok := args[0].(Int)
	if !ok {
		// Clojure's "Key must be integer", nil included
		return nil, typeErrorf("vector", "an integer index", args[0]).asJava("IllegalArgumentException", "Key must be integer")
	}
	if i < 0 || int64(i) >= int64(v.Len()) {
		return nil, Errorf(executionError, "index %d is out of range for a vector of %d", i, v.Len()).
			WithHint("(get v i) gives nil instead of failing").
			asJavaWithoutMessage("IndexOutOfBoundsException")
	}
	return v.elems[i], nil
}

// lookup implements keyword and map application: nil and non-maps give the
// default (or nil), as Clojure's get does.
func lookup(coll, key Value, def []Value) (Value, error) {
	switch c := coll.(type) {
	case *Map:
		if v, ok := c.Get(key); ok {
			return v, nil
		}
	case *Set:
		if c.contains(key) {
			return key, nil
		}
	}
	if len(def) == 1 {
		return def[0], nil
	}
	return Nil, nil
}

// Function is implemented by callables that know their parameter names
// (closures); they label themselves #fn[x y].
type Function interface {
	Callable
	ParamNames() []string
}

// TypeLabel is the type vocabulary of prompts: list[N], map[N], set[N],
// string, integer, float, boolean, keyword, nil, #fn[params]. N counts every
// entry, hidden ones included.
func TypeLabel(v Value) string {
	switch v := v.(type) {
	case Int, Float, Float32, String, Keyword, Bool, NilType, *BigInt, *BigDec:
		return v.TypeName()
	case *Vector:
		return "list[" + strconv.Itoa(v.Len()) + "]"
	case *Map:
		return "map[" + strconv.Itoa(v.Len()) + "]"
	case *Set:
		return "set[" + strconv.Itoa(v.Len()) + "]"
	case Function:
		return "#fn[" + strings.Join(v.ParamNames(), " ") + "]"
	case *Builtin:
		return "#fn[...]"
	}
	return v.TypeName()
}

// weightOf is the size of a value as if every shared part were copied: about
// the length of its printed text. Values are immutable and share structure,
// so a few cheap steps can build a value that is enormous when printed,
// compared or hashed ([v v] doubled thirty times); the evaluator refuses
// values whose weight passes maxValueWeight. Collections compute their weight
// when built, so asking is O(1).
func weightOf(v Value) int64 {
	switch v := v.(type) {
	case Int, Float, Bool, NilType, Keyword:
		return 1
	case *Vector:
		return v.valueWeight()
	case *Map:
		return max(v.weight&weightMask, 1)
	case *Set:
		if v.weight == 0 {
			return 1
		}
		return v.weight
	case String:
		return int64(len(v)) + 1
	case interface{ valueWeight() int64 }:
		return v.valueWeight()
	}
	return 1
}

// valueWeight is the vector's weight (see weightOf).
func (v *Vector) valueWeight() int64 { return max(v.weight&weightMask, 1) }

// A vector's or map's weight field holds its weight in its low bits and,
// once Freeze has measured it, how many levels it nests in the bits from
// nestsShift up (nestsMeasured): one word where two made a map's header
// outgrow 48 bytes. The bit below those (seqFreeBit) marks a vector built
// of parts that hold no lazy sequence that may end (holdsNoEndingSeq);
// weights saturate below it (addWeight).
const (
	nestsShift = 48
	seqFreeBit = 1 << (nestsShift - 1)
	weightMask = seqFreeBit - 1
	maxNests   = 1<<(63-nestsShift) - 1
)

// maxValueWeight bounds the weight of any value a program builds.
const maxValueWeight = 64 << 20

// addWeight adds saturating at a bound far above maxValueWeight, so weights
// never overflow.
func addWeight(a, b int64) int64 {
	const ceiling = 1 << (nestsShift - 2)
	if a > ceiling-b {
		return ceiling
	}
	return a + b
}

// isCallable reports whether v implements Callable.
func isCallable(v Value) bool {
	_, ok := v.(Callable)
	return ok
}

// symbolLookup is a symbol called as a function: ('a m) and ('a m
// default) look the symbol up, as (:a m) does. A symbol is no Callable
// (so trampoline, comparators and the predicates that take functions
// treat it as data, as Clojure's fn? does); only a call reaches this.
type symbolLookup struct{ symbol }

func (l symbolLookup) Call(th *Thread, args []Value) (Value, error) {
	s := l.symbol
	if len(args) < 1 || len(args) > 2 {
		return nil, Errorf(arityErrorKind, "%s called with %d argument%s", string(s), len(args), plural(len(args))).
			WithHint("call it as ('%s map) or ('%s map default)", string(s), string(s)).
			asJava("ArityException", wrongArgs(len(args), "clojure.lang.Symbol"))
	}
	if t, ok := args[0].(*transient); ok {
		coll, err := t.held(string(s))
		if err != nil {
			return nil, err
		}
		return lookup(coll, s, args[1:])
	}
	return lookup(args[0], s, args[1:])
}
