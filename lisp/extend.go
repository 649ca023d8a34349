package lisp

import (
	"sort"
	"strings"
)

// extend-type and extend-protocol, as models write them after a
// defprotocol in the same program: each method body joins the protocol
// method's function (multimethods.go) as a case of its own, tested by the
// type it names. A record's name matches that record type, as a defrecord's
// own methods do; a host type matches by the predicate of the values
// here that Clojure's class would hold, the most specific first (a
// record, then String or Long, then the collection interfaces, then
// Object, which matches anything but nil), as Clojure prefers a class to
// its interfaces. A form this cannot read is left alone, and refused as
// before.

// hostTypeTests are the host types models extend, with the predicate a
// value of that type satisfies here and its rank: lower ranks are tried
// first.
var hostTypeTests = map[string]struct {
	pred string
	rank int
}{
	"String": {"string?", 1}, "java.lang.String": {"string?", 1},
	"Long": {"int?", 1}, "java.lang.Long": {"int?", 1},
	"Double": {"double?", 1}, "java.lang.Double": {"double?", 1},
	"Boolean": {"boolean?", 1}, "java.lang.Boolean": {"boolean?", 1},
	"clojure.lang.Keyword": {"keyword?", 1}, "Keyword": {"keyword?", 1},
	"clojure.lang.Symbol": {"symbol?", 1}, "Symbol": {"symbol?", 1},
	"clojure.lang.PersistentVector": {"vector?", 2}, "clojure.lang.IPersistentVector": {"vector?", 2},
	"clojure.lang.APersistentVector": {"vector?", 2},
	"clojure.lang.PersistentHashSet": {"set?", 2}, "clojure.lang.IPersistentSet": {"set?", 2},
	"clojure.lang.APersistentSet": {"set?", 2},
	"clojure.lang.PersistentList": {"list?", 2}, "clojure.lang.IPersistentList": {"list?", 2},
	"clojure.lang.IPersistentMap": {"map?", 3}, "clojure.lang.APersistentMap": {"map?", 3},
	"java.util.Map":           {"map?", 3},
	"clojure.lang.ISeq":       {"seq?", 3},
	"clojure.lang.Sequential": {"sequential?", 4},
	"Number":                  {"number?", 4}, "java.lang.Number": {"number?", 4},
	"clojure.lang.IFn": {"fn?", 4}, "clojure.lang.Fn": {"fn?", 4},
	// The interfaces of several kinds of collection, as Clojure's classes
	// implement them: a vector and a list are Lists and Collections, a
	// map is Associative and Seqable but no Collection.
	"java.util.List":                     {"sequential?", 4},
	"clojure.lang.Associative":           {"associative?", 5},
	"java.util.Collection":               {"(some-fn sequential? set?)", 6},
	"clojure.lang.IPersistentCollection": {"(some-fn sequential? set? map?)", 7},
	"clojure.lang.Seqable":               {"(some-fn sequential? set? map?)", 7},
	"Object":                             {"some?", 9}, "java.lang.Object": {"some?", 9},
	"nil": {"nil?", 0},
}

// typeTest is the test form of extending type to x, with its rank, or
// false for a type this does not know.
func typeTest(t Value, x symbol, records map[symbol]bool) (Value, int, bool) {
	if t == Nil {
		return &list{Elems: []Value{symbol("nil?"), x}}, 0, true
	}
	name, ok := t.(symbol)
	if !ok {
		return nil, 0, false
	}
	if records[name] {
		// A record's dispatch value (protocolDispatch) is its type's text.
		return &list{Elems: []Value{symbol("="), multiDispatch, String(recordNamespace + "." + string(name))}}, -1, true
	}
	h, ok := hostTypeTests[string(name)]
	if !ok {
		return nil, 0, false
	}
	return &list{Elems: []Value{predicateForm(h.pred), x}}, h.rank, true
}

// predicateForm is the form of a predicate of hostTypeTests: a name, or
// a call written in its text, (some-fn p q).
func predicateForm(pred string) Value {
	if !strings.HasPrefix(pred, "(") {
		return symbol(pred)
	}
	var elems []Value
	for _, name := range strings.Fields(strings.Trim(pred, "()")) {
		elems = append(elems, symbol(name))
	}
	return &list{Elems: elems}
}

// extendImpl is one method body for one type.
type extendImpl struct {
	m    *multimethod
	test Value
	rank int
	fn   Value
	// class is the type's class name, a string (nil for nil), which
	// extenders and extends? give; order is where the body stands in the
	// program, so that extenders lists the types in the order they were
	// extended, as Clojure's (an array map of up to eight) does.
	class Value
	order int
}

// extendedClass is the class name of t, a type extend-type or
// extend-protocol names, as extenders gives it: a string, or nil for nil.
func extendedClass(t Value, records map[symbol]bool) Value {
	name, ok := t.(symbol)
	if !ok {
		return Nil
	}
	if records[name] {
		return String(recordNamespace + "." + string(name))
	}
	if c, _, ok := classNamed(string(name), false); ok && c != "" {
		return String(c)
	}
	return String(name)
}

// parseExtend reads (extend-type T P (m [x ...] body) ...) or
// (extend-protocol P T (m ...) ... T2 ...) into its method bodies, each
// for a protocol method already in multis; nil when any part is not one.
func parseExtend(l *list, multis map[symbol]*multimethod, records map[symbol]bool) []extendImpl {
	x := symbol("x__protocol")
	rest := l.Elems[1:]
	if len(rest) < 2 {
		return nil
	}
	extendType := l.Elems[0] == symbol("extend-type")
	var test, class Value
	rank := 0
	if extendType {
		t, r, ok := typeTest(rest[0], x, records)
		if !ok {
			return nil
		}
		test, rank, class = t, r, extendedClass(rest[0], records)
	}
	var out []extendImpl
	for _, f := range rest[1:] {
		body, isList := f.(*list)
		if !isList {
			if extendType {
				continue // the names of the protocols the bodies implement
			}
			t, r, ok := typeTest(f, x, records)
			if !ok {
				return nil
			}
			test, rank, class = t, r, extendedClass(f, records)
			continue
		}
		if test == nil || len(body.Elems) < 2 {
			return nil
		}
		name, _ := body.Elems[0].(symbol)
		m := multis[name]
		if m == nil || !m.protocol || !methodArities(body.Elems[1:]) {
			return nil
		}
		fn := &list{Pos: body.Pos, Elems: append([]Value{symbol("fn")}, body.Elems[1:]...)}
		out = append(out, extendImpl{m: m, test: test, rank: rank, fn: fn, class: class, order: len(out)})
	}
	return out
}

// methodArities reports whether the rest of a method body after its name
// is a function's: [this ...] and a body, or one list ([this ...] body)
// per arity, each with the value it is called on.
func methodArities(rest []Value) bool {
	if params, ok := rest[0].(*Vector); ok {
		return params.Len() > 0
	}
	for _, r := range rest {
		clause, ok := r.(*list)
		if !ok || len(clause.Elems) == 0 {
			return false
		}
		if params, ok := clause.Elems[0].(*Vector); !ok || params.Len() == 0 {
			return false
		}
	}
	return true
}

// addExtended adds extended method bodies to m's cases, sorted so that
// the most specific type is tested first.
func (m *multimethod) addExtended(e extendImpl) {
	m.extended = append(m.extended, e)
	sort.SliceStable(m.extended, func(i, j int) bool { return m.extended[i].rank < m.extended[j].rank })
}
