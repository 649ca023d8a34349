package lisp

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Records (defrecord). A record is a map that knows its record type, as a
// list is a vector marked as one: every walk over values (freezing,
// sizing, charging, hashing, the nesting checks) treats it as the map it
// is, and only what Clojure does differently for a record looks at the
// mark:
//   - it prints as #user.Name{:a 1, :b 2}, and the reader reads that text
//     back as a record of that type (in a program and in every request
//     field that takes values), so what a turn emits reads back;
//   - it equals only a record of the same type with equal entries, never
//     a map, and hashes as defrecord's hasheq (the map's, mixed with the
//     hash of the class name);
//   - assoc, conj, merge and into onto it, and dissoc of a key that is
//     not a field, keep the type; dissoc of a field makes a plain map;
//     functions that build a new map from its entries (select-keys,
//     into {}, update-vals, update-keys) make plain maps;
//   - it is not a function of its keys, and (empty r) throws, as Clojure's;
//   - type and class name it user.Name, and instance? knows the
//     interfaces Clojure's records implement.
//
// A record's entries keep their order, the fields first, as Clojure's
// fields and then its extra keys (Clojure's extra keys past eight iterate
// in hash order; here they keep the order they were added in).

// recordClass is a record type: its class name (user.Name: programs run
// in the user namespace) and its fields, in order.
type recordClass struct {
	name   string
	fields []Keyword
	traits *mapTraits // {this type, no metadata}, shared by its instances
}

// recordNamespace is the namespace programs define records in.
const recordNamespace = "user"

// isField reports whether k is one of the type's fields.
func (c *recordClass) isField(k Value) bool {
	kw, ok := k.(Keyword)
	if !ok {
		return false
	}
	for _, f := range c.fields {
		if f == kw {
			return true
		}
	}
	return false
}

// without is the record type a record has after k is removed from it:
// itself, or none (a plain map) when k is a field, as Clojure's dissoc
// of a field returns a map.
func (c *recordClass) without(k Value) *recordClass {
	if c == nil || c.isField(k) {
		return nil
	}
	return c
}

// sameRecordClass reports whether two maps are of the same record type,
// or both plain maps.
func sameRecordClass(a, b *Map) bool {
	switch {
	case a.class() == nil || b.class() == nil:
		return a.class() == b.class()
	}
	return a.class().name == b.class().name
}

func (c *recordClass) notCallable() *Error {
	return Errorf(typeError, "a record (%s) cannot be called as a function of its keys, as a map can", c.name).
		WithHint("read a field with the keyword: (:field r) or (get r :field)").
		asJava("ClassCastException", javaCastMessage(c.name, "clojure.lang.IFn"))
}

// recordSupers are the classes and interfaces of Clojure's records that
// instance? knows.
var recordSupers = append([]javaClass{"java.util.Map", "clojure.lang.IRecord", "clojure.lang.IPersistentMap",
	"clojure.lang.Associative", "clojure.lang.ILookup"}, collectionSupers...)

// recordClassName reports whether name is the class name of a record
// type as a program or stored source writes it: user.Name.
func recordClassName(name string) bool {
	short, ok := strings.CutPrefix(name, recordNamespace+".")
	return ok && short != "" && lexPlainSymbol(short) && !strings.ContainsAny(short, "./")
}

// readRecordClass is the record type of a record literal #user.Name{...}
// read with the given entries: a literal names its type, not its fields,
// so every keyword key counts as a field (dissoc of one makes a plain map).
func readRecordClass(name string, entries []MapEntry) *recordClass {
	c := &recordClass{name: name, fields: make([]Keyword, 0, keywordKeys(entries))}
	c.traits = &mapTraits{class: c}
	for _, e := range entries {
		if kw, ok := e.Key.(Keyword); ok {
			c.fields = append(c.fields, kw)
		}
	}
	return c
}

// opening is the text a map of this type opens with: { for a plain map
// (c nil), #user.Name{ for a record.
func (c *recordClass) opening() string {
	if c == nil {
		return "{"
	}
	return "#" + c.name + "{"
}

// compileDefrecord compiles (defrecord Name [field ...]) as the
// definitions Clojure's makes, written as the source memory keeps:
//
//	(def ->Name (fn ->Name [a b] #user.Name{:a a, :b b}))
//	(def map->Name (fn map->Name [m] (into #user.Name{:a nil, :b nil} m)))
//
// and its value is the class user.Name, as Clojure's. The bare name Name
// then resolves to that class (compiler.symbol).
func compileDefrecord(c *compiler, l *list, tail bool) (node, error) {
	if len(l.Elems) < 3 {
		return nil, c.errorf(validationError, "defrecord needs a name and a vector of fields").
			WithHint("write (defrecord Name [field1 field2])")
	}
	name, ok := l.Elems[1].(symbol)
	if !ok || !lexPlainSymbol(string(name)) || strings.ContainsAny(string(name), "./") {
		return nil, c.errorf(validationError, "defrecord needs a plain name, got %s", formText(l.Elems[1])).
			WithHint("write (defrecord Name [field1 field2])")
	}
	fieldForms, ok := l.Elems[2].(*Vector)
	if !ok {
		return nil, c.errorf(validationError, "defrecord %s needs a vector of fields, got %s", name, formText(l.Elems[2])).
			WithHint("write (defrecord %s [field1 field2])", name)
	}
	if len(l.Elems) > 3 {
		return nil, c.errorf(validationError, "defrecord %s implements an interface, Object or a protocol the program does not define before it with methods of one arity each, which PTC-Lisp has no way to dispatch on", name).
			WithHint("define the record without them, (defrecord %s %s), and each method as a function of the record: (defn method [r] ... (:field r) ...)", name, formText(fieldForms))
	}
	var fields, values, nils []Value
	seen := map[symbol]bool{}
	for _, f := range fieldForms.Elems() {
		s, ok := f.(symbol)
		if !ok || !lexPlainSymbol(string(s)) || strings.ContainsAny(string(s), "/") || s == "&" {
			return nil, c.errorf(validationError, "defrecord %s: a field is a plain name, got %s", name, formText(f)).
				WithHint("write (defrecord %s [field1 field2])", name)
		}
		if seen[s] {
			return nil, c.errorf(validationError, "defrecord %s names the field %s twice", name, s).
				WithHint("give each field its own name")
		}
		seen[s] = true
		fields = append(fields, s)
		values = append(values, Keyword(s), s)
		nils = append(nils, Keyword(s), Nil)
	}
	if err := chargeExpansion(c, len(fields)); err != nil {
		return nil, err
	}
	class := readRecordClass(recordNamespace+"."+string(name), nil)
	for i := 0; i < len(values); i += 2 {
		class.fields = append(class.fields, values[i].(Keyword))
	}
	ctor, fromMap := symbol("->"+name), symbol("map->"+name)
	m := symbol("m")
	if seen[m] {
		m = symbol("m__") // not to read the map as a field: the parameter is only the map's
	}
	forms := []Value{
		&list{Pos: l.Pos, Elems: []Value{symbol("def"), ctor, &list{Pos: l.Pos, Elems: []Value{symbol("fn"), ctor,
			NewVector(fields), &mapForm{Elems: values, Pos: l.Pos, class: class}}}}},
		&list{Pos: l.Pos, Elems: []Value{symbol("def"), fromMap, &list{Pos: l.Pos, Elems: []Value{symbol("fn"), fromMap,
			NewVector([]Value{m}), &list{Pos: l.Pos, Elems: []Value{symbol("into"), &mapForm{Elems: nils, Pos: l.Pos, class: class}, m}}}}}},
	}
	defs, err := c.compileBody(forms, false)
	if err != nil {
		return nil, err
	}
	return &doNode{body: []node{defs, &constNode{javaClass(class.name)}}}, nil
}

// recordClassOf resolves the bare name of a record type a program or an
// earlier turn defined (its ->Name constructor is defined) to its class.
func (c *compiler) recordClassOf(name string) (node, bool) {
	if !lexPlainSymbol(name) || strings.ContainsAny(name, "./") || name[0] < 'A' || name[0] > 'Z' {
		return nil, false
	}
	if !c.names.isUser("->" + name) {
		return nil, false
	}
	return &constNode{javaClass(recordNamespace + "." + name)}, true
}

// recordText is Clojure's str of a record: Object.toString, its class
// name and its hashCode in hex (user.Order@78de238e). A record's
// hashCode is APersistentMap.mapHash, the sum over its entries of the
// Java hashCodes of key and value xored, which is the same in every run
// for the values javaHashCode knows.
func recordText(m *Map) (string, bool) {
	h, ok := javaHashCode(m)
	if !ok {
		return "", false
	}
	return m.class().name + "@" + strconv.FormatUint(uint64(h), 16), true
}

// javaHashCode is the Java hashCode Clojure gives v's counterpart, where
// it is defined by value: false for a value whose hashCode is its
// identity (functions, atoms) or that stands for a Java value it is not
// (a date).
func javaHashCode(v Value) (uint32, bool) {
	switch v := v.(type) {
	case NilType:
		return 0, true
	case Bool:
		if v {
			return 1231, true
		}
		return 1237, true
	case Int:
		return uint32(uint64(v) ^ uint64(v)>>32), true
	case Float:
		b := math.Float64bits(float64(v))
		if v != v {
			b = 0x7ff8000000000000
		}
		return uint32(b ^ b>>32), true
	case Float32:
		return float32Hash(float32(v)), true
	case *BigDec:
		return decHashCode(v), true
	case *BigInt:
		if !v.integer && v.n.IsInt64() {
			return javaHashCode(Int(v.n.Int64())) // BigInt.hashCode of a long's value
		}
		return bigHasheqWords(v), true
	case String:
		return javaStringHash(string(v)), true
	case Keyword:
		// Keyword.hashCode: its symbol's, plus the golden ratio.
		ns, name, _ := strings.Cut(string(v), "/")
		var nsHash uint32
		if name == "" {
			ns, name = "", ns
		} else {
			nsHash = javaStringHash(ns)
		}
		return hashCombine(javaStringHash(name), nsHash) + 0x9e3779b9, true
	case *Vector:
		h := uint32(1)
		for _, e := range v.elems {
			eh, ok := javaHashCode(e)
			if !ok {
				return 0, false
			}
			h = 31*h + eh
		}
		return h, true
	case *Map:
		var h uint32
		for _, e := range v.entries {
			kh, ok := javaHashCode(e.Key)
			vh, ok2 := javaHashCode(e.Val)
			if !ok || !ok2 {
				return 0, false
			}
			h += kh ^ vh
		}
		return h, true
	case *Set:
		var h uint32
		for _, e := range v.elems {
			eh, ok := javaHashCode(e)
			if !ok {
				return 0, false
			}
			h += eh
		}
		return h, true
	}
	return 0, false
}

// recordConstructorCall rewrites Clojure's positional constructor of a
// record type the program defined, (Name. a b) or (new Name a b), as the
// call of ->Name it is.
func (c *compiler) recordConstructorCall(l *list) (*list, bool) {
	head, ok := l.Elems[0].(symbol)
	if !ok || c.findLocal(string(head)) != nil {
		return nil, false
	}
	name, args := strings.TrimSuffix(string(head), "."), l.Elems[1:]
	if head == "new" && len(l.Elems) > 1 && !c.names.isUser("new") {
		s, ok := l.Elems[1].(symbol)
		if !ok {
			return nil, false
		}
		name, args = string(s), l.Elems[2:]
	} else if name == string(head) {
		return nil, false
	}
	if _, ok := c.recordClassOf(name); !ok {
		return nil, false
	}
	return &list{Elems: append([]Value{symbol("->" + name)}, args...), Pos: l.Pos}, true
}

// Protocols, as models write them with records: a top-level
// (defprotocol P (method [this args]) ...) and the method bodies of the
// top-level defrecords after it that implement P make one multimethod
// per method (multimethods.go), which dispatches on the record type of
// its first argument:
//
//	(defrecord Rect [w h] P (area [this] (* w h)))
//
// adds to area the method
//
//	(fn [this] (let [{:keys [w h]} this] (* w h)))
//
// for the dispatch value "user.Rect", the record's class name. A method's fields are
// read from the record it is called on, as Clojure's; a parameter of the
// same name hides the field. A method of several arities is written once
// per arity in a defrecord, and as a list of arities in extend-type and
// extend-protocol, as Clojure's. A record implementing anything else
// (Object, an interface) or an arity twice is left as written and
// refused.

// protocolDispatch is the dispatch function of a protocol's methods:
// the name of the record type of the first argument (nil for anything
// else, which no method matches), a string, so that the methods' source
// needs no name resolved when memory brings it back.
func protocolDispatch(pos Pos) Value {
	x := symbol("x__protocol")
	return &list{Pos: pos, Elems: []Value{symbol("fn"), NewVector([]Value{x, symbol("&"), symbol("_")}),
		&list{Pos: pos, Elems: []Value{symbol("when"), &list{Pos: pos, Elems: []Value{symbol("record?"), x}},
			&list{Pos: pos, Elems: []Value{symbol("pr-str"), &list{Pos: pos, Elems: []Value{symbol("type"), x}}}}}}}}
}

// noImplementation is a protocol method's function for a value of no
// type that implements it: Clojure's IllegalArgumentException.
func noImplementation(l *list, method symbol) Value {
	at := func(elems ...Value) *list { return &list{Elems: elems, Pos: l.Pos} }
	x := symbol("x__protocol")
	text := fmt.Sprintf("No implementation of method: :%s of protocol: #'user/%s found for class: ", method, formText(l.Elems[1]))
	return at(symbol("fn"), NewVector([]Value{x, symbol("&"), symbol("_")}),
		at(symbol("throw"), at(symbol("IllegalArgumentException."), at(symbol("str"), String(text), at(symbol("pr-str"), at(symbol("type"), x))))))
}

// parseDefprotocol returns the multimethods of (defprotocol P doc?
// (method [this ...] doc?) ...), or nil for a form it does not expand.
// Its methods are charged their compiled cost (multimethodPartBytes)
// before any of them is built.
func parseDefprotocol(th *Thread, l *list) ([]*multimethod, error) {
	rest := l.Elems[2:]
	if len(rest) > 0 {
		if _, isDoc := rest[0].(String); isDoc {
			rest = rest[1:]
		}
	}
	names := make([]symbol, 0, len(rest))
	for _, f := range rest {
		sig, ok := f.(*list)
		if !ok || len(sig.Elems) < 2 {
			return nil, nil
		}
		name, ok := sig.Elems[0].(symbol)
		if !ok {
			return nil, nil
		}
		arities := 0
		for _, e := range sig.Elems[1:] {
			if _, isParams := e.(*Vector); isParams {
				arities++
			}
		}
		if arities == 0 {
			return nil, nil
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return nil, nil
	}
	if err := th.alloc(multimethodPartBytes * int64(len(names))); err != nil {
		return nil, err
	}
	out := make([]*multimethod, len(names))
	for i, name := range names {
		out[i] = &multimethod{pos: l.Pos, name: name, dispatch: protocolDispatch(l.Pos),
			defaultWhen: Keyword("default"), protocol: true, fallback: noImplementation(l, name)}
	}
	return out, nil
}

// recordImpl is one method body of a defrecord, for a protocol's
// multimethod.
type recordImpl struct {
	m  *multimethod
	fn Value
}

// recordImpls splits (defrecord Name [fields] P (method [this ...] body)
// ...) into the record without its methods and each method as a function
// of the record, when every method is one of the protocols' multis
// defined before it; else nil.
func recordImpls(l *list, multis map[symbol]*multimethod) (*list, []recordImpl) {
	if len(l.Elems) < 4 {
		return nil, nil
	}
	fields, ok := l.Elems[2].(*Vector)
	if !ok {
		return nil, nil
	}
	// A method of several arities is written once per arity, as
	// Clojure's defrecord takes it; the bodies of one name make one
	// function of an arity each.
	var order []symbol
	clauses := map[symbol][]Value{}
	for _, f := range l.Elems[3:] {
		if _, isName := f.(symbol); isName {
			continue // the protocol the methods after it implement
		}
		body, ok := f.(*list)
		if !ok || len(body.Elems) < 2 {
			return nil, nil
		}
		name, _ := body.Elems[0].(symbol)
		params, isParams := body.Elems[1].(*Vector)
		m := multis[name]
		if m == nil || !m.protocol || !isParams || params.Len() == 0 {
			return nil, nil
		}
		this, ok := params.Elems()[0].(symbol)
		if !ok || this == "&" {
			return nil, nil
		}
		for _, c := range clauses[name] {
			if c.(*list).Elems[0].(*Vector).Len() == params.Len() {
				return nil, nil // an arity twice
			}
		}
		if clauses[name] == nil {
			order = append(order, name)
		}
		hidden := map[Value]bool{}
		for _, p := range params.Elems() {
			hidden[p] = true
		}
		var keys []Value
		for _, field := range fields.Elems() {
			if !hidden[field] {
				keys = append(keys, field)
			}
		}
		pattern := &mapForm{Elems: []Value{Keyword("keys"), NewVector(keys)}, Pos: body.Pos}
		let := &list{Pos: body.Pos, Elems: append([]Value{symbol("let"), NewVector([]Value{pattern, this})}, body.Elems[2:]...)}
		clauses[name] = append(clauses[name], &list{Pos: body.Pos, Elems: []Value{params, let}})
	}
	if order == nil {
		return nil, nil
	}
	impls := make([]recordImpl, 0, len(order))
	for _, name := range order {
		fn := &list{Pos: l.Pos, Elems: append([]Value{symbol("fn")}, clauses[name]...)}
		impls = append(impls, recordImpl{m: multis[name], fn: fn})
	}
	return &list{Pos: l.Pos, Elems: l.Elems[:3]}, impls
}

// keywordKeys is how many keys of entries are keywords: a record type's
// field list is allocated at its length at once (a literal of a million
// fields would grow it by doubling through twice its size).
func keywordKeys(entries []MapEntry) int {
	n := 0
	for _, e := range entries {
		if _, ok := e.Key.(Keyword); ok {
			n++
		}
	}
	return n
}

// fieldsOf reports whether the keyword keys of entries, in order, are
// c's fields: a literal with these entries reads as a record of type c.
func (c *recordClass) fieldsOf(entries []MapEntry) bool {
	i := 0
	for _, e := range entries {
		kw, ok := e.Key.(Keyword)
		if !ok {
			continue
		}
		if i == len(c.fields) || c.fields[i] != kw {
			return false
		}
		i++
	}
	return i == len(c.fields)
}

// chargeExpansion charges the allocation budget for the two functions a
// defrecord expands to, whose forms, compiled code and kept source are
// many times its own text: (defrecord R [a b]) is 19 bytes and 3.6 KB of
// Go memory once compiled (measured in process), so that a program of
// 10,000 of them (0.23 MB) held 56-79 MiB with nothing charged.
func chargeExpansion(c *compiler, fields int) error {
	if c.th == nil {
		return nil
	}
	return c.th.alloc(recordExpansionBytes + recordFieldBytes*int64(fields))
}

// recordExpansionBytes and recordFieldBytes are what a defrecord's
// expansion costs once compiled, and each field more.
const (
	recordExpansionBytes = 3 << 10
	recordFieldBytes     = 512
)

// fieldAccess compiles (.-field x), Clojure's field access, which reads
// a record's field (and a deftype's, which PTC-Lisp writes as a record).
func (c *compiler) fieldAccess(l *list, field Keyword) (node, error) {
	target, err := c.compile(l.Elems[1], false)
	if err != nil {
		return nil, err
	}
	return &fieldNode{target: target, field: field, pos: l.Pos}, nil
}

type fieldNode struct {
	target node
	field  Keyword
	pos    Pos
}

// eval reads the field of a record; anything else has no such field, as
// Clojure's IllegalArgumentException says, the keyword being what reads
// a map's key.
func (n *fieldNode) eval(th *Thread, fr *frame) (Value, error) {
	v, err := n.target.eval(th, fr)
	if err != nil {
		return nil, err
	}
	if m, ok := v.(*Map); ok && m.class() != nil && m.class().isField(n.field) {
		got, _ := m.Get(n.field)
		return got, nil
	}
	class := "nil"
	if v != Nil {
		class = javaValueClass(v)
	}
	return nil, withPos(Errorf(typeError, "(.-%s x) reads a field of a record, and %s has no field %s", n.field, shown(v), n.field).
		WithHint("read a map's key with the keyword: (:%s x)", n.field).
		asJava("IllegalArgumentException", "No matching field found: "+string(n.field)+" for class "+class), n.pos)
}
