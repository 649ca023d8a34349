package lisp

import (
	"maps"
	"slices"
)

// Multimethods as models write them in one program: a top-level
// (defmulti name dispatch-fn) and the top-level (defmethod name value ...)
// forms after it become one function, defined where the defmulti stands:
//
//	(defn name [& args]
//	  (let [v (apply dispatch-fn args)
//	        i (multimethod/pick 'name v [value1 ...] [[x y] ...] hierarchy)]
//	    (cond (= i 0) (apply (fn ...) args)
//	          ...
//	          :else (apply (fn ...) args))))   ; the :default method
//
// multimethod/pick is Clojure's MultiFn.findAndCacheBestMethod: of the
// method values v is isa? (in the global hierarchy, or the :hierarchy
// option's), the one that dominates the others (isa? of them, or preferred
// by the top-level (prefer-method name x y) forms, which join the
// multimethod as defmethods do); two that neither dominates are Clojure's
// IllegalArgumentException "Multiple methods in multimethod ...". With no
// match and no :default method the last branch throws Clojure's
// IllegalArgumentException, "No method in multimethod 'name' for dispatch
// value: v". A later defmethod of the same value
// replaces the earlier one, and a second defmulti of the name is skipped,
// as in Clojure. The function has a source, so
// it is kept between turns like any defn; a defmethod in a later turn has
// no defmulti to join and is refused as before.

const (
	multiArgs     = symbol("args__multimethod")
	multiDispatch = symbol("value__multimethod")
	multiChosen   = symbol("method__multimethod")
)

type multimethod struct {
	at          int // the index of the defmulti form
	last        int // the index of its last defmethod form
	pos         Pos
	name        symbol
	dispatch    Value
	defaultWhen Value
	methods     []multimethodCase
	// methodAt is the index in methods of each dispatch value form, by its
	// text: a program of thousands of defmethods would otherwise compare
	// each new one with all before it, quadratic and before the clock.
	methodAt  map[string]int
	prefers   []Value      // [x y] vectors of the prefer-method forms, in order
	hierarchy Value        // the :hierarchy option's form, or nil for the global hierarchy
	fallback  Value        // the fn form of the :default method, or nil
	protocol  bool         // a method of a defprotocol (record.go)
	extended  []extendImpl // extend-type and extend-protocol bodies (extend.go), most specific first
}

type multimethodCase struct {
	value Value // the dispatch value form
	fn    Value // (fn ...) of the method's tail
}

// expandMultimethods returns forms with each top-level defmulti replaced
// by the function its defmethods make and those defmethods by nil. forms
// itself is not changed: a read program is shared by its evaluations.
// reach, nil when there is no multimethod, gives for each form the index
// of the last original form whose code it holds: a defmulti's function
// holds its methods, which may call what the forms between define.
// Each multimethod and method is charged its compiled cost
// (multimethodPartBytes) as it is met, before anything is built for it:
// a program of 30,000 defmultis or protocol methods would otherwise build
// every expansion first and be refused only after.
func expandMultimethods(th *Thread, forms []Value) (out []Value, reach []int, err error) {
	charge := func(parts int) error { return th.alloc(multimethodPartBytes * int64(parts)) }
	var multis map[symbol]*multimethod
	protocols := map[symbol][]*multimethod{} // each protocol's methods
	protocolAt := map[symbol]int{}
	records := map[symbol]bool{}
	for i, f := range forms {
		l, ok := f.(*list)
		if !ok || len(l.Elems) < 2 {
			continue
		}
		head, _ := l.Elems[0].(symbol)
		name, named := l.Elems[1].(symbol)
		if !named && !(head == "extend-type" && l.Elems[1] == Nil) {
			continue
		}
		switch head {
		case "defmulti":
			if prev := multis[name]; prev != nil && !prev.protocol {
				// Clojure's defmulti does nothing when the name is
				// already a multimethod: the first dispatch function
				// stays, with the methods of both.
				out[i] = Nil
				continue
			}
			if m := parseDefmulti(l, name); m != nil {
				if err := charge(1); err != nil {
					return nil, nil, err
				}
				m.at, m.last = i, i
				if multis == nil {
					multis = map[symbol]*multimethod{}
				}
				multis[name] = m
				if out == nil {
					out = append([]Value(nil), forms...)
				}
			}
		case "defprotocol":
			ms, err := parseDefprotocol(th, l)
			if err != nil {
				return nil, nil, err
			}
			if ms != nil {
				if multis == nil {
					multis = map[symbol]*multimethod{}
				}
				protocols[name], protocolAt[name] = ms, i
				for _, m := range ms {
					m.at, m.last = i, i
					multis[m.name] = m
				}
				if out == nil {
					out = append([]Value(nil), forms...)
				}
			}
		case "extend-type", "extend-protocol":
			impls := parseExtend(l, multis, records)
			if impls == nil {
				continue
			}
			if err := charge(len(impls)); err != nil {
				return nil, nil, err
			}
			for _, impl := range impls {
				impl.order += i << 20 // after the bodies of the forms before
				impl.m.addExtended(impl)
				impl.m.last = i
			}
			if out == nil {
				out = append([]Value(nil), forms...)
			}
			out[i] = Nil
		case "defrecord":
			records[name] = true
			if record, impls := recordImpls(l, multis); impls != nil {
				for _, impl := range impls {
					if err := impl.m.addCharged(th, String(recordNamespace+"."+string(name)), impl.fn); err != nil {
						return nil, nil, err
					}
					impl.m.last = i
				}
				if out == nil {
					out = append([]Value(nil), forms...)
				}
				out[i] = record
			}
		case "prefer-method":
			m := multis[name]
			if m == nil || m.protocol || len(l.Elems) != 4 {
				continue
			}
			m.prefers = append(m.prefers, NewVector([]Value{l.Elems[2], l.Elems[3]}))
			m.last = i
			out[i] = Nil
		case "defmethod":
			m := multis[name]
			if m == nil || len(l.Elems) < 4 {
				continue
			}
			fn := &list{Elems: append([]Value{symbol("fn")}, l.Elems[3:]...), Pos: l.Pos}
			if err := m.addCharged(th, l.Elems[2], fn); err != nil {
				return nil, nil, err
			}
			m.last = i
			if out == nil {
				out = append([]Value(nil), forms...)
			}
			out[i] = Nil
		}
	}
	if out == nil {
		return forms, nil, nil
	}
	reach = make([]int, len(forms))
	for i := range reach {
		reach[i] = i
	}
	names := slices.Sorted(maps.Keys(multis))
	for _, name := range names {
		m := multis[name]
		if m.protocol {
			// A protocol's methods are all defined where it stands.
			if def, ok := out[m.at].(*list); ok && def.Elems[0] == symbol("do") {
				def.Elems = append(def.Elems, m.defn())
			} else {
				out[m.at] = &list{Elems: []Value{symbol("do"), m.defn()}, Pos: m.pos}
			}
		} else {
			out[m.at] = &list{Elems: []Value{symbol("do"), m.defn(), m.register()}, Pos: m.pos}
		}
		reach[m.at] = max(reach[m.at], m.last)
	}
	for _, name := range slices.Sorted(maps.Keys(protocols)) {
		at := protocolAt[name]
		def, ok := out[at].(*list)
		if !ok || def.Elems[0] != symbol("do") {
			continue
		}
		def.Elems = append(def.Elems, protocolValue(name, protocols[name]))
		for _, m := range protocols[name] {
			reach[at] = max(reach[at], m.last)
		}
	}
	return out, reach, nil
}

// multimethodPartBytes is what a multimethod, and each of its methods,
// costs once expanded and compiled: (defmulti m f) (defmethod m 1 [x] x)
// is 48 bytes of text and 5.8 KB of Go memory kept (13 KB allocated),
// measured in process. The analysis is charged it for each part, as a
// defrecord is charged its expansion (chargeExpansion).
const multimethodPartBytes = 3 << 10

// parseDefmulti reads (defmulti name doc? attr-map? dispatch-fn
// & options), or returns nil for a form it does not expand.
func parseDefmulti(l *list, name symbol) *multimethod {
	rest := l.Elems[2:]
	if len(rest) > 0 {
		if _, isDoc := rest[0].(String); isDoc {
			rest = rest[1:]
		}
	}
	if len(rest) > 0 {
		if _, isAttrs := rest[0].(*mapForm); isAttrs {
			rest = rest[1:]
		}
	}
	if len(rest) == 0 || len(rest)%2 != 1 {
		return nil
	}
	m := &multimethod{pos: l.Pos, name: name, dispatch: rest[0], defaultWhen: Keyword("default")}
	for i := 1; i < len(rest); i += 2 {
		switch rest[i] {
		case Keyword("default"):
			m.defaultWhen = rest[i+1]
		case Keyword("hierarchy"):
			// Clojure takes a reference to the hierarchy, #'h, and reads
			// it at each call.
			if v, ok := rest[i+1].(*varRef); ok {
				m.hierarchy = symbol(v.Name)
			} else {
				m.hierarchy = &list{Elems: []Value{symbol("deref"), rest[i+1]}, Pos: l.Pos}
			}
		default:
			return nil // an option Clojure does not have
		}
	}
	return m
}

func (m *multimethod) add(value, fn Value) {
	text := Repr(value) // dispatch value forms are compared as written
	if text == Repr(m.defaultWhen) {
		m.fallback = fn
		return
	}
	if i, ok := m.methodAt[text]; ok {
		m.methods[i].fn = fn
		return
	}
	if m.methodAt == nil {
		m.methodAt = map[string]int{}
	}
	m.methodAt[text] = len(m.methods)
	m.methods = append(m.methods, multimethodCase{value: value, fn: fn})
}

// addCharged is add, charging a method it adds (not one it replaces) its
// compiled cost.
func (m *multimethod) addCharged(th *Thread, value, fn Value) error {
	before := len(m.methods)
	m.add(value, fn)
	return th.alloc(multimethodPartBytes * int64(len(m.methods)-before))
}

// register is (multimethod/register 'name name [values] [fns] default
// default-fn prefers hierarchy): the table methods and get-method read.
func (m *multimethod) register() Value {
	at := func(elems ...Value) *list { return &list{Elems: elems, Pos: m.pos} }
	values := make([]Value, len(m.methods))
	fns := make([]Value, len(m.methods))
	for i, c := range m.methods {
		values[i], fns[i] = c.value, c.fn
	}
	var fallback, hierarchy Value = Nil, Nil
	if m.fallback != nil {
		fallback = m.fallback
	}
	if m.hierarchy != nil {
		hierarchy = m.hierarchy
	}
	return at(symbol("multimethod/register"), at(symbol("quote"), m.name), m.name, NewVector(values), NewVector(fns),
		m.defaultWhen, fallback, NewVector(m.prefers), hierarchy)
}

func (m *multimethod) defn() Value {
	at := func(elems ...Value) *list { return &list{Elems: elems, Pos: m.pos} }
	branches := []Value{symbol("cond")}
	values := make([]Value, len(m.methods))
	for i, c := range m.methods {
		values[i] = c.value
		branches = append(branches,
			at(symbol("="), multiChosen, Int(i)),
			at(symbol("apply"), c.fn, multiArgs))
	}
	noMethod := at(symbol("throw"), at(symbol("IllegalArgumentException."),
		at(symbol("str"), String("No method in multimethod '"+string(m.name)+"' for dispatch value: "), at(symbol("pr-str"), multiDispatch))))
	var otherwise Value = noMethod
	if m.fallback != nil {
		otherwise = at(symbol("apply"), m.fallback, multiArgs)
	}
	for _, e := range m.extended {
		branches = append(branches, e.test, at(symbol("apply"), e.fn, multiArgs))
	}
	if !m.protocol {
		// multimethod/pick's answer when nothing matches and the :default
		// method was removed (remove-method, remove-all-methods).
		branches = append(branches, at(symbol("="), multiChosen, Int(-2)), noMethod)
	}
	branches = append(branches, Keyword("else"), otherwise)
	var hierarchy Value = Nil
	if m.hierarchy != nil {
		hierarchy = m.hierarchy
	}
	bindings := []Value{multiDispatch, at(symbol("apply"), m.dispatch, multiArgs),
		multiChosen, at(symbol("multimethod/pick"), at(symbol("quote"), m.name), multiDispatch,
			NewVector(values), NewVector(m.prefers), hierarchy)}
	if len(m.extended) > 0 {
		bindings = append(bindings, symbol("x__protocol"), at(symbol("first"), multiArgs))
	}
	return at(symbol("defn"), m.name, NewVector([]Value{symbol("&"), multiArgs}),
		at(symbol("let"), NewVector(bindings), at(branches...)))
}
