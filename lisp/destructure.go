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
}

func (p *seqPattern) bind(th *Thread, fr *frame, v Value) error {
	elems, err := elemsForIteration(th, "destructuring", v)
	if err != nil {
		return Errorf(typeError, "cannot destructure %s with a [...] pattern", v.TypeName()).
			WithHint("sequential destructuring takes a vector, string, set, map or nil")
	}
	for i, item := range p.items {
		var x Value = Nil
		if i < len(elems) {
			x = elems[i]
		}
		if err := item.bind(th, fr, x); err != nil {
			return err
		}
	}
	if p.rest != nil {
		var restVal Value = Nil
		if len(elems) > len(p.items) {
			extra := elems[len(p.items):]
			if p.restAsMap {
				if err := th.allocMap(len(extra) / 2); err != nil {
					return err
				}
				for i := 0; i+1 < len(extra); i += 2 {
					if err := chargeKey(th, extra[i]); err != nil {
						return err
					}
				}
				b := NewMapBuilder(len(extra) / 2)
				for i := 0; i+1 < len(extra); i += 2 {
					b.Set(extra[i], extra[i+1])
				}
				restVal = b.Map()
			} else {
				if err := th.allocVector(len(extra)); err != nil {
					return err
				}
				restVal = NewVector(append([]Value(nil), extra...))
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

type mapPatternEntry struct {
	key Value
	pat pattern
	def node // :or default, nil if none
}

type mapPattern struct {
	entries []mapPatternEntry
	as      int
}

func (p *mapPattern) bind(th *Thread, fr *frame, v Value) error {
	m, _ := v.(*Map)
	if p.as >= 0 {
		fr.slots[p.as] = v
	}
	for _, e := range p.entries {
		x, found := lookupFlexible(m, e.key)
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
