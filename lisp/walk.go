package lisp

import "errors"

// The walk over values. Printing, source, JSON, hashing, equality,
// ordering, sizing, freezing and the nesting and emit checks all visit a
// value and everything it holds, and they all do it here, by the same
// rules:
//
//   - depth: the walk keeps the values it is inside on a stack of its own,
//     never the Go stack, and stops with errTooDeep at a value nesting
//     deeper than its limit: a program can build a value nested as deep as
//     its allocation budget allows.
//   - levels: a vector, map or set is a level, and so is a function that
//     holds values (a closure with what it captured, a function built by
//     comp or partial with its arguments, a where predicate with its
//     value): they travel with it, in the text it prints as.
//   - sharing: values share structure, so a walk that must see each value
//     once (freezing, the nesting checks, structural hashes) enters each
//     once (visitOnce); the others visit a shared value once per path, as
//     it prints.
//   - cost: a walk for an evaluation charges its thread a step per value
//     it reaches, and so stops at the step budget and the deadline.
//
// A visitor drives the walk with next and switches on the event:
//
//	w := newWalk(th, v, limit) // a value: the walk lives on the caller's stack
//	for ev, v := w.next(); ev != walkDone; ev, v = w.next() {
//		switch ev {
//		case walkValue: // v reached; its parts follow unless w.skip()
//		case walkLeave: // the parts of v have all been visited
//		}
//	}
//	if w.err != nil { ... }
//
// The value comes back from next rather than in a field of the walk: the
// walk is reached through a pointer, and storing a pointer through one
// costs a write barrier while the collector runs, once per value.
type walk struct {
	th    *Thread // charged a step per value reached; nil: not charged
	limit int     // levels that may be entered
	// once asks for each value to be entered once (visitOnce); seen
	// holds the levels of each value entered (0 while its parts are being
	// visited), from the onceAfter-th level the walk reaches on.
	once    bool
	seen    map[Value]int
	reached int // levels reached, for onceAfter
	// measured, when set, leaves the values whose nesting Freeze measured
	// unentered, with their levels in height.
	measured bool
	// withMeta makes a value's metadata its last part (meta.go), for
	// the walks that must reach all a value holds: Freeze, Footprint.
	withMeta bool

	// Where the value just reached or left sits among its parent's parts
	// (index, -1 for the root), how many levels it is inside, and how many
	// levels it nests (for a value not entered, or one left; known in a
	// walk that enters each value once, or for a measured value).
	index  int
	depth  int
	height int

	err   error
	root  Value
	stack []walkLevel
	// The value just reached and its parts, entered on the next call
	// unless skipped (pendingEnter), or those enterWith put instead.
	enterV       Value
	enter        []Value
	entries      []MapEntry
	enterMeta    *Map
	pendingEnter bool
	pending      int64 // steps not yet charged
	started      bool
}

// onceAfter is how many levels a walk that enters each value once
// reaches before it starts to remember them: most values are small
// trees, which need no memory of what was seen; a value that shares
// structure is walked at most this much more than once.
const onceAfter = 256

// walkEvent is what next reports.
type walkEvent uint8

const (
	walkDone  walkEvent = iota // the walk has ended (w.err says if it failed)
	walkValue                  // w.v is reached
	walkLeave                  // the parts of w.v have been visited
)

// walkLevel is a value whose parts are being visited.
type walkLevel struct {
	v       Value
	elems   []Value
	entries []MapEntry // a map's, each visited as its key then its value
	meta    *Map       // its metadata, visited last, in a walk withMeta
	next    int        // the part to visit next: an index in elems, or 2*entry+part
	deepest int        // the most levels a part visited so far nests (once)
}

// part returns part i of the level, false past its last.
func (l *walkLevel) part(i int) (Value, bool) {
	switch {
	case i < len(l.elems):
		return l.elems[i], true
	case i < 2*len(l.entries):
		if e := l.entries[i/2]; i%2 == 0 {
			return e.Key, true
		} else {
			return e.Val, true
		}
	case l.meta != nil && i == len(l.elems)+2*len(l.entries):
		return l.meta, true
	}
	return nil, false
}

// walkBatch is how many steps a walk gathers before it charges them.
const walkBatch = 256

// errTooDeep stops a walk at a value nesting deeper than its limit; the
// caller turns it into the error its context calls for.
var errTooDeep = errors.New("a value nests deeper than the walk allows")

// newWalk starts a walk over v that enters at most limit levels.
func newWalk(th *Thread, v Value, limit int) walk {
	return walk{th: th, limit: limit, root: v, index: -1}
}

// visitOnce makes the walk enter each collection or holder once however
// many paths reach it: a later path reaches it as a value (walkValue)
// whose parts do not follow, with its levels in w.height.
func (w *walk) visitOnce() { w.once = true }

// parent is the value whose parts are being visited, nil at the root.
func (w *walk) parent() Value {
	if len(w.stack) == 0 {
		return nil
	}
	return w.stack[len(w.stack)-1].v
}

// parts returns the values v holds, and whether v is a level: every
// collection (an empty one too) and a function holding values. Code forms
// (lists, map and set literals) have parts too, for printing a function's
// source. Each kind says so itself (walkParts, kinds.go); the commonest
// are answered here without a call through the interface.
func parts(v Value) (elems []Value, entries []MapEntry, isLevel bool) {
	switch c := v.(type) {
	case *Vector:
		return c.elems, nil, true
	case *Map:
		return nil, c.entries, true
	case *Set:
		return c.elems, nil, true
	case String, Int, Keyword, Float, Bool, NilType:
		return nil, nil, false
	}
	return kindOf(v).walkParts()
}

// entered reports whether the parts of the value just reached will be
// visited (it is a level, not seen before, not skipped).
func (w *walk) entered() bool { return w.pendingEnter }

// skip keeps the parts of the value just reached from being visited; its
// walkLeave does not come either.
func (w *walk) skip() {
	w.enterV, w.enter, w.entries, w.enterMeta, w.pendingEnter = nil, nil, nil, nil, false
	w.height = 0
}

// enterWith visits parts in place of the natural parts of the value just
// reached (a set in the order it prints in, a map's keys and values in
// the order of a canonical key).
func (w *walk) enterWith(parts []Value) { w.enter, w.entries = parts, nil }

// enterEntries visits a map's entries in the order given (a hash map's
// in Clojure's order) in place of its natural ones.
func (w *walk) enterEntries(entries []MapEntry) { w.enter, w.entries = nil, entries }

// next advances the walk and reports what it reached, and the value.
func (w *walk) next() (walkEvent, Value) {
	if w.err != nil {
		return walkDone, nil
	}
	if !w.started {
		w.started = true
		return w.reach(w.root, -1)
	}
	if w.pendingEnter {
		w.pendingEnter = false
		if len(w.stack) >= w.limit {
			w.err = errTooDeep
			return walkDone, nil
		}
		if w.stack == nil {
			w.stack = make([]walkLevel, 0, 2) // most values walked are keys and small results, two levels deep
		}
		w.stack = append(w.stack, walkLevel{v: w.enterV, elems: w.enter, entries: w.entries, meta: w.enterMeta})
		w.enterV, w.enter, w.entries, w.enterMeta = nil, nil, nil, nil
	} else {
		w.addHeight(w.height) // of the value reached last, not entered
	}
	if len(w.stack) == 0 {
		w.flush()
		return walkDone, nil
	}
	top := &w.stack[len(w.stack)-1]
	i := top.next
	x, ok := top.part(i)
	if !ok {
		left := top.v
		w.depth, w.height = len(w.stack)-1, top.deepest+1
		w.stack = w.stack[:len(w.stack)-1]
		if n := len(w.stack); n > 0 {
			w.index = w.stack[n-1].next - 1
		} else {
			w.index = -1
		}
		if w.seen != nil {
			w.seen[left] = w.height
		}
		return walkLeave, left
	}
	top.next++
	switch x.(type) {
	case String, Int, Keyword, Float, Bool, NilType: // most of what a walk reaches
		if w.th == nil {
			w.index, w.depth, w.height = i, len(w.stack), 0
			return walkValue, x
		}
	}
	return w.reach(x, i)
}

// nextScalar is next for a visitor that takes the scalars of a level in
// bulk: when the next value is a string, number, keyword, boolean or nil,
// it returns it and advances, with w.index set, and no event; otherwise
// it returns false, and next comes next. The scalars are charged as next
// charges them.
func (w *walk) nextScalar() (Value, bool) {
	if w.err != nil || w.pendingEnter || len(w.stack) == 0 {
		return nil, false
	}
	top := &w.stack[len(w.stack)-1]
	i := top.next
	x, ok := top.part(i)
	if !ok || !isPlainScalar(x) {
		return nil, false
	}
	if w.th != nil {
		if w.pending++; w.pending >= walkBatch {
			w.flush()
			if w.err != nil {
				return nil, false
			}
		}
	}
	top.next++
	w.index, w.depth, w.height = i, len(w.stack), 0
	return x, true
}

// takeScalars is nextScalar for a run: it takes, in one step, the
// strings, numbers, keywords, booleans and nils that come next in the
// innermost level (its elements, or its map entries as keys and values,
// parts from to to, at most most of them), and advances past them.
func (w *walk) takeScalars(most int) (elems []Value, entries []MapEntry, from, to int) {
	if w.err != nil || w.pendingEnter || len(w.stack) == 0 {
		return nil, nil, 0, 0
	}
	top := &w.stack[len(w.stack)-1]
	from, to = top.next, top.next
	for x, ok := top.part(to); ok && to-from < most && isPlainScalar(x); x, ok = top.part(to) {
		to++
	}
	if to == from {
		return nil, nil, 0, 0
	}
	if w.th != nil {
		if w.pending += int64(to - from); w.pending >= walkBatch {
			w.flush()
		}
	}
	top.next = to
	w.index, w.depth, w.height = to-1, len(w.stack), 0
	return top.elems, top.entries, from, to
}

// reach readies the parts of x, reached at index of its parent, to be
// entered.
func (w *walk) reach(x Value, index int) (walkEvent, Value) {
	w.index, w.depth, w.height = index, len(w.stack), 0
	if w.th != nil {
		if w.pending++; w.pending >= walkBatch {
			w.flush()
			if w.err != nil {
				return walkDone, nil
			}
		}
	}
	elems, entries, isLevel := parts(x)
	var meta *Map
	if w.withMeta {
		if meta = metaOf(x); meta != nil {
			isLevel = true
		}
	}
	if !isLevel {
		return walkValue, x
	}
	if w.measured && meta == nil {
		if n, ok := nestsMeasured(x); ok {
			w.height = n
			return walkValue, x
		}
	}
	if w.once {
		if w.seen == nil {
			if w.reached++; w.reached >= onceAfter {
				w.seen = map[Value]int{}
			}
		} else if h, ok := w.seen[x]; ok {
			w.height = h
			return walkValue, x
		} else {
			w.seen[x] = 0
		}
	}
	w.enterV, w.enter, w.entries, w.enterMeta, w.pendingEnter = x, elems, entries, meta, true
	return walkValue, x
}

// addHeight counts levels nesting below the innermost value being
// entered (a value that shares structure is measured once it is
// remembered, and walked again before).
func (w *walk) addHeight(levels int) {
	if n := len(w.stack); n > 0 && levels > w.stack[n-1].deepest {
		w.stack[n-1].deepest = levels
	}
}

// flush charges the steps gathered so far.
// ended charges the steps a walk gathered when its visitor stops, at its
// end or before, and returns err, or the walk's error when err is nil.
func (w *walk) ended(err error) error {
	w.flush()
	if err == nil {
		return w.err
	}
	return err
}

func (w *walk) flush() {
	if w.th != nil && w.pending > 0 {
		if err := w.th.step(w.pending); err != nil && w.err == nil {
			w.err = err
		}
		w.pending = 0
	}
}
