package lisp

// nestsDeeper reports whether v nests collections more than limit levels
// deep ([] is one level, [[]] two). The wire reads values back with the
// same bound as source text, so a value deeper than that could leave the
// sandbox as a result, a definition or tool arguments, but never come back
// in the next request: the agent would be stuck. Values a function captured
// travel with it, so they count too.
func nestsDeeper(v Value, limit int) bool {
	if levels, ok := nestsMeasured(v); ok {
		return levels > limit
	}
	var elems []Value
	switch c := v.(type) {
	case *Vector:
		elems = c.Elems()
	case *Set:
		elems = c.Elems()
	case *Map:
		if limit == 0 {
			return true
		}
		for _, e := range c.Entries() {
			if nestsDeeper(e.Key, limit-1) || nestsDeeper(e.Val, limit-1) {
				return true
			}
		}
		return false
	case *closure:
		for _, f := range c.free {
			if nestsDeeper(f, limit) {
				return true
			}
		}
		return false
	default:
		return false
	}
	if limit == 0 {
		return true
	}
	for _, e := range elems {
		if nestsDeeper(e, limit-1) {
			return true
		}
	}
	return false
}

// nestsMeasured returns the levels v nests when Freeze measured them: a
// frozen vector or map that holds only collections and plain scalars,
// which is also always storable. Its nests field is 0 otherwise, since
// a collection nests at least one level.
func nestsMeasured(v Value) (levels int, ok bool) {
	switch c := v.(type) {
	case *Vector:
		return int(c.nests), c.nests > 0
	case *Map:
		return int(c.nests), c.nests > 0
	}
	return 0, false
}

// valueNesting is the deepest nesting a program's values may leave with.
func (env Env) valueNesting() int {
	if env.MaxNesting > 0 {
		return env.MaxNesting
	}
	return DefaultMaxNesting
}

// tooDeepError is the failure of a value that nests deeper than limit.
func tooDeepError(what string, limit int) *Error {
	return Errorf(depthLimit, "%s nests collections more than %d levels deep", what, limit).
		WithHint("values leaving the program must nest at most %d levels; flatten the data or return a summary", limit)
}

// definable is the one walk over a value being defined: bad is what
// unstorable(v) finds, and deep is nestsDeeper(v, limit). When v holds
// something unstorable the definition fails, so deep is left false.
func definable(v Value, limit int) (bad Value, isBad, deep bool) {
	w := definableWalk{}
	if !w.walk(v, limit) {
		return w.bad, true, false
	}
	return nil, false, w.deep
}

// definableWalk tracks the depth only until it finds v too deep; from
// then on it only looks for unstorable parts.
type definableWalk struct {
	bad  Value
	deep bool
}

// walk reports false when it found an unstorable part.
func (w *definableWalk) walk(v Value, limit int) bool {
	if levels, ok := nestsMeasured(v); ok {
		w.deep = w.deep || levels > limit
		return true
	}
	switch c := v.(type) {
	case Int, String, Keyword, NilType, Bool, Float:
		return true
	case *Vector:
		return w.walkSeq(c.Elems(), limit)
	case *Set:
		return w.walkSeq(c.Elems(), limit)
	case *Map:
		if limit == 0 {
			w.deep = true
		}
		for _, e := range c.Entries() {
			if !w.walk(e.Key, limit-1) || !w.walk(e.Val, limit-1) {
				return false
			}
		}
		return true
	case *closure:
		for _, f := range c.free {
			if !w.walk(f, limit) {
				return false
			}
		}
		return true
	}
	// Other scalars and functions built by combinators: nestsDeeper stops
	// here, unstorable may look inside.
	bad, isBad := unstorable(v)
	w.bad = bad
	return !isBad
}

func (w *definableWalk) walkSeq(elems []Value, limit int) bool {
	if limit == 0 {
		w.deep = true
	}
	for _, e := range elems {
		if !w.walk(e, limit-1) {
			return false
		}
	}
	return true
}
