package lisp

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The Java methods models call on Clojure's own values, which implement
// java.util.List (vectors and lists), java.util.Map (maps) and
// java.util.Set (sets), and the String methods that take a regex. Each is
// the JVM's answer, checked against Clojure 1.11 by
// testdata/interop/methods.jsonl: a nil receiver is Java's
// NullPointerException, an index out of range its
// IndexOutOfBoundsException, and a method the receiver's class does not
// have the IllegalArgumentException Clojure's reflector throws.
//
// Two results stand for Java objects Clojure prints as #object: .values
// is the vector of the values (what vals gives), and .split the vector of
// the parts, Java's String array; what a program does with them (vec,
// seq, count, first, nth) gives Clojure's answer.
var javaCollectionMethods = []*Builtin{
	javaMethod(".get", "(.get coll key-or-index)", 2, 2, cost(lookups), javaGet),
	javaMethod(".indexOf", "(.indexOf coll x) (.indexOf s sub) (.indexOf s sub from)", 2, 3,
		cost(comparesItems(ifVector(arg(0))), scans(argsFrom(0))), listOrString(".indexOf", javaListIndexOf(false), javaIndexOf(false))),
	javaMethod(".lastIndexOf", "(.lastIndexOf coll x) (.lastIndexOf s sub) (.lastIndexOf s sub from)", 2, 3,
		cost(comparesItems(ifVector(arg(0))), scans(argsFrom(0))), listOrString(".lastIndexOf", javaListIndexOf(true), javaIndexOf(true))),
	javaMethod(".contains", "(.contains coll x) (.contains s sub)", 2, 2,
		cost(comparesItems(ifVector(arg(0))), scans(arg(0)), lookups), javaContains),
	javaMethod(".subList", "(.subList coll from to)", 3, 3, cost(views), javaSubList),
	javaMethod(".containsKey", "(.containsKey m k)", 2, 2, cost(lookups), javaContainsKey),
	javaMethod(".containsValue", "(.containsValue m v)", 2, 2, cost(comparesItems(arg(0)), compares(arg(1))), javaContainsValue),
	javaMethod(".getOrDefault", "(.getOrDefault m k default)", 3, 3, cost(lookups), javaGetOrDefault),
	javaMethod(".keySet", "(.keySet m)", 1, 1, cost(visits(arg(0)), builds), javaMapView(".keySet", true)),
	javaMethod(".values", "(.values m)", 1, 1, cost(visits(arg(0)), builds), javaMapView(".values", false)),
	javaMethod(".getSimpleName", "(.getSimpleName (class x))", 1, 1, cost(constant), javaClassNamePart(true)),
	javaMethod(".getName", "(.getName (class x))", 1, 1, cost(constant), javaClassNamePart(false)),
	javaMethod(".repeat", "(.repeat s n)", 2, 2, cost(chargedInBody("the repeated string, charged before it is built")), javaRepeat),
	stringMethod(".compareTo", "(.compareTo s t)", 2, 2, javaCompareTo),
	javaMethod(".toCharArray", "(.toCharArray s)", 1, 1, cost(visits(arg(0)), builds), func(th *Thread, args []Value) (Value, error) {
		if _, ok := args[0].(String); !ok {
			return nil, noMethod(".toCharArray", "a string", args)
		}
		chars, err := seqOf(th, ".toCharArray", args[0], anySeq)
		if err != nil {
			return nil, err
		}
		return NewVector(chars), nil // the array is a vector, as into-array's
	}),
	javaMethod(".getClass", "(.getClass x)", 1, 1, cost(constant), builtinType(".getClass")),
	javaMethod(".getNamespace", "(.getNamespace k)", 1, 1, cost(constant), builtinNamespace),
	javaNumberValue(".intValue", true), javaNumberValue(".longValue", true), javaNumberValue(".doubleValue", false),
	stringMethod(".compareToIgnoreCase", "(.compareToIgnoreCase s t)", 2, 2, javaCompareToIgnoreCase),
	javaRegexMethod(".split", "(.split s regex) (.split s regex limit)", 2, 3),
	javaRegexMethod(".matches", "(.matches s regex)", 2, 2),
	javaRegexMethod(".replaceAll", "(.replaceAll s regex replacement)", 3, 3),
	javaRegexMethod(".replaceFirst", "(.replaceFirst s regex replacement)", 3, 3),
}

// javaMethod is a Java instance method whose receiver, its first
// argument, may be any value: nil is Java's NullPointerException.
func javaMethod(name, sig string, minArgs, maxArgs int, c Cost, fn func(th *Thread, args []Value) (Value, error)) *Builtin {
	return &Builtin{Name: name, Sig: sig, Doc: "the Java method, as the JVM runs it on Clojure's values", Category: "idiom", reach: javaForm,
		MinArgs: minArgs, MaxArgs: maxArgs, Cost: c, Fn: func(th *Thread, args []Value) (Value, error) {
			if args[0] == Nil {
				return nil, nilReceiver(name)
			}
			return fn(th, args)
		}}
}

// nilReceiver is a method called on nil.
func nilReceiver(name string) *Error {
	return Errorf(executionError, "%s called on nil, which has no methods", name).
		asJava("NullPointerException", `Cannot invoke "Object.getClass()" because "target" is null`)
}

// noMethod is a method the receiver's class does not have, as Clojure's
// reflector reports it.
func noMethod(name, want string, args []Value) *Error {
	class, err := classOf(name, args[0])
	if err != nil {
		class = "java.lang.Object"
	}
	return typeErrorf(name, want, args[0]).asJava("IllegalArgumentException",
		"No matching method "+name[1:]+" found taking "+strconv.Itoa(len(args)-1)+" args for class "+string(class))
}

// indexOutOfRange is Java's IndexOutOfBoundsException of a list.
func indexOutOfRange(name string, detail string) *Error {
	return Errorf(executionError, "%s: %s", name, detail).asJavaWithoutMessage("IndexOutOfBoundsException")
}

// javaListIndex reads a list index as Java's reflector converts it: a
// float is truncated.
func javaListIndex(name string, v Value) (int, error) {
	switch v.(type) {
	case Int, Float:
		return toInt(name, v)
	}
	return 0, typeErrorf(name, "an integer index", v).asJava("ClassCastException", "")
}

func javaGet(th *Thread, args []Value) (Value, error) {
	switch c := args[0].(type) {
	case *Vector:
		i, err := javaListIndex(".get", args[1])
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= c.Len() {
			return nil, indexOutOfRange(".get", "index "+strconv.Itoa(i)+" out of range for "+strconv.Itoa(c.Len())+" items")
		}
		return c.index(i), nil
	case *Map, *Set:
		return getValue(th, c, args[1], Nil)
	}
	return nil, noMethod(".get", "a vector, list, map or set", args)
}

// listOrString runs a List method on a vector or list, the String method
// of the same name on a string.
func listOrString(name string, list func(*Vector, []Value) (Value, error), str func(string, []Value) (Value, error)) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		switch c := args[0].(type) {
		case *Vector:
			if len(args) > 2 {
				return nil, noMethod(name, "a string for a start index", args)
			}
			return list(c, args)
		case String:
			return str(string(c), args)
		}
		return nil, noMethod(name, "a vector, list or string", args)
	}
}

// javaListIndexOf is List.indexOf or lastIndexOf: the position of the
// first (or last) item equal to x, -1 when none is.
func javaListIndexOf(last bool) func(*Vector, []Value) (Value, error) {
	return func(v *Vector, args []Value) (Value, error) {
		found := -1
		for i, e := range v.elems {
			if Equal(e, args[1]) {
				found = i
				if !last {
					break
				}
			}
		}
		return Int(found), nil
	}
}

func javaContains(th *Thread, args []Value) (Value, error) {
	switch c := args[0].(type) {
	case *Vector:
		v, _ := javaListIndexOf(false)(c, args)
		return boolValue(v != Int(-1)), nil
	case *Set:
		k, err := realizedKey(th, args[1])
		if err != nil {
			return nil, err
		}
		return boolValue(c.contains(k)), nil
	case String:
		return stringPair(".contains", strings.Contains)(string(c), args)
	}
	return nil, noMethod(".contains", "a vector, list, set or string", args)
}

func javaSubList(th *Thread, args []Value) (Value, error) {
	v, ok := args[0].(*Vector)
	if !ok {
		return nil, noMethod(".subList", "a vector or list", args)
	}
	from, err := javaListIndex(".subList", args[1])
	if err != nil {
		return nil, err
	}
	to, err := javaListIndex(".subList", args[2])
	if err != nil {
		return nil, err
	}
	if from < 0 || to > v.Len() || from > to {
		return nil, indexOutOfRange(".subList", "range "+strconv.Itoa(from)+".."+strconv.Itoa(to)+" of "+strconv.Itoa(v.Len())+" items")
	}
	return sub(th, v, v.elems, from, to)
}

func javaContainsKey(th *Thread, args []Value) (Value, error) {
	switch c := args[0].(type) {
	case *Map:
		k, err := realizedKey(th, args[1])
		if err != nil {
			return nil, err
		}
		_, ok := c.Get(k)
		return boolValue(ok), nil
	case *Vector:
		// A vector is Associative: its keys are its indices.
		if i, ok := args[1].(Int); ok && !c.IsList() {
			return boolValue(i >= 0 && int64(i) < int64(c.Len())), nil
		}
		if !c.IsList() {
			return falseValue, nil
		}
	}
	return nil, noMethod(".containsKey", "a map or vector", args)
}

func javaContainsValue(th *Thread, args []Value) (Value, error) {
	m, ok := args[0].(*Map)
	if !ok {
		return nil, noMethod(".containsValue", "a map", args)
	}
	for _, e := range m.entries {
		if Equal(e.Val, args[1]) {
			return trueValue, nil
		}
	}
	return falseValue, nil
}

func javaGetOrDefault(th *Thread, args []Value) (Value, error) {
	m, ok := args[0].(*Map)
	if !ok {
		return nil, noMethod(".getOrDefault", "a map", args)
	}
	k, err := realizedKey(th, args[1])
	if err != nil {
		return nil, err
	}
	if v, ok := m.Get(k); ok {
		return v, nil
	}
	return args[2], nil
}

// javaMapView is .keySet (a set of the keys) or .values (the values, a
// vector here); unlike keys and vals, an empty map gives an empty one.
func javaMapView(name string, keys bool) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		m, ok := args[0].(*Map)
		if !ok {
			return nil, noMethod(name, "a map", args)
		}
		out := make([]Value, 0, m.Len())
		for _, e := range m.entries {
			if keys {
				out = append(out, e.Key)
			} else {
				out = append(out, e.Val)
			}
		}
		if keys {
			return NewSet(out), nil
		}
		return NewVector(out), nil
	}
}

// javaClassNamePart is Class.getSimpleName (simple) or getName of a class
// as class and type give it; Keyword and Symbol have a getName too, their
// name.
func javaClassNamePart(simple bool) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		switch c := args[0].(type) {
		case javaClass:
			name := string(c)
			if simple {
				name = name[strings.LastIndexAny(name, ".$")+1:]
			}
			return String(name), nil
		case Keyword, symbol:
			if !simple {
				return builtinName(th, args)
			}
		}
		if simple {
			return nil, noMethod(".getSimpleName", "a class, as (class x) gives it", args)
		}
		return nil, noMethod(".getName", "a class, as (class x) gives it, a keyword or a symbol", args)
	}
}

// javaRepeat is String.repeat, charged for the string before it is built.
func javaRepeat(th *Thread, args []Value) (Value, error) {
	s, ok := args[0].(String)
	if !ok {
		return nil, noMethod(".repeat", "a string", args)
	}
	n, err := javaIntParam(".repeat", args[1], 32)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, Errorf(executionError, ".repeat: count is negative: %d", int64(n)).
			asJava("IllegalArgumentException", "count is negative: "+strconv.FormatInt(int64(n), 10))
	}
	if len(s) > 0 && int64(n) > (1<<40)/int64(len(s)) {
		return nil, th.alloc(1 << 40) // beyond every budget: the memory limit's error
	}
	if err := th.allocString(len(s) * int(n)); err != nil {
		return nil, err
	}
	return String(strings.Repeat(string(s), int(n))), nil
}

// javaCompareTo is String.compareTo, or the java.time class's compareTo
// when both read as values of one (temporalCompareTo): the difference of the first UTF-16
// units that differ, else of the lengths.
func javaCompareTo(s string, args []Value) (Value, error) {
	if sameJavaTime(args[0], args[1]) {
		return temporalCompareTo(args)
	}
	t, ok := args[1].(String)
	if !ok {
		return nil, typeErrorf(".compareTo", "a string", args[1]).asJava("ClassCastException", "")
	}
	return Int(javaStringCompare(s, string(t))), nil
}

// javaNumberValue is Number's .intValue and .longValue (integral: a float
// truncated toward zero) or .doubleValue.
func javaNumberValue(name string, integral bool) *Builtin {
	return javaMethod(name, "("+name+" n)", 1, 1, cost(constant), func(th *Thread, args []Value) (Value, error) {
		switch n := args[0].(type) {
		case Int:
			if integral {
				if name == ".intValue" {
					return Int(int32(n)), nil // Java narrows to 32 bits
				}
				return n, nil
			}
			return Float(n), nil
		case Float:
			if !integral {
				return n, nil
			}
			f := math.Trunc(float64(n))
			switch {
			case f != f:
				return Int(0), nil // Java's NaN to integer
			case name == ".intValue":
				return Int(int64(max(min(f, math.MaxInt32), math.MinInt32))), nil // Java's d2i saturates
			}
			return Int(int64(max(min(f, math.MaxInt64), math.MinInt64))), nil
		}
		return nil, noMethod(name, "a number", args)
	})
}

// javaCompareToIgnoreCase is String.compareToIgnoreCase: characters
// compared upper-cased, then lower-cased.
func javaCompareToIgnoreCase(s string, args []Value) (Value, error) {
	t, ok := args[1].(String)
	if !ok {
		return nil, typeErrorf(".compareToIgnoreCase", "a string", args[1]).asJava("ClassCastException", "")
	}
	// The texts are read a character at a time, as javaStringCompare
	// reads them, and not copied.
	j := sharedCharacters(s, string(t))
	a, b := s[j:], string(t[j:])
	for a != "" && b != "" {
		x, n := utf8.DecodeRuneInString(a)
		y, m := utf8.DecodeRuneInString(b)
		a, b = a[n:], b[m:]
		if x == y {
			continue
		}
		x, y = unicode.ToUpper(x), unicode.ToUpper(y)
		if x == y {
			continue
		}
		x, y = unicode.ToLower(x), unicode.ToLower(y)
		if x != y {
			return Int(int(x) - int(y)), nil
		}
	}
	return Int(utf8.RuneCountInString(a) - utf8.RuneCountInString(b)), nil
}

// javaRegexMethod is a String method that takes its regex as a string, in
// Java's syntax: the regex builtin that does the same, with the string
// compiled as re-pattern compiles it.
func javaRegexMethod(name, sig string, minArgs, maxArgs int) *Builtin {
	var run func(th *Thread, s Value, re *regex, rest []Value) (Value, error)
	switch name {
	case ".split":
		run = func(th *Thread, s Value, re *regex, rest []Value) (Value, error) {
			if len(rest) == 1 {
				if _, ok := rest[0].(Int); ok { // the int limit: a long past an int is ArithmeticException
					if _, err := javaIntParam(name, rest[0], 32); err != nil {
						return nil, err
					}
				}
			}
			return splitString(th, name, s, re, rest)
		}
	case ".matches":
		run = func(th *Thread, s Value, re *regex, _ []Value) (Value, error) {
			loc, err := re.matchWhole(th, string(s.(String)))
			return boolValue(loc != nil), err
		}
	case ".replaceAll", ".replaceFirst":
		replace := replacing(name, name == ".replaceAll")
		run = func(th *Thread, s Value, re *regex, rest []Value) (Value, error) {
			// Java's replacement is a String, not a function; replaceFirst
			// refuses a null one at once, replaceAll only at a match.
			switch rest[0].(type) {
			case String:
			case NilType:
				if name == ".replaceFirst" {
					return nil, typeErrorf(name, "a string replacement", rest[0])
				}
			default:
				return nil, typeErrorf(name, "a string replacement", rest[0])
			}
			return replace(th, []Value{s, re, rest[0]})
		}
	}
	return &Builtin{Name: name, Sig: sig, Doc: "the String method, with a regex in Java's syntax", Category: "idiom", reach: javaForm,
		MinArgs: minArgs, MaxArgs: maxArgs,
		Cost: cost(scans(arg(0)), matching(arg(1), arg(0), false), chargedInBody("the regex compiled (chargeRegex), and the parts or the replaced string, charged as the regex builtin it runs charges them")),
		Fn: func(th *Thread, args []Value) (Value, error) {
			switch args[0].(type) {
			case NilType:
				return nil, nilReceiver(name)
			case String:
			default:
				return nil, noMethod(name, "a string", args)
			}
			src, ok := args[1].(String)
			if !ok {
				return nil, typeErrorf(name, "the regex as a string", args[1]).asJava("ClassCastException", "")
			}
			if err := th.allocString(len(src)); err != nil {
				return nil, err
			}
			re, err := compileRegex(name, string(src))
			if err != nil {
				return nil, err
			}
			// Compiled at every call, as re-pattern compiles it: charged
			// as re-pattern charges it.
			if err := chargeRegex(th, re); err != nil {
				return nil, err
			}
			return run(th, args[0], re, args[2:])
		}}
}
