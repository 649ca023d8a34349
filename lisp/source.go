package lisp

// unstorable reports whether v itself (not what it holds, which the walk
// in definable looks at) cannot be written as source and read back: a
// builtin value that is not a registered builtin. Functions built by combinators (comp, partial, ...) print as
// the call that made them, so they are storable when their arguments are.
func unstorable(v Value) bool {
	switch v := v.(type) {
	case NilType, Bool, Int, Float, Float32, String, Keyword, symbol, javaClass, *varRef, *regex, *toolFunc, *BigInt, *BigDec,
		*Vector, *Map, *Set, holder: // what these hold is looked at on its own
		return false
	case *Builtin:
		registered, ok := lookupFunction(v.Name)
		if !ok {
			registered, ok = builtins.inNS[v.Name]
		}
		return !ok || registered != v
	}
	return true
}
