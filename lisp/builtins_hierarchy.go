package lisp

import "strings"

// Hierarchies as Clojure 1.11 has them: a hierarchy is a map
// {:parents {tag #{parent}} :descendants {...} :ancestors {...}}, which
// derive and underive return anew. The global hierarchy, which the
// arities without h read and change, belongs to the evaluation
// (progState), never to the process: each program starts with an empty
// one. Multimethods dispatch through it (multimethods.go).

var (
	kwParents     = Keyword("parents")
	kwDescendants = Keyword("descendants")
	kwAncestors   = Keyword("ancestors")
)

func emptyHierarchy() *Map {
	b := NewMapBuilder(3)
	b.Set(kwParents, emptyMap)
	b.Set(kwDescendants, emptyMap)
	b.Set(kwAncestors, emptyMap)
	return b.Map()
}

// globalHierarchy is the evaluation's hierarchy; {} stands for an empty
// one, which reads the same, so that reading it builds nothing.
func (th *Thread) globalHierarchy() *Map {
	if th == nil || th.prog == nil || th.prog.hierarchy == nil {
		return emptyMap
	}
	return th.prog.hierarchy
}

func (th *Thread) setGlobalHierarchy(h *Map) error {
	if th == nil || th.prog == nil {
		return Errorf(validationError, "derive and underive of the global hierarchy need a program; pass a hierarchy: (derive (make-hierarchy) tag parent)")
	}
	th.prog.hierarchy = h
	return nil
}

// hierarchySet is ((field h) tag) as a set, nil when there is none.
func hierarchySet(h Value, field Keyword, tag Value) *Set {
	m, _ := lookup(field.get(h, nil), tag, nil)
	s, _ := m.(*Set)
	return s
}

// named reports whether v is a keyword or symbol, and whether it has a
// namespace.
func named(v Value) (ok, qualified bool) {
	var s string
	switch x := v.(type) {
	case Keyword:
		s = string(x)
	case symbol:
		s = string(x)
	default:
		return false, false
	}
	i := strings.IndexByte(s, '/')
	return true, i > 0 && i < len(s)-1
}

func assertFailed(test string) error {
	msg := "Assert failed: " + test
	return Errorf(executionError, "%s", msg).asJava("AssertionError", msg)
}

// hierarchyException is the Exception derive throws for a cycle.
func hierarchyException(msg string) error {
	return Errorf(executionError, "%s", msg).asJava("Exception", msg)
}

// isa is Clojure's isa?: equal, a class and its superclass, a descendant
// in h, or vectors of the same length whose elements are each isa.
func isa(th *Thread, h, child, parent Value) (bool, error) {
	if err := th.step(1); err != nil {
		return false, err
	}
	if eq, err := equalCharged(th, child, parent); err != nil || eq {
		return eq, err
	}
	if c, ok := child.(javaClass); ok {
		if p, ok := parent.(javaClass); ok {
			for _, s := range classSupers[c] {
				if s == p {
					return true, nil
				}
			}
		}
	}
	if ok, err := inAncestors(th, h, child, parent); err != nil || ok {
		return ok, err
	}
	if c, ok := child.(javaClass); ok {
		for _, s := range classSupers[c] {
			if a := hierarchySet(h, kwAncestors, s); a != nil && a.contains(parent) {
				return true, nil
			}
		}
	}
	cv, ok1 := child.(*Vector)
	pv, ok2 := parent.(*Vector)
	if !ok1 || !ok2 || cv.IsList() || pv.IsList() || cv.Len() != pv.Len() {
		return false, nil
	}
	for i := range cv.Len() {
		ok, err := isa(th, h, cv.elems[i], pv.elems[i])
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// inAncestors reports whether parent is among child's ancestors in h,
// charging th for hashing child to find them and parent to look in them:
// isa? looks once for every element of a vector and every method of a
// multimethod.
func inAncestors(th *Thread, h, child, parent Value) (bool, error) {
	if err := chargeKey(th, child); err != nil {
		return false, err
	}
	a := hierarchySet(h, kwAncestors, child)
	if a == nil {
		return false, nil
	}
	if err := chargeKey(th, parent); err != nil {
		return false, err
	}
	return a.contains(parent), nil
}

// deriveIn is (derive h tag parent), Clojure's algorithm: tag and its
// descendants gain parent and its ancestors, parent and its ancestors
// gain tag and its descendants.
func deriveIn(th *Thread, h *Map, tag, parent Value) (*Map, error) {
	if same, err := equalCharged(th, tag, parent); err != nil {
		return nil, err
	} else if same {
		return nil, assertFailed("(not= tag parent)")
	}
	if ok, _ := named(tag); !ok {
		if _, class := tag.(javaClass); !class {
			return nil, assertFailed("(or (class? tag) (instance? clojure.lang.Named tag))")
		}
	}
	if ok, _ := named(parent); !ok {
		return nil, assertFailed("(instance? clojure.lang.Named parent)")
	}
	if p := hierarchySet(h, kwParents, tag); p != nil && p.contains(parent) {
		return h, nil
	}
	if a := hierarchySet(h, kwAncestors, tag); a != nil && a.contains(parent) {
		return nil, hierarchyException(Str(tag) + " already has " + Str(parent) + " as ancestor")
	}
	if a := hierarchySet(h, kwAncestors, parent); a != nil && a.contains(tag) {
		return nil, hierarchyException("Cyclic derivation: " + Str(parent) + " has " + Str(tag) + " as ancestor")
	}
	parents, err := addToSet(th, h, kwParents, tag, []Value{parent})
	if err != nil {
		return nil, err
	}
	// Every one of tag and its descendants gains parent and parent's ancestors.
	ancestors, err := spread(th, h, kwAncestors, kwDescendants, tag, parent)
	if err != nil {
		return nil, err
	}
	descendants, err := spread(th, h, kwDescendants, kwAncestors, parent, tag)
	if err != nil {
		return nil, err
	}
	// Clojure's derive returns this literal map, in this order, whatever
	// else h held.
	if err := th.allocMap(3); err != nil {
		return nil, err
	}
	b := NewMapBuilder(3)
	b.Set(kwParents, parents)
	b.Set(kwAncestors, ancestors)
	b.Set(kwDescendants, descendants)
	return b.Map(), nil
}

// fieldMap is (field h) as a map.
func fieldMap(h *Map, field Keyword) *Map {
	m, _ := field.get(h, nil).(*Map)
	if m == nil {
		return emptyMap
	}
	return m
}

// addToSet is (assoc (field h) key (into (get (field h) key #{}) xs)).
func addToSet(th *Thread, h *Map, field Keyword, key Value, xs []Value) (*Map, error) {
	return addToSets(th, h, field, []Value{key}, xs)
}

// spread is Clojure's tf: source and each of its (sources) gain target
// and its (targets) in field.
func spread(th *Thread, h *Map, field, sources Keyword, source, target Value) (*Map, error) {
	gained := []Value{target}
	if t := hierarchySet(h, field, target); t != nil {
		gained = append(gained, t.elems...)
	}
	takers := []Value{source}
	if s := hierarchySet(h, sources, source); s != nil {
		takers = append(takers, s.elems...)
	}
	return addToSets(th, h, field, takers, gained)
}

// addToSets is (field h) with each of keys' sets gaining xs: the map is
// copied once, however many keys, and each set grows by conj (in place
// where it is the newest of its lineage), so a chain of derives does not
// copy what it keeps.
func addToSets(th *Thread, h *Map, field Keyword, keys, xs []Value) (*Map, error) {
	m := fieldMap(h, field)
	if err := th.allocMap(m.Len() + len(keys)); err != nil {
		return nil, err
	}
	if err := chargeKeys(th, keys); err != nil {
		return nil, err
	}
	b := NewMapBuilder(m.Len() + len(keys))
	b.addAll(m)
	for _, k := range keys {
		s := hierarchySet(h, field, k)
		if s == nil {
			s = NewSet(nil)
		}
		for _, x := range xs {
			var err error
			if s, err = conjSet(th, s, x); err != nil {
				return nil, err
			}
		}
		b.Set(k, s)
	}
	return b.Map(), nil
}

// underiveIn is (underive h tag parent): Clojure rebuilds the hierarchy
// from the parent links that remain.
func underiveIn(th *Thread, h *Map, tag, parent Value) (*Map, error) {
	p := hierarchySet(h, kwParents, tag)
	if p == nil || !p.contains(parent) {
		return h, nil
	}
	out := emptyHierarchy()
	for _, e := range fieldMap(h, kwParents).entries {
		s, _ := e.Val.(*Set)
		if s == nil {
			continue
		}
		for _, q := range s.elems {
			if same, err := equalPairs(th, e.Key, tag, q, parent); err != nil {
				return nil, err
			} else if same {
				continue
			}
			var err error
			if out, err = deriveIn(th, out, e.Key, q); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func hierarchyArg(fn string, v Value) (*Map, error) {
	m, ok := v.(*Map)
	if !ok {
		return nil, typeErrorf(fn, "a hierarchy map (make-hierarchy)", v)
	}
	return m, nil
}

// hierarchyAndTag splits (f tag) and (f h tag).
func hierarchyAndTag(th *Thread, args []Value) (h, tag Value) {
	if len(args) == 1 {
		return th.globalHierarchy(), args[0]
	}
	return args[0], args[1]
}

// relatives is parents, ancestors or descendants: a set, nil when empty.
func relatives(fn string, field Keyword) func(th *Thread, args []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		h, tag := hierarchyAndTag(th, args)
		if _, class := tag.(javaClass); class {
			if field == kwDescendants {
				return nil, Errorf(executionError, "Can't get descendants of classes").asJava("UnsupportedOperationException", "Can't get descendants of classes")
			}
			// Clojure's answer lists every interface of the JVM class,
			// which only some of are known here (classSupers).
			return nil, Errorf(validationError, "%s of a class is not available", fn).
				WithHint("test a class with isa?: (isa? String Comparable) for (contains? (ancestors String) Comparable)")
		}
		s := hierarchySet(h, field, tag)
		if s == nil || s.Len() == 0 {
			return Nil, nil
		}
		return s, nil
	}
}

var hierarchyBuiltins = []*Builtin{
	{Name: "make-hierarchy", Sig: "(make-hierarchy)", Doc: "an empty hierarchy, {:parents {} :descendants {} :ancestors {}}", Category: "idiom",
		MinArgs: 0, MaxArgs: 0, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			return emptyHierarchy(), nil
		}},
	{Name: "derive", Sig: "(derive tag parent) (derive h tag parent)", Doc: "make parent a parent of tag: in the program's hierarchy (qualified names; returns nil) or in hierarchy h (returns the new hierarchy)", Category: "idiom",
		MinArgs: 2, MaxArgs: 3, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			if len(args) == 3 {
				h, err := hierarchyArg("derive", args[0])
				if err != nil {
					return nil, err
				}
				return deriveIn(th, h, args[1], args[2])
			}
			tag, parent := args[0], args[1]
			if _, q := named(parent); !q {
				return nil, assertFailed("(namespace parent)")
			}
			if _, q := named(tag); !q {
				if _, class := tag.(javaClass); !class {
					return nil, assertFailed("(or (class? tag) (and (instance? clojure.lang.Named tag) (namespace tag)))")
				}
			}
			h, err := deriveIn(th, th.globalHierarchy(), tag, parent)
			if err != nil {
				return nil, err
			}
			return Nil, th.setGlobalHierarchy(h)
		}},
	{Name: "underive", Sig: "(underive tag parent) (underive h tag parent)", Doc: "remove parent from tag's parents: in the program's hierarchy (returns nil) or in h (returns the new hierarchy)", Category: "idiom",
		MinArgs: 2, MaxArgs: 3, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			if len(args) == 3 {
				h, err := hierarchyArg("underive", args[0])
				if err != nil {
					return nil, err
				}
				return underiveIn(th, h, args[1], args[2])
			}
			h, err := underiveIn(th, th.globalHierarchy(), args[0], args[1])
			if err != nil {
				return nil, err
			}
			return Nil, th.setGlobalHierarchy(h)
		}},
	{Name: "isa?", Sig: "(isa? child parent) (isa? h child parent)", Doc: "true when child equals parent, derives from it, or is a vector whose elements each are isa? parent's", Category: "idiom",
		MinArgs: 2, MaxArgs: 3, Cost: cost(perArg(allArgs), testsEquality), Fn: func(th *Thread, args []Value) (Value, error) {
			var h Value = th.globalHierarchy()
			if len(args) == 3 {
				h, args = args[0], args[1:]
				if err := hierarchyAncestorsCallable(h); err != nil {
					// equality and Java's classes answer before the
					// hierarchy is read
					ok, e := isa(th, Nil, args[0], args[1])
					if e != nil || ok {
						return Bool(ok), e
					}
					return nil, err
				}
			}
			ok, err := isa(th, h, args[0], args[1])
			return Bool(ok), err
		}},
	{Name: "parents", Sig: "(parents tag) (parents h tag)", Doc: "the set of tag's immediate parents, nil when none", Category: "idiom",
		MinArgs: 1, MaxArgs: 2, Cost: cost(constant), Fn: relatives("parents", kwParents)},
	{Name: "ancestors", Sig: "(ancestors tag) (ancestors h tag)", Doc: "the set of tag's parents and their ancestors, nil when none", Category: "idiom",
		MinArgs: 1, MaxArgs: 2, Cost: cost(constant), Fn: relatives("ancestors", kwAncestors)},
	{Name: "descendants", Sig: "(descendants tag) (descendants h tag)", Doc: "the set of what derives from tag, directly or not, nil when none", Category: "idiom",
		MinArgs: 1, MaxArgs: 2, Cost: cost(constant), Fn: relatives("descendants", kwDescendants)},
	{Name: "multimethod/pick", Sig: "(multimethod/pick 'name v values prefers hierarchy)", Doc: "the index of the method a multimethod's dispatch value v selects, -1 when none; what defmulti expands to", Category: "idiom",
		reach: qualified, MinArgs: 5, MaxArgs: 5, Cost: cost(constant), Fn: pickMethod},
}

// pickMethod is Clojure 1.11's MultiFn.findAndCacheBestMethod: the index
// of the method value v is isa? that dominates every other such value, or
// -1 when none matches. prefers are the [x y] pairs of the multimethod's
// prefer-method forms.
// -2 when none matches and remove-method removed the :default method.
func pickMethod(th *Thread, args []Value) (Value, error) {
	name, v := args[0], args[1]
	values, _ := args[2].(*Vector)
	pairs, _ := args[3].(*Vector)
	h := args[4]
	if h == Nil {
		h = th.globalHierarchy()
	}
	if values == nil || pairs == nil {
		return nil, javaErrorf(typeError, noJavaClass, "multimethod/pick expected vectors of method values and preferences")
	}
	if t := th.multis[Str(name)]; t != nil && t.changed() {
		if len(t.removed) == values.Len() {
			values = t.activeValues()
		}
		i, err := pickAmong(th, name, v, values, pairs, h)
		if err == nil && i == -1 && t.noDefault {
			return Int(-2), nil
		}
		return Int(i), err
	}
	i, err := pickAmong(th, name, v, values, pairs, h)
	return Int(i), err
}

// pickAmong is pickMethod's choice among values, in hierarchy h.
func pickAmong(th *Thread, name, v Value, values, pairs *Vector, h Value) (int, error) {
	// Most calls match one method or none, which needs no ordering.
	matched, only := 0, -1
	for i, k := range values.elems {
		ok, err := isa(th, h, v, k)
		if err != nil {
			return 0, err
		}
		if ok {
			matched, only = matched+1, i
		}
	}
	if matched < 2 && pairs.Len() == 0 {
		return only, nil
	}
	prefs, err := preferTable(th, name, pairs.elems)
	if err != nil {
		return 0, err
	}
	// prefers follows parents in the global hierarchy, as Clojure 1.11's
	// MultiFn does whatever the multimethod's hierarchy.
	global := th.globalHierarchy()
	var prefers func(x, y Value) (bool, error)
	prefers = func(x, y Value) (bool, error) {
		if err := th.step(1); err != nil {
			return false, err
		}
		for _, p := range prefs {
			if same, err := equalPairs(th, p.x, x, p.y, y); err != nil || same {
				return same, err
			}
		}
		if ps := hierarchySet(global, kwParents, y); ps != nil {
			for _, p := range ps.elems {
				if ok, err := prefers(x, p); err != nil || ok {
					return ok, err
				}
			}
		}
		if ps := hierarchySet(global, kwParents, x); ps != nil {
			for _, p := range ps.elems {
				if ok, err := prefers(p, y); err != nil || ok {
					return ok, err
				}
			}
		}
		return false, nil
	}
	dominates := func(x, y Value) (bool, error) {
		if ok, err := prefers(x, y); err != nil || ok {
			return ok, err
		}
		return isa(th, h, x, y)
	}
	// Clojure's method table is a hash map, and which of two methods
	// neither dominates is reported, or which wins when a third is
	// preferred to one only, follows its order.
	order, err := hamtPerm(th, values.Len(), heapSlot, func(i int) Value { return values.elems[i] })
	if err != nil {
		return 0, err
	}
	best := -1
	for _, at := range order {
		i, k := int(at), values.elems[at]
		ok, err := isa(th, h, v, k)
		if err != nil {
			return 0, err
		}
		if !ok {
			continue
		}
		if best < 0 {
			best = i
		} else if d, err := dominates(k, values.elems[best]); err != nil {
			return 0, err
		} else if d {
			best = i
		}
		if d, err := dominates(values.elems[best], k); err != nil {
			return 0, err
		} else if !d {
			msg := "Multiple methods in multimethod '" + Str(name) + "' match dispatch value: " + Repr(v) + " -> " +
				Repr(k) + " and " + Repr(values.elems[best]) + ", and neither is preferred"
			return 0, Errorf(executionError, "%s", msg).asJava("IllegalArgumentException", msg).
				WithHint("%s", "add (prefer-method "+Str(name)+" "+Repr(k)+" "+Repr(values.elems[best])+") after the defmethods to choose")
		}
	}
	return best, nil
}

type preference struct{ x, y Value }

// preferTable reads the prefer-method pairs in order, refusing one that
// contradicts an earlier one as Clojure's preferMethod does.
func preferTable(th *Thread, name Value, pairs []Value) ([]preference, error) {
	var out []preference
	for _, p := range pairs {
		pv, ok := p.(*Vector)
		if !ok || pv.Len() != 2 {
			return nil, javaErrorf(typeError, noJavaClass, "multimethod/pick expected [x y] preferences")
		}
		x, y := pv.elems[0], pv.elems[1]
		if err := th.step(int64(len(out)) + 1); err != nil {
			return nil, err
		}
		for _, q := range out {
			if same, err := equalPairs(th, q.x, y, q.y, x); err != nil {
				return nil, err
			} else if same {
				msg := "Preference conflict in multimethod '" + Str(name) + "': " + Repr(y) + " is already preferred to " + Repr(x)
				return nil, Errorf(executionError, "%s", msg).asJava("IllegalStateException", msg)
			}
		}
		out = append(out, preference{x, y})
	}
	return out, nil
}

// hierarchyAncestorsCallable: Clojure's isa? calls ((:ancestors h) child)
// once child is neither parent nor a class under it, so a hierarchy that
// is no map, or has no :ancestors, fails there with the
// NullPointerException of calling nil.
func hierarchyAncestorsCallable(h Value) error {
	if m, ok := h.(*Map); ok {
		if _, ok := m.Get(kwAncestors); ok {
			return nil
		}
	}
	return Errorf(typeError, "isa?: the hierarchy %s has no :ancestors map (make one with (make-hierarchy))", describe(h)).
		asJava("NullPointerException", "")
}
