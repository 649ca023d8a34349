package lisp

// nestsDeeper reports whether v nests collections more than limit levels
// deep ([] is one level, [[]] two). The wire reads values back with the
// same bound as source text, so a value deeper than that could leave the
// sandbox as a result, a definition or tool arguments, but never come back
// in the next request: the agent would be stuck. Values a function holds
// travel with it, inside the let or the call its source is, so a function
// that holds values is a level too (holder).
func nestsDeeper(v Value, limit int) bool {
	_, deep, _ := walkNesting(nil, v, limit, false)
	return deep
}

// nestsMeasured returns the levels v nests when Freeze measured them: a
// frozen vector or map that holds only collections and plain scalars,
// which is also always storable. The count is 0 otherwise, since
// a collection nests at least one level.
func nestsMeasured(v Value) (levels int, ok bool) {
	switch c := v.(type) {
	case *Vector:
		n := int(c.weight >> nestsShift)
		return n, n > 0
	case *Map:
		n := int(c.weight >> nestsShift)
		return n, n > 0
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
// part that unstorable refuses, and deep is nestsDeeper(v, limit). When v
// holds something unstorable the definition fails, so deep is then left
// false. The walk is charged to th: a program may define a large value
// again and again.
func definable(th *Thread, v Value, limit int) (bad Value, isBad, deep bool, err error) {
	bad, deep, err = walkNesting(th, v, limit, true)
	return bad, bad != nil, deep && bad == nil, err
}

// walkNesting walks v for nestsDeeper and definable: whether it nests
// deeper than limit, and when findBad is set its first unstorable part.
// Shared values are walked once, so the walk is linear in the value
// however it shares. Looking for unstorable parts goes on below the limit
// down to MaxValueNesting levels more, where it stops (errTooDeep): a
// value that deep fails at the end of the turn anyway.
func walkNesting(th *Thread, v Value, limit int, findBad bool) (bad Value, deep bool, err error) {
	if n, ok := nestsMeasured(v); ok {
		return nil, n > limit, nil
	}
	most := limit
	if findBad {
		most = limit + MaxValueNesting
	}
	w := newWalk(th, v, most)
	sp := takeWalkStack()
	w.stack = *sp
	defer func() { putWalkStack(sp, w.stack) }()
	w.visitOnce()
	w.measured = true // frozen plain data: storable, its nesting measured
	// What a definition keeps includes its values' metadata: an atom
	// there would be shared with the evaluations of later turns.
	w.withMeta = findBad
	for ev, at := w.next(); ev != walkDone; ev, at = w.next() {
		if ev == walkLeave {
			continue
		}
		levels := w.height // of a value seen before, or measured
		if w.entered() {
			levels = 1
			if height, n, ok := flatLevel(w.enter, w.entries); ok && w.enterMeta == nil {
				// Its parts are plain scalars and measured values:
				// storable, their levels known. They need no visit of
				// their own, but are charged as if visited.
				w.skip()
				levels = height
				w.height, w.pending = height, w.pending+int64(n)
				if w.seen != nil {
					w.seen[at] = height
				}
			}
		}
		deep = deep || w.depth+levels > limit
		if deep && !findBad {
			return nil, true, nil
		}
		if findBad && !w.entered() && unstorable(at) {
			return at, deep, nil
		}
	}
	if w.err != nil && w.err != errTooDeep {
		return nil, false, w.err
	}
	return nil, deep || w.err == errTooDeep, nil
}

// flatLevel reports whether the parts of a collection (elems, or entries'
// keys and values) are all strings, numbers, keywords, booleans, nils or
// values whose nesting Freeze measured, with the levels the collection
// then nests and how many parts it has: most of what a defined value
// holds is records, and collections of the data's records.
func flatLevel(elems []Value, entries []MapEntry) (height, n int, ok bool) {
	deepest := 0
	part := func(v Value) bool {
		if isPlainScalar(v) {
			return true
		}
		levels, measured := nestsMeasured(v)
		deepest = max(deepest, levels)
		return measured
	}
	for _, e := range elems {
		if !part(e) {
			return 0, 0, false
		}
	}
	for _, e := range entries {
		if !part(e.Key) || !part(e.Val) {
			return 0, 0, false
		}
	}
	return deepest + 1, len(elems) + 2*len(entries), true
}
