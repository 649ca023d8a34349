package lisp

import (
	"fmt"
	"math"
	"math/big"
	"unicode/utf8"
)

// Arithmetic (spec 8.4) and numeric conversion.
var mathBuiltins = []*Builtin{
	{Name: "+", Sig: "(+ x y ...)", Doc: "sum; (+) is 0; integer overflow is an error", Category: "math",
		MinArgs: 0, MaxArgs: variadic, Fn: foldNumbers("+", Int(0), addNumbers),
		Cost:   cost(perArg(argsFrom(1))),
		binary: &addInts, borrows: true},
	{Name: "-", Sig: "(- x y ...)", Doc: "difference; (- x) negates", Category: "math",
		MinArgs: 1, MaxArgs: variadic, Fn: builtinMinus,
		Cost:   cost(perArg(argsFrom(1))),
		binary: &subInts, borrows: true},
	{Name: "*", Sig: "(* x y ...)", Doc: "product; (*) is 1", Category: "math",
		MinArgs: 0, MaxArgs: variadic, Fn: foldNumbers("*", Int(1), mulNumbers),
		Cost:   cost(perArg(argsFrom(1))),
		binary: &mulInts, borrows: true},
	{Name: "/", Sig: "(/ x y ...)", Doc: "always a float: (/ 10 2) is 5.0", Category: "math",
		MinArgs: 1, MaxArgs: variadic, Fn: builtinDivide,
		Cost: cost(perArg(argsFrom(1))),
		lean: true},
	{Name: "quot", Sig: "(quot n d)", Doc: "integer quotient, truncated toward zero", Category: "math",
		MinArgs: 2, MaxArgs: 2, Fn: divisorFirst("quot", quotNumbers),
		Cost: cost(alignsDecimals(allArgs))},
	{Name: "rem", Sig: "(rem n d)", Doc: "remainder with the sign of n: (rem -10 3) is -1", Category: "math",
		MinArgs: 2, MaxArgs: 2, Fn: divisorFirst("rem", remNumbers),
		Cost: cost(alignsDecimals(allArgs))},
	{Name: "mod", Sig: "(mod n d)", Doc: "modulus with the sign of d: (mod -10 3) is 2", Category: "math",
		MinArgs: 2, MaxArgs: 2, Fn: divisorFirst("mod", modNumbers),
		Cost: cost(alignsDecimals(allArgs))},
	{Name: "inc", Sig: "(inc x)", Doc: "x + 1", Category: "math", MinArgs: 1, MaxArgs: 1,
		Fn: func(th *Thread, args []Value) (Value, error) {
			v, err := addNumbers("inc", args[0], Int(1))
			return withinPrecision(th, "inc", v, err)
		},
		Cost:    cost(arithmeticOn(allArgs, false)),
		borrows: true},
	{Name: "dec", Sig: "(dec x)", Doc: "x - 1", Category: "math", MinArgs: 1, MaxArgs: 1,
		Fn: func(th *Thread, args []Value) (Value, error) {
			v, err := subNumbers("dec", args[0], Int(1))
			return withinPrecision(th, "dec", v, err)
		},
		Cost:    cost(arithmeticOn(allArgs, false)),
		borrows: true},
	{Name: "abs", Sig: "(abs x)", Doc: "absolute value", Category: "math", MinArgs: 1, MaxArgs: 1, Fn: builtinAbs,
		Cost: cost(constant)},
	{Name: "max", Sig: "(max x y ...)", Doc: "greatest number", Category: "math", MinArgs: 1, MaxArgs: variadic,
		Fn:   extremum("max", 1),
		Cost: cost(perArg(allArgs), comparesDecimals(allArgs))},
	{Name: "min", Sig: "(min x y ...)", Doc: "least number", Category: "math", MinArgs: 1, MaxArgs: variadic,
		Fn:   extremum("min", -1),
		Cost: cost(perArg(allArgs), comparesDecimals(allArgs))},
	{Name: "floor", Sig: "(floor x)", Doc: "an integer: (floor 3.7) is 3", Category: "math",
		MinArgs: 1, MaxArgs: 1, Fn: rounding("floor", math.Floor),
		Cost: cost(constant),
		lean: true},
	{Name: "ceil", Sig: "(ceil x)", Doc: "an integer: (ceil 3.2) is 4", Category: "math",
		MinArgs: 1, MaxArgs: 1, Fn: rounding("ceil", math.Ceil),
		Cost: cost(constant),
		lean: true},
	{Name: "round", Sig: "(round x) (round x digits)", Doc: "halves up: (round 2.5) is 3, (round 3.14159 2) is 3.14", Category: "math",
		MinArgs: 1, MaxArgs: 2, Fn: builtinRound,
		Cost: cost(constant),
		lean: true},
	{Name: "int", Sig: "(int x)", Doc: "integer, truncating floats: (int 3.7) is 3; Java's 32-bit range", Category: "math",
		MinArgs: 1, MaxArgs: 1, Fn: toInteger("int"),
		Cost: cost(alignsDecimals(allArgs))},
	{Name: "long", Sig: "(long x)", Doc: "same as int", Category: "math",
		MinArgs: 1, MaxArgs: 1, Fn: toInteger("long"),
		Cost: cost(alignsDecimals(allArgs))},
	unlisted(&Builtin{Name: "short", Sig: "(short x)", Doc: "integer, truncating floats, in Java's 16-bit range", Category: "math",
		MinArgs: 1, MaxArgs: 1, Fn: toNarrowInteger("short", math.MinInt16, math.MaxInt16),
		Cost: cost(alignsDecimals(allArgs))}),
	unlisted(&Builtin{Name: "byte", Sig: "(byte x)", Doc: "integer, truncating floats, in Java's 8-bit range", Category: "math",
		MinArgs: 1, MaxArgs: 1, Fn: toNarrowInteger("byte", math.MinInt8, math.MaxInt8),
		Cost: cost(alignsDecimals(allArgs))}),
	unlisted(&Builtin{Name: "num", Sig: "(num x)", Doc: "x itself, when it is a number", Category: "math",
		MinArgs: 1, MaxArgs: 1, Fn: builtinNum,
		Cost: cost(constant)}),
	{Name: "double", Sig: "(double x)", Doc: "the number as a float: (double 5) is 5.0", Category: "math",
		MinArgs: 1, MaxArgs: 1, Fn: toDouble("double"),
		Cost: cost(alignsDecimals(allArgs))},
	{Name: "float", Sig: "(float x)", Doc: "x as a 32-bit float", Category: "math",
		MinArgs: 1, MaxArgs: 1, Fn: builtinFloat,
		Cost: cost(constant)},
	{Name: "sqrt", Sig: "(sqrt x)", Doc: "square root, a float; (sqrt -1) is ##NaN", Category: "math",
		MinArgs: 1, MaxArgs: 1, Fn: floatFunc("sqrt", math.Sqrt),
		Cost: cost(constant)},
	{Name: "pow", Sig: "(pow x y)", Doc: "x to the power y, a float", Category: "math",
		MinArgs: 2, MaxArgs: 2, Fn: builtinPow,
		Cost: cost(powCost)},
	{Name: "exp", Sig: "(exp x)", Doc: "e to the power x, a float", Category: "math",
		MinArgs: 1, MaxArgs: 1, Fn: floatFunc("exp", jvmExp),
		Cost: cost(extendedPrecision(expSteps))},
	{Name: "log", Sig: "(log x)", Doc: "natural logarithm, a float", Category: "math",
		MinArgs: 1, MaxArgs: 1, Fn: floatFunc("log", jvmLog),
		Cost: cost(extendedPrecision(logSteps))},
	{Name: "log10", Sig: "(log10 x)", Doc: "base-10 logarithm, a float", Category: "math",
		MinArgs: 1, MaxArgs: 1, Fn: floatFunc("log10", jvmLog10),
		Cost: cost(extendedPrecision(log10Steps))},
}

// foldNumbers applies op left to right; with no arguments it returns unit.
func foldNumbers(fn string, unit Value, op func(fn string, a, b Value) (Value, error)) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		if len(args) == 0 {
			return unit, nil
		}
		if len(args) == 1 && args[0] == Nil {
			return Nil, nil // Clojure's (+ x) is (cast Number x), which lets nil through
		}
		acc, err := numberArg(fn, args[0])
		if err != nil {
			return nil, err
		}
		for _, a := range args[1:] {
			if isDec(acc, a) {
				if err := decWork(th, acc, a, fn == "*"); err != nil {
					return nil, err
				}
			} else if isBig(acc, a) {
				x, ok1 := bigOf(acc)
				y, ok2 := bigOf(a)
				if ok1 && ok2 {
					if err := bigWork(th, x, y, fn == "*" || fn == "*'"); err != nil {
						return nil, err
					}
				}
			}
			if acc, err = op(fn, acc, a); err != nil {
				return nil, err
			}
			if acc, err = withinPrecision(th, fn, acc, nil); err != nil {
				return nil, err
			}
		}
		return acc, nil
	}
}

func builtinMinus(th *Thread, args []Value) (Value, error) {
	if len(args) == 1 {
		if err := chargeArithmetic(th, Int(0), args[0], false); err != nil {
			return nil, err
		}
		return subNumbers("-", Int(0), args[0])
	}
	return foldNumbers("-", Int(0), subNumbers)(th, args)
}

// builtinDivide divides left to right. Where Clojure's quotient so far is
// exact (every argument before the divisor an integer, so a long or a
// ratio there) a divisor of integer zero throws ArithmeticException, as
// Clojure's does; a float anywhere before it makes the division IEEE 754's.
func builtinDivide(th *Thread, args []Value) (Value, error) {
	for _, a := range args {
		if _, ok := a.(*BigDec); ok {
			return divideDecimals(th, args)
		}
	}
	if len(args) == 1 {
		// (/ x) is Clojure's (/ 1 x) on a boxed x, whose divide throws for
		// any zero divisor, a float's too: (/ 0.0) throws, (/ 1 0.0) is ##Inf.
		if args[0] == Int(0) || args[0] == Float(0) {
			return nil, divideByZero("/")
		}
		return divNumbers("/", Int(1), args[0])
	}
	exact := true
	for i, a := range args {
		_, isInt := a.(Int)
		if i > 0 && exact && a == Int(0) {
			if _, err := numberArg("/", args[0]); err != nil {
				return nil, err
			}
			return nil, divideByZero("/")
		}
		exact = exact && isInt
	}
	return foldNumbers("/", Int(1), divNumbers)(th, args)
}

// divideDecimals is / of arguments of which one is a decimal: exact, as
// Java's BigDecimal divides, while the quotient so far is a decimal or an
// integer; a float among them makes the rest a float division.
func divideDecimals(th *Thread, args []Value) (Value, error) {
	if len(args) == 1 {
		args = []Value{Int(1), args[0]}
	}
	acc, err := numberArg("/", args[0])
	if err != nil {
		return nil, err
	}
	for _, a := range args[1:] {
		if _, err := numberArg("/", a); err != nil {
			return nil, err
		}
		if acc, err = divDecimals(th, acc, a); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// divisorFirst is quot, rem or mod as Clojure's Numbers computes them:
// a zero divisor throws ArithmeticException before the dividend is cast
// to a number, so (rem #{} 0) is a division by zero, not a type error.
func divisorFirst(fn string, op func(fn string, a, b Value) (Value, error)) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		if _, err := numberArg(fn, args[0]); err != nil && isZeroNumber(args[1]) {
			return nil, divideByZero(fn)
		}
		return op(fn, args[0], args[1])
	}
}

// isZeroNumber: v is a number equal to zero, of any kind.
func isZeroNumber(v Value) bool {
	switch d := v.(type) {
	case Int:
		return d == 0
	case Float:
		return d == 0
	case Float32:
		return d == 0
	case *BigInt:
		return d.n.Sign() == 0
	case *BigDec:
		return d.unscaled.Sign() == 0
	}
	return false
}

func builtinAbs(th *Thread, args []Value) (Value, error) {
	switch x := args[0].(type) {
	case Int:
		// Clojure's abs is Java's Math.abs, which leaves the one long
		// without a positive counterpart as it is.
		if x < 0 && x != math.MinInt64 {
			return -x, nil
		}
		return x, nil
	case Float:
		return Float(math.Abs(float64(x))), nil
	case Float32:
		return Float32(math.Abs(float64(x))), nil
	case *BigDec:
		if x.unscaled.Sign() >= 0 {
			return x, nil
		}
		return &BigDec{unscaled: new(big.Int).Neg(x.unscaled), scale: x.scale}, nil
	case *BigInt:
		if x.n.Sign() >= 0 {
			return x, nil
		}
		return &BigInt{n: new(big.Int).Abs(x.n), integer: x.integer}, nil
	}
	return numberArg("abs", args[0])
}

// extremum returns the argument that compares furthest in direction dir;
// a NaN argument makes the result NaN, as in Clojure.
func extremum(fn string, dir int) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		if _, ok := args[0].(NilType); ok && len(args) == 1 {
			return Nil, nil // Clojure's (max x) is x unchecked; a collection stays an error with a hint
		}
		best, err := numberArg(fn, args[0])
		if err != nil {
			return nil, err
		}
		nan := false
		for i, a := range args {
			if _, err := numberArg(fn, a); err != nil {
				return nil, err
			}
			c, ok := compareNumbers(a, best)
			if !ok {
				nan = true
				continue
			}
			// A tie goes to the later argument, as Clojure's (if (< x
			// y) x y) does: (min 1 1.0) is 1.0.
			if c == 0 {
				// Java's min and max order -0.0 below 0.0.
				c = signedZeroOrder(a, best)
			}
			if c*dir > 0 || c == 0 && i > 0 {
				best = a
			}
		}
		if nan {
			return Float(math.NaN()), nil
		}
		return best, nil
	}
}

// signedZeroOrder is -1 when a is -0.0 and b 0.0, 1 the other way round,
// else 0.
func signedZeroOrder(a, b Value) int {
	x, xf := a.(Float)
	y, yf := b.(Float)
	if !xf || !yf || x != 0 || y != 0 || math.Signbit(float64(x)) == math.Signbit(float64(y)) {
		return 0
	}
	if math.Signbit(float64(x)) {
		return -1
	}
	return 1
}

func rounding(fn string, f func(float64) float64) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		switch x := args[0].(type) {
		case Int:
			return x, nil
		case Float, Float32:
			v, _ := floatValue(x)
			return floatToInt(fn, f(v))
		}
		return numberArg(fn, args[0])
	}
}

// roundHalfUp rounds to the nearest integer with halves toward +infinity,
// as Java's Math.round: 2.5 gives 3 and -2.5 gives -2.
func roundHalfUp(x float64) float64 {
	r := math.Round(x) // halves away from zero
	if r-x == -0.5 {
		r++
	}
	return r
}

func builtinRound(th *Thread, args []Value) (Value, error) {
	if len(args) == 1 {
		return rounding("round", roundHalfUp)(th, args)
	}
	x, ok := asFloat(args[0])
	if !ok {
		return numberArg("round", args[0])
	}
	d, ok := args[1].(Int)
	if !ok || d < 0 || d > 15 {
		return nil, javaErrorf(typeError, noJavaClass, "round expected a number of digits from 0 to 15, got %s", describe(args[1]))
	}
	scale := math.Pow(10, float64(d))
	return Float(roundHalfUp(x*scale) / scale), nil
}

func toInteger(fn string) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		switch x := args[0].(type) {
		case Int:
			if fn == "int" && int64(int32(x)) != int64(x) {
				return nil, Errorf(arithmeticError, "int: %d does not fit in Java's 32-bit int", int64(x)).
					WithHint("use (long x): integers here are 64-bit").asJava("ArithmeticException", "integer overflow")
			}
			return x, nil
		case *BigDec:
			return decToInteger(fn, x)
		case *BigInt:
			bits := 64
			if fn == "int" {
				bits = 32
			}
			return bigToLong(fn, x, bits)
		case Float, Float32:
			f, _ := floatValue(x)
			if t := math.Trunc(f); fn == "int" && !math.IsInf(t, 0) && (t > math.MaxInt32 || t < math.MinInt32) {
				return nil, Errorf(executionError, "int: %s does not fit in Java's 32-bit int", formatFloat(f)).
					WithHint("use (long x): integers here are 64-bit").
					asJava("IllegalArgumentException", "Value out of range for int: "+formatFloat(f))
			}
			if math.IsNaN(f) {
				return Int(0), nil // Java's (long) of NaN, which RT.longCast lets through
			}
			v, err := floatToInt(fn, f)
			if e, ok := err.(*Error); ok {
				// Clojure's RT.longCast checks the range before the cast
				e.asJava("IllegalArgumentException", "Value out of range for "+fn+": "+shownFloat(f))
			}
			return v, err
		case String:
			// A character, which is a one-character string here: its
			// code, as (int \a) is 97 in Clojure. So (long "x") is 120
			// where Clojure, which tells the string from the character,
			// throws (docs/LANGUAGE.md). A digit could be the character
			// or a number to parse ((int "7") is an error in Clojure),
			// so it is refused rather than guessed.
			r, n := utf8.DecodeRuneInString(string(x))
			switch {
			case n == len(x) && r >= '0' && r <= '9':
				return nil, javaErrorf(typeError, noJavaClass, "%s of %q: a character here is a one-character string, so this could be the digit %c or its code %d", fn, string(x), r, r).
					WithHint("write (parse-long s) for the digit %c, and (+ 48 (parse-long s)) for its code %d; (- (int c) (int \\0)) is (parse-long c)", r, r)
			case n > 0 && n == len(x) && r != utf8.RuneError:
				return Int(r), nil
			}
		}
		// Clojure casts to Number: NullPointerException for nil,
		// ClassCastException for any other value.
		e := asNumberError(Errorf(typeError, "%s expected a number, got %s", fn, describe(args[0])), args[0])
		if _, ok := args[0].(String); ok {
			e = e.WithHint("parse strings with (parse-long s)").asJava(stringCast(fn))
		}
		return nil, e
	}
}

// toNarrowInteger is Clojure's short or byte: the number's long value
// (long's errors, named fn), refused as Clojure refuses it beyond
// [lo, hi]. Integers here are 64-bit, so the value is a long.
func toNarrowInteger(fn string, lo, hi int64) func(*Thread, []Value) (Value, error) {
	long := toInteger(fn)
	return func(th *Thread, args []Value) (Value, error) {
		if f, ok := floatValue(args[0]); ok && math.IsNaN(f) {
			// unlike long's, Clojure's short and byte casts refuse NaN
			return nil, Errorf(executionError, "%s cannot convert ##NaN to an integer", fn).
				WithHint("check with (NaN? x) before converting").
				asJava("IllegalArgumentException", "Value out of range for "+fn+": NaN")
		}
		v, err := long(th, args)
		if err != nil {
			return nil, err
		}
		if n := int64(v.(Int)); n < lo || n > hi {
			return nil, Errorf(executionError, "%s: %d is out of the range %d to %d", fn, n, lo, hi).
				WithHint("use (long x): integers here are 64-bit").
				asJava("IllegalArgumentException", fmt.Sprintf("Value out of range for %s: %d", fn, n))
		}
		return v, nil
	}
}

// builtinNum is Clojure's num: a number as it is, nil as nil; anything
// else is cast to Number, a ClassCastException.
func builtinNum(th *Thread, args []Value) (Value, error) {
	if args[0] == Nil {
		return Nil, nil // Java's cast of null to Number is null
	}
	return numberArg("num", args[0])
}

// stringCast is the exception Clojure's fn throws for a string: long,
// double and float cast it to a Number, int to a Character.
func stringCast(fn string) (class, message string) {
	to := "java.lang.Number"
	if fn == "int" {
		to = "java.lang.Character"
	}
	return "ClassCastException", "class java.lang.String cannot be cast to class " + to
}

func toDouble(fn string) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		if f, ok := asFloat(args[0]); ok {
			return Float(f), nil
		}
		return nil, notDouble(fn, args[0])
	}
}

// notDouble is the error of double or float given v, not a number.
func notDouble(fn string, v Value) *Error {
	e := asNumberError(Errorf(typeError, "%s expected a number, got %s", fn, describe(v)), v)
	if _, ok := v.(String); ok {
		e = e.WithHint("parse strings with (parse-double s)").asJava(stringCast(fn))
	}
	return e
}

// builtinFloat is Clojure's float: the number rounded to a 32-bit float,
// and, as Java's cast checks, an error beyond the 32-bit range (Infinity
// included) rather than a 32-bit infinity; NaN stays NaN.
func shownFloat(f float64) string {
	if math.IsInf(f, 0) {
		return javaNonFinite(f)
	}
	return formatFloat(f)
}

func builtinFloat(th *Thread, args []Value) (Value, error) {
	if x, ok := args[0].(Float32); ok {
		return x, nil
	}
	f, ok := asFloat(args[0])
	if !ok {
		return nil, notDouble("float", args[0])
	}
	if math.IsInf(f, 0) || math.Abs(f) > math.MaxFloat32 {
		return nil, Errorf(executionError, "float: %s is out of the 32-bit float range", shownFloat(f)).
			asJava("IllegalArgumentException", "Value out of range for float: "+shownFloat(f))
	}
	return Float32(f), nil
}

func floatFunc(fn string, f func(float64) float64) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		x, ok := asFloat(args[0])
		if !ok {
			return numberArg(fn, args[0])
		}
		return Float(f(x)), nil
	}
}

func builtinPow(th *Thread, args []Value) (Value, error) {
	x, ok1 := asFloat(args[0])
	y, ok2 := asFloat(args[1])
	if !ok1 || !ok2 {
		return nil, numberTypeError("pow", args[0], args[1])
	}
	return Float(javaPow(x, y)), nil
}

// maxExactPower is the largest integral exponent javaPow computes exactly:
// ten squarings of a 512-bit number, constant work.
const maxExactPower = 1024

// javaPow is x to the power y as Java's Math.pow gives it, which is what a
// program's expected answer was computed with. For an integral y, Java's
// result is the power correctly rounded, where Go's math.Pow rounds at
// every squaring and misses the last digit of (Math/pow 1.05 10) and of a
// third of cubes; the power is taken at 512 bits and rounded once. Other
// exponents are jvmPow's, e^(y log x) rounded once (jvmmath.go).
func javaPow(x, y float64) float64 {
	if y != math.Trunc(y) || math.Abs(y) > maxExactPower || x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return jvmPow(x, y)
	}
	n := int64(math.Abs(y))
	power := new(big.Float).SetPrec(512).SetInt64(1)
	square := new(big.Float).SetPrec(512).SetFloat64(x)
	for ; n > 0; n >>= 1 {
		if n&1 == 1 {
			power.Mul(power, square)
		}
		square.Mul(square, square)
	}
	if y < 0 {
		power.Quo(new(big.Float).SetPrec(512).SetInt64(1), power)
	}
	f, _ := power.Float64()
	return f
}

// The fast cases of two-integer arithmetic (binaryOp), false on overflow.
var (
	addInts = binaryOp{ints: func(x, y Int) (Value, bool) {
		s := x + y
		return intValue(s), !((y > 0 && s < x) || (y < 0 && s > x))
	}}
	subInts = binaryOp{ints: func(x, y Int) (Value, bool) {
		d := x - y
		return intValue(d), !((y > 0 && d > x) || (y < 0 && d < x))
	}}
	mulInts = binaryOp{ints: func(x, y Int) (Value, bool) {
		if x == 0 || y == 0 {
			return Int(0), true
		}
		p := x * y
		return intValue(p), p/y == x && !(x == -1 && y == math.MinInt64) && !(y == -1 && x == math.MinInt64)
	}}
)

// uncheckedBuiltins are Clojure's unchecked arithmetic on longs, which
// wraps around 64 bits where + and * throw: the hash functions models
// write ((unchecked-multiply h 31)) rely on it. On a float it is the
// float operation, as in Clojure. The 32-bit and narrowing forms are
// uncheckedIntBuiltins.
var uncheckedBuiltins = []*Builtin{
	uncheckedBinary("unchecked-add", addNumbers, func(a, b int64) int64 { return a + b }, func(a, b float64) float64 { return a + b }),
	uncheckedBinary("unchecked-subtract", subNumbers, func(a, b int64) int64 { return a - b }, func(a, b float64) float64 { return a - b }),
	uncheckedBinary("unchecked-multiply", mulNumbers, func(a, b int64) int64 { return a * b }, func(a, b float64) float64 { return a * b }),
	uncheckedUnary("unchecked-inc", func(x Value) (Value, error) { return addNumbers("unchecked-inc", x, Int(1)) }, func(a int64) int64 { return a + 1 }, func(a float64) float64 { return a + 1 }),
	uncheckedUnary("unchecked-dec", func(x Value) (Value, error) { return subNumbers("unchecked-dec", x, Int(1)) }, func(a int64) int64 { return a - 1 }, func(a float64) float64 { return a - 1 }),
	uncheckedUnary("unchecked-negate", func(x Value) (Value, error) { return subNumbers("unchecked-negate", Int(0), x) }, func(a int64) int64 { return -a }, func(a float64) float64 { return -a }),
}

// A big integer operand makes an unchecked operation Clojure's BigInt
// one (big), which cannot overflow.
func uncheckedBinary(name string, big func(fn string, a, b Value) (Value, error), ints func(a, b int64) int64, floats func(a, b float64) float64) *Builtin {
	return unlisted(&Builtin{Name: name, Sig: "(" + name + " x y)", Doc: "the long operation wrapping around 64 bits, or the float one", Category: "math",
		MinArgs: 2, MaxArgs: 2, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			x, xInt := args[0].(Int)
			y, yInt := args[1].(Int)
			if xInt && yInt {
				return Int(ints(int64(x), int64(y))), nil
			}
			if isBig(args[0], args[1]) || isBigDecOperand(args[0], args[1]) {
				if err := chargeArithmetic(th, args[0], args[1], name == "unchecked-multiply"); err != nil {
					return nil, err
				}
				return big(name, args[0], args[1])
			}
			a, ok1 := asFloat(args[0])
			b, ok2 := asFloat(args[1])
			if !ok1 || !ok2 {
				return nil, numberTypeError(name, args[0], args[1])
			}
			return Float(floats(a, b)), nil
		}})
}

// isBigDecOperand: a BigDecimal operand makes an unchecked operation
// Clojure's BigDecimal one, unless the other is a double.
func isBigDecOperand(a, b Value) bool {
	_, x := a.(*BigDec)
	_, y := b.(*BigDec)
	_, af := a.(Float)
	_, bf := b.(Float)
	return (x || y) && !af && !bf
}

func uncheckedUnary(name string, big func(x Value) (Value, error), ints func(a int64) int64, floats func(a float64) float64) *Builtin {
	return unlisted(&Builtin{Name: name, Sig: "(" + name + " x)", Doc: "the long operation wrapping around 64 bits, or the float one", Category: "math",
		MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			if x, ok := args[0].(Int); ok {
				return Int(ints(int64(x))), nil
			}
			switch args[0].(type) {
			case *BigInt, *BigDec:
				if err := chargeArithmetic(th, args[0], Int(1), false); err != nil {
					return nil, err
				}
				return big(args[0]) // Clojure's BigInt or BigDecimal operation
			}
			a, ok := asFloat(args[0])
			if !ok {
				return numberArg(name, args[0])
			}
			return Float(floats(a)), nil
		}})
}
