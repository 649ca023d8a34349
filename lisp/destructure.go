package lisp

import "strings"

// pattern is a compiled binding form: a symbol, a sequential pattern
// [a b & rest :as all] or a map pattern {:keys [a] :strs [b] x :x :or {...}
// :as m}. bind stores the parts of a value into the frame's slots.
type pattern interface {
	bind(th *Thread, fr *frame, v Value) error
}

type slotPattern struct{ slot int }

func (p *slotPattern) bind(_ *Thread, fr *frame, v Value) error {
	fr.slots[p.slot] = v
	return nil
}

type seqPattern struct {
	items []pattern
	rest  pattern // nil when there is no & part
	as    int     // slot for :as, -1 if none
	// restAsMap: & {:keys [...]} reads the rest as key/value pairs.
	restAsMap bool
	// keywordParams: this is the & {...} of a parameter list, which a
	// recur passes its map to whole, as Clojure's recur does.
	keywordParams bool
}

func (p *seqPattern) bind(th *Thread, fr *frame, v Value) error {
	switch v.(type) {
	case *Map, *Set:
		// Clojure reads a [...] pattern with nth, which a map or set has
		// not: its entries or members are a sequence first.
		return nthUnsupported(Errorf(typeError, "cannot destructure %s with a [...] pattern", v.TypeName()).
			WithHint("destructure its sequence: (seq x) gives a map's [key value] entries or a set's members"), v)
	}
	if s, ok := v.(*infiniteSeq); ok {
		return p.bindSeq(th, fr, s)
	}
	elems, err := elemsForIteration(th, "destructuring", v)
	if err != nil {
		return nthUnsupported(Errorf(typeError, "cannot destructure %s with a [...] pattern", v.TypeName()).
			WithHint("sequential destructuring takes a vector, list, string or nil"), v)
	}
	return p.bindElems(th, fr, elems, v)
}

// bindSeq binds a lazy sequence as Clojure's nth and nthnext read it: the
// items the pattern names, and the rest (& r) left lazy, nil when it is
// empty; so an endless sequence binds as well as one that ends. Keyword
// arguments (& {...}) read the rest whole, as Clojure's do.
func (p *seqPattern) bindSeq(th *Thread, fr *frame, s *infiniteSeq) error {
	if p.rest != nil && p.restAsMap {
		if !s.ends() {
			return infiniteError("destructuring", s)
		}
		whole, err := s.realizeAll(th)
		if err != nil {
			return err
		}
		return p.bindElems(th, fr, whole.Elems(), s)
	}
	elems, err := s.realize(th, len(p.items))
	if err != nil {
		return err
	}
	if err := p.bindItems(th, fr, elems); err != nil {
		return err
	}
	if p.rest != nil {
		rest, err := lazyNthrest(true)(th, []Value{s, Int(len(p.items))}, s, nil)
		if err != nil {
			return err
		}
		if err := p.rest.bind(th, fr, rest); err != nil {
			return err
		}
	}
	if p.as >= 0 {
		fr.slots[p.as] = s
	}
	return nil
}

// bindItems binds the named items of the pattern to elems, nil past
// their end.
func (p *seqPattern) bindItems(th *Thread, fr *frame, elems []Value) error {
	for i, item := range p.items {
		var x Value = Nil
		if i < len(elems) {
			x = elems[i]
		}
		if err := item.bind(th, fr, x); err != nil {
			return err
		}
	}
	return nil
}

// bindElems binds the elements of v, all of them read.
func (p *seqPattern) bindElems(th *Thread, fr *frame, elems []Value, v Value) error {
	if err := p.bindItems(th, fr, elems); err != nil {
		return err
	}
	if p.rest != nil {
		var restVal Value = Nil
		if len(elems) > len(p.items) {
			extra := elems[len(p.items):]
			if p.restAsMap {
				var err error
				if restVal, err = keywordArgs(th, extra); err != nil {
					return err
				}
			} else {
				// A view, as rest makes: a copy made walking a vector by
				// [x & xs] copied the rest at every step, n^2 in all.
				var err error
				if restVal, err = sub(th, v, elems, len(p.items), len(elems)); err != nil {
					return err
				}
			}
		}
		if err := p.rest.bind(th, fr, restVal); err != nil {
			return err
		}
	}
	if p.as >= 0 {
		fr.slots[p.as] = v
	}
	return nil
}

// keywordArgs is the map a & {:keys [...]} pattern reads, as Clojure 1.11
// makes it from the rest arguments: one argument is taken whole (a map
// passed as it is), pairs make a map, and pairs followed by a map are
// that map's entries added after them, so (f :a 1 {:b 2}) reads a and b.
func keywordArgs(th *Thread, extra []Value) (Value, error) {
	if len(extra) == 1 {
		return extra[0], nil
	}
	pairs, n := extra, len(extra)/2
	var tail *Map
	if len(extra)%2 == 1 {
		last := extra[len(extra)-1]
		if last != Nil {
			m, ok := last.(*Map)
			if !ok {
				return nil, Errorf(typeError, "keyword arguments end in %s, where a map or a key and value belongs", last.TypeName()).
					WithHint("pass keyword arguments as pairs, (f :a 1 :b 2), or a map after them, (f :a 1 {:b 2})").
					asJava("IllegalArgumentException", "Don't know how to create ISeq from: "+javaClassOf(last))
			}
			tail, n = m, n+m.Len()
		}
		pairs = extra[:len(extra)-1]
	}
	if err := th.allocMap(n); err != nil {
		return nil, err
	}
	b := NewMapBuilder(n)
	for i := 0; i+1 < len(pairs); i += 2 {
		k, err := realizedKey(th, pairs[i])
		if err != nil {
			return nil, err
		}
		b.Set(k, pairs[i+1])
	}
	if tail != nil {
		for _, e := range tail.Entries() {
			b.Set(e.Key, e.Val)
		}
	}
	return b.Map(), nil
}

type mapPatternEntry struct {
	key Value
	// keyExpr computes the key when the pattern's key form is not a
	// literal (a local, a call); key is nil then.
	keyExpr node
	pat     pattern
	def     node // :or default, nil if none
}

type mapPattern struct {
	entries []mapPatternEntry
	as      int
}

func (p *mapPattern) bind(th *Thread, fr *frame, v Value) error {
	if s, ok := v.(*infiniteSeq); ok {
		// A lazy sequence is a sequence too, read whole as Clojure reads it.
		if !s.ends() {
			return infiniteError("destructuring", s)
		}
		whole, err := s.realizeAll(th)
		if err != nil {
			return err
		}
		v = whole
	}
	if l, ok := v.(*Vector); ok && l.IsList() {
		// Clojure reads a map pattern of a sequence as the map its items
		// make, pairs or one map, as keyword arguments are read.
		var err error
		if v, err = keywordArgs(th, l.elems); err != nil {
			return err
		}
		if l.Len() == 0 {
			v = emptyMap
		}
	}
	m, _ := v.(*Map)
	if p.as >= 0 {
		fr.slots[p.as] = v
	}
	set, _ := v.(*Set)
	for _, e := range p.entries {
		key := e.key
		if e.keyExpr != nil {
			var err error
			if key, err = e.keyExpr.eval(th, fr); err != nil {
				return err
			}
		}
		x, found := lookupFlexible(m, key)
		if set != nil && set.contains(key) {
			x, found = key, true // Clojure's get of a set gives the member
		}
		if m == nil && set == nil {
			// Clojure's get of a vector or a string by index.
			missing := &varRef{}
			got, err := getValue(th, v, key, missing)
			if err != nil {
				return err
			}
			if got != Value(missing) {
				x, found = got, true
			}
		}
		if !found && e.def != nil {
			var err error
			if x, err = e.def.eval(th, fr); err != nil {
				return err
			}
		}
		if err := e.pat.bind(th, fr, x); err != nil {
			return err
		}
	}
	return nil
}

// lookupFlexible gets key from m, falling back from a keyword to the string
// of the same name and back (spec 7.5: data from JSON may have string keys).
func lookupFlexible(m *Map, key Value) (Value, bool) {
	if m == nil {
		return Nil, false
	}
	if v, ok := m.Get(key); ok {
		return v, true
	}
	switch k := key.(type) {
	case Keyword:
		return m.Get(String(k))
	case String:
		return m.Get(Keyword(k))
	}
	return Nil, false
}

// keysDirective reads a map pattern's :keys, :strs or :syms, with or
// without a namespace (:a/keys [b] reads :a/b), as Clojure's destructure
// does: kind is "keys", "strs" or "syms".
func keysDirective(k Value) (kind, ns string, ok bool) {
	kw, isKw := k.(Keyword)
	if !isKw {
		return "", "", false
	}
	name := string(kw)
	if i := strings.LastIndexByte(name, '/'); i > 0 {
		ns, name = name[:i], name[i+1:]
	}
	switch name {
	case "keys", "strs", "syms":
		return name, ns, true
	}
	return "", "", false
}

// directiveKey is the key a name of a :keys, :strs or :syms vector reads:
// the name's own namespace, else the directive's, is kept for keys and
// symbols ({:keys [a/b]} reads :a/b); :strs reads the name as written.
func directiveKey(kind, ns, name string) Value {
	if kind == "strs" {
		return String(name)
	}
	if ns != "" && !strings.Contains(name, "/") {
		name = ns + "/" + name
	}
	if kind == "syms" {
		return symbol(name)
	}
	return Keyword(name)
}
