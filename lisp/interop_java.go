package lisp

import (
	"errors"
	"fmt"
	"maps"
	"math"
	mbits "math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// The Java interop models write out of habit, done as the JVM does it:
// the String methods of data work, (.toUpperCase s), the Character and
// Math statics, Java's exception constructors, and java.time.LocalDate
// arithmetic on the ISO date strings LocalDate/parse gives. Each row is
// checked against Clojure 1.11 by testdata/interop (TestJavaInterop).
// Like the other Java forms they are not in the system prompt.
var javaInteropBuiltins = concatRows(
	[]*Builtin{
		stringMethod(".toUpperCase", "(.toUpperCase s)", 1, 1, func(s string, _ []Value) (Value, error) { return String(javaUpper(s)), nil }),
		stringMethod(".toLowerCase", "(.toLowerCase s)", 1, 1, func(s string, _ []Value) (Value, error) { return String(javaLower(s)), nil }),
		stringMethod(".trim", "(.trim s)", 1, 1, func(s string, _ []Value) (Value, error) {
			return String(strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })), nil // Java trims every char up to space
		}),
		stringMethod(".strip", "(.strip s)", 1, 1, func(s string, _ []Value) (Value, error) { return String(strings.TrimFunc(s, javaWhitespace)), nil }),
		stringMethod(".length", "(.length s)", 1, 1, func(s string, _ []Value) (Value, error) { return Int(len([]rune(s))), nil }),
		{Name: ".isEmpty", Sig: "(.isEmpty s-or-coll)", Doc: "the string or collection is empty, as Java's", Category: "idiom", reach: javaForm,
			MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
				n, err := javaSize(".isEmpty", args[0], true)
				if err != nil {
					return nil, err
				}
				return boolValue(n == 0), nil
			}},
		{Name: ".size", Sig: "(.size coll)", Doc: "the number of items of a collection, as Java's", Category: "idiom", reach: javaForm,
			MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
				n, err := javaSize(".size", args[0], false)
				if err != nil {
					return nil, err
				}
				return Int(n), nil
			}},
		mapEntryPart(".getKey", 0),
		stringMethod(".isBlank", "(.isBlank s)", 1, 1, func(s string, _ []Value) (Value, error) {
			return boolValue(strings.TrimFunc(s, javaWhitespace) == ""), nil
		}),
		stringMethod(".startsWith", "(.startsWith s prefix) (.startsWith s prefix offset)", 2, 3, javaStartsWith),
		stringMethod(".stripLeading", "(.stripLeading s)", 1, 1, func(s string, _ []Value) (Value, error) { return String(strings.TrimLeftFunc(s, javaWhitespace)), nil }),
		stringMethod(".stripTrailing", "(.stripTrailing s)", 1, 1, func(s string, _ []Value) (Value, error) { return String(strings.TrimRightFunc(s, javaWhitespace)), nil }),
		stringMethod(".codePointAt", "(.codePointAt s i)", 2, 2, javaCodePointAt),
		{Name: ".getBytes", Sig: "(.getBytes s) (.getBytes s \"UTF-8\")", Doc: "the UTF-8 bytes of s, signed as Java's, in a vector (the array)", Category: "idiom", reach: javaForm,
			MinArgs: 1, MaxArgs: 2, Cost: cost(scans(arg(0)), builds), Fn: javaGetBytes},
		throwableMethod(".getLocalizedMessage", "the message of a caught error, as ex-message", exMessage),
		{Name: ".getData", Sig: "(.getData e)", Doc: "the data map of a caught ex-info, as ex-data", Category: "idiom", reach: javaForm,
			MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: javaGetData},
		stringMethod(".endsWith", "(.endsWith s suffix)", 2, 2, stringPair(".endsWith", strings.HasSuffix)),
		stringMethod(".equalsIgnoreCase", "(.equalsIgnoreCase s t)", 2, 2, stringPair(".equalsIgnoreCase", strings.EqualFold)),
		stringMethod(".substring", "(.substring s start) (.substring s start end)", 2, 3, javaSubstring),
		stringMethod(".charAt", "(.charAt s i)", 2, 2, javaCharAt),
		{Name: ".replace", Sig: "(.replace s old new)", Doc: "s with every old replaced by new, as text", Category: "idiom", reach: javaForm,
			MinArgs: 3, MaxArgs: 3, Fn: javaReplace,
			Cost: cost(scans(arg(0)), chargedInBody("the replaced string, charged before it is built"))},
		stringMethod(".concat", "(.concat s t)", 2, 2, func(s string, args []Value) (Value, error) {
			t, ok := args[1].(String)
			if !ok {
				return nil, typeErrorf(".concat", "a string", args[1])
			}
			return String(s + string(t)), nil
		}),
		javaStringJoin(),
		{Name: "String/format", Sig: "(String/format fmt [x ...])", Doc: "format with the values in a vector, Java's Object array", Category: "idiom", reach: javaStatic,
			MinArgs: 2, MaxArgs: 2, Cost: cost(scans(arg(0)), visits(arg(1)), writes), Fn: func(th *Thread, args []Value) (Value, error) {
				vs, err := seqOf(th, "String/format", args[1], orderedSeq)
				if err != nil {
					return nil, err
				}
				all, err := makeSlice(th, len(vs)+1)
				if err != nil {
					return nil, err
				}
				return builtinFormat(th, append(append(all, args[0]), vs...))
			}},
		// A comparator, a field in Java: as a value it sorts as Java's does,
		// (sort String/CASE_INSENSITIVE_ORDER names).
		{Name: "String/CASE_INSENSITIVE_ORDER", Sig: "(sort String/CASE_INSENSITIVE_ORDER coll)", Doc: "the comparator of strings ignoring case, as .compareToIgnoreCase", Category: "idiom", reach: javaStatic,
			MinArgs: 2, MaxArgs: 2, Cost: cost(scans(arg(0))), Fn: func(th *Thread, args []Value) (Value, error) {
				s, ok := args[0].(String)
				if !ok {
					return nil, typeErrorf("String/CASE_INSENSITIVE_ORDER", "a string", args[0]).asJava("ClassCastException", "")
				}
				return javaCompareToIgnoreCase(string(s), args)
			}},
		staticOf(aliasOf("Double/isNaN", "(Double/isNaN x)", "same as NaN?", rowNamed(predicateBuiltins, "NaN?"))),
		staticOf(aliasOf("Double/isInfinite", "(Double/isInfinite x)", "same as infinite?", rowNamed(predicateBuiltins, "infinite?"))),
		javaMath("Math/rint", math.RoundToEven),
		javaMath2("Double/sum", func(x, y float64) float64 { return x + y }),
		javaMath2("Double/max", javaDoubleMax), javaMath2("Double/min", javaDoubleMin),
		javaMathExtremum("Math/max", func(x, y int64) int64 { return max(x, y) }, javaDoubleMax),
		javaMathExtremum("Math/min", func(x, y int64) int64 { return min(x, y) }, javaDoubleMin),
		{Name: "Double/isFinite", Sig: "(Double/isFinite x)", Doc: "x is neither infinite nor NaN", Category: "idiom", reach: javaStatic,
			MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
				x, ok := toFloat(args[0])
				if !ok {
					return nil, typeErrorf("Double/isFinite", "a number", args[0])
				}
				return boolValue(!math.IsInf(x, 0) && !math.IsNaN(x)), nil
			}},
		javaIntegerToString("Integer/toString", 32, false), javaIntegerToString("Long/toString", 64, false),
		javaRadixString("Integer/toBinaryString", 2, 32), javaRadixString("Integer/toOctalString", 8, 32), javaRadixString("Integer/toHexString", 16, 32),
		javaRadixString("Long/toBinaryString", 2, 64), javaRadixString("Long/toOctalString", 8, 64), javaRadixString("Long/toHexString", 16, 64),
		javaIntegerToString("Integer/toUnsignedString", 32, true), javaIntegerToString("Long/toUnsignedString", 64, true),
		{Name: ".toString", Sig: "(.toString x)", Doc: "same as str; nil has no methods", Category: "idiom", reach: javaForm,
			MinArgs: 1, MaxArgs: 1, Cost: rowNamed(stringBuiltins, "str").Cost, Fn: func(th *Thread, args []Value) (Value, error) {
				if args[0] == Nil {
					return nil, nilReceiver(".toString")
				}
				return rowNamed(stringBuiltins, "str").Fn(th, args)
			}},
		{Name: ".equals", Sig: "(.equals x y)", Doc: "same as =", Category: "idiom", reach: javaForm,
			MinArgs: 2, MaxArgs: 2, Cost: cost(visits(arg(0)), compares(allArgs)), Fn: func(th *Thread, args []Value) (Value, error) {
				if args[0] == Nil {
					return nil, nilReceiver(".equals")
				}
				return boolValue(Equal(args[0], args[1])), nil
			}},

		javaCharMap("toUpperCase", unicode.ToUpper),
		javaCharMap("toLowerCase", unicode.ToLower),
		{Name: "Character/getNumericValue", Sig: "(Character/getNumericValue c)", Doc: "the digit value of c, -1 for none", Category: "idiom",
			reach: javaStatic, MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
				r, err := oneChar("Character/getNumericValue", args[0])
				if err != nil {
					return nil, err
				}
				return Int(digitValue(r, 36)), nil
			}},
		{Name: "Character/forDigit", Sig: "(Character/forDigit digit radix)", Doc: "the character of digit in radix (lower case), the character of code 0 for none", Category: "idiom",
			reach: javaStatic, MinArgs: 2, MaxArgs: 2, Cost: cost(constant), Fn: javaForDigit},
		{Name: "Character/digit", Sig: "(Character/digit c radix)", Doc: "the digit value of c in radix, -1 for none", Category: "idiom",
			reach: javaStatic, MinArgs: 2, MaxArgs: 2, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
				r, err := oneChar("Character/digit", args[0])
				if err != nil {
					return nil, err
				}
				radix, ok := args[1].(Int)
				if !ok {
					return nil, typeErrorf("Character/digit", "an integer radix", args[1])
				}
				if radix < 2 || radix > 36 { // Java's Character.MIN_RADIX and MAX_RADIX
					return Int(-1), nil
				}
				return Int(digitValue(r, int(radix))), nil
			}},

		javaFloatOnly(javaMath("Math/signum", func(x float64) float64 {
			if x == 0 || x != x {
				return x
			}
			return math.Copysign(1, x)
		})),
		{Name: "Math/abs", Sig: "(Math/abs x)", Doc: "absolute value, as abs", Category: "idiom", reach: javaStatic,
			MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
				switch args[0].(type) {
				case *BigDec, *BigInt: // no overload takes a BigDecimal or a BigInt
					return nil, typeErrorf("Math/abs", "a long or a double", args[0])
				}
				v, err := builtinAbs(th, args)
				var e *Error
				if errors.As(err, &e) && e.Kind == typeError {
					// Math/abs has an overload for each primitive: Clojure's
					// reflection finds none for a value that is no number.
					return nil, e.asJava("IllegalArgumentException", "")
				}
				return v, err
			}},
		javaFloatOnly(&Builtin{Name: "Math/round", Sig: "(Math/round x)", Doc: "x rounded to the nearest integer, halves up, as Java's; x a float", Category: "idiom", reach: javaStatic,
			MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: javaRound}),
		{Name: "java.util.regex.Pattern/quote", Sig: "(java.util.regex.Pattern/quote s)", Doc: "a pattern text that matches s literally, as Java's", Category: "idiom",
			reach: javaStatic, MinArgs: 1, MaxArgs: 1, Cost: rowNamed(stringBuiltins, "str").Cost,
			Fn: func(th *Thread, args []Value) (Value, error) {
				str, ok := args[0].(String)
				if !ok {
					return nil, typeErrorf("java.util.regex.Pattern/quote", "a string", args[0])
				}
				return newString(th, javaPatternQuote(string(str)))
			}},
		javaMath("Math/cbrt", jvmCbrt),
		// The trigonometric and hyperbolic functions and the float steps,
		// for Math/ and clojure.math (namespaces.go), to the JVM's last
		// digit (jvmmath.go).
		javaMathCost("Math/sin", jvmSin, cost(extendedPrecision(trigSteps))),
		javaMathCost("Math/cos", jvmCos, cost(extendedPrecision(trigSteps))),
		javaMathCost("Math/tan", jvmTan, cost(extendedPrecision(trigSteps))),
		javaMath("Math/asin", fdlibmAsin), javaMath("Math/acos", fdlibmAcos), javaMath("Math/atan", fdlibmAtan),
		javaMath("Math/sinh", jvmSinh), javaMath("Math/cosh", jvmCosh), javaMath("Math/tanh", jvmTanh),
		javaMath("Math/log1p", math.Log1p), javaMath("Math/expm1", math.Expm1),
		javaMath("Math/nextUp", func(x float64) float64 { return math.Nextafter(x, math.Inf(1)) }),
		javaMath("Math/nextDown", func(x float64) float64 { return math.Nextafter(x, math.Inf(-1)) }),
		javaMath("Math/ulp", javaUlp),
		javaMath2("Math/atan2", fdlibmAtan2), javaMath2("Math/nextAfter", math.Nextafter),
		javaMath2("Math/copySign", math.Copysign), javaRemainder(),
		javaMath("Math/toRadians", jvmToRadians),
		javaMath("Math/toDegrees", jvmToDegrees),
		{Name: "Math/hypot", Sig: "(Math/hypot x y)", Doc: "sqrt(x²+y²), as a float", Category: "idiom", reach: javaStatic,
			MinArgs: 2, MaxArgs: 2, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
				x, ok1 := toFloat(args[0])
				y, ok2 := toFloat(args[1])
				if !ok1 || !ok2 {
					return nil, typeErrorf("Math/hypot", "two numbers", args[0])
				}
				return Float(jvmHypot(x, y)), nil
			}},
		javaFloorOp("Math/floorDiv", func(a, b int64) int64 {
			q := a / b
			if (a%b != 0) && ((a < 0) != (b < 0)) {
				q--
			}
			return q
		}),
		javaFloorOp("Math/floorMod", func(a, b int64) int64 {
			m := a % b
			if m != 0 && ((m < 0) != (b < 0)) {
				m += b
			}
			return m
		}),
	},
	javaCollectionMethods,
	javaIntegerStatics(),
	[]*Builtin{
		{Name: "Boolean/parseBoolean", Sig: "(Boolean/parseBoolean s)", Doc: "s is \"true\" in any case", Category: "idiom", reach: javaStatic,
			aliases: []string{"Boolean/valueOf"}, MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
				switch v := args[0].(type) {
				case String:
					return boolValue(strings.EqualFold(string(v), "true")), nil
				case NilType:
					return falseValue, nil
				case Bool:
					return v, nil // Boolean/valueOf of a boolean
				}
				return nil, typeErrorf("Boolean/parseBoolean", "a string", args[0]).asJava("ClassCastException", "")
			}},
		{Name: "Character/toString", Sig: "(Character/toString c)", Doc: "the one-character string of a character or of a code point: (Character/toString 97) is \"a\"", Category: "idiom", reach: javaStatic,
			MinArgs: 1, MaxArgs: 1, Cost: cost(builds), Fn: javaCharacterToString},
		{Name: "Character/valueOf", Sig: "(Character/valueOf c)", Doc: "the character itself", Category: "idiom", reach: javaStatic,
			MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
				if _, err := oneChar("Character/valueOf", args[0]); err != nil {
					return nil, err
				}
				return args[0], nil
			}},
		{Name: "Double/compare", Sig: "(Double/compare x y)", Doc: "-1, 0 or 1, as Java's (NaN above everything, -0.0 below 0.0)", Category: "idiom", reach: javaStatic,
			MinArgs: 2, MaxArgs: 2, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
				x, ok1 := toFloat(args[0])
				y, ok2 := toFloat(args[1])
				if !ok1 || !ok2 {
					return nil, typeErrorf("Double/compare", "two numbers", args[0])
				}
				return Int(javaDoubleCompare(x, y)), nil
			}},
		{Name: "Double/toString", Sig: "(Double/toString x)", Doc: "the float's text, as str gives it", Category: "idiom", reach: javaStatic,
			MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
				x, ok := toFloat(args[0])
				if !ok {
					return nil, typeErrorf("Double/toString", "a number", args[0])
				}
				return rowNamed(stringBuiltins, "str").Fn(th, []Value{Float(x)})
			}},
		{Name: "into-array", Sig: "(into-array coll) (into-array class coll)", Doc: "the items as Java's array, which is a vector here", Category: "idiom",
			MinArgs: 1, MaxArgs: 2, Cost: cost(visits(lastArg), builds), Fn: builtinIntoArray},
		{Name: "to-array", Sig: "(to-array coll)", Doc: "the items as Java's Object array, which is a vector here", Category: "idiom",
			MinArgs: 1, MaxArgs: 1, Cost: cost(visits(arg(0)), builds), Fn: func(th *Thread, args []Value) (Value, error) {
				items, err := seqOf(th, "to-array", args[0], anySeq)
				if err != nil {
					return nil, err
				}
				return newVector(th, slices.Clone(items))
			}},
	},
	javaExceptionConstructors(),
	localDateBuiltins,
)

// builtinIntoArray is into-array: a vector stands for the array, which
// programs hand to String/format or apply or read with seq, count and
// nth. As Java's array store, every item but nil must be of the array's
// class: the class given, or that of the first item.
func builtinIntoArray(th *Thread, args []Value) (Value, error) {
	items, err := seqOf(th, "into-array", args[len(args)-1], anySeq)
	if err != nil {
		return nil, err
	}
	var of javaClass
	if len(args) == 2 {
		c, ok := args[0].(javaClass)
		if !ok {
			return nil, typeErrorf("into-array", "a class such as Object or String", args[0])
		}
		of = c
	} else if len(items) > 0 && items[0] != Nil {
		if of, err = classOf("into-array", items[0]); err != nil {
			return nil, err
		}
	}
	for _, it := range items {
		if of == "" || of == "java.lang.Object" || it == Nil {
			continue
		}
		c, err := classOf("into-array", it)
		if err != nil {
			return nil, err
		}
		if c != of && !slices.Contains(classSupers[c], of) {
			return nil, Errorf(typeError, "into-array: %s does not go in an array of %s", describe(it), of).
				asJava("IllegalArgumentException", "array element type mismatch")
		}
	}
	return newVector(th, slices.Clone(items))
}

// javaIntegerToString is Integer/toString or Long/toString, or with
// unsigned their toUnsignedString: the digits of n, in base radix (10), as
// Java's, n's bits read as an unsigned number when unsigned; an Integer's
// n must fit in 32 bits.
func javaIntegerToString(name string, bits int, unsigned bool) *Builtin {
	doc := "the digits of n, in base radix (10), as Java's"
	if unsigned {
		doc = "the digits of n read as unsigned, in base radix (10), as Java's"
	}
	return &Builtin{Name: name, Sig: "(" + name + " n) (" + name + " n radix)", Doc: doc, Category: "idiom", reach: javaStatic,
		MinArgs: 1, MaxArgs: 2, Cost: cost(builds), Fn: func(th *Thread, args []Value) (Value, error) {
			n, radix, err := javaRadixArgs(name, bits, args)
			switch {
			case err != nil:
				return nil, err
			case unsigned && bits == 32:
				return String(strconv.FormatUint(uint64(uint32(n)), radix)), nil
			case unsigned:
				return String(strconv.FormatUint(uint64(n), radix)), nil
			}
			return String(strconv.FormatInt(int64(n), radix)), nil
		}}
}

// javaRadixArgs are the arguments of Integer/toString and its kin: the
// integer, which for an Integer must fit in 32 bits, and the radix (10
// when absent or out of 2 to 36, Java's rule).
func javaRadixArgs(name string, bits int, args []Value) (Int, int, error) {
	n, err := javaIntParam(name, args[0], 64)
	if err != nil {
		return 0, 0, err
	}
	if bits == 32 && int64(n) != int64(int32(n)) {
		return 0, 0, Errorf(arithmeticError, "%s: %d does not fit in Java's 32-bit int", name, int64(n)).
			asJava("ArithmeticException", "integer overflow")
	}
	radix := Int(10)
	if len(args) == 2 {
		if radix, err = javaIntParam(name, args[1], 32); err != nil {
			return 0, 0, err
		}
	}
	if radix < 2 || radix > 36 {
		radix = 10
	}
	return n, int(radix), nil
}

// javaDoubleCompare is Double.compare: a total order in which NaN is
// above every number and -0.0 below 0.0.
func javaDoubleCompare(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	xb, yb := math.Float64bits(x), math.Float64bits(y)
	if x != x {
		xb = math.Float64bits(math.NaN())
	}
	if y != y {
		yb = math.Float64bits(math.NaN())
	}
	switch {
	case xb == yb:
		return 0
	case int64(xb) < int64(yb):
		return -1
	}
	return 1
}

// javaWhitespace is Java's Character.isWhitespace, which .strip, .isBlank
// and Character/isWhitespace use: Unicode's space separators but the
// non-breaking ones, and the ASCII controls \t to \r and \x1C to \x1F
// (not U+0085, which Go's unicode.IsSpace counts).
func javaWhitespace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x1C, 0x1D, 0x1E, 0x1F:
		return true
	case 0xA0, 0x2007, 0x202F:
		return false
	}
	return unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp)
}

// javaRadixString is Integer/toBinaryString and its kin: the digits of an
// integer as Java's unsigned value of its width, so that -1 is 32 (or 64)
// ones, as a program checking bits expects.
func javaRadixString(name string, radix, width int) *Builtin {
	return &Builtin{Name: name, Sig: "(" + name + " n)", Doc: "the unsigned digits of n in base " + strconv.Itoa(radix) + ", as Java's", Category: "idiom", reach: javaStatic,
		MinArgs: 1, MaxArgs: 1, Cost: cost(builds), Fn: func(th *Thread, args []Value) (Value, error) {
			n, err := javaIntParam(name, args[0], 64) // a float truncated, as Clojure passes it
			if err != nil {
				return nil, err
			}
			if width == 32 {
				if int64(n) != int64(int32(n)) {
					return nil, Errorf(executionError, "%s: %d does not fit in Java's 32-bit int", name, int64(n)).
						WithHint("use Long/%s for a 64-bit integer", name[strings.IndexByte(name, '/')+1:]).
						asJava("ArithmeticException", "integer overflow") // Clojure's narrowing of the long argument
				}
				return String(strconv.FormatUint(uint64(uint32(n)), radix)), nil
			}
			return String(strconv.FormatUint(uint64(n), radix)), nil
		}}
}

// javaConstants are the static fields programs read: Math/PI, the units
// of ChronoUnit and the days of DayOfWeek (as the strings Java prints
// them as: ChronoUnit/DAYS is "Days", DayOfWeek/MONDAY "MONDAY"). Built
// on first use: most programs read none, and a table built at start-up
// stays in the heap at rest.
var javaConstants = sync.OnceValue(func() map[string]Value {
	m := map[string]Value{"Math/PI": Float(math.Pi), "Math/E": Float(math.E),
		// The bounds of Java's integer types are their Java values, though
		// integers here are 64-bit: code checks against them as in Java.
		"Short/MAX_VALUE": Int(math.MaxInt16), "Short/MIN_VALUE": Int(math.MinInt16),
		"Byte/MAX_VALUE": Int(math.MaxInt8), "Byte/MIN_VALUE": Int(math.MinInt8),
		"Double/MIN_VALUE": Float(math.SmallestNonzeroFloat64)}
	for _, unit := range []string{"DAYS", "WEEKS", "MONTHS", "YEARS"} {
		v := String(unit[:1] + strings.ToLower(unit[1:]))
		m["ChronoUnit/"+unit] = v
		m["java.time.temporal.ChronoUnit/"+unit] = v
	}
	for d := time.Sunday; d <= time.Saturday; d++ {
		name := strings.ToUpper(d.String())
		m["DayOfWeek/"+name] = String(name)
		m["java.time.DayOfWeek/"+name] = String(name)
	}
	maps.Copy(m, javaTimeConstants())
	decimalConstants(m)
	bigIntegerConstants(m)
	return m
})

func concatRows(sections ...[]*Builtin) []*Builtin {
	var rows []*Builtin
	for _, s := range sections {
		rows = append(rows, s...)
	}
	return rows
}

// stringMethod is a method of java.lang.String: its first argument must be
// a string, as the method's receiver.
func stringMethod(name, sig string, minArgs, maxArgs int, fn func(s string, args []Value) (Value, error)) *Builtin {
	return &Builtin{Name: name, Sig: sig, Doc: "the String method, as Java's", Category: "idiom", reach: javaForm,
		MinArgs: minArgs, MaxArgs: maxArgs, Cost: cost(scans(arg(0)), builds), Fn: func(th *Thread, args []Value) (Value, error) {
			s, ok := args[0].(String)
			if args[0] == Nil {
				return nil, nilReceiver(name)
			}
			if !ok {
				// Clojure finds no such method of the receiver's class.
				return nil, typeErrorf(name, "a string", args[0]).
					WithHint("%s is a method of String; (str x) makes a string of anything", name).
					asJava("IllegalArgumentException", "")
			}
			return fn(string(s), args)
		}}
}

// javaSize is the size of a collection, or of a string when strings
// count: what .size and .isEmpty read. nil has no methods in Java.
func javaSize(name string, v Value, strings bool) (int, error) {
	switch c := v.(type) {
	case NilType:
		return 0, nilReceiver(name)
	case *Vector:
		return c.Len(), nil
	case *Map:
		return c.Len(), nil
	case *Set:
		return c.Len(), nil
	case String:
		if strings {
			return len(c), nil
		}
	}
	return 0, noMethod(name, "a collection", []Value{v})
}

// mapEntryPart is .getKey (i 0) or .getValue (i 1) of a map entry, which
// is a two-item vector here.
func mapEntryPart(name string, i int) *Builtin {
	return &Builtin{Name: name, Sig: "(" + name + " entry)", Doc: "the key or value of a map entry", Category: "idiom", reach: javaForm,
		MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			if v, ok := mapEntryItem(args[0], i); ok {
				return v, nil
			}
			return nil, typeErrorf(name, "a map entry", args[0]).WithHint("(key e) and (val e) read an entry of a map")
		}}
}

func mapEntryItem(v Value, i int) (Value, bool) {
	if e, ok := v.(*Vector); ok && e.Len() == 2 && !e.IsList() {
		return e.index(i), true
	}
	return nil, false
}

func stringPair(name string, test func(s, t string) bool) func(string, []Value) (Value, error) {
	return func(s string, args []Value) (Value, error) {
		t, ok := args[1].(String)
		if !ok {
			return nil, typeErrorf(name, "a string", args[1])
		}
		return boolValue(test(s, string(t))), nil
	}
}

// outOfBounds is Java's StringIndexOutOfBoundsException.
func outOfBounds(name string, detail string) error {
	return Errorf(executionError, "%s: %s", name, detail).
		asJava("StringIndexOutOfBoundsException", detail)
}

func javaSubstring(s string, args []Value) (Value, error) {
	r := characters(s) // counted, not copied (charOffset)
	start, err := javaIntParam(".substring", args[1], 32)
	if err != nil {
		return nil, err
	}
	end := Int(r.n)
	if len(args) == 3 {
		if end, err = javaIntParam(".substring", args[2], 32); err != nil {
			return nil, err
		}
	}
	if start < 0 || end > Int(r.n) || start > end {
		return nil, outOfBounds(".substring", "begin "+strconv.Itoa(int(start))+", end "+strconv.Itoa(int(end))+", length "+strconv.Itoa(r.n))
	}
	return r.slice(int(start), int(end)), nil
}

func javaCharAt(s string, args []Value) (Value, error) {
	r := characters(s) // counted, not copied (charOffset)
	i, err := javaIntParam(".charAt", args[1], 32)
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= Int(r.n) {
		return nil, outOfBounds(".charAt", "String index out of range: "+strconv.Itoa(int(i)))
	}
	return r.slice(int(i), int(i)+1), nil
}

// javaIndexOf is .indexOf or .lastIndexOf: a character index, -1 when sub
// is not there. sub may be a character code, as Java's indexOf(int ch);
// from is where the search starts (forward) or the last index it may
// return (backward). It searches s where it is, by its bytes, and counts
// characters only up to the bounds and the match: a copy of s's
// characters (4 bytes a byte) on every call was garbage no budget
// counted.
func javaIndexOf(last bool) func(string, []Value) (Value, error) {
	return func(s string, args []Value) (Value, error) {
		var sub string
		switch x := args[1].(type) {
		case String:
			sub = string(x)
		case Int:
			sub = string(rune(max(0, min(x, unicode.MaxRune))))
		case NilType:
			return nil, typeErrorf(".indexOf", "a string", args[1])
		default: // neither indexOf(String) nor indexOf(int), by reflection
			return nil, typeErrorf(".indexOf", "a string", args[1]).asJava("IllegalArgumentException", "")
		}
		from, end := 0, -1 // in characters; end -1: s's end
		if len(args) == 3 {
			if _, ok := args[2].(Int); !ok { // indexOf(String, int) and indexOf(int, int): reflection matches neither
				return nil, typeErrorf(".indexOf", "an integer index", args[2]).asJava("IllegalArgumentException", "")
			}
			f, err := javaIntParam(".indexOf", args[2], 32) // a long past an int is Java's ArithmeticException
			if err != nil {
				return nil, err
			}
			if last {
				if f < 0 {
					return Int(-1), nil
				}
				end = int(min(f, math.MaxInt32)) + utf8.RuneCountInString(sub)
			} else {
				from = int(max(0, min(f, math.MaxInt32)))
			}
		}
		if !utf8.ValidString(sub) || strings.ContainsRune(sub, utf8.RuneError) {
			// A search for U+FFFD, or for invalid bytes, matches the
			// invalid bytes of s as the characters they read as.
			return javaIndexOfRunes(s, sub, from, end, last), nil
		}
		fromByte := charOffset(s, 0, from)
		endByte := len(s)
		if end >= 0 {
			endByte = charOffset(s, 0, end)
		}
		if fromByte > endByte {
			return Int(-1), nil
		}
		i := searchText(s[fromByte:endByte], sub, last)
		if i < 0 {
			return Int(-1), nil
		}
		// from counts the characters before fromByte unless s ended first.
		return Int(utf8.RuneCountInString(s[:fromByte+i])), nil
	}
}

// javaIndexOfRunes is javaIndexOf over a copy of s's characters, for a
// sub that holds U+FFFD or invalid bytes, which match s's invalid bytes
// only once each reads as U+FFFD.
func javaIndexOfRunes(s, sub string, from, end int, last bool) Value {
	r := []rune(s)
	from = min(from, len(r))
	if end < 0 || end > len(r) {
		end = len(r)
	}
	if from > end {
		return Int(-1)
	}
	rest := string(r[from:end])
	i := searchText(rest, sub, last)
	if i < 0 {
		return Int(-1)
	}
	return Int(from + len([]rune(rest[:i])))
}

// searchText is the byte index of sub's first (or last) match in s, -1
// when there is none.
func searchText(s, sub string, last bool) int {
	if last {
		return strings.LastIndex(s, sub)
	}
	return strings.Index(s, sub)
}

// javaReplace is String.replace: text, not a regex; an empty old is
// replaced at every character boundary, as Java's.
func javaReplace(th *Thread, args []Value) (Value, error) {
	s, ok0 := args[0].(String)
	old, ok1 := args[1].(String)
	repl, ok2 := args[2].(String)
	if !ok0 || !ok1 || !ok2 {
		bad := args[0]
		if ok0 {
			bad = args[1]
			if ok1 {
				bad = args[2]
			}
		}
		// Clojure's reflector finds no replace of the receiver's class, nor
		// one of String's two for a value that is neither text nor nil;
		// nil passes as a CharSequence, which replace then dereferences.
		class := "IllegalArgumentException"
		if ok0 && (ok1 || args[1] == Nil) && (ok2 || args[2] == Nil) {
			class = "NullPointerException"
		}
		return nil, typeErrorf(".replace", "three strings", bad).
			WithHint(`(.replace s "old" "new") replaces text; for a regex write (replace s #"re" "new")`).asJava(class, "")
	}
	n := int64(strings.Count(string(s), string(old)))
	if err := th.alloc(heapString + int64(len(s)) + n*int64(max(len(repl)-len(old), 0))); err != nil {
		return nil, err
	}
	return String(strings.ReplaceAll(string(s), string(old), string(repl))), nil
}

// oneChar is v as the character it stands for: characters are
// one-character strings here.
func oneChar(name string, v Value) (rune, error) {
	s, ok := v.(String)
	r, size := utf8.DecodeRuneInString(string(s)) // a copy of a long argument's characters was garbage
	if !ok || size == 0 || size != len(s) {
		// Character's methods take a char or an int: Clojure's reflection
		// finds neither for any other argument, nil included.
		return 0, typeErrorf(name, "a character", v).asJava("IllegalArgumentException", "")
	}
	return r, nil
}

// javaCharacterToString is Java's Character.toString of a char, or of an
// int code point (Java 11), which an integer argument selects in Clojure.
// Half of a surrogate pair becomes U+FFFD, as in a string (docs/LANGUAGE.md).
func javaCharacterToString(th *Thread, args []Value) (Value, error) {
	n, ok := args[0].(Int)
	if !ok {
		r, err := oneChar("Character/toString", args[0])
		if err != nil {
			return nil, err
		}
		return String(r), nil
	}
	if n < 0 || n > unicode.MaxRune {
		return nil, Errorf(executionError, "Character/toString: %d is not a Unicode code point (0 to 0x10FFFF)", int64(n)).
			asJava("IllegalArgumentException", fmt.Sprintf("Not a valid Unicode code point: 0x%X", uint32(n)))
	}
	return String(rune(n)), nil
}

// javaCharMap is Character/name, a character mapped to a character.
func javaCharMap(name string, fn func(rune) rune) *Builtin {
	full := "Character/" + name
	return &Builtin{Name: full, Sig: "(" + full + " c)", Doc: "the character mapped, as Java's", Category: "idiom", reach: javaStatic,
		MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			r, err := oneChar(full, args[0])
			if err != nil {
				return nil, err
			}
			return String(fn(r)), nil
		}}
}

// digitValue is the value of r as a digit of radix, or -1.
func digitValue(r rune, radix int) int {
	d := -1
	switch {
	case r >= '0' && r <= '9':
		d = int(r - '0')
	case r >= 'a' && r <= 'z':
		d = int(r-'a') + 10
	case r >= 'A' && r <= 'Z':
		d = int(r-'A') + 10
	}
	if d >= radix {
		return -1
	}
	return d
}

// javaFloorOp is Math/floorDiv or Math/floorMod, on integers.
func javaFloorOp(name string, op func(a, b int64) int64) *Builtin {
	return &Builtin{Name: name, Sig: "(" + name + " x y)", Doc: "integer division rounded down, as Java's", Category: "idiom", reach: javaStatic,
		MinArgs: 2, MaxArgs: 2, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			a, ok1 := args[0].(Int)
			b, ok2 := args[1].(Int)
			if !ok1 || !ok2 {
				return nil, typeErrorf(name, "two integers", args[0])
			}
			if b == 0 {
				return nil, Errorf(executionError, "%s: / by zero", name).asJava("ArithmeticException", "/ by zero")
			}
			return Int(op(int64(a), int64(b))), nil
		}}
}

// javaExceptionConstructors are (Exception. "message") and the like for
// the classes a program may catch, made as ex-info makes its errors.
func javaExceptionConstructors() []*Builtin {
	var rows []*Builtin
	for _, class := range slices.Sorted(maps.Keys(javaSupers)) {
		// Java's constructors of these do not take a message as it is
		// (MissingFormatArgumentException's wraps it: "Format specifier 'x'").
		if class == "ExceptionInfo" || class == "ArityException" || class == "MissingFormatArgumentException" {
			continue
		}
		name := class + "."
		rows = append(rows, &Builtin{Name: name, Sig: "(" + name + " message cause?)", Doc: "an exception to throw, wrapping cause if given", Category: "idiom", reach: javaForm,
			aliases: []string{javaClassName(class) + "."},
			MinArgs: 0, MaxArgs: 2, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
				return newJavaException(th, name, class, args)
			}})
	}
	return rows
}

// newJavaException is Java's constructors of an exception class: () with
// no message, (message), (message cause) and (cause), whose message is the
// cause's text, "java.lang.IllegalStateException: s", as Java's is.
func newJavaException(th *Thread, name, class string, args []Value) (Value, error) {
	if err := th.alloc(heapThrown); err != nil {
		return nil, err
	}
	// Java's constructor without a message leaves getMessage null.
	e := &thrown{kind: executionError, class: class, noMessage: len(args) == 0}
	causeArg := -1
	switch {
	case len(args) == 2:
		causeArg = 1
	case len(args) == 1:
		if c, ok := args[0].(*thrown); ok {
			e.cause = c
			text, err := builtinStr(th, []Value{c})
			if err != nil {
				return nil, err
			}
			e.message, e.javaMessage = string(text.(String)), string(text.(String))
			return e, nil
		}
	}
	if len(args) > 0 {
		switch msg := args[0].(type) {
		case String:
			e.message, e.javaMessage = string(msg), string(msg)
		case NilType:
			e.noMessage = true
		default:
			return nil, typeErrorf(name, "a message string", args[0])
		}
	}
	if causeArg >= 0 {
		switch c := args[causeArg].(type) {
		case *thrown:
			e.cause = c
		case NilType:
		default:
			return nil, typeErrorf(name, "a caught exception as the cause", args[causeArg]).
				WithHint("pass the exception a catch clause binds: (catch Exception e (throw (%s \"msg\" e)))", name)
		}
	}
	return e, nil
}

// javaParseInt is Integer/parseInt (bits 32) or Long/parseLong (64): the
// integer in s in base 10 or the radix given, nil when s is not one or
// is out of the type's range (javaParse makes that Java's
// NumberFormatException).
func javaParseInt(bits int) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		s, ok := args[0].(String)
		if !ok {
			return Nil, nil
		}
		radix := Int(10)
		if len(args) == 2 {
			if radix, ok = args[1].(Int); !ok || radix < 2 || radix > 36 {
				return nil, typeErrorf("Integer/parseInt", "a radix from 2 to 36", args[1])
			}
		}
		// Leading zeros dropped, no integer has more than 65 characters
		// (a sign and 64 binary digits): strconv is never handed more.
		text := string(s)
		sign := ""
		if text != "" && (text[0] == '+' || text[0] == '-') {
			sign, text = text[:1], text[1:]
		}
		if digits := strings.TrimLeft(text, "0"); digits == "" && text != "" {
			text = "0"
		} else {
			text = digits
		}
		if len(text) > 64 {
			return Nil, nil
		}
		n, err := strconv.ParseInt(sign+text, int(radix), bits)
		if err != nil || strings.ContainsRune(text, '_') {
			return Nil, nil
		}
		return Int(n), nil
	}
}

// javaValueOf is Integer/valueOf (bits 32) or Long/valueOf (64): an
// integer as it is (Java boxes it; an int must fit in 32 bits), a string
// parsed as javaParseInt parses it.
func javaValueOf(bits int) func(*Thread, []Value) (Value, error) {
	parse := javaParseInt(bits)
	return func(th *Thread, args []Value) (Value, error) {
		n, ok := args[0].(Int)
		if !ok || len(args) > 1 {
			return parse(th, args)
		}
		if bits == 32 && int64(n) != int64(int32(n)) {
			return nil, Errorf(arithmeticError, "Integer/valueOf: %d does not fit in Java's 32-bit int", int64(n)).
				asJava("ArithmeticException", "integer overflow")
		}
		return n, nil
	}
}

// javaParseDouble is Double/parseDouble, which, unlike parse-double,
// ignores the spaces and control characters around the number.
func javaParseDouble(th *Thread, args []Value) (Value, error) {
	if s, ok := args[0].(String); ok {
		return parseDecimal(th, "Double/parseDouble", String(javaDecimalText(string(s))))
	}
	return parseDecimal(th, "Double/parseDouble", args[0])
}

// javaIntegerStatics are the static methods of Integer and Long on
// numbers, and Math's exact arithmetic, as Java runs them: a float
// argument is truncated, an Integer method's argument must fit in 32 bits
// and its sum wraps there, and an exact operation that overflows is
// Java's ArithmeticException.
func javaIntegerStatics() []*Builtin {
	sign := func(a int64) int64 { return int64(max(-1, min(a, 1))) }
	var rows []*Builtin
	for _, bits := range []int{32, 64} {
		class := "Long/"
		if bits == 32 {
			class = "Integer/"
		}
		wrap := func(n int64) int64 {
			if bits == 32 {
				return int64(int32(n))
			}
			return n
		}
		rows = append(rows,
			javaIntOp(class+"compare", 2, bits, func(a []int64) (int64, bool) { return int64(intCmp(Int(a[0]), Int(a[1]))), true }),
			javaIntOp(class+"signum", 1, bits, func(a []int64) (int64, bool) { return sign(a[0]), true }),
			javaIntOp(class+"max", 2, bits, func(a []int64) (int64, bool) { return max(a[0], a[1]), true }),
			javaIntOp(class+"min", 2, bits, func(a []int64) (int64, bool) { return min(a[0], a[1]), true }),
			javaIntOp(class+"sum", 2, bits, func(a []int64) (int64, bool) { return wrap(a[0] + a[1]), true }),
		)
		rows = append(rows, javaBitStatics(class, bits)...)
	}
	exact := func(name string, arity int, op func(a []int64) (int64, bool)) *Builtin {
		return javaIntOp("Math/"+name, arity, 64, op)
	}
	return append(rows,
		exact("addExact", 2, func(a []int64) (int64, bool) { s := a[0] + a[1]; return s, (s > a[0]) == (a[1] > 0) || a[1] == 0 }),
		exact("subtractExact", 2, func(a []int64) (int64, bool) { d := a[0] - a[1]; return d, (d < a[0]) == (a[1] > 0) || a[1] == 0 }),
		exact("multiplyExact", 2, func(a []int64) (int64, bool) {
			p := a[0] * a[1]
			return p, a[0] == 0 || (p/a[0] == a[1] && !(a[0] == -1 && a[1] == math.MinInt64) && !(a[1] == -1 && a[0] == math.MinInt64))
		}),
		exact("negateExact", 1, func(a []int64) (int64, bool) { return -a[0], a[0] != math.MinInt64 }),
		exact("incrementExact", 1, func(a []int64) (int64, bool) { return a[0] + 1, a[0] != math.MaxInt64 }),
		exact("decrementExact", 1, func(a []int64) (int64, bool) { return a[0] - 1, a[0] != math.MinInt64 }),
		javaIntOp("Math/toIntExact", 1, 64, func(a []int64) (int64, bool) { return a[0], a[0] == int64(int32(a[0])) }),
	)
}

// javaBitStatics are the bit methods of Integer (bits 32) or Long (bits
// 64): each works on the two's-complement bits of its width, so that
// (Integer/reverse 1) is Integer/MIN_VALUE and (Long/bitCount -1) is 64.
func javaBitStatics(class string, bits int) []*Builtin {
	// word is n's bits of the width; signed reads such bits back as Java's
	// int or long.
	word := func(n int64) uint64 {
		if bits == 32 {
			return uint64(uint32(n))
		}
		return uint64(n)
	}
	signed := func(w uint64) int64 {
		if bits == 32 {
			return int64(int32(uint32(w)))
		}
		return int64(w)
	}
	rotate := func(n int64, k int64) int64 {
		k %= int64(bits) // Java uses the low bits of the distance
		if bits == 32 {
			return signed(uint64(mbits.RotateLeft32(uint32(n), int(k))))
		}
		return signed(mbits.RotateLeft64(uint64(n), int(k)))
	}
	op := func(name string, arity int, f func(a []int64) int64) *Builtin {
		return javaIntOp(class+name, arity, bits, func(a []int64) (int64, bool) { return f(a), true })
	}
	return []*Builtin{
		op("bitCount", 1, func(a []int64) int64 { return int64(mbits.OnesCount64(word(a[0]))) }),
		op("numberOfTrailingZeros", 1, func(a []int64) int64 { return int64(min(mbits.TrailingZeros64(word(a[0])), bits)) }),
		op("numberOfLeadingZeros", 1, func(a []int64) int64 { return int64(mbits.LeadingZeros64(word(a[0])) - (64 - bits)) }),
		op("highestOneBit", 1, func(a []int64) int64 {
			w := word(a[0])
			if w == 0 {
				return 0
			}
			return signed(1 << (63 - mbits.LeadingZeros64(w)))
		}),
		op("lowestOneBit", 1, func(a []int64) int64 { return signed(word(a[0]) & -word(a[0])) }),
		op("reverse", 1, func(a []int64) int64 { return signed(mbits.Reverse64(word(a[0])) >> (64 - bits)) }),
		op("rotateLeft", 2, func(a []int64) int64 { return rotate(a[0], a[1]) }),
		op("rotateRight", 2, func(a []int64) int64 { return rotate(a[0], -a[1]) }),
	}
}

// javaIntOp is a static method on integers of bits bits; op reports false
// for an overflow.
func javaIntOp(name string, arity, bits int, op func(a []int64) (int64, bool)) *Builtin {
	sig := "(" + name + " x)"
	if arity == 2 {
		sig = "(" + name + " x y)"
	}
	return &Builtin{Name: name, Sig: sig, Doc: "as Java's, on integers", Category: "idiom", reach: javaStatic,
		MinArgs: arity, MaxArgs: arity, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			ns := make([]int64, len(args))
			for i, a := range args {
				switch n := a.(type) {
				case Int:
					ns[i] = int64(n)
				case Float:
					if strings.HasPrefix(name, "Math/") && name != "Math/toIntExact" { // Math's exact methods take no double, but toIntExact takes a long
						return nil, typeErrorf(name, "integers", a).asJava("IllegalArgumentException",
							"No matching method "+name[len("Math/"):]+" found taking "+strconv.Itoa(arity)+" args")
					}
					if name == "Math/toIntExact" { // its long parameter, as Clojure passes a double to it
						v, err := javaIntParam(name, a, 64)
						if err != nil {
							return nil, err
						}
						n = Float(v)
					}
					ns[i] = int64(math.Trunc(float64(max(min(n, math.MaxInt64), math.MinInt64)))) // Java's narrowing
				default:
					return nil, typeErrorf(name, "integers", a)
				}
				if bits == 32 && ns[i] != int64(int32(ns[i])) {
					return nil, Errorf(executionError, "%s: %d does not fit in Java's 32-bit int", name, ns[i]).
						asJava("ArithmeticException", "integer overflow") // Clojure's narrowing of the argument
				}
			}
			r, ok := op(ns)
			if !ok {
				overflow := "long overflow"
				if name == "Math/toIntExact" {
					overflow = "integer overflow"
				}
				return nil, Errorf(arithmeticError, "%s: %s", name, overflow).asJava("ArithmeticException", overflow)
			}
			return Int(r), nil
		}}
}

// javaFloatOnly refuses an integer to a Math method whose only overloads
// take a double and a float (round, signum): Clojure finds no method for
// a Long, where the methods of one double overload (floor, sqrt) widen it.
func javaFloatOnly(b *Builtin) *Builtin {
	fn, name := b.Fn, b.Name
	b.Fn = func(th *Thread, args []Value) (Value, error) {
		switch args[0].(type) {
		case Float, Float32:
			return fn(th, args)
		}
		e := typeErrorf(name, "a float", args[0]).asJava("IllegalArgumentException",
			"No matching method "+name[len("Math/"):]+" found taking 1 args")
		if _, isInt := args[0].(Int); isInt {
			e = e.WithHint("Java's %s takes a double or a float: (%s (double x))", name[len("Math/"):], name)
		}
		return nil, e
	}
	return b
}

// javaRound is Math.round: of a double a long, of a float an int,
// halves up, NaN 0, and past the range the nearest bound.
func javaRound(th *Thread, args []Value) (Value, error) {
	lo, hi := float64(math.MinInt64), float64(math.MaxInt64)
	f, _ := floatValue(args[0])
	if _, single := args[0].(Float32); single {
		lo, hi = math.MinInt32, math.MaxInt32
	}
	switch r := roundHalfUp(f); {
	case f != f:
		return Int(0), nil
	case r <= lo:
		return Int(int64(lo)), nil
	case r >= hi:
		if hi == math.MaxInt32 {
			return Int(math.MaxInt32), nil
		}
		return Int(math.MaxInt64), nil
	default:
		return Int(int64(r)), nil
	}
}

// javaMath2 is javaMath of a function of two floats.
func javaMath2(name string, fn func(x, y float64) float64) *Builtin {
	return &Builtin{Name: name, Sig: "(" + name + " x y)", Doc: "as a float, as Java's", Category: "idiom", reach: javaStatic,
		MinArgs: 2, MaxArgs: 2, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			x, ok1 := toFloat(args[0])
			y, ok2 := toFloat(args[1])
			if !ok1 {
				return nil, typeErrorf(name, "a number", args[0])
			}
			if !ok2 {
				return nil, typeErrorf(name, "a number", args[1])
			}
			return Float(fn(x, y)), nil
		}}
}

// javaRemainder is Math/IEEEremainder, whose reduction takes a step of
// Go's math.Remainder for each binary place between the dividend and the
// divisor: up to about 2,000 for 1e300 by 7, 3.6 µs, charged a step
// per 16 places.
func javaRemainder() *Builtin {
	b := javaMath2("Math/IEEEremainder", math.Remainder)
	b.Cost = cost(counts("a step per 16 binary places between the dividend and the divisor", func(args []Value) int64 {
		x, ok1 := toFloat(args[0])
		y, ok2 := toFloat(args[1])
		if !ok1 || !ok2 {
			return 0
		}
		_, ex := math.Frexp(x)
		_, ey := math.Frexp(y)
		return int64(max(ex-ey, 0)) / 16
	}))
	return b
}

// javaUlp is Java's Math.ulp: the distance from |x| to the next float
// away from zero, NaN for NaN, +Inf for an infinity.
func javaUlp(x float64) float64 {
	x = math.Abs(x)
	switch {
	case x != x:
		return x
	case math.IsInf(x, 1):
		return x
	case x == math.MaxFloat64:
		return x - math.Nextafter(x, 0)
	}
	return math.Nextafter(x, math.Inf(1)) - x
}

// javaPatternQuote is Java's Pattern.quote: s between \Q and \E, each
// \E inside it closed, escaped and reopened.
func javaPatternQuote(s string) string {
	return `\Q` + strings.ReplaceAll(s, `\E`, `\E\\E\Q`) + `\E`
}

// javaForDigit is Java's Character.forDigit: the character of a digit in a
// radix from 2 to 36, lower case past 9; the character of code 0 when the
// digit is not one of the radix or the radix is out of range.
func javaForDigit(th *Thread, args []Value) (Value, error) {
	digit, ok := args[0].(Int)
	if !ok {
		return nil, typeErrorf("Character/forDigit", "an integer digit", args[0])
	}
	radix, ok := args[1].(Int)
	if !ok {
		return nil, typeErrorf("Character/forDigit", "an integer radix", args[1])
	}
	switch {
	case radix < 2 || radix > 36 || digit < 0 || digit >= radix:
		return String("\x00"), nil
	case digit < 10:
		return String(rune('0' + digit)), nil
	default:
		return String(rune('a' + digit - 10)), nil
	}
}

// javaOverloaded are the statics Java declares for several parameter
// types at one arity, by that arity (Math.abs of an int, a long, a float and a double):
// given a value none of them takes, Clojure's reflector finds no method
// and throws IllegalArgumentException, where a static of one signature is
// called and fails on the value (NullPointerException for nil,
// ClassCastException otherwise).
var javaOverloaded = map[string]int{
	"Math/abs": 1, "Math/max": 2, "Math/min": 2, "Math/floorDiv": 2, "Math/floorMod": 2,
	"Math/addExact": 2, "Math/subtractExact": 2, "Math/multiplyExact": 2, "Math/negateExact": 1,
	"Math/incrementExact": 1, "Math/decrementExact": 1, "Math/round": 1, "Math/signum": 1,
	"Math/ulp": 1, "Math/copySign": 2, "Math/nextUp": 1, "Math/nextDown": 1, "Math/nextAfter": 2,
	"Integer/valueOf": 1, "Long/valueOf": 1, "Double/valueOf": 1, "String/valueOf": 1,
	"Character/isDigit": 1, "Character/isLetter": 1, "Character/isLetterOrDigit": 1,
	"Character/isWhitespace": 1, "Character/isUpperCase": 1, "Character/isLowerCase": 1,
	"Character/isSpaceChar": 1, "Character/toUpperCase": 1, "Character/toLowerCase": 1,
	"Character/getNumericValue": 1, "Character/digit": 1, "Character/toString": 1,
}

// javaClassed gives an error of a Java method or static the exception
// class Clojure's reflector throws for the same call, where the row did
// not name one: a nil receiver is a NullPointerException; a call with a
// count of arguments the method has no overload for, or a static given a
// value its parameters cannot take, an IllegalArgumentException ("No
// matching method"). The error is copied, never changed in place.
func (b *Builtin) javaClassed(args []Value, err error) error {
	if b.reach != javaForm && b.reach != javaStatic {
		return err
	}
	var e *Error
	if !errors.As(err, &e) || (e.Kind != arityErrorKind && e.Kind != typeError) {
		return err
	}
	class := ""
	switch {
	case b.reach == javaForm && len(args) > 0 && args[0] == Nil && strings.HasPrefix(b.Name, "."):
		class = "NullPointerException"
	case e.Kind == arityErrorKind && e.class == "":
		class = "IllegalArgumentException"
	case b.reach == javaStatic && e.Kind == typeError && javaOverloaded[b.Name] == len(args):
		class = "IllegalArgumentException"
	}
	if class == "" || class == e.class {
		return err
	}
	c := *e
	c.class, c.javaMessage, c.javaNoMessage = class, "", false
	return &c
}

// javaIntParam is v passed to a Java int (bits 32) or long (bits 64)
// parameter, converted as Clojure converts it: a float is truncated
// (NaN is 0; one out of the parameter's range is
// IllegalArgumentException), a long that does not fit an int is
// ArithmeticException ("integer overflow"), nil is NullPointerException
// and anything else ClassCastException.
func javaIntParam(form string, v Value, bits int) (Int, error) {
	switch n := v.(type) {
	case Int:
		if bits == 32 && n != Int(int32(n)) {
			return 0, Errorf(executionError, "%s: %d does not fit in Java's 32-bit int", form, int64(n)).
				asJava("ArithmeticException", "integer overflow")
		}
		return n, nil
	case Float:
		lo, hi := float64(math.MinInt32), float64(math.MaxInt32)
		kind := "int"
		if bits == 64 {
			lo, hi, kind = math.MinInt64, math.MaxInt64, "long"
		}
		f := float64(n)
		if f != f {
			return 0, nil
		}
		if f < lo || f > hi {
			return 0, Errorf(executionError, "%s: %s is out of range for a Java %s", form, formatFloat(f), kind).
				asJava("IllegalArgumentException", "Value out of range for "+kind+": "+formatFloat(f))
		}
		return Int(math.Trunc(f)), nil
	}
	return 0, typeErrorf(form, "an integer", v)
}

// javaStartsWith is String.startsWith, with Java's offset: false for an
// offset out of the string.
func javaStartsWith(s string, args []Value) (Value, error) {
	prefix, ok := args[1].(String)
	if !ok {
		return nil, typeErrorf(".startsWith", "a string", args[1])
	}
	if len(args) == 2 {
		return boolValue(strings.HasPrefix(s, string(prefix))), nil
	}
	off, err := javaIntParam(".startsWith", args[2], 32)
	if err != nil {
		return nil, err
	}
	r := characters(s)
	if off < 0 || off > Int(r.n) {
		return falseValue, nil
	}
	return boolValue(strings.HasPrefix(string(r.slice(int(off), r.n)), string(prefix))), nil
}

// javaCodePointAt is String.codePointAt: the code of the character at i.
func javaCodePointAt(s string, args []Value) (Value, error) {
	r := characters(s)
	i, err := javaIntParam(".codePointAt", args[1], 32)
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= Int(r.n) {
		return nil, outOfBounds(".codePointAt", "Index "+strconv.Itoa(int(i))+" out of bounds for length "+strconv.Itoa(r.n))
	}
	return Int([]rune(string(r.slice(int(i), int(i)+1)))[0]), nil
}

// javaGetBytes is String.getBytes in UTF-8, Java's default charset here:
// the bytes signed, as Java's byte, in a vector, which is the array.
func javaGetBytes(th *Thread, args []Value) (Value, error) {
	s, ok := args[0].(String)
	if args[0] == Nil {
		return nil, nilReceiver(".getBytes")
	}
	if !ok {
		return nil, typeErrorf(".getBytes", "a string", args[0]).asJava("IllegalArgumentException", "")
	}
	if len(args) == 2 {
		cs, ok := args[1].(String)
		if !ok {
			return nil, typeErrorf(".getBytes", "a charset name", args[1]).asJava("IllegalArgumentException", "")
		}
		if name := strings.ToUpper(string(cs)); name != "UTF-8" && name != "UTF8" {
			return nil, Errorf(executionError, ".getBytes: the charset %q is not available here, only UTF-8", string(cs)).
				asJava("UnsupportedEncodingException", string(cs))
		}
	}
	items, err := makeSlice(th, len(s))
	if err != nil {
		return nil, err
	}
	for i := 0; i < len(s); i++ {
		items = append(items, Int(int8(s[i])))
	}
	return newVector(th, items)
}

// javaGetData is ExceptionInfo.getData: the data of an ex-info; an
// exception of another class has no such method.
func javaGetData(th *Thread, args []Value) (Value, error) {
	e, ok := args[0].(*thrown)
	switch {
	case args[0] == Nil:
		return nil, nilReceiver(".getData")
	case !ok || e.data == nil:
		return nil, typeErrorf(".getData", "an exception made by ex-info", args[0]).asJava("IllegalArgumentException", "")
	}
	return e.data, nil
}

// javaDoubleMax and javaDoubleMin are Math.max and min of doubles: NaN
// wins, and -0.0 is below 0.0.
func javaDoubleMax(x, y float64) float64 {
	if x != x || y != y {
		return math.NaN()
	}
	return math.Max(x, y)
}

func javaDoubleMin(x, y float64) float64 {
	if x != x || y != y {
		return math.NaN()
	}
	return math.Min(x, y)
}

// withJavaStreams adds to counterparts the String methods that give a
// Java stream, which the sandbox has not: the builtin that gives the same
// items as a sequence.
func withJavaStreams(counterparts map[string]string) map[string]string {
	codes := "(map int s) for the character codes of (.chars s), a sequence where Java gives a stream"
	counterparts[".chars"] = codes
	counterparts[".codePoints"] = codes
	counterparts[".lines"] = "(clojure.string/split-lines s) for the lines of (.lines s), a vector where Java gives a stream"
	return counterparts
}

// javaStringJoin is String.join(CharSequence, Iterable): join with a
// separator that must be text, over a collection that must not be text
// (Java's varargs overload takes no string as the Iterable). A value
// neither overload takes is Clojure's reflector's IllegalArgumentException;
// a nil separator is the NullPointerException of the call.
func javaStringJoin() *Builtin {
	return javaAliasOfArity("String/join", "(String/join sep coll)", "same as join", rowNamed(stringBuiltins, "join"), 2, func(th *Thread, args []Value, join javaPlainFn) (Value, error) {
		switch args[0].(type) {
		case String:
		case NilType:
			return nil, typeErrorf("String/join", "a string separator", args[0])
		default:
			return nil, typeErrorf("String/join", "a string separator", args[0]).asJava("IllegalArgumentException", "")
		}
		switch args[1].(type) {
		case String, NilType:
			return nil, typeErrorf("String/join", "a collection of strings", args[1]).asJava("IllegalArgumentException", "").
				WithHint(`(join sep coll) joins the items of any collection`)
		}
		elems, err := seqOf(th, "String/join", args[1], anySeq)
		if err != nil {
			var e *Error
			if errors.As(err, &e) && e.Kind == typeError && e.class == "ClassCastException" {
				return nil, e.asJava("IllegalArgumentException", "")
			}
			return nil, err
		}
		// Each item is cast to CharSequence, and Java writes a null as "null".
		var items []Value // a copy, made at the first nil
		for i, e := range elems {
			switch e.(type) {
			case String:
			case NilType:
				if items == nil {
					if items, err = makeSlice(th, len(elems)); err != nil {
						return nil, err
					}
					items = append(items, elems...)
				}
				items[i] = String("null")
			default:
				return nil, typeErrorf("String/join", "string items", e).asJava("ClassCastException", "").
					WithHint(`(join sep coll) writes any items`)
			}
		}
		if items == nil {
			return join(th, []Value{args[0], args[1]})
		}
		coll, err := newVector(th, items)
		if err != nil {
			return nil, err
		}
		return join(th, []Value{args[0], coll})
	})
}

type javaPlainFn = func(*Thread, []Value) (Value, error)

// javaAliasOfArity is a Java static that does what row does, at the one
// arity Java declares, with fn between the call and row's Fn (plain).
func javaAliasOfArity(name, sig, doc string, row *Builtin, arity int, fn func(th *Thread, args []Value, plain javaPlainFn) (Value, error)) *Builtin {
	b := staticOf(aliasOf(name, sig, doc, row))
	b.MinArgs, b.MaxArgs = arity, arity
	plain := b.Fn
	b.Fn = func(th *Thread, args []Value) (Value, error) { return fn(th, args, plain) }
	return b
}

// javaStringValueOf is String.valueOf of one value, as str, but nil is
// the NullPointerException of valueOf(char[]), which Clojure's reflector
// picks for it.
func javaStringValueOf() *Builtin {
	return javaAliasOfArity("String/valueOf", "(String/valueOf x)", "same as str", rowNamed(stringBuiltins, "str"), 1, func(th *Thread, args []Value, str javaPlainFn) (Value, error) {
		if args[0] == Nil {
			return nil, Errorf(executionError, "String/valueOf of nil has no text").asJava("NullPointerException", "").
				WithHint(`(str nil) is ""`)
		}
		return str(th, args)
	})
}

// javaMathExtremum is Math.max or Math.min: two longs or two doubles.
// Java has no overload for a long and a double together, and Clojure's
// reflector finds none for them (nor for a BigDecimal, a BigInt, a ratio
// or nil): javaClassed makes those refusals IllegalArgumentException.
func javaMathExtremum(name string, ints func(x, y int64) int64, floats func(x, y float64) float64) *Builtin {
	hint := "(" + strings.ToLower(name[len("Math/"):]) + " x y ...) compares any numbers"
	return &Builtin{Name: name, Sig: "(" + name + " x y)", Doc: "of two longs or two doubles, as Java's", Category: "idiom", reach: javaStatic,
		MinArgs: 2, MaxArgs: 2, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			switch x := args[0].(type) {
			case Int:
				if y, ok := args[1].(Int); ok {
					return Int(ints(int64(x), int64(y))), nil
				}
			case Float:
				if y, ok := args[1].(Float); ok {
					return Float(floats(float64(x), float64(y))), nil
				}
			}
			bad := args[1]
			if _, ok := args[0].(Int); !ok {
				if _, ok := args[0].(Float); !ok {
					bad = args[0]
				}
			}
			return nil, typeErrorf(name, "two longs or two doubles", bad).WithHint("%s", hint).
				asJava("IllegalArgumentException", "No matching method "+name[len("Math/"):]+" found taking 2 args")
		}}
}
