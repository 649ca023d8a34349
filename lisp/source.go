package lisp

// appendSource appends v as source that evaluates back to it. Data prints
// as EDN; closures print as their fn form; builtins as their name; symbols
// are quoted so that they stay data; regexes and keywords that :name cannot
// spell print as the call that makes them.
func appendSource(buf []byte, v Value) []byte { return appendSourceAs(buf, v, true) }

// appendData appends v, which needsSource says EDN can spell, as EDN: as
// appendSource does, except that a list is written (1 2) rather than the
// call (list 1 2) that makes it in code.
func appendData(buf []byte, v Value) []byte { return appendSourceAs(buf, v, false) }

// appendSourceAs is appendSource when code is set, appendData otherwise.
func appendSourceAs(buf []byte, v Value, code bool) []byte {
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
		switch {
		case !v.list:
			return appendSourceSeq(buf, "[", "]", v.Elems(), code)
		case !code:
			return appendSourceSeq(buf, "(", ")", v.Elems(), code)
		case len(v.elems) == 0:
			return append(buf, "(list)"...)
		}
		// In code a parenthesized form is a call: (list ...) builds it.
		return appendSourceSeq(buf, "(list ", ")", v.Elems(), code)
	case *Set:
		return appendSourceSeq(buf, "#{", "}", sortedByText(v.Elems()), code)
	case *Map:
		// The memo holds the map's EDN text: in code, a list inside it
		// is written differently.
		var memo *string
		if !code {
			memo = v.source.Load()
		}
		if memo != nil && memo != &unprinted {
			return append(buf, *memo...)
		}
		start := len(buf)
		buf = append(buf, '{')
		for i, e := range v.Entries() {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = appendSourceAs(buf, e.Key, code)
			buf = append(buf, ' ')
			buf = appendSourceAs(buf, e.Val, code)
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

func appendSourceSeq(buf []byte, open, close string, elems []Value, code bool) []byte {
	buf = append(buf, open...)
	for i, e := range elems {
		if i > 0 {
			buf = append(buf, ' ')
		}
		buf = appendSourceAs(buf, e, code)
	}
	return append(buf, close...)
}
