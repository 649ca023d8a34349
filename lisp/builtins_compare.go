package lisp

import (
	"strings"
	"unicode/utf16"
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
			c, err := compareValues(args[0], args[1], "compare")
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
				if ci, err := compareValues(xe, ye, "compare"); err == nil && ci != 0 {
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

// javaStringCompare is Java's String.compareTo.
func javaStringCompare(x, y string) int {
	a, b := utf16.Encode([]rune(x)), utf16.Encode([]rune(y))
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return int(a[i]) - int(b[i])
		}
	}
	return len(a) - len(b)
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
