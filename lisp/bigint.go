package lisp

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// BigInt is an integer of any size, as Clojure's: clojure.lang.BigInt,
// which the reader makes of 123N and of an integer literal too large for
// 64 bits, bigint makes, and +', -', *', inc' and dec' make when a long
// result would overflow; or java.math.BigInteger, which biginteger makes
// and which prints without the N. Arithmetic mixing one with an integer
// gives a BigInt (Clojure's contagion), with a float a float. A BigInt
// equals the Int of the same value (= 1 1N), hashes as it and finds the
// same map key, as in Clojure.
//
// The big.Int is never written once the value is built: values are
// immutable and shared between evaluations.
type BigInt struct {
	n       *big.Int
	integer bool // java.math.BigInteger rather than clojure.lang.BigInt
}

func (*BigInt) TypeName() string { return "integer" }

func (*BigInt) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v *BigInt) writeText(p *printer, _ int)          { p.scalar(v, p.mode == modeSource) }
func (v *BigInt) heapShape() int64                     { return bigShape(len(v.n.Bits())) }

// bigShape is a big integer of n words: its header, the big.Int's and its
// words.
func bigShape(words int) int64 { return heapBigHead + heapWord*int64(words) }

// newBig is x as a clojure.lang.BigInt; x must not be written afterwards.
func newBig(x *big.Int) *BigInt { return &BigInt{n: x} }

// bigOf is an integer value as a big.Int (shared, not to be written); ok
// is false for anything else.
func bigOf(v Value) (*big.Int, bool) {
	switch v := v.(type) {
	case Int:
		return big.NewInt(int64(v)), true
	case *BigInt:
		return v.n, true
	}
	return nil, false
}

// bigTextSteps is the steps charged for writing n in decimal, before it
// is written: the conversion is superlinear (math/big divides by powers
// of ten recursively), 4-6 ns a digit up to 1,000 digits, 25-33 at 38,000,
// 55-65 at 300,000, about 4 + sqrt(digits)/10 ns a digit, charged at one
// step per 64 ns as extendedPrecision is. Charged by its bytes alone, a
// loop printing a 38,000-digit integer took 0.2 s of CPU to the memory
// limit. Integers under bigTextFree bits cost less than their bytes'
// charge and are not charged again.
func bigTextSteps(n *big.Int) int64 {
	if n.BitLen() < bigTextFree {
		return 0
	}
	return digitsTextSteps(int64(n.BitLen())*30103/100000 + 1)
}

// digitsTextSteps is bigTextSteps of a number of that many digits.
func digitsTextSteps(digits int64) int64 {
	if digits < bigTextFree*30103/100000 {
		return 0
	}
	return digits * (40 + int64(math.Sqrt(float64(digits)))) / 640
}

const bigTextFree = 1024

// chargeBigText charges th, when not nil, for writing n in decimal.
func chargeBigText(th *Thread, n *big.Int) error {
	if th == nil {
		return nil
	}
	return th.stepAtOnce(bigTextSteps(n))
}

// chargeDigitsText charges th, when not nil, for writing a number of
// that many decimal digits (a decimal's plain text, its zeros included).
func chargeDigitsText(th *Thread, digits int64) error {
	if th == nil {
		return nil
	}
	return th.stepAtOnce(digitsTextSteps(digits))
}

// chargeNumberText charges th, when not nil, for writing v in decimal
// when it is a big integer or decimal; other values cost their bytes.
func chargeNumberText(th *Thread, v Value) error {
	switch v := v.(type) {
	case *BigInt:
		return chargeBigText(th, v.n)
	case *BigDec:
		return chargeBigText(th, v.unscaled)
	}
	return nil
}

// numberTextAtLeast is a lower bound on the length of v's decimal text
// when v is a big integer or decimal (its digits: at least 0.30102 a bit
// past the first), known without converting it; 0 for anything else.
func numberTextAtLeast(v Value) int64 {
	var n *big.Int
	switch v := v.(type) {
	case *BigInt:
		n = v.n
	case *BigDec:
		n = v.unscaled
	default:
		return 0
	}
	return int64(max(n.BitLen()-1, 0))*30102/100000 + 1
}

// shownDigits is the text of n for a message: its digits when it is
// short enough that writing them costs less than their bytes
// (bigTextFree), else its size ("an integer of 100000 digits"): a
// message is built without a charge, and the conversion of a long number
// outgrows its text.
func shownDigits(n *big.Int) string {
	if n.BitLen() < bigTextFree {
		return n.String()
	}
	return "an integer of " + strconv.FormatInt(numberTextAtLeast(&BigInt{n: n}), 10) + " digits or more"
}

// isBigNumber reports whether v is a big integer or decimal, whose text
// is charged by bigTextSteps.
func isBigNumber(v Value) bool {
	switch v.(type) {
	case *BigInt, *BigDec:
		return true
	}
	return false
}

// appendBigText appends v's digits, and the N of a clojure.lang.BigInt
// when withN: pr and EDN write it, str does not.
func appendBigText(buf []byte, v *BigInt, withN bool) []byte {
	buf = v.n.Append(buf, 10)
	if withN && !v.integer {
		buf = append(buf, 'N')
	}
	return buf
}

// appendBigScalar appends v as pr writes it (a BigInteger's digits read
// back as a BigInt), or as source that makes it again.
func appendBigScalar(buf []byte, v *BigInt, source bool) []byte {
	if source && v.integer {
		return append(appendBigText(append(buf, "(biginteger "...), v, false), ')')
	}
	return appendBigText(buf, v, true)
}

// bigTextLen is the length of v's digits and sign, for sizing its text
// before it is written: about 0.302 digits per bit, rounded up.
func bigTextLen(v *BigInt) int {
	return v.n.BitLen()*30103/100000 + 2
}

// bigKey is the hash key of a big integer outside the 64-bit range
// (hashKey): its sign and magnitude, apart from strings and collection texts. Within
// the range its key is the Int's, so that 1N finds the key 1.
type bigKey string

func bigHashKey(v *BigInt) any {
	if v.n.IsInt64() {
		return Int(v.n.Int64())
	}
	// Its sign and magnitude's bytes, not its decimal digits: writing
	// those is superlinear in its size (bigTextSteps), and hashing is
	// charged as linear.
	sign := "+"
	if v.n.Sign() < 0 {
		sign = "-"
	}
	return bigKey(sign + string(v.n.Bytes()))
}

// bigHasheq is Clojure's hash of a big integer: a long's within the
// 64-bit range (BigInt.hasheq, Numbers.hasheq for BigInteger), else
// java.math.BigInteger's hashCode.
func bigHasheq(v *BigInt) uint32 {
	if v.n.IsInt64() {
		return murmurHashLong(v.n.Int64())
	}
	return bigHasheqWords(v)
}

// bigHasheqWords is java.math.BigInteger's hashCode: 31*h + each 32-bit
// word of the magnitude, most significant first, times the sign.
func bigHasheqWords(v *BigInt) uint32 {
	mag := v.n.Bytes() // big-endian
	var h uint32
	for len(mag)%4 != 0 {
		mag = append([]byte{0}, mag...)
	}
	for i := 0; i < len(mag); i += 4 {
		w := uint32(mag[i])<<24 | uint32(mag[i+1])<<16 | uint32(mag[i+2])<<8 | uint32(mag[i+3])
		h = 31*h + w
	}
	if v.n.Sign() < 0 {
		h = -h
	}
	return h
}

// bigWork is what an operation on big integers of a and b words costs in
// steps before it runs: addition is linear in the words, multiplication
// and division their product (schoolbook; the Go runtime's Karatsuba is
// cheaper above a few dozen words, so the charge is an upper bound), and
// the result is allocated as well.
func bigWork(th *Thread, a, b *big.Int, product bool) error {
	if th == nil {
		return nil
	}
	return bigWorkWords(th, int64(len(a.Bits())), int64(len(b.Bits())), product)
}

// bigWorkWords is bigWork of numbers of wa and wb words.
func bigWorkWords(th *Thread, wa, wb int64, product bool) error {
	steps := max(wa, wb)
	words := steps + 1
	if product {
		steps = wordProduct(wa, wb)
		words = wa + wb
	}
	if steps > 1 {
		if err := th.stepAtOnce(steps / 4); err != nil {
			return err
		}
	}
	if words > 1 {
		return th.alloc(bigShape(int(words)))
	}
	return nil
}

// wordProduct is wa × wb, saturating at maxCharge: the words of a power
// a program asks for (.pow of a large base by 2^31) multiply past int64.
func wordProduct(wa, wb int64) int64 {
	if wa > 0 && wb > maxCharge/wa {
		return maxCharge
	}
	return wa * wb
}

// promote is an operation's integer result: an Int when both operands
// were Ints and it fits (the promoting operators), else a BigInt.
func promote(r *big.Int, keepLong bool) Value {
	if keepLong && r.IsInt64() {
		return intValue(Int(r.Int64()))
	}
	return newBig(r)
}

// bigArith is a +, -, * on integers of which at least one is a BigInt,
// or an overflowing long operation of a promoting operator. promoting
// keeps a result that fits as a long when both were longs.
func bigArith(th *Thread, op byte, a, b Value) (Value, bool, error) {
	x, ok1 := bigOf(a)
	y, ok2 := bigOf(b)
	if !ok1 || !ok2 {
		return nil, false, nil
	}
	if err := bigWork(th, x, y, op == '*'); err != nil {
		return nil, true, err
	}
	r := new(big.Int)
	switch op {
	case '+':
		r.Add(x, y)
	case '-':
		r.Sub(x, y)
	case '*':
		r.Mul(x, y)
	}
	_, ai := a.(Int)
	_, bi := b.(Int)
	return promote(r, ai && bi), true, nil
}

// isBig reports whether either value is a big integer.
func isBig(a, b Value) bool {
	_, x := a.(*BigInt)
	_, y := b.(*BigInt)
	return x || y
}

// bigFloat is a big integer's nearest double, Infinity beyond its range,
// as Java's BigInteger.doubleValue.
//
// An integer of more than 1,024 bits is past the largest double whatever
// its other bits, and is answered from its sign alone: converting it
// copied every word, a number test of a 100,000-digit integer was 4 µs
// that one step paid for.
func bigFloat(x *big.Int) float64 {
	if x.BitLen() > 1024 {
		return math.Inf(x.Sign())
	}
	f, _ := new(big.Float).SetInt(x).Float64()
	return f
}

// bigLow64 is the low 64 bits of x in two's complement, read from its
// lowest word: narrowing a huge integer copies nothing.
func bigLow64(x *big.Int) uint64 {
	words := x.Bits()
	if len(words) == 0 {
		return 0
	}
	low := uint64(words[0])
	if x.Sign() < 0 {
		return -low // -m modulo 2^64 is -(m modulo 2^64)
	}
	return low
}

// bigScanWords is the words below which reading a big integer whole
// (hashing, comparing, dividing it by a small number) is the step of its
// call.
const bigScanWords = 8

// chargeBigScan charges reading x whole: a step per 4 words, as bigWork
// charges a sum. Hashing, comparing, converting and dividing a big
// integer read its words in a step, so that a loop over a 100,000-digit
// integer spent 2-10 µs of CPU a step.
func chargeBigScan(th *Thread, x *big.Int) error {
	if w := int64(len(x.Bits())); th != nil && w >= bigScanWords {
		return th.step(w / 4)
	}
	return nil
}

// bigDivision is quot, rem or mod of two integers of which one is a
// BigInt: a BigInt, as Clojure's.
func bigDivision(fn string, a, b Value) (Value, error) {
	x, _ := bigOf(a)
	y, _ := bigOf(b)
	if y.Sign() == 0 {
		return nil, divideByZero(fn)
	}
	q, r := new(big.Int).QuoRem(x, y, new(big.Int))
	switch fn {
	case "quot":
		return newBig(q), nil
	case "mod":
		if r.Sign() != 0 && r.Sign() != y.Sign() {
			r.Add(r, y)
		}
	}
	return newBig(r), nil
}

// compareBig orders two numbers of which one is a big integer and the
// other an integer or a float; ok is false for NaN.
func compareBig(a, b Value) (int, bool) {
	x, xi := bigOf(a)
	y, yi := bigOf(b)
	if xi && yi {
		return x.Cmp(y), true
	}
	fa, _ := asFloat(a)
	fb, _ := asFloat(b)
	if math.IsNaN(fa) || math.IsNaN(fb) {
		return 0, false
	}
	// Clojure compares a BigInt with a double as doubles.
	switch {
	case fa < fb:
		return -1, true
	case fa > fb:
		return 1, true
	}
	return 0, true
}

// bigFromFloat is the integer part of f, as Clojure's bigint does it:
// through BigDecimal.valueOf, the double's shortest decimal text.
func bigFromFloat(fn string, f float64) (*big.Int, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, nonFiniteToInteger(fn, f).asJava("NumberFormatException", "Infinite or NaN")
	}
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	if !ok {
		return nil, javaErrorf(arithmeticError, "NumberFormatException", "%s cannot convert %s to an integer", fn, formatFloat(f))
	}
	return new(big.Int).Quo(r.Num(), r.Denom()), nil
}

// maxBigDigits bounds the digits of a big integer read from text or
// parsed from a string: big.Int's parsing is quadratic in them.
const maxBigDigits = 100_000

// maxBigDigitsBits is the bit length of 10^maxBigDigits: a number of
// fewer bits has at most maxBigDigits digits, one of more has more.
const maxBigDigitsBits = 332_193

// numberTextReads reports whether the reader reads back the text v, a
// big integer or decimal, is written as: it reads at most maxBigDigits
// digits, and a decimal's exponent within Java's int. Arithmetic makes
// numbers past both (a radix-36 literal of 100,000 digits is 155,632
// decimal ones). A number's bit length decides all but those within a
// bit of the bound and decimals of extreme scale, whose text is written
// again to be checked; th, when not nil, is charged for that.
func numberTextReads(th *Thread, v Value) (bool, error) {
	switch v := v.(type) {
	case *BigInt:
		switch bits := v.n.BitLen(); {
		case bits < maxBigDigitsBits:
			return true, nil
		case bits > maxBigDigitsBits:
			return false, nil
		}
		if err := chargeNumberText(th, v); err != nil {
			return false, err
		}
		return len(new(big.Int).Abs(v.n).Text(10)) <= maxBigDigits, nil
	case *BigDec:
		// Plainly written, a decimal has up to six zeros before its
		// digits; in E notation its exponent is its digits less its
		// scale.
		const margin = 8
		bits := v.unscaled.BitLen()
		if bits < maxBigDigitsBits-4*margin && abs64(int64(v.scale)) < math.MaxInt32-maxBigDigits-margin {
			return true, nil
		}
		if err := chargeNumberText(th, v); err != nil {
			return false, err
		}
		_, _, ok := decParts(decText(v))
		return ok, nil
	}
	return true, nil
}

// bigParseSteps is what converting a decimal text of n digits to a big
// integer costs in steps: big.Int's conversion multiplies the words read
// so far by each next 19 digits, quadratic in the words. 100,000 digits
// take about 18 ms, as long as 550,000 steps of a loop, which this
// charges them.
func bigParseSteps(n int) int64 {
	words := int64(n/19 + 1)
	return words * words / 48
}

// parseBigDigits reads an optionally signed run of decimal digits.
func parseBigDigits(s string) (*big.Int, bool) {
	n, ok, _ := parseBigDigitsCharged(nil, s)
	return n, ok
}

// parseBigDigitsCharged is parseBigDigits charging th, when not nil, the
// conversion (bigParseSteps) of digits it reads; err is th's limit.
func parseBigDigitsCharged(th *Thread, s string) (*big.Int, bool, error) {
	digits := strings.TrimLeft(s, "+-")
	if len(s)-len(digits) > 1 || !lexDigits(digits) || len(digits) > maxBigDigits {
		return nil, false, nil
	}
	if th != nil {
		if err := th.stepAtOnce(bigParseSteps(len(digits))); err != nil {
			return nil, false, err
		}
	}
	n, ok := new(big.Int).SetString(s, 10)
	return n, ok, nil
}

// toBigInt is bigint or biginteger of v; th, when not nil, is charged
// the conversion of a string (bigParseSteps).
func toBigInt(th *Thread, fn string, v Value, integer bool) (Value, error) {
	var n *big.Int
	switch x := v.(type) {
	case Int:
		n = big.NewInt(int64(x))
	case *BigInt:
		if x.integer == integer {
			return x, nil
		}
		n = x.n
	case *BigDec:
		fn := "bigint"
		if integer {
			fn = "biginteger"
		}
		return decToInteger(fn, x)
	case Float, Float32:
		f, _ := floatValue(x)
		var err error
		if n, err = bigFromFloat(fn, f); err != nil {
			return nil, err
		}
	case String:
		var ok bool
		var err error
		if n, ok, err = parseBigDigitsCharged(th, string(x)); err != nil {
			return nil, err
		} else if !ok {
			return nil, Errorf(typeError, "%s: %q is not an integer", fn, string(x)).
				WithHint("the string must be decimal digits with an optional sign").
				asJava("NumberFormatException", "For input string: \""+string(x)+"\"")
		}
	default:
		// Clojure's bigint and biginteger end in the BigInteger
		// constructor, which reflection finds for no other value.
		return nil, javaErrorf(typeError, "NullPointerException", "%s expected a number, got %s", fn, describe(v)).notSeqable(v)
	}
	return &BigInt{n: n, integer: integer}, nil
}

// bigToLong is long or int of a big integer: Clojure's range error when it
// does not fit.
func bigToLong(fn string, x *BigInt, bits int) (Value, error) {
	if x.n.IsInt64() {
		n := x.n.Int64()
		if bits == 64 || (n >= math.MinInt32 && n <= math.MaxInt32) {
			return intValue(Int(n)), nil
		}
	}
	kind := "long"
	if bits == 32 {
		kind = "int"
	}
	return nil, Errorf(executionError, "%s: %s is out of the %d-bit range", fn, shownDigits(x.n), bits).
		WithHint("keep it as a big integer, or use (double x)").
		asJava("IllegalArgumentException", "Value out of range for "+kind+": "+shownDigits(x.n))
}

// bigWorkCharged documents the work on big integers that the body
// charges as it meets them (bigWork): their words, and for a product the
// product of the operands' words.
var bigWorkCharged = chargedInBody("the words of big integers, their product for * (bigWork)")

// bigParseCharged documents the conversion of a string's digits that the
// body charges (bigParseSteps): quadratic in its length.
var bigParseCharged = chargedInBody("the square of a string's digits, converted (bigParseSteps)")

// bigBuiltins are Clojure's promoting operators and big integer
// constructors.
var bigBuiltins = []*Builtin{
	unlisted(&Builtin{Name: "+'", Sig: "(+' x y ...)", Doc: "sum; a long result that would overflow is a big integer", Category: "math",
		MinArgs: 0, MaxArgs: variadic, Fn: foldNumbers("+'", Int(0), promoting('+', addNumbers)),
		Cost: cost(perArg(argsFrom(1)), bigWorkCharged)}),
	unlisted(&Builtin{Name: "-'", Sig: "(-' x y ...)", Doc: "difference; a long result that would overflow is a big integer", Category: "math",
		MinArgs: 1, MaxArgs: variadic, Fn: func(th *Thread, args []Value) (Value, error) {
			if len(args) == 1 {
				args = []Value{Int(0), args[0]}
			}
			return foldNumbers("-'", Int(0), promoting('-', subNumbers))(th, args)
		},
		Cost: cost(perArg(argsFrom(1)), bigWorkCharged)}),
	unlisted(&Builtin{Name: "*'", Sig: "(*' x y ...)", Doc: "product; a long result that would overflow is a big integer", Category: "math",
		MinArgs: 0, MaxArgs: variadic, Fn: foldNumbers("*'", Int(1), promoting('*', mulNumbers)),
		Cost: cost(perArg(argsFrom(1)), bigWorkCharged)}),
	unlisted(&Builtin{Name: "inc'", Sig: "(inc' x)", Doc: "x + 1; past the long range a big integer", Category: "math",
		MinArgs: 1, MaxArgs: 1, Fn: func(th *Thread, args []Value) (Value, error) {
			return promoting('+', addNumbers)("inc'", args[0], Int(1))
		},
		Cost: cost(arithmeticOn(allArgs, false))}),
	unlisted(&Builtin{Name: "dec'", Sig: "(dec' x)", Doc: "x - 1; past the long range a big integer", Category: "math",
		MinArgs: 1, MaxArgs: 1, Fn: func(th *Thread, args []Value) (Value, error) {
			return promoting('-', subNumbers)("dec'", args[0], Int(1))
		},
		Cost: cost(arithmeticOn(allArgs, false))}),
	unlisted(&Builtin{Name: "bigint", Sig: "(bigint x)", Doc: "x as a big integer (clojure.lang.BigInt, printed 5N); a float is truncated, a string parsed", Category: "math",
		MinArgs: 1, MaxArgs: 1, Fn: func(th *Thread, args []Value) (Value, error) { return toBigInt(th, "bigint", args[0], false) },
		Cost: cost(scans(allArgs), bigParseCharged, alignsDecimals(allArgs))}),
	unlisted(&Builtin{Name: "biginteger", Sig: "(biginteger x)", Doc: "x as a java.math.BigInteger, printed without N", Category: "math",
		MinArgs: 1, MaxArgs: 1, Fn: func(th *Thread, args []Value) (Value, error) { return toBigInt(th, "biginteger", args[0], true) },
		Cost: cost(scans(allArgs), bigParseCharged, alignsDecimals(allArgs))}),
}

// promoting is a promoting operator (+', -', *'): plain's operation, but
// two longs whose result overflows give a big integer. Two longs fail in
// plain only by overflowing.
func promoting(op byte, plain func(fn string, a, b Value) (Value, error)) func(fn string, a, b Value) (Value, error) {
	return func(fn string, a, b Value) (Value, error) {
		v, err := plain(fn, a, b)
		if err != nil {
			_, ai := a.(Int)
			_, bi := b.(Int)
			if ai && bi {
				v, _, err = bigArith(nil, op, a, b)
			}
		}
		return v, err
	}
}

// valueWeight is about the length of its text (weightOf), so that the
// bound on a value's size counts its digits.
func (v *BigInt) valueWeight() int64 { return int64(bigTextLen(v)) }

// chargeArithmetic charges a + (or, product, a *) of a and b done outside
// foldNumbers, as foldNumbers charges it: the words of big integers
// (bigWork) or of aligned decimals (decWork). inc, dec, their promoting
// and unchecked forms and negation called addNumbers directly, uncharged:
// inc' of a 100,000-digit integer was 15 µs for one step.
func chargeArithmetic(th *Thread, a, b Value, product bool) error {
	if isDec(a, b) {
		return decWork(th, a, b, product)
	}
	if !isBig(a, b) {
		return nil
	}
	x, ok1 := bigOf(a)
	y, ok2 := bigOf(b)
	if !ok1 || !ok2 {
		return nil
	}
	return bigWork(th, x, y, product)
}

// arithmeticOn is chargeArithmetic of the first selected argument and
// the second (1 when there is one).
func arithmeticOn(sel argSelector, product bool) costTerm {
	return costTerm{what: "the words of big integers and decimals, as + and * charge them", sel: sel, charge: func(th *Thread, vs []Value) error {
		if len(vs) == 0 {
			return nil
		}
		b := Value(Int(1))
		if len(vs) > 1 {
			b = vs[1]
		}
		return chargeArithmetic(th, vs[0], b, product)
	}}
}
