package lisp

import (
	"math"
	"math/big"
	"unicode/utf8"
)

// uncheckedIntBuiltins are Clojure's 32-bit unchecked arithmetic and its
// unchecked casts. They wrap where the checked forms throw, and programs
// that hash or emulate 32-bit machines rely on the wrap: (unchecked-
// multiply-int 100000 100000) is 1410065408, not 10000000000, so the
// checked builtin is no counterpart. The casts keep a number's low bits
// as Java's narrowing does; a float saturates at the target's range
// (NaN is 0), as Java's (int) and (long) of a double.
var uncheckedIntBuiltins = []*Builtin{
	uncheckedIntOp2("unchecked-add-int", func(a, b int32) (int32, error) { return a + b, nil }),
	uncheckedIntOp2("unchecked-subtract-int", func(a, b int32) (int32, error) { return a - b, nil }),
	uncheckedIntOp2("unchecked-multiply-int", func(a, b int32) (int32, error) { return a * b, nil }),
	uncheckedIntOp2("unchecked-divide-int", func(a, b int32) (int32, error) {
		if b == 0 {
			return 0, intDivideByZero("unchecked-divide-int")
		}
		if b == -1 {
			return -a, nil // Java's MIN_VALUE / -1 wraps to MIN_VALUE
		}
		return a / b, nil
	}),
	uncheckedIntOp2("unchecked-remainder-int", func(a, b int32) (int32, error) {
		if b == 0 {
			return 0, intDivideByZero("unchecked-remainder-int")
		}
		if b == -1 {
			return 0, nil
		}
		return a % b, nil
	}),
	uncheckedIntOp1("unchecked-inc-int", func(a int32) int32 { return a + 1 }),
	uncheckedIntOp1("unchecked-dec-int", func(a int32) int32 { return a - 1 }),
	uncheckedIntOp1("unchecked-negate-int", func(a int32) int32 { return -a }),
	uncheckedCast("unchecked-int", "the number's low 32 bits, or a character's code", func(x Value) (Value, error) {
		if f, ok := floatValue(x); ok {
			return Int(saturate(f, math.MinInt32, math.MaxInt32)), nil
		}
		if s, ok := x.(String); ok {
			// RT.uncheckedIntCast takes a Character's code
			r, n := utf8.DecodeRuneInString(string(s))
			if n > 0 && n == len(s) && r != utf8.RuneError {
				return Int(r), nil
			}
			return nil, typeErrorf("unchecked-int", "a number or a character", x).asJava(stringCast("int"))
		}
		low, err := lowBits("unchecked-int", x)
		return Int(int32(low)), err
	}),
	uncheckedCast("unchecked-long", "the number's low 64 bits", func(x Value) (Value, error) {
		if f, ok := floatValue(x); ok {
			return Int(saturate(f, math.MinInt64, math.MaxInt64)), nil
		}
		low, err := lowBits("unchecked-long", x)
		return Int(low), err
	}),
	uncheckedCast("unchecked-short", "the number's low 16 bits", func(x Value) (Value, error) {
		if f, ok := floatValue(x); ok {
			return Int(int16(saturate(f, math.MinInt32, math.MaxInt32))), nil
		}
		low, err := lowBits("unchecked-short", x)
		return Int(int16(low)), err
	}),
	uncheckedCast("unchecked-byte", "the number's low 8 bits", func(x Value) (Value, error) {
		if f, ok := floatValue(x); ok {
			return Int(int8(saturate(f, math.MinInt32, math.MaxInt32))), nil
		}
		low, err := lowBits("unchecked-byte", x)
		return Int(int8(low)), err
	}),
	uncheckedCast("unchecked-char", "the character whose code is the number's low 16 bits", func(x Value) (Value, error) {
		if s, ok := x.(String); ok && utf8.RuneCountInString(string(s)) == 1 {
			return s, nil
		}
		var code int64
		if f, ok := floatValue(x); ok {
			code = saturate(f, math.MinInt64, math.MaxInt64)
		} else {
			low, err := lowBits("unchecked-char", x)
			if err != nil {
				return nil, err
			}
			code = low
		}
		return builtinChar(nil, []Value{Int(uint16(code))})
	}),
	uncheckedCast("unchecked-double", "the number as a double", func(x Value) (Value, error) {
		return toDouble("unchecked-double")(nil, []Value{x})
	}),
	uncheckedCast("unchecked-float", "the number as a 32-bit float", func(x Value) (Value, error) {
		if _, err := numberArg("unchecked-float", x); err != nil {
			return nil, err
		}
		f, _ := asFloat(x)
		return Float32(float32(f)), nil // beyond float's range it is ##Inf, as Java's
	}),
}

// saturate is Java's narrowing of a double to an integer type of the range
// [lo, hi]: truncated, clamped at the bounds, NaN as 0.
func saturate(f float64, lo, hi int64) int64 {
	switch t := math.Trunc(f); {
	case math.IsNaN(f):
		return 0
	case t <= float64(lo):
		return lo
	case t >= float64(hi):
		return hi
	default:
		return int64(t)
	}
}

// lowBits is Java's Number.longValue of an integer or a decimal: its
// integer part's low 64 bits, two's complement. A character or anything
// else is Clojure's failed cast to Number.
func lowBits(fn string, x Value) (int64, error) {
	var n *big.Int
	switch v := x.(type) {
	case Int:
		return int64(v), nil
	case *BigInt:
		n = v.n
	case *BigDec:
		t, err := setScale(fn, v, 0, "DOWN")
		if err != nil {
			return 0, err
		}
		n = t.unscaled
	default:
		_, err := numberArg(fn, x)
		return 0, err
	}
	return int64(bigLow64(n)), nil
}

// intOperand is Clojure's cast of an argument of a 32-bit unchecked
// operation: the number's long value (a float truncated, NaN as 0), which
// must fit in 32 bits, as Clojure's ArithmeticException says. A float or
// an integer beyond a long's range fails the cast to long first, with
// Clojure's IllegalArgumentException.
func intOperand(fn string, x Value) (int32, error) {
	var n int64
	if f, ok := floatValue(x); ok {
		if f < math.MinInt64 || f > math.MaxInt64 {
			return 0, longOutOfRange(fn, x)
		}
		n = saturate(f, math.MinInt64, math.MaxInt64)
	} else {
		if b, ok := x.(*BigInt); ok && !b.n.IsInt64() {
			return 0, longOutOfRange(fn, x)
		}
		low, err := lowBits(fn, x)
		if err != nil {
			return 0, err
		}
		n = low
	}
	if n != int64(int32(n)) {
		return 0, intOverflow(fn, x)
	}
	return int32(n), nil
}

// longOutOfRange is intOverflow for a number beyond a long's range too,
// which Clojure's cast to long refuses first.
func longOutOfRange(fn string, x Value) *Error {
	return intOverflow(fn, x).asJava("IllegalArgumentException", "Value out of range for long: "+shown(x))
}

func intOverflow(fn string, x Value) *Error {
	return Errorf(arithmeticError, "%s: %s does not fit in Java's 32-bit int", fn, shown(x)).
		WithHint("the -int forms take 32-bit arguments; use unchecked-add, unchecked-multiply and friends for 64-bit ones").
		asJava("ArithmeticException", "integer overflow")
}

func intDivideByZero(fn string) *Error {
	return Errorf(arithmeticError, "%s: divide by zero", fn).asJava("ArithmeticException", "/ by zero")
}

func uncheckedIntOp2(name string, op func(a, b int32) (int32, error)) *Builtin {
	return unlisted(&Builtin{Name: name, Sig: "(" + name + " x y)", Doc: "the 32-bit int operation, wrapping around", Category: "math",
		MinArgs: 2, MaxArgs: 2, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			a, err := intOperand(name, args[0])
			if err != nil {
				return nil, err
			}
			b, err := intOperand(name, args[1])
			if err != nil {
				return nil, err
			}
			r, err := op(a, b)
			if err != nil {
				return nil, err
			}
			return Int(r), nil
		}})
}

func uncheckedIntOp1(name string, op func(a int32) int32) *Builtin {
	return unlisted(&Builtin{Name: name, Sig: "(" + name + " x)", Doc: "the 32-bit int operation, wrapping around", Category: "math",
		MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			a, err := intOperand(name, args[0])
			if err != nil {
				return nil, err
			}
			return Int(op(a)), nil
		}})
}

func uncheckedCast(name, doc string, cast func(x Value) (Value, error)) *Builtin {
	return unlisted(&Builtin{Name: name, Sig: "(" + name + " x)", Doc: doc + ", wrapping around as Java's cast", Category: "math",
		// A decimal is aligned to scale 0 first (lowBits), a power of ten
		// as long as its exponent: (unchecked-long 1E99999M) in a loop
		// reached the clock, one step a call.
		MinArgs: 1, MaxArgs: 1, Cost: cost(alignsDecimals(allArgs), builds), Fn: func(th *Thread, args []Value) (Value, error) {
			return cast(args[0])
		}})
}
