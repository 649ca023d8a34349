package lisp

import (
	"errors"
	"math"
)

// Numbers follow Clojure's default arithmetic: integers are 64-bit and an
// operation whose exact result does not fit is an arithmetic error (Clojure's
// +, - and * throw rather than wrap); an operation with a float operand is a
// float operation, and floats follow IEEE 754 (##Inf, ##NaN). Big integers
// (bigint.go) are Clojure's: +', -', *', inc' and dec' promote a long
// result that would overflow, and a big integer operand makes the result
// one. The one deliberate difference is "/", which always returns a float
// (spec 8.4).

// overflowError is Clojure's ArithmeticException "long overflow", which
// ex-message and .getMessage give.
func overflowError(fn string) *Error {
	fix := "use floats, e.g. (* 1.0 x)"
	switch fn {
	case "+", "-", "*", "inc", "dec":
		// Clojure's promoting counterpart gives a BigInt, as here.
		fix = "use " + fn + "', which gives a big integer where a long would overflow"
	}
	return Errorf(arithmeticError, "integer overflow in %s", fn).
		WithHint("the result does not fit in a 64-bit integer; %s", fix).
		asJava("ArithmeticException", "long overflow")
}

// Go boxes an integer into an interface without allocating only below
// 256; arithmetic results up to a few thousand (counts, sums of small
// fields, indexes) are common enough to keep boxed once, in boxedInts
// (numeric_boxed.go). The table is the binary's data rather than heap: a
// heap that small is collected at the runtime's 4 MB floor, and every byte
// live at rest brings the next collection closer.
const (
	minBoxedInt = -256
	maxBoxedInt = 4096
)

// intValue is x as a Value, without allocating for small integers.
func intValue(x Int) Value {
	if x >= minBoxedInt && x < maxBoxedInt {
		return boxedInts[x-minBoxedInt]
	}
	return x
}

// numberArg checks that v is a number.
func numberArg(fn string, v Value) (Value, error) {
	switch v.(type) {
	case Int, Float, Float32, *BigInt, *BigDec:
		return v, nil
	}
	e := asNumberError(Errorf(typeError, "%s expected a number, got %s", fn, describe(v)), v)
	switch v.(type) {
	case *Vector, *Set:
		switch fn {
		case "max", "min", "+", "-", "*", "/":
			e.WithHint("to use the items of a collection as the arguments, write (apply %s coll)", fn)
		}
	}
	return nil, e
}

// asFloat converts a number to float64; ok is false for non-numbers.
func asFloat(v Value) (float64, bool) {
	switch x := v.(type) {
	case Int:
		return float64(x), true
	case *BigInt:
		return bigFloat(x.n), true
	case *BigDec:
		return decFloat(x), true
	}
	return floatValue(v)
}

// floatValue is v's value when v is a float of either width.
func floatValue(v Value) (float64, bool) {
	switch v := v.(type) {
	case Float:
		return float64(v), true
	case Float32:
		return float64(v), true
	}
	return 0, false
}

func addNumbers(fn string, a, b Value) (Value, error) {
	if isDec(a, b) {
		if v, ok, err := decArith(fn, '+', a, b); ok {
			return v, err
		}
	}
	if isBig(a, b) {
		if v, ok, err := bigArith(nil, '+', a, b); ok {
			return v, err
		}
	}
	x, xi := a.(Int)
	y, yi := b.(Int)
	if xi && yi {
		s := x + y
		if (y > 0 && s < x) || (y < 0 && s > x) {
			return nil, overflowError(fn)
		}
		return intValue(s), nil
	}
	fa, ok1 := asFloat(a)
	fb, ok2 := asFloat(b)
	if !ok1 || !ok2 {
		return nil, numberTypeError(fn, a, b)
	}
	return Float(fa + fb), nil
}

func subNumbers(fn string, a, b Value) (Value, error) {
	if isDec(a, b) {
		if v, ok, err := decArith(fn, '-', a, b); ok {
			return v, err
		}
	}
	if isBig(a, b) {
		if v, ok, err := bigArith(nil, '-', a, b); ok {
			return v, err
		}
	}
	x, xi := a.(Int)
	y, yi := b.(Int)
	if xi && yi {
		d := x - y
		if (y > 0 && d > x) || (y < 0 && d < x) {
			return nil, overflowError(fn)
		}
		return intValue(d), nil
	}
	fa, ok1 := asFloat(a)
	fb, ok2 := asFloat(b)
	if !ok1 || !ok2 {
		return nil, numberTypeError(fn, a, b)
	}
	return Float(fa - fb), nil
}

func mulNumbers(fn string, a, b Value) (Value, error) {
	if isDec(a, b) {
		if v, ok, err := decArith(fn, '*', a, b); ok {
			return v, err
		}
	}
	if isBig(a, b) {
		if v, ok, err := bigArith(nil, '*', a, b); ok {
			return v, err
		}
	}
	x, xi := a.(Int)
	y, yi := b.(Int)
	if xi && yi {
		if x == 0 || y == 0 {
			return Int(0), nil
		}
		p := x * y
		if p/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
			return nil, overflowError(fn)
		}
		return intValue(p), nil
	}
	fa, ok1 := asFloat(a)
	fb, ok2 := asFloat(b)
	if !ok1 || !ok2 {
		return nil, numberTypeError(fn, a, b)
	}
	return Float(fa * fb), nil
}

// divNumbers is "/": always a float, so that (/ 10 4) is 2.5 and a float
// division by zero gives ##Inf, ##-Inf or ##NaN as IEEE 754 says (spec 8.4).
// builtinDivide refuses an integer divided by integer zero first, as Clojure.
func divNumbers(fn string, a, b Value) (Value, error) {
	fa, ok1 := asFloat(a)
	fb, ok2 := asFloat(b)
	if !ok1 || !ok2 {
		return nil, numberTypeError(fn, a, b)
	}
	return Float(fa / fb), nil
}

// numberTypeError names the operand that is not a number.
func numberTypeError(fn string, a, b Value) *Error {
	bad := a
	if _, ok := asFloat(a); ok {
		bad = b
	}
	e := asNumberError(Errorf(typeError, "%s expected a number, got %s", fn, describe(bad)), bad)
	if _, isNil := bad.(NilType); isNil {
		e = e.WithHint("a value is nil; check for missing keys, or give a default with (or x 0) or (fnil f 0)")
	} else if _, isStr := bad.(String); isStr {
		e = e.WithHint("convert strings first with parse-long or parse-double")
	}
	return e
}

// asNumberError gives e, a number function's refusal of v, the class
// Clojure throws, so that a catch of another class does not take it:
// NullPointerException for nil, ClassCastException for any other value.
func asNumberError(e *Error, v Value) *Error {
	if _, isNil := v.(NilType); isNil {
		return e.asJava("NullPointerException", `Cannot invoke "Object.getClass()" because "x" is null`)
	}
	return e.asJava("ClassCastException", javaCastMessage(javaValueClass(v), "java.lang.Number"))
}

// integerArgs checks that both operands of quot, rem or mod are numbers and
// reports whether both are integers.
func integerArgs(fn string, a, b Value) (x, y Int, ints bool, err error) {
	if _, err := numberArg(fn, a); err != nil {
		return 0, 0, false, err
	}
	if _, err := numberArg(fn, b); err != nil {
		return 0, 0, false, err
	}
	x, xi := a.(Int)
	y, yi := b.(Int)
	return x, y, xi && yi, nil
}

func divideByZero(fn string) *Error {
	return Errorf(arithmeticError, "%s: divide by zero", fn).
		WithHint("check the divisor first, e.g. (if (zero? d) 0 (%s n d))", fn).
		asJava("ArithmeticException", "Divide by zero")
}

// quotNumbers truncates toward zero, as Clojure's quot.
func quotNumbers(fn string, a, b Value) (Value, error) {
	x, y, ints, err := integerArgs(fn, a, b)
	if err != nil {
		return nil, err
	}
	if isDec(a, b) {
		if v, ok, err := decQuotient(fn, a, b); ok {
			return v, err
		}
	}
	if isBig(a, b) {
		if _, ok := bigOf(a); ok {
			if _, ok := bigOf(b); ok {
				return bigDivision(fn, a, b)
			}
		}
	}
	if ints {
		if y == 0 {
			return nil, divideByZero(fn)
		}
		if x == math.MinInt64 && y == -1 {
			return x, nil // Java's long division wraps, and Clojure's quot is it
		}
		return x / y, nil
	}
	fa, _ := asFloat(a)
	fb, _ := asFloat(b)
	if fb == 0 {
		return nil, divideByZero(fn)
	}
	if err := quotientOutOfLongs(fn, fa/fb); err != nil {
		return nil, err
	}
	return Float(math.Trunc(fa / fb)), nil
}

// quotientOutOfLongs is Clojure's failure for a float quotient of NaN or
// an infinity: its quot and rem truncate one beyond a long's range
// through (BigDecimal. q), which has none.
func quotientOutOfLongs(fn string, q float64) error {
	if math.IsNaN(q) || math.IsInf(q, 0) {
		return Errorf(arithmeticError, "%s of a quotient of %s: it has no integer part", fn, formatFloat(q)).
			asJava("NumberFormatException", "Infinite or NaN")
	}
	return nil
}

// remNumbers has the sign of the dividend, as Clojure's rem.
func remNumbers(fn string, a, b Value) (Value, error) {
	x, y, ints, err := integerArgs(fn, a, b)
	if err != nil {
		return nil, err
	}
	if isDec(a, b) {
		if v, ok, err := decQuotient(fn, a, b); ok {
			return v, err
		}
	}
	if isBig(a, b) {
		if _, ok := bigOf(a); ok {
			if _, ok := bigOf(b); ok {
				return bigDivision(fn, a, b)
			}
		}
	}
	if ints {
		if y == 0 {
			return nil, divideByZero(fn)
		}
		if y == -1 {
			return Int(0), nil
		}
		return x % y, nil
	}
	fa, _ := asFloat(a)
	fb, _ := asFloat(b)
	if fb == 0 {
		return nil, divideByZero(fn)
	}
	if err := quotientOutOfLongs(fn, fa/fb); err != nil {
		return nil, err
	}
	return Float(math.Mod(fa, fb)), nil
}

// modNumbers has the sign of the divisor (floored division), as Clojure's mod.
func modNumbers(fn string, a, b Value) (Value, error) {
	x, y, ints, err := integerArgs(fn, a, b)
	if err != nil {
		return nil, err
	}
	if isDec(a, b) {
		if v, ok, err := decQuotient(fn, a, b); ok {
			return v, err
		}
	}
	if isBig(a, b) {
		if _, ok := bigOf(a); ok {
			if _, ok := bigOf(b); ok {
				return bigDivision(fn, a, b)
			}
		}
	}
	if ints {
		if y == 0 {
			return nil, divideByZero(fn)
		}
		if y == -1 {
			return Int(0), nil
		}
		m := x % y
		if m != 0 && (m < 0) != (y < 0) {
			m += y
		}
		return m, nil
	}
	fa, _ := asFloat(a)
	fb, _ := asFloat(b)
	if fb == 0 {
		return nil, divideByZero(fn)
	}
	if err := quotientOutOfLongs(fn, fa/fb); err != nil {
		return nil, err // Clojure's mod is its rem's
	}
	m := math.Mod(fa, fb)
	if m != 0 && (m < 0) != (fb < 0) {
		m += fb
	}
	return Float(m), nil
}

// floatToInt converts a float to an integer by truncation; infinities, NaN
// and values beyond the 64-bit range are arithmetic errors (spec 8.4),
// whose class the callers name (see nonFiniteToInteger).
func floatToInt(fn string, f float64) (Value, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, nonFiniteToInteger(fn, f)
	}
	t := math.Trunc(f)
	if t >= 9.223372036854775807e18 || t < -9.223372036854775808e18 {
		return nil, javaErrorf(arithmeticError, noJavaClass, "%s: %s is out of the integer range", fn, formatFloat(f))
	}
	return Int(int64(t)), nil
}

// nonFiniteToInteger is the error of converting NaN or an infinity to an
// integer. It names no class: its callers name the one Clojure throws
// where Clojure throws one (long's IllegalArgumentException, bigint's
// NumberFormatException); Math/round saturates instead.
func nonFiniteToInteger(fn string, f float64) *Error {
	return javaErrorf(arithmeticError, noJavaClass, "%s cannot convert %s to an integer", fn, formatFloat(f)).
		WithHint("check with (NaN? x) or (infinite? x) before converting")
}

// compareNumbers orders two numbers, integers and floats alike. ok is false
// when either is NaN, which is neither less, equal nor greater.
func compareNumbers(a, b Value) (c int, ok bool) {
	if isDec(a, b) {
		x, ok1 := decOf(a)
		y, ok2 := decOf(b)
		if ok1 && ok2 {
			return decCompare(x, y), true
		}
		return compareBig(a, b) // with a float, as doubles, as Clojure compares them
	}
	if isBig(a, b) {
		return compareBig(a, b)
	}
	if x, xi := a.(Int); xi {
		if y, yi := b.(Int); yi {
			switch {
			case x < y:
				return -1, true
			case x > y:
				return 1, true
			}
			return 0, true
		}
	}
	fa, _ := asFloat(a)
	fb, _ := asFloat(b)
	switch {
	case fa < fb:
		return -1, true
	case fa > fb:
		return 1, true
	case fa == fb:
		return 0, true
	}
	return 0, false
}

// divDecimals is / with a decimal operand: Java's exact division of two
// decimals, or of a decimal and an integer (at th's with-precision when
// it has one); with a float, a float.
func divDecimals(th *Thread, a, b Value) (Value, error) {
	x, ok1 := decOf(a)
	y, ok2 := decOf(b)
	if !ok1 || !ok2 {
		return divNumbers("/", a, b)
	}
	if y.unscaled.Sign() == 0 {
		return nil, divideByZero("/")
	}
	if err := decWork(th, a, b, true); err != nil {
		return nil, err
	}
	if err := precisionWork(th, th.mathContext()); err != nil {
		return nil, err
	}
	return decDivide("/", x, y, th.mathContext())
}

// primitiveLongDivision reports whether (quot a b) or (rem a b) has two
// integer literals, which Clojure compiles to Java's long division on
// primitives: its ArithmeticException says "/ by zero", where the boxed
// arithmetic every other call reaches says "Divide by zero".
func primitiveLongDivision(b *Builtin, args []node) bool {
	if (b.Name != "quot" && b.Name != "rem") || len(args) != 2 {
		return false
	}
	for _, a := range args {
		k, ok := a.(*constNode)
		if !ok {
			return false
		}
		if _, ok := k.v.(Int); !ok {
			return false
		}
	}
	return true
}

// primitiveDivNode is a (quot a b) or (rem a b) of two integer literals
// (primitiveLongDivision), whose division by zero has Java's message.
type primitiveDivNode struct{ inner node }

func (n *primitiveDivNode) eval(th *Thread, fr *frame) (Value, error) {
	v, err := n.inner.eval(th, fr)
	var e *Error
	if errors.As(err, &e) && e.class == "ArithmeticException" && e.javaMessage == "Divide by zero" {
		e.javaMessage = "/ by zero"
	}
	return v, err
}
