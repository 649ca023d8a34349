package lisp

import (
	"fmt"
	"math"
	"unicode/utf8"
)

// What builtins do with their arguments: take the elements of a
// collection (seqOf), read a count or an index (toInt), call a function
// argument back (call), and describe an argument in an error (describe).

// arity bounds used in the tables.
const variadic = -1

// seqMode says which values a sequence function accepts besides vectors,
// strings, maps and nil.
type seqMode int

const (
	// anySeq accepts sets too (iterated in Clojure's hash set order).
	anySeq seqMode = iota
	// orderedSeq is for positional access (first, nth, last, reverse):
	// a set is read in Clojure's hash set order, as anySeq reads it, but
	// only when it holds scalars, which iterate in Clojure's order; a
	// collection (kept in its text's order), a function, atom, exception,
	// regex, class or var (hashed by identity in Clojure, approximated here)
	// would make the answer one Clojure need not give, so such a set is
	// refused. A sorted set has an order.
	orderedSeq
)

// seqOf returns the elements of a seqable value: a vector's elements, a set's
// elements, a map's entries as [key value] vectors, a string's characters as
// one-character strings, nothing for nil. The slice must not be modified.
// Building entries or characters is charged to the thread.
func seqOf(th *Thread, fn string, v Value, mode seqMode) ([]Value, error) {
	switch v := v.(type) {
	case *Vector:
		return v.elems, nil
	case NilType:
		return nil, nil
	case *Set:
		if mode == orderedSeq && orderOf(v) == nil {
			if err := th.step(int64(len(v.elems))); err != nil {
				return nil, err
			}
			for _, x := range v.elems {
				if !hashedAsClojure(x) {
					return nil, javaErrorf(typeError, noJavaClass, "%s is not supported on a set holding %s: only a set of numbers, strings, keywords, symbols, booleans and nil has Clojure's order here", fn, describe(x)).
						WithHint("sort the set first, e.g. (%s (sort-by str s))", fn)
				}
			}
		}
		return v.seqElems(th)
	case *Map:
		return mapEntries(th, v)
	case String:
		return stringChars(th, string(v))
	case *infiniteSeq:
		if v.ends() {
			whole, err := v.realizeAll(th)
			if err != nil {
				return nil, err
			}
			return whole.elems, nil
		}
		return nil, infiniteError(fn, v)
	}
	e := typeErrorf(fn, "a collection (vector, map, set, string or nil)", v)
	if _, ok := v.(*transient); ok {
		// As in Clojure, which has no seq of a transient.
		return nil, e.WithHint("only count, get, nth, contains? and find read a transient: call (persistent! t) first")
	}
	switch v.(type) {
	case Int, Float, Keyword, Bool:
		// What Clojure's seq throws for a value that is no collection
		// (a function's Java class name is not reproducible here).
		e.asJava("IllegalArgumentException", "Don't know how to create ISeq from: "+javaValueClass(v))
	}
	if _, ok := v.(Callable); ok {
		e.WithHint("the collection is the last argument: (%s f coll); to thread a collection into it use ->>, not ->", fn)
	}
	return nil, e
}

// hashedAsClojure reports whether a hash set holding v iterates in
// Clojure's order: a scalar's hash is Clojure's (see hasheq), and a set
// holding a collection keeps its text's order (docs/LANGUAGE.md).
func hashedAsClojure(v Value) bool {
	switch v.(type) {
	case NilType, Bool, Int, *BigInt, *BigDec, Float, Float32, String, Keyword, symbol:
		return true
	}
	return false
}

// mapEntries returns m's entries as [key value] vectors.
func mapEntries(th *Thread, m *Map) ([]Value, error) {
	n := m.Len()
	entries, err := m.seqEntries(th)
	if err != nil {
		return nil, err
	}
	if err := th.allocVector(n); err != nil {
		return nil, err
	}
	if err := th.alloc(int64(n) * vectorHeap.shape(2, false)); err != nil {
		return nil, err
	}
	out := make([]Value, n)
	// The n pairs and their vectors are allocated together, three
	// allocations instead of three per entry. Each pair is a full slice
	// expression, so conj on one copies rather than writing into the next.
	pairs := make([]Value, 2*n)
	vecs := make([]vectorWithTail, n)
	for i, e := range entries {
		pairs[2*i], pairs[2*i+1] = e.Key, e.Val
		vt := &vecs[i]
		vt.v = Vector{elems: pairs[2*i : 2*i+2 : 2*i+2], weight: addWeight(addWeight(1, weightOf(e.Key)), weightOf(e.Val))}
		vt.t.used = 2
		vt.v.form = entryForm
		vt.v.tail = &vt.t
		out[i] = &vt.v
	}
	return out, nil
}

// stringChars splits s into one-character strings (code points).
func stringChars(th *Thread, s string) ([]Value, error) {
	n := utf8.RuneCountInString(s)
	if err := th.allocVector(n); err != nil {
		return nil, err
	}
	if err := th.alloc(int64(n)*heapString + int64(len(s))); err != nil {
		return nil, err
	}
	out := make([]Value, 0, n)
	for _, r := range s {
		out = append(out, String(string(r)))
	}
	return out, nil
}

// toInt returns v as an int for indexes and for the counts Clojure casts
// to an integer: floats are truncated, as (nth v 1.5) is (nth v 1) and
// (repeat 2.5 x) makes two. A count Clojure's sequence functions use up one
// at a time is toCount's.
func toInt(fn string, v Value) (int, error) {
	switch v := v.(type) {
	case Int:
		return clampInt(int64(v)), nil
	case *BigDec:
		return toInt(fn, Float(decFloat(v)))
	case *BigInt:
		if v.n.IsInt64() {
			return clampInt(v.n.Int64()), nil
		}
		return clampInt(int64(v.n.Sign()) << 62), nil // beyond any count, as a long's extreme
	case Float, Float32:
		f, _ := floatValue(v)
		if f != f {
			return 0, javaErrorf(typeError, noJavaClass, "%s expected an integer, got NaN", fn)
		}
		if f > 1<<62 {
			return 1 << 62, nil
		}
		if f < -(1 << 62) {
			return -(1 << 62), nil
		}
		return int(f), nil
	}
	return 0, typeErrorf(fn, "an integer", v)
}

// toCount returns v as the count of take, drop and the functions built on
// them: Clojure's count down while (pos? n), so a fraction counts as one
// more, (take 2.5 xs) takes three and (drop 0.5 xs) drops one.
func toCount(fn string, v Value) (int, error) {
	if f, ok := floatValue(v); ok && f > 0 && f < 1<<62 {
		return int(math.Ceil(f)), nil
	}
	return toInt(fn, v)
}

// fractional reports whether v is a float with a fraction.
func fractional(v Value) bool {
	f, ok := floatValue(v)
	return ok && f != math.Trunc(f) && !math.IsInf(f, 0)
}

func clampInt(n int64) int {
	const limit = 1 << 62
	if n > limit {
		return limit
	}
	if n < -limit {
		return -limit
	}
	return int(n)
}

// call applies f and names fn in a type error when f cannot be called.
func call(th *Thread, fn string, f Value, args ...Value) (Value, error) {
	switch f := f.(type) {
	case *closure:
		return th.callClosure(f, args)
	case Keyword:
		if err := th.enterCall(); err != nil {
			return nil, err
		}
		return f.Call(th, args)
	case *Builtin:
		if f.borrows {
			return th.callBorrowed(f, args)
		}
	}
	if _, sym := f.(symbol); !sym && !isCallable(f) {
		// Clojure casts it to IFn: nil fails as a NullPointerException
		return nil, Errorf(typeError, "%s expected a function, got %s", fn, describe(f)).
			WithHint("pass a function, keyword, map or set, e.g. (%s :key coll) or (%s #(...) coll)", fn, fn).
			castFails(f).nullFails(f)
	}
	// Other callables (vector, list, ...) may keep the slice they get.
	return th.call(f, append([]Value(nil), args...))
}

// truthyCall applies a predicate.
func truthyCall(th *Thread, fn string, pred Value, x Value) (bool, error) {
	v, err := call(th, fn, pred, x)
	if err != nil {
		return false, err
	}
	return truthy(v), nil
}

// describe names a value's type, with the value itself when it is short, so
// that an error says "got string \"abc\"" rather than only "got string".
func describe(v Value) string {
	switch v.(type) {
	case NilType:
		return "nil"
	case *Vector, *Map, *Set:
		return TypeLabel(v)
	}
	r := shownIn(v, 160)
	if runes := []rune(r); len(runes) > 40 {
		r = string(runes[:37]) + "..."
	}
	return fmt.Sprintf("%s %s", v.TypeName(), r)
}

// castError is Clojure's ClassCastException for an argument of a kind the
// function casts to the Java interface iface (clojure.lang.Associative for
// assoc, java.util.Map$Entry for reduce-kv's items), with Java's message;
// for nil, the NullPointerException of calling through it. A type error
// here, caught by the same class.
func castError(fn, want string, v Value, iface string) *Error {
	return typeErrorf(fn, want, v).notAn(iface, v)
}

func boolValue(b bool) Value {
	if b {
		return trueValue
	}
	return falseValue
}
