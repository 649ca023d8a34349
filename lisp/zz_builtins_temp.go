package lisp

// Temporary stand-ins for the builtin table, for testing the evaluator
// before the real builtins are merged. This file is deleted on merge.

import "sort"

var tempBuiltins = map[string]*Builtin{}

func init() {
	num := func(v Value) int64 { i, _ := v.(Int); return int64(i) }
	add := func(name string, min, max int, cat string, fn func(th *Thread, args []Value) (Value, error)) {
		tempBuiltins[name] = &Builtin{Name: name, Sig: "(" + name + " ...)", Category: cat, MinArgs: min, MaxArgs: max, Fn: fn}
	}
	add("+", 0, -1, "math", func(th *Thread, a []Value) (Value, error) {
		var s int64
		for _, x := range a {
			if _, ok := x.(Int); !ok {
				return nil, TypeErrorf("+", "numbers", x)
			}
			s += num(x)
		}
		return Int(s), nil
	})
	add("-", 1, -1, "math", func(th *Thread, a []Value) (Value, error) {
		if len(a) == 1 {
			return Int(-num(a[0])), nil
		}
		s := num(a[0])
		for _, x := range a[1:] {
			s -= num(x)
		}
		return Int(s), nil
	})
	add("*", 0, -1, "math", func(th *Thread, a []Value) (Value, error) {
		s := int64(1)
		for _, x := range a {
			s *= num(x)
		}
		return Int(s), nil
	})
	add("<", 2, 2, "compare", func(th *Thread, a []Value) (Value, error) { return Bool(num(a[0]) < num(a[1])), nil })
	add("=", 1, -1, "compare", func(th *Thread, a []Value) (Value, error) { return Bool(Equal(a[0], a[len(a)-1])), nil })
	add("inc", 1, 1, "math", func(th *Thread, a []Value) (Value, error) { return Int(num(a[0]) + 1), nil })
	add("first", 1, 1, "collection", func(th *Thread, a []Value) (Value, error) {
		if v, ok := a[0].(*Vector); ok && v.Len() > 0 {
			return v.Index(0), nil
		}
		return Nil, nil
	})
	add("count", 1, 1, "collection", func(th *Thread, a []Value) (Value, error) {
		switch v := a[0].(type) {
		case *Vector:
			return Int(v.Len()), nil
		case String:
			return Int(len(v)), nil
		}
		return Int(0), nil
	})
	add("str", 0, -1, "string", func(th *Thread, a []Value) (Value, error) {
		s := ""
		for _, x := range a {
			s += Str(x)
		}
		if err := th.AllocString(len(s)); err != nil {
			return nil, err
		}
		return String(s), nil
	})
	add("join", 1, 2, "string", func(th *Thread, a []Value) (Value, error) { return String(""), nil })
	add("conj", 1, -1, "collection", func(th *Thread, a []Value) (Value, error) {
		v, _ := a[0].(*Vector)
		if v == nil {
			v = EmptyVector
		}
		for _, x := range a[1:] {
			v = v.Conj(x)
		}
		if err := th.AllocVector(v.Len()); err != nil {
			return nil, err
		}
		return v, nil
	})
	add("map", 2, 2, "collection", func(th *Thread, a []Value) (Value, error) {
		v, _ := a[1].(*Vector)
		var out []Value
		if v != nil {
			for _, x := range v.Elems() {
				r, err := th.Call(a[0], []Value{x})
				if err != nil {
					return nil, err
				}
				out = append(out, r)
			}
		}
		return NewVector(out), nil
	})
	add("filter", 2, 2, "collection", func(th *Thread, a []Value) (Value, error) {
		v, _ := a[1].(*Vector)
		var out []Value
		if v != nil {
			for _, x := range v.Elems() {
				r, err := th.Call(a[0], []Value{x})
				if err != nil {
					return nil, err
				}
				if Truthy(r) {
					out = append(out, x)
				}
			}
		}
		return NewVector(out), nil
	})
}

func LookupBuiltin(name string) (*Builtin, bool) { b, ok := tempBuiltins[name]; return b, ok }

func Builtins() []*Builtin {
	var out []*Builtin
	for _, b := range tempBuiltins {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
