package lisp

// nestsDeeper reports whether v nests collections more than limit levels
// deep ([] is one level, [[]] two). The wire reads values back with the
// same bound as source text, so a value deeper than that could leave the
// sandbox as a result, a definition or tool arguments, but never come back
// in the next request: the agent would be stuck. Values a function captured
// travel with it, so they count too.
func nestsDeeper(v Value, limit int) bool {
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
	case *Closure:
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

// valueNesting is the deepest nesting a program's values may leave with.
func (env Env) valueNesting() int {
	if env.MaxNesting > 0 {
		return env.MaxNesting
	}
	return DefaultMaxNesting
}

// tooDeepError is the failure of a value that nests deeper than limit.
func tooDeepError(what string, limit int) *Error {
	return Errorf(DepthLimit, "%s nests collections more than %d levels deep", what, limit).
		WithHint("values leaving the program must nest at most %d levels; flatten the data or return a summary", limit)
}
