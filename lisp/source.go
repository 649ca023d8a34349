package lisp

// appendSource appends v as source that evaluates back to it. Data prints
// as EDN; closures print as their fn form; builtins as their name; symbols
// are quoted so that they stay data; regexes and keywords that :name cannot
// spell print as the call that makes them.
func appendSource(buf []byte, v Value) []byte {
	switch v := v.(type) {
	case *Builtin:
		return append(buf, v.Name...)
	case symbol:
		return append(append(append(buf, "(quote "...), v...), ')')
	case Keyword:
		return appendKeywordSource(buf, string(v))
	case *regex:
		return appendRegexSource(buf, v)
	case *Vector:
		return appendSourceSeq(buf, "[", "]", v.Elems())
	case *Set:
		return appendSourceSeq(buf, "#{", "}", sortedByText(v.Elems()))
	case *Map:
		memo := v.source.Load()
		if memo != nil && memo != &unprinted {
			return append(buf, *memo...)
		}
		start := len(buf)
		buf = append(buf, '{')
		for i, e := range v.Entries() {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = appendSource(buf, e.Key)
			buf = append(buf, ' ')
			buf = appendSource(buf, e.Val)
		}
		buf = append(buf, '}')
		if memo == &unprinted {
			text := string(buf[start:])
			v.source.Store(&text)
		}
		return buf
	}
	return appendRepr(buf, v)
}

// unprinted marks a frozen map whose source has not been printed yet.
//
// A frozen map is data an agent sent (memory, data, tool results), kept in
// the server's memo and shared by every call that resends it; a program
// that defines part of it, say the paid orders of its data, has those
// maps printed back to EDN on every call that returns the memory, a large
// part of the benchmark EvalTurn's handler. A frozen map never changes, so
// its text is printed once and then copied (what that saves is in
// docs/BENCHMARKS.md, "Measurements behind design choices"). The memo
// counts the text
// of a value holding maps twice, once for these copies.
var unprinted string

// unstorable reports whether v, a value that holds no other (not a
// collection or a holder, which definable walks itself), cannot be written
// as source and read back: a builtin value that is not a registered
// builtin. Functions built by combinators (comp, partial, ...) print as
// the call that made them, so they are storable when their arguments are.
func unstorable(v Value) bool {
	switch v := v.(type) {
	case NilType, Bool, Int, Float, String, Keyword, symbol, *varRef, *regex, *toolFunc:
		return false
	case *Builtin:
		registered, ok := lookupFunction(v.Name)
		return !ok || registered != v
	}
	return true
}

func appendSourceSeq(buf []byte, open, close string, elems []Value) []byte {
	buf = append(buf, open...)
	for i, e := range elems {
		if i > 0 {
			buf = append(buf, ' ')
		}
		buf = appendSource(buf, e)
	}
	return append(buf, close...)
}
