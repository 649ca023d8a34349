package lisp

import (
	"slices"
	"sort"
)

// Multimethod introspection: methods, get-method, remove-method,
// remove-all-methods and prefers. A defmulti expands to a function
// (multimethods.go) followed by (multimethod/register ...), which records
// its method table, as values, in the evaluation that defines it
// (Thread.multis): the table of (methods f) and the functions get-method
// gives are those of this evaluation, and what remove-method removes is
// removed for the rest of it, as Clojure's MultiFn changes in place. A
// later turn that did not run the defmulti has no table to read, and is
// told so.

// multiTable is one multimethod's methods in one evaluation.
type multiTable struct {
	name       Value // the quoted name
	fn         Value // the function the defmulti defined
	values     []Value
	fns        []Value
	defaultKey Value
	fallback   Value // the :default method, or nil
	prefers    *Vector
	hierarchy  Value
	removed    []bool // by index of values
	noDefault  bool   // the :default method was removed
}

// tableOf finds the table of multimethod f in this evaluation.
func (th *Thread) tableOf(fn string, f Value) (*multiTable, error) {
	for _, t := range th.multis {
		if t.fn == f {
			return t, nil
		}
	}
	// A defmulti of an earlier turn recorded its table in that turn.
	return nil, Errorf(typeError, "%s expected a multimethod defined by defmulti in this program, got %s", fn, shown(f)).
		asJava("ClassCastException", "class of "+shown(f)+" cannot be cast to class clojure.lang.MultiFn")
}

func registerMultimethod(th *Thread, args []Value) (Value, error) {
	values, _ := args[2].(*Vector)
	fns, _ := args[3].(*Vector)
	prefers, _ := args[6].(*Vector)
	if values == nil || fns == nil || prefers == nil || values.Len() != fns.Len() {
		return nil, javaErrorf(typeError, noJavaClass, "multimethod/register expected vectors of method values, functions and preferences")
	}
	if err := th.step(int64(values.Len()) + 1); err != nil {
		return nil, err
	}
	t := &multiTable{name: args[0], fn: args[1], values: values.elems, fns: fns.elems,
		defaultKey: args[4], prefers: prefers, hierarchy: args[7], removed: make([]bool, values.Len())}
	if args[5] != Nil {
		t.fallback = args[5]
	}
	if th.multis == nil {
		th.multis = map[string]*multiTable{}
	}
	th.multis[Str(args[0])] = t
	return Nil, nil
}

// changed reports whether a method was removed.
func (t *multiTable) changed() bool {
	if t.noDefault {
		return true
	}
	for _, r := range t.removed {
		if r {
			return true
		}
	}
	return false
}

// activeValues is the table's dispatch values as multimethod/pick reads
// them, each removed one replaced by an atom of its own, which no
// dispatch value a program makes is equal or isa? to.
func (t *multiTable) activeValues() *Vector {
	out := make([]Value, len(t.values))
	for i, v := range t.values {
		out[i] = v
		if t.removed[i] {
			out[i] = &atom{}
		}
	}
	return NewVector(out)
}

func builtinMethods(th *Thread, args []Value) (Value, error) {
	t, err := th.tableOf("methods", args[0])
	if err != nil {
		return nil, err
	}
	if err := th.step(int64(len(t.values)) + 1); err != nil {
		return nil, err
	}
	b := NewMapBuilder(len(t.values) + 1)
	for i, v := range t.values {
		if !t.removed[i] {
			b.Set(v, t.fns[i])
		}
	}
	if t.fallback != nil && !t.noDefault {
		b.Set(t.defaultKey, t.fallback)
	}
	m := b.Map()
	m.markHashMap() // Clojure's method table is a hash map
	return m, nil
}

func builtinGetMethod(th *Thread, args []Value) (Value, error) {
	t, err := th.tableOf("get-method", args[0])
	if err != nil {
		return nil, err
	}
	v := args[1]
	if same, err := equalCharged(th, v, t.defaultKey); err != nil {
		return nil, err
	} else if same {
		if t.fallback == nil || t.noDefault {
			return Nil, nil
		}
		return t.fallback, nil
	}
	i, err := pickMethod(th, []Value{t.name, v, t.activeValues(), t.prefers, t.hierarchy})
	if err != nil {
		return nil, err
	}
	if n := int(i.(Int)); n >= 0 {
		return t.fns[n], nil
	}
	if t.fallback == nil || t.noDefault {
		return Nil, nil
	}
	return t.fallback, nil
}

func builtinRemoveMethod(th *Thread, args []Value) (Value, error) {
	t, err := th.tableOf("remove-method", args[0])
	if err != nil {
		return nil, err
	}
	if err := th.step(int64(len(t.values)) + 1); err != nil {
		return nil, err
	}
	if same, err := equalCharged(th, args[1], t.defaultKey); err != nil {
		return nil, err
	} else if same {
		t.noDefault = true
	}
	for i, v := range t.values {
		if same, err := equalCharged(th, v, args[1]); err != nil {
			return nil, err
		} else if same {
			t.removed[i] = true
		}
	}
	return args[0], nil
}

func builtinRemoveAllMethods(th *Thread, args []Value) (Value, error) {
	t, err := th.tableOf("remove-all-methods", args[0])
	if err != nil {
		return nil, err
	}
	for i := range t.removed {
		t.removed[i] = true
	}
	t.noDefault = true
	return args[0], nil
}

// builtinPrefers is Clojure's preferTable: each preferred value to the
// set of the values it is preferred over.
func builtinPrefers(th *Thread, args []Value) (Value, error) {
	t, err := th.tableOf("prefers", args[0])
	if err != nil {
		return nil, err
	}
	prefs, err := preferTable(th, t.name, t.prefers.elems)
	if err != nil {
		return nil, err
	}
	var keys []Value
	over := map[int][]Value{}
	for _, p := range prefs {
		at := -1
		for i, k := range keys {
			if same, err := equalCharged(th, k, p.x); err != nil {
				return nil, err
			} else if same {
				at = i
			}
		}
		if at < 0 {
			keys, at = append(keys, p.x), len(keys)
		}
		over[at] = append(over[at], p.y)
	}
	b := NewMapBuilder(len(keys))
	for i, k := range keys {
		b.Set(k, NewSet(over[i]))
	}
	m := b.Map()
	m.markHashMap()
	return m, nil
}

var multimethodBuiltins = []*Builtin{
	{Name: "multimethod/register", Sig: "(multimethod/register 'name f values fns default-value default-fn prefers hierarchy)", Doc: "records a multimethod's table for methods and get-method; what defmulti expands to", Category: "idiom",
		reach: qualified, MinArgs: 8, MaxArgs: 8, Cost: cost(chargedInBody("a step per method")), Fn: registerMultimethod},
	{Name: "methods", Sig: "(methods multifn)", Doc: "map of each dispatch value of multimethod multifn to its method", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Cost: cost(chargedInBody("a step per method")), Fn: builtinMethods},
	{Name: "get-method", Sig: "(get-method multifn dispatch-value)", Doc: "the method multimethod multifn calls for dispatch-value (its :default method when none matches), or nil", Category: "idiom",
		MinArgs: 2, MaxArgs: 2, Cost: cost(chargedInBody("as a call's dispatch (multimethod/pick)")), Fn: builtinGetMethod},
	{Name: "remove-method", Sig: "(remove-method multifn dispatch-value)", Doc: "removes the method of dispatch-value from multimethod multifn for the rest of the program; returns multifn", Category: "idiom",
		MinArgs: 2, MaxArgs: 2, Cost: cost(chargedInBody("a step per method")), Fn: builtinRemoveMethod},
	{Name: "remove-all-methods", Sig: "(remove-all-methods multifn)", Doc: "removes every method of multimethod multifn, :default too; returns multifn", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: builtinRemoveAllMethods},
	{Name: "prefers", Sig: "(prefers multifn)", Doc: "map of each value prefer-method prefers to the set of values it is preferred over", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Cost: cost(chargedInBody("a step per preference")), Fn: builtinPrefers},
}

// protocolValue is (def P (protocol/make 'P (fn [x] ...))) for protocol
// P: the value the protocol's name reads as, whose function tells
// whether a value's type implements P (satisfies?), by a defrecord's
// methods or an extend-type or extend-protocol of P.
func protocolValue(name symbol, methods []*multimethod) Value {
	pos := methods[0].pos
	at := func(elems ...Value) *list { return &list{Elems: elems, Pos: pos} }
	x := symbol("x__protocol")
	var recordTypes []Value
	var tests []Value
	var extended []extendImpl
	for _, m := range methods {
		for _, c := range m.methods {
			recordTypes = append(recordTypes, c.value)
		}
		for _, e := range m.extended {
			tests = append(tests, e.test)
		}
		extended = append(extended, m.extended...)
	}
	// extenders are the types extend-type and extend-protocol name, in the
	// order they were extended; a defrecord's own methods make its type an
	// implementer, which extends? knows and extenders does not list.
	sort.SliceStable(extended, func(i, j int) bool { return extended[i].order < extended[j].order })
	var extenders []Value
	seen := map[Value]bool{}
	for _, e := range extended {
		if !seen[e.class] {
			seen[e.class] = true
			extenders = append(extenders, e.class)
		}
	}
	implementers := slices.Compact(slices.Clone(recordTypes))
	or := []Value{symbol("or"), at(symbol("contains?"), at(append([]Value{symbol("hash-set")}, recordTypes...)...), multiDispatch)}
	or = append(or, tests...)
	pred := at(symbol("fn"), NewVector([]Value{x}),
		at(symbol("let"), NewVector([]Value{multiDispatch, at(protocolDispatch(pos), x)}), at(symbol("boolean"), at(or...))))
	return at(symbol("def"), name, at(symbol("protocol/make"), at(symbol("quote"), name), pred,
		NewVector(extenders), NewVector(implementers)))
}

// protocolExtenders and protocolImplementers are the keys of a protocol's
// value under which lie the class names extenders and extends? read.
const (
	protocolExtenders    = Keyword("ptc.protocol/extenders")
	protocolImplementers = Keyword("ptc.protocol/implementers")
)

// protocolArg is the protocol value fn was given, or Clojure's
// NullPointerException for what defprotocol did not make.
func protocolArg(fn string, v Value) (*Map, error) {
	if p, ok := v.(*Map); ok {
		if pred, ok := p.Get(protocolKey); ok && pred != Nil {
			return p, nil
		}
	}
	return nil, Errorf(typeError, "%s expected a protocol defined by defprotocol in this program, got %s", fn, shown(v)).
		asJava("NullPointerException", "")
}

// protocolClasses are the class names p lists under key.
func protocolClasses(p *Map, key Keyword) []Value {
	v, _ := p.Get(key)
	if vec, ok := v.(*Vector); ok {
		return vec.Elems()
	}
	return nil
}

// builtinExtenders is (extenders P): the types extend-type and
// extend-protocol extended P to, as classes (nil for nil), in the order
// they were extended; nil for none, and for what is no protocol, as
// Clojure's (keys (:impls x)).
func builtinExtenders(th *Thread, args []Value) (Value, error) {
	p, ok := args[0].(*Map)
	if !ok {
		return Nil, nil
	}
	names := protocolClasses(p, protocolExtenders)
	if len(names) == 0 {
		return Nil, nil
	}
	out, err := makeSlice(th, len(names))
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if s, ok := n.(String); ok {
			out = append(out, javaClass(s))
		} else {
			out = append(out, Nil)
		}
	}
	return newList(out), nil
}

// builtinExtends is (extends? P C): whether class C implements P, by a
// defrecord's own methods, or was extended to it (exactly C: a type
// extended to Object is no extension of String, as in Clojure).
func builtinExtends(th *Thread, args []Value) (Value, error) {
	p, err := protocolArg("extends?", args[0])
	if err != nil {
		return nil, err
	}
	var name Value = Nil
	switch c := args[1].(type) {
	case javaClass:
		name = String(c)
	case NilType:
	default:
		return nil, typeErrorf("extends?", "a class", args[1]).
			asJava("ClassCastException", javaCastMessage(javaValueClass(args[1]), "java.lang.Class"))
	}
	for _, key := range []Keyword{protocolImplementers, protocolExtenders} {
		names := protocolClasses(p, key)
		if err := th.step(int64(len(names))); err != nil {
			return nil, err
		}
		for _, n := range names {
			if n == name {
				return Bool(true), nil
			}
		}
	}
	return Bool(false), nil
}

// protocolKey is the key of a protocol's value under which its test
// lies: a namespaced keyword no Clojure protocol map has.
const protocolKey = Keyword("ptc.protocol/satisfies")

func builtinSatisfies(th *Thread, args []Value) (Value, error) {
	p, _ := args[0].(*Map)
	var pred Value
	if p != nil {
		pred, _ = p.Get(protocolKey)
	}
	if pred == nil || pred == Nil {
		return nil, Errorf(typeError, "satisfies? expected a protocol defined by defprotocol in this program, got %s", shown(args[0])).
			asJava("NullPointerException", "")
	}
	return call(th, "satisfies?", pred, args[1])
}

var protocolBuiltins = []*Builtin{
	{Name: "protocol/make", Sig: "(protocol/make 'name pred)", Doc: "the value of protocol name, pred telling whether a value satisfies it; what defprotocol expands to", Category: "idiom",
		reach: qualified, MinArgs: 2, MaxArgs: 4, Cost: cost(builds),
		Fn: func(th *Thread, args []Value) (Value, error) {
			b := NewMapBuilder(len(args))
			b.Set(Keyword("name"), args[0])
			b.Set(protocolKey, args[1])
			if len(args) == 4 { // a protocol kept by an earlier version has no lists
				b.Set(protocolExtenders, args[2])
				b.Set(protocolImplementers, args[3])
			}
			return b.Map(), nil
		}},
	{Name: "extenders", Sig: "(extenders protocol)", Doc: "the types extend-type or extend-protocol extended protocol to, as classes", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Cost: cost(chargedInBody("the list of the classes, one slot each")), Fn: builtinExtenders},
	{Name: "extends?", Sig: "(extends? protocol class)", Doc: "whether class implements protocol, by a defrecord's methods or extend-type", Category: "idiom",
		MinArgs: 2, MaxArgs: 2, Cost: cost(chargedInBody("a step per class the protocol lists")), Fn: builtinExtends},
	{Name: "satisfies?", Sig: "(satisfies? protocol x)", Doc: "x's type implements protocol, by a defrecord's methods or extend-type", Category: "idiom",
		MinArgs: 2, MaxArgs: 2, Cost: cost(calls(arg(0))), Fn: builtinSatisfies},
}
