package lisp

// nestsDeeper reports whether v nests collections more than limit levels
// deep ([] is one level, [[]] two). The wire reads values back with the
// same bound as source text, so a value deeper than that could leave the
// sandbox as a result, a definition or tool arguments, but never come back
// in the next request: the agent would be stuck. Values a function holds
// travel with it, inside the let or the call its source is, so a function
// that holds values is a level too (holder).
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
	case holder:
		if elems = c.heldValues(); len(elems) == 0 {
			return false
		}
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
		return min(env.MaxNesting, MaxValueNesting)
	}
	return DefaultMaxNesting
}

// MaxValueNesting is the deepest any value may nest: the ceiling of
// Env.MaxNesting, and the most levels the builtins that walk a whole value
// (printing, comparing, hashing) accept. Those walks recurse once per
// level, and a program can build a value nested far deeper than the Go
// stack should grow for one evaluation (the default allocation budget
// alone allows about 160,000 levels). It is ten times DefaultMaxNesting,
// so by default it only stops values that could never leave the program.
const MaxValueNesting = 10 * DefaultMaxNesting

// walkTooDeepError is the failure of a builtin given a value nesting
// deeper than MaxValueNesting.
func walkTooDeepError() *Error {
	return Errorf(depthLimit, "a value nests collections more than %d levels deep, too deep to print, compare or hash", MaxValueNesting).
		WithHint("build flatter data: nest maps and vectors a few levels, not one level per item")
}

// tooDeepError is the failure of a value that nests deeper than limit.
func tooDeepError(what string, limit int) *Error {
	return Errorf(depthLimit, "%s nests collections more than %d levels deep", what, limit).
		WithHint("values leaving the program must nest at most %d levels; flatten the data or return a summary", limit)
}

// definable is the one walk over a value being defined: bad is its first
// part that unstorable refuses, and deep is nestsDeeper(v, limit). When v holds
// something unstorable the definition fails, so deep is left false.
func definable(v Value, limit int) (bad Value, isBad, deep bool) {
	w := definableWalk{}
	if !w.walk(v, limit) {
		return w.bad, true, false
	}
	return nil, false, w.deep
}

// definableWalk tracks the depth only until it finds v too deep; from
// then on it only looks for unstorable parts, down to MaxValueNesting
// levels below the limit: it recurses once per level, and a value that
// deep fails at the end of the turn anyway (checkNesting).
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
	switch v.(type) {
	case Int, String, Keyword, NilType, Bool, Float:
		return true
	case *Vector, *Set, *Map, holder:
		if limit < -MaxValueNesting {
			return true
		}
	}
	switch c := v.(type) {
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
	case holder:
		if len(c.heldValues()) == 0 {
			return true
		}
		return w.walkSeq(c.heldValues(), limit)
	}
	// Other scalars and builtins: unstorable looks at them.
	if unstorable(v) {
		w.bad = v
		return false
	}
	return true
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
