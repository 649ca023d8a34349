package lisp

import (
	"maps"
	"math"
	"math/big"
	"slices"
	"strings"
)

// The decimal builtins: bigdec, and the BigDecimal methods and statics
// models write for money, (.setScale x 2 RoundingMode/HALF_UP) and the
// like, as Java runs them.

// decWorkCharged documents the work on decimals charged as it is met:
// the words of their unscaled values, their product for a product or a
// quotient (decWork).
var decWorkCharged = chargedInBody("the words of decimals, their product for * and / (decWork)")

// decimalBuiltins are bigdec and BigDecimal's statics and constructor.
var decimalBuiltins = []*Builtin{
	unlisted(&Builtin{Name: "bigdec", Sig: "(bigdec x)", Doc: "x as an exact decimal (java.math.BigDecimal, printed 1.5M); a float by its shortest text, a string parsed", Category: "math",
		MinArgs: 1, MaxArgs: 1, Fn: func(th *Thread, args []Value) (Value, error) { return toBigDec("bigdec", args[0]) },
		Cost: cost(scans(allArgs))}),
	{Name: "BigDecimal/valueOf", Sig: "(BigDecimal/valueOf x) (BigDecimal/valueOf unscaled scale)", Doc: "a decimal of a long or of a double's shortest text; with a scale, unscaled × 10^-scale", Category: "idiom",
		reach: javaStatic, aliases: []string{"java.math.BigDecimal/valueOf"}, MinArgs: 1, MaxArgs: 2, Cost: cost(constant), Fn: decValueOf},
	{Name: "BigDecimal.", Sig: "(BigDecimal. x)", Doc: "a decimal of a string as Java reads it, of an integer, or of a double's exact binary value", Category: "idiom",
		reach: javaForm, aliases: []string{"java.math.BigDecimal."}, MinArgs: 1, MaxArgs: 1, Cost: cost(scans(allArgs)), Fn: decConstruct},
}

// decValueOf is BigDecimal/valueOf.
func decValueOf(th *Thread, args []Value) (Value, error) {
	const fn = "BigDecimal/valueOf"
	if len(args) == 2 {
		u, ok1 := args[0].(Int)
		s, ok2 := args[1].(Int)
		if !ok1 || !ok2 {
			return nil, typeErrorf(fn, "an integer unscaled value and scale", args[0])
		}
		return newDec(fn, big.NewInt(int64(u)), int64(s))
	}
	switch x := args[0].(type) {
	case Int:
		return &BigDec{unscaled: big.NewInt(int64(x))}, nil
	case Float, Float32:
		f, _ := asFloat(x)
		return decFromFloat(fn, f)
	}
	return nil, typeErrorf(fn, "a long or a double", args[0])
}

// decConstruct is (BigDecimal. x).
func decConstruct(th *Thread, args []Value) (Value, error) {
	const fn = "BigDecimal."
	switch x := args[0].(type) {
	case Float, Float32:
		f, _ := asFloat(x)
		return decExactFloat(fn, f)
	case String:
		return toBigDec(fn, x)
	case Int, *BigInt:
		d, _ := decOf(x)
		return d, nil
	}
	// Reflection finds no constructor for another value; for nil, Clojure
	// finds several and refuses to compile the call, which no catch takes:
	// that error names no class.
	e := typeErrorf(fn, "a string or a number", args[0]).notSeqable(args[0])
	if args[0] == Nil {
		e.asJava("", "")
	}
	return nil, e
}

// decimalConstants are BigDecimal's and RoundingMode's static fields. A
// rounding mode is its name, as str of it gives it.
func decimalConstants(m map[string]Value) {
	for _, prefix := range []string{"", "java.math."} {
		m[prefix+"BigDecimal/ZERO"] = &BigDec{unscaled: big.NewInt(0)}
		m[prefix+"BigDecimal/ONE"] = &BigDec{unscaled: big.NewInt(1)}
		m[prefix+"BigDecimal/TEN"] = &BigDec{unscaled: big.NewInt(10)}
		for i, mode := range roundingModes {
			m[prefix+"RoundingMode/"+mode] = String(mode)
			m[prefix+"BigDecimal/ROUND_"+mode] = Int(i) // Java's int constants, in the same order
		}
	}
}

// decMethod is a BigDecimal method on a decimal receiver, args[0].
type decMethod struct {
	minArgs, maxArgs int
	fn               func(th *Thread, d *BigDec, args []Value) (Value, error)
}

// decimalMethods are the BigDecimal methods, by name. A name another
// receiver has too (.abs of a Duration, .compareTo of a String) keeps
// that row, which gives a decimal receiver to the method here.
var decimalMethods = map[string]decMethod{
	".setScale": {2, 3, func(th *Thread, d *BigDec, args []Value) (Value, error) {
		scale, ok := args[1].(Int)
		if !ok {
			return nil, typeErrorf(".setScale", "an integer scale", args[1])
		}
		mode := roundingMode("UNNECESSARY")
		if len(args) == 3 {
			var err error
			if mode, err = modeOf(".setScale", args[2]); err != nil {
				return nil, err
			}
		}
		if err := decScaleWork(th, d, int64(scale)); err != nil {
			return nil, err
		}
		return setScale(".setScale", d, int64(scale), mode)
	}},
	".scale": {1, 1, func(th *Thread, d *BigDec, _ []Value) (Value, error) { return Int(d.scale), nil }},
	".precision": {1, 1, func(th *Thread, d *BigDec, args []Value) (Value, error) {
		// Counting the digits builds a power of ten as long as the
		// number, about the work of writing it in decimal (a few ms at
		// 100,000 digits): charged so, not as a scan.
		if err := chargeBigText(th, d.unscaled); err != nil {
			return nil, err
		}
		return Int(d.precision()), nil
	}},
	".signum": {1, 1, func(th *Thread, d *BigDec, _ []Value) (Value, error) { return Int(d.unscaled.Sign()), nil }},
	".unscaledValue": {1, 1, func(th *Thread, d *BigDec, _ []Value) (Value, error) {
		return &BigInt{n: d.unscaled, integer: true}, nil
	}},
	".stripTrailingZeros": {1, 1, func(th *Thread, d *BigDec, _ []Value) (Value, error) {
		if d.unscaled.Sign() != 0 && endsInZero(d.unscaled) {
			// Its zeros are counted in its digits, written in decimal.
			if err := chargeBigText(th, d.unscaled); err != nil {
				return nil, err
			}
		}
		return d.stripped(), nil
	}},
	".toPlainString": {1, 1, func(th *Thread, d *BigDec, _ []Value) (Value, error) {
		if err := decScaleWork(th, d, 0); err != nil {
			return nil, err
		}
		if err := chargeDigitsText(th, decPlainLen(d)); err != nil {
			return nil, err
		}
		s, err := plainDec(".toPlainString", d)
		if err != nil {
			return nil, err
		}
		if err := th.alloc(int64(len(s))); err != nil {
			return nil, err
		}
		return String(s), nil
	}},
	".negate": {1, 1, func(th *Thread, d *BigDec, _ []Value) (Value, error) {
		return &BigDec{unscaled: new(big.Int).Neg(d.unscaled), scale: d.scale}, nil
	}},
	".abs": {1, 1, func(th *Thread, d *BigDec, args []Value) (Value, error) { return builtinAbs(th, args) }},
	".add": {2, 2, func(th *Thread, d *BigDec, args []Value) (Value, error) {
		return decMethodArith(th, ".add", '+', d, args[1])
	}},
	".subtract": {2, 2, func(th *Thread, d *BigDec, args []Value) (Value, error) {
		return decMethodArith(th, ".subtract", '-', d, args[1])
	}},
	".multiply": {2, 2, func(th *Thread, d *BigDec, args []Value) (Value, error) {
		return decMethodArith(th, ".multiply", '*', d, args[1])
	}},
	".divide": {2, 4, decMethodDivide},
	".remainder": {2, 2, func(th *Thread, d *BigDec, args []Value) (Value, error) {
		y, ok := args[1].(*BigDec)
		if !ok {
			return nil, noMethod(".remainder", "a decimal divisor", args)
		}
		if y.unscaled.Sign() == 0 {
			return nil, Errorf(arithmeticError, ".remainder: divide by zero").asJava("ArithmeticException", "Division by zero")
		}
		if err := decWork(th, d, y, true); err != nil {
			return nil, err
		}
		v, _, err := decQuotient(".remainder", d, y)
		return v, err
	}},
	".compareTo": {2, 2, func(th *Thread, d *BigDec, args []Value) (Value, error) {
		y, ok := args[1].(*BigDec)
		if !ok {
			return nil, typeErrorf(".compareTo", "a decimal", args[1]).asJava("ClassCastException", "")
		}
		if err := decimalsWork(th, args, false); err != nil {
			return nil, err
		}
		return Int(decCompare(d, y)), nil
	}},
	".equals": {2, 2, func(th *Thread, d *BigDec, args []Value) (Value, error) {
		// Java's equals, unlike =, compares the scales too.
		y, ok := args[1].(*BigDec)
		return boolValue(ok && d.scale == y.scale && d.unscaled.Cmp(y.unscaled) == 0), nil
	}},
	".hashCode": {1, 1, func(th *Thread, d *BigDec, _ []Value) (Value, error) { return Int(int32(decHashCode(d))), nil }},
	".max": {2, 2, func(th *Thread, d *BigDec, args []Value) (Value, error) {
		if err := decimalsWork(th, args, false); err != nil {
			return nil, err
		}
		return decPick(".max", d, args[1], 1)
	}},
	".min": {2, 2, func(th *Thread, d *BigDec, args []Value) (Value, error) {
		if err := decimalsWork(th, args, false); err != nil {
			return nil, err
		}
		return decPick(".min", d, args[1], -1)
	}},
	".doubleValue": {1, 1, func(th *Thread, d *BigDec, _ []Value) (Value, error) {
		return Float(decFloat(d)), nil
	}},
	".longValue": {1, 1, func(th *Thread, d *BigDec, args []Value) (Value, error) {
		if err := decimalsWork(th, args, true); err != nil { // moving the point to 0
			return nil, err
		}
		t, err := setScale(".longValue", d, 0, "DOWN")
		if err != nil {
			return nil, err
		}
		return Int(t.unscaled.Int64()), nil // Java keeps the low 64 bits
	}},
	".intValue": {1, 1, func(th *Thread, d *BigDec, args []Value) (Value, error) {
		if err := decimalsWork(th, args, true); err != nil {
			return nil, err
		}
		t, err := setScale(".intValue", d, 0, "DOWN")
		if err != nil {
			return nil, err
		}
		return Int(int32(t.unscaled.Int64())), nil // and of an int the low 32
	}},
	".toBigInteger": {1, 1, func(th *Thread, d *BigDec, args []Value) (Value, error) {
		if err := decimalsWork(th, args, true); err != nil {
			return nil, err
		}
		return decToInteger("biginteger", d)
	}},
	".movePointLeft": {2, 2, func(th *Thread, d *BigDec, args []Value) (Value, error) {
		return decMovePoint(th, ".movePointLeft", d, args[1], 1)
	}},
	".movePointRight": {2, 2, func(th *Thread, d *BigDec, args []Value) (Value, error) {
		return decMovePoint(th, ".movePointRight", d, args[1], -1)
	}},
}

// decMethodArith is .add, .subtract or .multiply: the argument must be
// a decimal, as Java's methods take one.
func decMethodArith(th *Thread, fn string, op byte, d *BigDec, arg Value) (Value, error) {
	y, ok := arg.(*BigDec)
	if !ok {
		return nil, noMethod(fn, "a decimal argument", []Value{d, arg}).
			WithHint("convert it first: (%s x (bigdec y))", fn)
	}
	if err := decWork(th, d, y, op == '*'); err != nil {
		return nil, err
	}
	v, _, err := decArith(fn, op, d, y)
	return v, err
}

// decMethodDivide is .divide: exact with no more arguments, rounded to
// the receiver's scale by a mode, or to a scale by a mode.
func decMethodDivide(th *Thread, d *BigDec, args []Value) (Value, error) {
	const fn = ".divide"
	y, ok := args[1].(*BigDec)
	if !ok {
		return nil, noMethod(fn, "a decimal divisor", args).WithHint("convert it first: (.divide x (bigdec y))")
	}
	if y.unscaled.Sign() == 0 {
		msg := "Division by zero"
		if d.unscaled.Sign() == 0 {
			msg = "Division undefined"
		}
		return nil, Errorf(arithmeticError, "%s: divide by zero", fn).asJava("ArithmeticException", msg)
	}
	if err := decWork(th, d, y, true); err != nil {
		return nil, err
	}
	if len(args) == 2 {
		return decDivide(fn, d, y, nil)
	}
	scale, modeArg := int64(d.scale), args[2]
	if len(args) == 4 {
		s, ok := args[2].(Int)
		if !ok {
			return nil, typeErrorf(fn, "an integer scale", args[2])
		}
		scale, modeArg = int64(s), args[3]
	}
	mode, err := modeOf(fn, modeArg)
	if err != nil {
		return nil, err
	}
	q, _, err := quotientAtScale(fn, d, y, scale, mode)
	if err != nil {
		return nil, err
	}
	return newDec(fn, q, scale)
}

// decPick is .max or .min: the receiver when the two are equal.
func decPick(fn string, d *BigDec, arg Value, dir int) (Value, error) {
	y, ok := arg.(*BigDec)
	if !ok {
		return nil, typeErrorf(fn, "a decimal", arg)
	}
	if decCompare(y, d)*dir > 0 {
		return y, nil
	}
	return d, nil
}

// decMovePoint is .movePointLeft (dir 1) or .movePointRight (-1): the
// scale moved by n, never below 0, as Java's.
func decMovePoint(th *Thread, fn string, d *BigDec, arg Value, dir int64) (Value, error) {
	n, ok := arg.(Int)
	if !ok {
		return nil, typeErrorf(fn, "an integer", arg)
	}
	r, err := newDec(fn, d.unscaled, int64(d.scale)+dir*int64(n))
	if err == nil && r.scale < 0 {
		err = decScaleWork(th, r, 0)
	}
	if err != nil || r.scale >= 0 {
		return r, err
	}
	return setScale(fn, r, 0, "UNNECESSARY")
}

// withDecimalMethods is the sections with the BigDecimal methods added:
// a method row of the same name dispatches a decimal receiver to
// decimalMethods, and a name no row has gets a row of its own.
func withDecimalMethods(sections [][]*Builtin) [][]*Builtin {
	return receiverMethods{
		names: slices.Sorted(maps.Keys(decimalMethods)),
		want:  "a decimal receiver",
		arities: func(name string) (int, int, bool) {
			m, ok := decimalMethods[name]
			return m.minArgs, m.maxArgs, ok
		},
		call: func(th *Thread, name string, args []Value) (Value, bool, error) {
			d, ok := args[0].(*BigDec)
			if !ok {
				return nil, false, nil
			}
			v, err := callDecMethod(th, name, decimalMethods[name], d, args)
			return v, true, err
		},
		own: func(name string) *Builtin {
			m := decimalMethods[name]
			return &Builtin{Name: name, Sig: "(" + name + " decimal ...)", Doc: "the BigDecimal method, as Java's", Category: "idiom", reach: javaForm,
				MinArgs: m.minArgs, MaxArgs: m.maxArgs, Cost: cost(perArg(allArgs), decWorkCharged), Fn: func(th *Thread, args []Value) (Value, error) {
					d, ok := args[0].(*BigDec)
					if args[0] == Nil {
						return nil, nilReceiver(name)
					}
					if !ok {
						return nil, noMethod(name, "a decimal receiver", args).
							WithHint("%s is a method of BigDecimal: make one with (bigdec x)", name)
					}
					return callDecMethod(th, name, m, d, args)
				}}
		},
	}.splice(sections)
}

// callDecMethod runs a decimal method after checking its arity.
func callDecMethod(th *Thread, name string, m decMethod, d *BigDec, args []Value) (Value, error) {
	if len(args) < m.minArgs || len(args) > m.maxArgs {
		return nil, noMethod(name, "a decimal receiver", args)
	}
	// Every method reads its receiver whole at least once (hashCode,
	// signum's copy, a comparison), as BigInteger's do.
	if err := chargeBigScan(th, d.unscaled); err != nil {
		return nil, err
	}
	return m.fn(th, d, args)
}

// compileWithPrecision is Clojure's (with-precision n body...) and
// (with-precision n :rounding MODE body...): decimal arithmetic in the
// body, and in what it calls, rounds to n significant digits (half up
// unless MODE says otherwise), as Clojure's binding of *math-context*.
func compileWithPrecision(c *compiler, l *list, tail bool) (node, error) {
	if len(l.Elems) < 2 {
		return nil, c.errorf(validationError, "with-precision needs a precision").
			WithHint("write (with-precision 10 (/ a b)), or (with-precision 10 :rounding HALF_EVEN (/ a b))")
	}
	prec, err := c.compile(l.Elems[1], false)
	if err != nil {
		return nil, err
	}
	body, mode := l.Elems[2:], roundingMode("HALF_UP")
	if len(body) > 0 && body[0] == Keyword("rounding") {
		name, ok := optional(body, 1).(symbol)
		m, err := modeOf("with-precision", String(strings.TrimPrefix(strings.TrimPrefix(string(name), "java.math."), "RoundingMode/")))
		if !ok || err != nil {
			return nil, c.errorf(validationError, "with-precision :rounding takes a mode's name, got %s", formText(optional(body, 1))).
				WithHint("write :rounding HALF_UP, or one of UP, DOWN, CEILING, FLOOR, HALF_DOWN, HALF_EVEN, UNNECESSARY")
		}
		body, mode = body[2:], m
	}
	n, err := c.compileBody(body, false)
	if err != nil {
		return nil, err
	}
	return &withPrecisionNode{precision: prec, mode: mode, body: n}, nil
}

type withPrecisionNode struct {
	precision node
	mode      roundingMode
	body      node
}

func (n *withPrecisionNode) eval(th *Thread, fr *frame) (Value, error) {
	p, err := n.precision.eval(th, fr)
	if err != nil {
		return nil, err
	}
	digits, ok := p.(Int)
	if !ok || digits < 0 || digits > math.MaxInt32 {
		return nil, Errorf(typeError, "with-precision expected a precision of 0 or more digits, got %s", describe(p)).
			asJava("IllegalArgumentException", "Digits < 0")
	}
	saved := th.decimals
	th.decimals = &mathContext{precision: int64(digits), mode: n.mode}
	if digits == 0 {
		th.decimals = nil // MathContext of 0 digits: exact arithmetic
	}
	v, err := n.body.eval(th, fr)
	th.decimals = saved
	return v, err
}
