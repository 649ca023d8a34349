package lisp

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Comparison (spec 8.5) and logic (spec 8.6). and/or are special forms
// because they short-circuit; they are not builtins.
var compareBuiltins = []*Builtin{
	{Name: "=", Sig: "(= x y ...)", Doc: "equality; 1 and 1.0 differ, collections compare by content", Category: "compare",
		MinArgs: 1, MaxArgs: variadic, Fn: builtinEqual,
		Cost:   cost(compares(allArgs)),
		binary: &equalScalars, borrows: true},
	{Name: "not=", Sig: "(not= x y ...)", Doc: "(not (= x y ...))", Category: "compare",
		MinArgs: 1, MaxArgs: variadic, Fn: func(th *Thread, args []Value) (Value, error) {
			v, err := builtinEqual(th, args)
			if err != nil {
				return nil, err
			}
			return boolValue(!truthy(v)), nil
		},
		Cost:   cost(compares(allArgs)),
		binary: &notEqualScalars, borrows: true},
	{Name: "==", Sig: "(== x y ...)", Doc: "numeric equality across integers and floats: (== 1 1.0) is true", Category: "compare",
		MinArgs: 1, MaxArgs: variadic, Fn: func(th *Thread, args []Value) (Value, error) {
			return orderNumbers("==", args, func(c int) bool { return c == 0 })
		},
		Cost:   cost(perArg(argsFrom(2)), comparesDecimals(allArgs)),
		binary: &numEqualInts},
	{Name: "<", Sig: "(< a b)", Doc: "less than; numbers only", Category: "compare",
		MinArgs: 1, MaxArgs: variadic, Fn: func(th *Thread, args []Value) (Value, error) {
			return orderNumbers("<", args, func(c int) bool { return c < 0 })
		},
		Cost:   cost(perArg(argsFrom(2)), comparesDecimals(allArgs)),
		binary: &ltInts, borrows: true},
	{Name: ">", Sig: "(> a b)", Doc: "greater than; numbers only", Category: "compare",
		MinArgs: 1, MaxArgs: variadic, Fn: func(th *Thread, args []Value) (Value, error) {
			return orderNumbers(">", args, func(c int) bool { return c > 0 })
		},
		Cost:   cost(perArg(argsFrom(2)), comparesDecimals(allArgs)),
		binary: &gtInts, borrows: true},
	{Name: "<=", Sig: "(<= a b)", Doc: "less than or equal; numbers only", Category: "compare",
		MinArgs: 1, MaxArgs: variadic, Fn: func(th *Thread, args []Value) (Value, error) {
			return orderNumbers("<=", args, func(c int) bool { return c <= 0 })
		},
		Cost:   cost(perArg(argsFrom(2)), comparesDecimals(allArgs)),
		binary: &leInts, borrows: true},
	{Name: ">=", Sig: "(>= a b)", Doc: "greater than or equal; numbers only", Category: "compare",
		MinArgs: 1, MaxArgs: variadic, Fn: func(th *Thread, args []Value) (Value, error) {
			return orderNumbers(">=", args, func(c int) bool { return c >= 0 })
		},
		Cost:   cost(perArg(argsFrom(2)), comparesDecimals(allArgs)),
		binary: &geInts, borrows: true},
	{Name: "compare", Sig: "(compare a b)", Doc: "negative, 0 or positive (Java's difference for strings); orders numbers, strings, keywords, booleans, vectors; nil first", Category: "compare",
		MinArgs: 2, MaxArgs: 2, Fn: func(th *Thread, args []Value) (Value, error) {
			c, err := compareValues(th, args[0], args[1], "compare")
			if err != nil {
				return nil, err
			}
			return Int(javaCompare(args[0], args[1], c)), nil
		},
		Cost: cost(ordering(allArgs), comparesDecimals(allArgs))},
	{Name: "hash", Sig: "(hash x)", Doc: "Clojure's hash of x (equal values hash alike)", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Cost: cost(visits(arg(0)), hashesWhole(arg(0)), comparesDecimals(arg(0))),
		Fn: builtinHash},
	{Name: "identical?", Sig: "(identical? x y)", Doc: "same value (here: =)", Category: "compare",
		MinArgs: 2, MaxArgs: 2, Fn: builtinEqual,
		Cost: cost(compares(allArgs))},
}

var logicBuiltins = []*Builtin{
	{Name: "not", Sig: "(not x)", Doc: "true if x is nil or false", Category: "logic",
		MinArgs: 1, MaxArgs: 1, Fn: func(th *Thread, args []Value) (Value, error) {
			return boolValue(!truthy(args[0])), nil
		},
		Cost:    cost(constant),
		borrows: true},
	{Name: "identity", Sig: "(identity x)", Doc: "returns x", Category: "logic",
		MinArgs: 1, MaxArgs: 1, Fn: func(th *Thread, args []Value) (Value, error) { return args[0], nil },
		Cost: cost(constant)},
	{Name: "boolean", Sig: "(boolean x)", Doc: "false for nil and false, else true", Category: "logic",
		MinArgs: 1, MaxArgs: 1, Fn: func(th *Thread, args []Value) (Value, error) {
			return boolValue(truthy(args[0])), nil
		},
		Cost: cost(constant)},
}

func builtinEqual(th *Thread, args []Value) (Value, error) {
	for i := 0; i+1 < len(args); i++ {
		if !Equal(args[i], args[i+1]) {
			return falseValue, nil
		}
	}
	return trueValue, nil
}

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

// The fast cases of two-integer comparisons (binaryOp); = and not= answer
// for any two values that are their own hash key too.
var (
	ltInts       = binaryOp{ints: func(x, y Int) (Value, bool) { return boolValue(x < y), true }}
	gtInts       = binaryOp{ints: func(x, y Int) (Value, bool) { return boolValue(x > y), true }}
	leInts       = binaryOp{ints: func(x, y Int) (Value, bool) { return boolValue(x <= y), true }}
	geInts       = binaryOp{ints: func(x, y Int) (Value, bool) { return boolValue(x >= y), true }}
	numEqualInts = binaryOp{ints: func(x, y Int) (Value, bool) { return boolValue(x == y), true }}
	equalScalars = binaryOp{ints: func(x, y Int) (Value, bool) { return boolValue(x == y), true },
		scalars: func(equal bool) Value { return boolValue(equal) }}
	notEqualScalars = binaryOp{ints: func(x, y Int) (Value, bool) { return boolValue(x != y), true },
		scalars: func(equal bool) Value { return boolValue(!equal) }}
)

// javaCompare is what Clojure's compare returns for a and b, which
// compareValues ordered as c: Java's String.compareTo for two strings or
// keyword names, the difference of the first UTF-16 code units that
// differ, else of the lengths ((compare "apple" "apricot") is -2); for two
// vectors of one length, that of their first items that differ; else the
// sign of c.
func javaCompare(a, b Value, c int) int {
	switch x := a.(type) {
	case String:
		if y, ok := b.(String); ok {
			return javaStringCompare(string(x), string(y))
		}
	case Keyword:
		if y, ok := b.(Keyword); ok {
			return compareNamed(string(x), string(y))
		}
	case symbol:
		if y, ok := b.(symbol); ok {
			return compareNamed(string(x), string(y))
		}
	case *Vector:
		if y, ok := b.(*Vector); ok && x.Len() == y.Len() {
			for i, xe := range x.Elems() {
				ye := y.Elems()[i]
				// Uncharged: compare charged this walk just before.
				if ci, err := compareValues(nil, xe, ye, "compare"); err == nil && ci != 0 {
					return javaCompare(xe, ye, ci)
				}
			}
		}
	}
	return sign(c)
}

// compareNamed is Clojure's compareTo of two keywords or two symbols,
// given as "ns/name" or "name": a name without a namespace sorts before
// every name with one, then namespaces compare, then names, each as
// Java's String.compareTo ((sort [:b/x :c]) is (:c :b/x)).
func compareNamed(x, y string) int {
	xns, xname, xq := cutNamespace(x)
	yns, yname, yq := cutNamespace(y)
	switch {
	case !xq && !yq:
		return javaStringCompare(x, y)
	case xq && yq && xns == yns:
		return javaStringCompare(xname, yname)
	case xq && yq:
		return javaStringCompare(xns, yns)
	case yq:
		return -1
	default:
		return 1
	}
}

// cutNamespace splits "ns/name" at its first slash, as Clojure reads a
// qualified name; "/" alone is a name without a namespace.
func cutNamespace(s string) (ns, name string, qualified bool) {
	if s == "/" {
		return "", s, false
	}
	return strings.Cut(s, "/")
}

// javaStringCompare is Java's String.compareTo: the difference of the
// first UTF-16 code units that differ, else of the lengths in code units.
// It reads the texts from where their bytes first differ, copying nothing:
// two UTF-16 copies of each text, made on every call, let a loop comparing
// strings of megabytes allocate gigabytes no budget counted.
func javaStringCompare(x, y string) int {
	j := sharedCharacters(x, y)
	a, b := utf16Walk{s: x[j:]}, utf16Walk{s: y[j:]}
	for {
		ua, okA := a.next()
		ub, okB := b.next()
		switch {
		case !okA && !okB:
			return 0
		case !okA:
			return -1 - b.rest()
		case !okB:
			return 1 + a.rest()
		case ua != ub:
			return int(ua) - int(ub)
		}
	}
}

// sharedCharacters is where x and y first differ, moved back to a place
// where both start a character: the texts before it decode alike, as
// []rune would decode them (no character spans a byte that starts one,
// valid or not).
func sharedCharacters(x, y string) int {
	if x == y {
		return len(x)
	}
	// Blocks first: Go compares strings of a block at a time.
	const block = 64
	i := 0
	for i+block <= len(x) && i+block <= len(y) && x[i:i+block] == y[i:i+block] {
		i += block
	}
	for i < len(x) && i < len(y) && x[i] == y[i] {
		i++
	}
	for i > 0 && (i < len(x) && !utf8.RuneStart(x[i]) || i < len(y) && !utf8.RuneStart(y[i])) {
		i--
	}
	return i
}

// utf16Walk reads a text as UTF-16 code units, one at a time.
type utf16Walk struct {
	s   string
	low rune // the low surrogate still to come of the last character, or 0
}

func (w *utf16Walk) next() (rune, bool) {
	if w.low != 0 {
		u := w.low
		w.low = 0
		return u, true
	}
	if w.s == "" {
		return 0, false
	}
	r, n := utf8.DecodeRuneInString(w.s)
	w.s = w.s[n:]
	if r >= 0x10000 {
		hi, lo := utf16.EncodeRune(r)
		w.low = lo
		return hi, true
	}
	return r, true
}

// rest is how many code units are left to read.
func (w *utf16Walk) rest() int {
	n := 0
	if w.low != 0 {
		n++
	}
	for _, r := range w.s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// builtinHash is Clojure's hash of a value; a function's or an atom's is
// its identity's, which differs from run to run in Clojure, so it is
// refused.
func builtinHash(th *Thread, args []Value) (Value, error) {
	switch v := args[0].(type) {
	case NilType, Bool, Int, *BigInt, *BigDec, Float, Float32, String, Keyword, symbol, *Vector, *Map, *Set:
		return Int(int32(hasheq(v))), nil
	}
	return nil, typeErrorf("hash", "a value (a number, string, keyword, symbol or collection)", args[0]).
		WithHint("compare values with =; a map or set finds keys by value")
}

// characterText is a text read by its characters as []rune(s) counts them
// (an invalid byte is one, U+FFFD): .substring and .charAt find their
// characters by walking the text. A copy into characters is 4 bytes a
// byte, made on every call, which no budget counted.
type characterText struct {
	s string
	n int // its characters
}

func characters(s string) characterText {
	return characterText{s: s, n: utf8.RuneCountInString(s)}
}

// slice is String(string([]rune(s)[start:end])), for 0 <= start <= end <= n.
func (t characterText) slice(start, end int) String {
	from := charOffset(t.s, 0, start)
	sub := t.s[from:charOffset(t.s, from, end-start)]
	if !utf8.ValidString(sub) {
		return String([]rune(sub)) // its invalid bytes as a copy has them
	}
	return String(sub)
}

// charOffset is the byte offset in s of the character n characters after
// the one at byte offset from.
func charOffset(s string, from, n int) int {
	for ; n > 0 && from < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[from:])
		from += size
	}
	return from
}
