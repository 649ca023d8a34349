package lisp

import "strings"

// writeSource writes v as source that evaluates back to it. Data prints as
// EDN; closures print as their fn form; builtins as their name; symbols are
// quoted so that they stay data.
func writeSource(b *strings.Builder, v Value) {
	switch v := v.(type) {
	case *Closure:
		writeClosureSource(b, v)
	case *Builtin:
		b.WriteString(v.Name)
	case Symbol:
		b.WriteString("(quote " + string(v) + ")")
	case *Vector:
		writeSourceSeq(b, "[", "]", v.Elems())
	case *Set:
		writeSourceSeq(b, "#{", "}", SortedByText(v.Elems()))
	case *Map:
		b.WriteByte('{')
		for i, e := range v.Entries() {
			if i > 0 {
				b.WriteString(", ")
			}
			writeSource(b, e.Key)
			b.WriteByte(' ')
			writeSource(b, e.Val)
		}
		b.WriteByte('}')
	default:
		WriteRepr(b, v)
	}
}

// unstorable returns the part of v that cannot be written as source and
// read back, if any: a builtin value that is not a registered builtin.
// Functions built by combinators (comp, partial, ...) print as the call
// that made them, so they are storable when their arguments are.
func unstorable(v Value) (Value, bool) {
	switch v := v.(type) {
	case NilType, Bool, Int, Float, String, Keyword, Symbol, *Var, *Regex, *ToolFunc:
		return nil, false
	case *Builtin:
		if registered, ok := lookupFunction(v.Name); ok && registered == v {
			return nil, false
		}
		return v, true
	case *Closure:
		return unstorableIn(v.free)
	case *predicateCombinator:
		return unstorableIn(v.preds)
	case *combined:
		return unstorableIn(v.args)
	case *wherePredicate:
		return unstorable(v.value)
	case *Vector:
		return unstorableIn(v.Elems())
	case *Set:
		return unstorableIn(v.Elems())
	case *Map:
		for _, e := range v.Entries() {
			if bad, ok := unstorable(e.Key); ok {
				return bad, true
			}
			if bad, ok := unstorable(e.Val); ok {
				return bad, true
			}
		}
		return nil, false
	}
	return v, true
}

func unstorableIn(vs []Value) (Value, bool) {
	for _, e := range vs {
		if bad, ok := unstorable(e); ok {
			return bad, true
		}
	}
	return nil, false
}

func writeSourceSeq(b *strings.Builder, open, close string, elems []Value) {
	b.WriteString(open)
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(' ')
		}
		writeSource(b, e)
	}
	b.WriteString(close)
}

// writeClosureSource prints a closure as its fn form; when it captured
// locals, the form is wrapped in a let that binds them to their values, so
// the text is self-contained: (let [k 3] (fn [x] (* k x))).
func writeClosureSource(b *strings.Builder, c *Closure) {
	if len(c.free) == 0 {
		WriteRepr(b, c.lam.form)
		return
	}
	b.WriteString("(let [")
	for i, name := range c.lam.freeNames {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(name)
		b.WriteByte(' ')
		writeSource(b, c.free[i])
	}
	b.WriteString("] ")
	WriteRepr(b, c.lam.form)
	b.WriteByte(')')
}
