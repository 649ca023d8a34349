package lisp

import (
	"cmp"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// BigDec is an exact decimal, as Clojure's java.math.BigDecimal: an
// unscaled integer and a scale, its value unscaled × 10^-scale, so that
// 1.50M is 150 at scale 2. The reader makes one of 1.5M, bigdec and
// BigDecimal/valueOf make them, and arithmetic mixing one with an integer
// gives one (Clojure's contagion), with a float a float. = compares value
// and not scale ((= 1.5M 1.50M), as Clojure's =, unlike Java's .equals),
// and a decimal never equals an integer or a float ((= 1M 1) is false,
// (== 1M 1) true), as in Clojure.
//
// The big.Int is never written once the value is built: values are
// immutable and shared between evaluations.
type BigDec struct {
	unscaled *big.Int
	scale    int32 // Java's int scale
}

func (*BigDec) TypeName() string { return "decimal" }

func (*BigDec) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v *BigDec) writeText(p *printer, _ int)          { p.scalar(v, p.mode == modeSource) }
func (v *BigDec) heapShape() int64                     { return bigShape(len(v.unscaled.Bits())) + heapWord }

// valueWeight is about the length of its text (weightOf).
func (v *BigDec) valueWeight() int64 { return int64(decTextLen(v)) }

// maxDecDigits bounds the digits of a decimal that moving its point
// builds: a decimal of few digits may have a large exponent
// (1E+999999999M), and adding 1 to it, writing it in plain digits or
// rounding to a scale or a precision far from its own would otherwise
// build a number of that many digits, as Java would, slowly and without
// a charge that sees it coming. Products and quotients of long decimals
// are charged for their operands' words instead (decWork).
const maxDecDigits = maxBigDigits

// decDigitsError is the error of an operation whose result would have
// more than maxDecDigits digits.
func decDigitsError(fn string, digits int64) *Error {
	return Errorf(executionError, "%s: the decimal result would have %d digits, at most %d are built", fn, digits, maxDecDigits).
		WithHint("round it first with (.setScale x 2 java.math.RoundingMode/HALF_UP), or use (double x)").
		asJava("ArithmeticException", "Overflow")
}

// newDec is u × 10^-scale; u must not be written afterwards. A scale
// outside Java's int range is Java's ArithmeticException.
func newDec(fn string, u *big.Int, scale int64) (*BigDec, error) {
	if scale > math.MaxInt32 {
		return nil, Errorf(arithmeticError, "%s: the scale %d is beyond Java's int range", fn, scale).asJava("ArithmeticException", "Underflow")
	}
	if scale < math.MinInt32 {
		return nil, Errorf(arithmeticError, "%s: the scale %d is beyond Java's int range", fn, scale).asJava("ArithmeticException", "Overflow")
	}
	return &BigDec{unscaled: u, scale: int32(scale)}, nil
}

// decOf is a number as a decimal: an integer at scale 0, a decimal as it
// is; ok is false for floats and anything else.
func decOf(v Value) (*BigDec, bool) {
	switch x := v.(type) {
	case *BigDec:
		return x, true
	case Int:
		return &BigDec{unscaled: big.NewInt(int64(x))}, true
	case *BigInt:
		return &BigDec{unscaled: x.n}, true
	}
	return nil, false
}

// isDec reports whether either value is a decimal.
func isDec(a, b Value) bool {
	_, x := a.(*BigDec)
	_, y := b.(*BigDec)
	return x || y
}

var bigTen = big.NewInt(10)

// bigPow10 is 10^n, n ≥ 0.
func bigPow10(n int64) *big.Int {
	return new(big.Int).Exp(bigTen, big.NewInt(n), nil)
}

// digitCount is the number of decimal digits of |n|, 1 for 0.
func digitCount(n *big.Int) int64 {
	if n.IsUint64() || n.IsInt64() {
		u := n.Uint64()
		if n.Sign() < 0 {
			u = uint64(-n.Int64())
		}
		d := int64(1)
		for u >= 10 {
			u /= 10
			d++
		}
		return d
	}
	// |n| is at least 2^(bits-1), so it has at least 1 + floor((bits-1)
	// × log10 2) digits and at most one more; checked against the powers
	// of ten either side, which also mends the float's rounding.
	abs := new(big.Int).Abs(n)
	d := int64(float64(n.BitLen()-1)*math.Log10(2)) + 1
	if abs.Cmp(bigPow10(d)) >= 0 {
		d++
	} else if abs.Cmp(bigPow10(d-1)) < 0 {
		d--
	}
	return d
}

// precision is Java's BigDecimal.precision: the digits of the unscaled value.
func (v *BigDec) precision() int64 { return digitCount(v.unscaled) }

// adjusted is the exponent of the first digit: precision - scale - 1.
func (v *BigDec) adjusted() int64 { return v.precision() - int64(v.scale) - 1 }

// decText is Java's BigDecimal.toString: plain digits with a point at a
// scale ≥ 0 when the value is not below 1E-6, else the first digit, the
// rest after a point, and E and the exponent (1E+3, 1.0E+20, 1E-7).
func decText(v *BigDec) string {
	coeff := new(big.Int).Abs(v.unscaled).String()
	sign := ""
	if v.unscaled.Sign() < 0 {
		sign = "-"
	}
	scale := int64(v.scale)
	if scale == 0 {
		return sign + coeff
	}
	adjusted := int64(len(coeff)) - 1 - scale
	if scale > 0 && adjusted >= -6 {
		return sign + withPoint(coeff, scale)
	}
	var b strings.Builder
	b.WriteString(sign)
	b.WriteByte(coeff[0])
	if len(coeff) > 1 {
		b.WriteByte('.')
		b.WriteString(coeff[1:])
	}
	if adjusted != 0 {
		b.WriteByte('E')
		if adjusted > 0 {
			b.WriteByte('+')
		}
		b.WriteString(strconv.FormatInt(adjusted, 10))
	}
	return b.String()
}

// shownDec is decText of v for a message, or its size when its digits
// are long (shownDigits).
func shownDec(v *BigDec) string {
	if v.unscaled.BitLen() < bigTextFree {
		return decText(v)
	}
	return "a decimal of " + strconv.FormatInt(numberTextAtLeast(v), 10) + " digits or more"
}

// decPlainLen is the length of decPlain's text.
func decPlainLen(v *BigDec) int64 {
	p := v.precision()
	if v.scale <= 0 {
		return p - int64(v.scale) + 1
	}
	return max(p, int64(v.scale)+1) + 2
}

// plainDec is Java's toPlainString: the digits without an exponent,
// after checking their number.
func plainDec(fn string, v *BigDec) (string, error) {
	if n := decPlainLen(v); n > maxDecDigits {
		return "", decDigitsError(fn, n)
	}
	if v.scale > 0 {
		text := withPoint(new(big.Int).Abs(v.unscaled).String(), int64(v.scale))
		if v.unscaled.Sign() < 0 {
			text = "-" + text
		}
		return text, nil
	}
	return new(big.Int).Mul(v.unscaled, bigPow10(-int64(v.scale))).String(), nil
}

// withPoint is the digits of coeff with a point before the last scale
// of them (scale > 0), zeros put before them as needed: 0.05 for 5 at 2.
func withPoint(coeff string, scale int64) string {
	if pad := scale - int64(len(coeff)); pad >= 0 {
		return "0." + strings.Repeat("0", int(pad)) + coeff
	}
	point := int64(len(coeff)) - scale
	return coeff[:point] + "." + coeff[point:]
}

// decTextLen is about the length of decText's text.
func decTextLen(v *BigDec) int {
	return v.unscaled.BitLen()*30103/100000 + 16
}

// appendDecText appends v's text, with the M that pr and EDN write when
// withM; str writes it without.
func appendDecText(buf []byte, v *BigDec, withM bool) []byte {
	buf = append(buf, decText(v)...)
	if withM {
		buf = append(buf, 'M')
	}
	return buf
}

// stripped is Java's stripTrailingZeros: the least scale of the same
// value; zero is 0 at scale 0.
func (v *BigDec) stripped() *BigDec {
	if v.unscaled.Sign() == 0 {
		return &BigDec{unscaled: new(big.Int)}
	}
	if !endsInZero(v.unscaled) {
		return v // no zero to strip, found without writing its digits
	}
	text := v.unscaled.String()
	zeros := len(text) - len(strings.TrimRight(text, "0"))
	if zeros == 0 {
		return v
	}
	scale := int64(v.scale) - int64(zeros)
	if scale < math.MinInt32 {
		zeros -= int(math.MinInt32 - scale)
		scale = math.MinInt32
	}
	// Dividing by the power of ten, not reading the digits back: reading
	// decimal text is quadratic in its length, the division is not.
	u := new(big.Int).Quo(v.unscaled, bigPow10(int64(zeros)))
	return &BigDec{unscaled: u, scale: int32(scale)}
}

// endsInZero reports whether n's last decimal digit is 0, by its last bit
// and its remainder by 5 (linear in its words, where its digits are not).
func endsInZero(n *big.Int) bool {
	if n.Bit(0) != 0 {
		return false
	}
	var five, r big.Int
	five.SetInt64(5)
	return r.Rem(n, &five).Sign() == 0
}

// decKey is the hash key of a decimal: the text of its stripped value,
// apart from the keys of integers and floats, which a decimal never
// equals.
type decKey string

func decHashKey(v *BigDec) any { return decKey(decText(v.stripped())) }

// appendDecKey appends the text of a decimal within a collection's key.
func appendDecKey(buf []byte, v *BigDec) []byte {
	return append(append(buf, decText(v.stripped())...), 'M')
}

// decHasheq is Clojure's hash of a decimal (Numbers.hasheq): the
// hashCode of its stripped value, 0 for zero, so that 1.5M and 1.50M
// hash alike.
func decHasheq(v *BigDec) uint32 {
	if v.unscaled.Sign() == 0 {
		return 0
	}
	return decHashCode(v.stripped())
}

// decHashCode is Java's BigDecimal.hashCode: 31 × the unscaled value's
// hashCode + the scale.
func decHashCode(v *BigDec) uint32 {
	return 31*bigHasheqWords(&BigInt{n: v.unscaled}) + uint32(v.scale)
}

// alignedDecs are a and b at the greater of their scales, for adding,
// subtracting and comparing; an error when that would build more than
// maxDecDigits digits.
func alignedDecs(fn string, a, b *BigDec) (x, y *big.Int, scale int64, err error) {
	sa, sb := int64(a.scale), int64(b.scale)
	switch {
	case sa == sb:
		return a.unscaled, b.unscaled, sa, nil
	case sa < sb:
		if d := a.precision() + sb - sa; d > maxDecDigits && a.unscaled.Sign() != 0 {
			return nil, nil, 0, decDigitsError(fn, d)
		}
		return new(big.Int).Mul(a.unscaled, bigPow10(sb-sa)), b.unscaled, sb, nil
	}
	if d := b.precision() + sa - sb; d > maxDecDigits && b.unscaled.Sign() != 0 {
		return nil, nil, 0, decDigitsError(fn, d)
	}
	return a.unscaled, new(big.Int).Mul(b.unscaled, bigPow10(sa-sb)), sa, nil
}

// decCompare is Java's compareTo: by value, whatever the scales. Values
// whose first digits are in different places compare without aligning.
func decCompare(a, b *BigDec) int {
	sa, sb := a.unscaled.Sign(), b.unscaled.Sign()
	if sa != sb || sa == 0 {
		return cmp.Compare(sa, sb)
	}
	if ea, eb := a.adjusted(), b.adjusted(); ea != eb {
		if ea > eb {
			return sa
		}
		return -sa
	}
	// Same leading exponent: the aligned values differ in length by at
	// most the digits of the two.
	x, y, _, _ := alignedDecs("compare", a, b)
	return x.Cmp(y)
}

// decFloat is the double nearest a decimal, as Java's doubleValue;
// beyond the double range an infinity or a zero.
//
// It reads the decimal in time about linear in its digits, because a
// builtin that takes a double charges one step for converting its
// argument: the quotient u / 10^scale is taken to 55 bits or more
// (floatQuotient), not reduced as a fraction, which spent 10-50 µs on a
// 3,200-digit decimal.
func decFloat(v *BigDec) float64 {
	sign := v.unscaled.Sign()
	if sign == 0 {
		return 0
	}
	// The exponent of the first digit, from the bit length: the digits
	// are bitDigits or one more, so these bounds hold without counting
	// them (which takes a power of ten as long as the number).
	bitDigits := int64(float64(v.unscaled.BitLen()-1)*math.Log10(2)) + 1
	if bitDigits-int64(v.scale)-1 > 400 {
		return math.Inf(sign)
	} else if bitDigits-int64(v.scale) < -400 {
		return math.Copysign(0, float64(sign))
	}
	if v.scale <= 0 {
		f, _ := new(big.Float).SetInt(new(big.Int).Mul(v.unscaled, bigPow10(-int64(v.scale)))).Float64()
		return f
	}
	return floatQuotient(v.unscaled, bigPow10(int64(v.scale)))
}

// floatQuotient is the double nearest u / d (d > 0). The integer quotient
// of u × 2^k by d, with k chosen so that it has 55 bits or more, and one
// more bit set below it when the division is inexact, rounds as the exact
// quotient does: the set bit lies below the 54 bits rounding reads, and
// it keeps an inexact quotient off a halfway point.
func floatQuotient(u, d *big.Int) float64 {
	neg := u.Sign() < 0
	n := new(big.Int).Abs(u)
	k := 55 + d.BitLen() - n.BitLen()
	inexact := false
	if k >= 0 {
		n.Lsh(n, uint(k))
	} else {
		inexact = n.TrailingZeroBits() < uint(-k)
		n.Rsh(n, uint(-k))
	}
	q, r := n.QuoRem(n, d, new(big.Int))
	exp := -k
	if inexact || r.Sign() != 0 {
		q.Lsh(q, 1).SetBit(q, 0, 1)
		exp--
	}
	f := new(big.Float).SetInt(q)
	f.SetMantExp(f, exp)
	out, _ := f.Float64()
	if neg {
		return -out
	}
	return out
}

// decArith is +, - or * with a decimal operand and an integer or decimal
// other: an exact decimal, as Java's add, subtract and multiply. ok is
// false when the other is a float or not a number.
func decArith(fn string, op byte, a, b Value) (Value, bool, error) {
	x, ok1 := decOf(a)
	y, ok2 := decOf(b)
	if !ok1 || !ok2 {
		return nil, false, nil
	}
	if op == '*' {
		v, err := newDec(fn, new(big.Int).Mul(x.unscaled, y.unscaled), int64(x.scale)+int64(y.scale))
		return v, true, err
	}
	u, w, scale, err := alignedDecs(fn, x, y)
	if err != nil {
		return nil, true, err
	}
	r := new(big.Int)
	if op == '+' {
		r.Add(u, w)
	} else {
		r.Sub(u, w)
	}
	return &BigDec{unscaled: r, scale: int32(scale)}, true, nil
}

// decWork charges what an operation on two decimals costs before it
// runs, as bigWork does for big integers: the words of the aligned
// operands, their product for * and /.
func decWork(th *Thread, a, b Value, product bool) error {
	x, ok1 := decOf(a)
	y, ok2 := decOf(b)
	if th == nil || !ok1 || !ok2 {
		return nil
	}
	wa, wb := decWords(x), decWords(y)
	if !product {
		// Aligning the scales multiplies one by a power of ten.
		shift := int64(x.scale) - int64(y.scale)
		if shift > 0 {
			wb += digitWords(shift)
		} else {
			wa += digitWords(-shift)
		}
	}
	return bigWorkWords(th, wa, wb, product)
}

// decScaleWork charges moving d's point to scale: a product of its
// unscaled value and a power of ten of as many digits as the point moves.
func decScaleWork(th *Thread, d *BigDec, scale int64) error {
	if th == nil {
		return nil
	}
	return bigWorkWords(th, decWords(d), digitWords(abs64(scale-int64(d.scale))), true)
}

// precisionWork charges a quotient rounded to mc's precision: the
// quotient of that many digits, and its digits counted and stripped, as
// a product of its words with themselves (an upper bound).
func precisionWork(th *Thread, mc *mathContext) error {
	if th == nil || mc == nil {
		return nil
	}
	w := digitWords(mc.precision)
	return bigWorkWords(th, w, w, true)
}

// digitWords is the 64-bit words of a number of n decimal digits.
func digitWords(n int64) int64 { return n*10/3/64 + 1 }

// decWords is the 64-bit words of a decimal's unscaled value.
func decWords(v *BigDec) int64 { return int64(len(v.unscaled.Bits())) }

// roundingMode is one of java.math.RoundingMode's modes.
type roundingMode string

// roundingModes are java.math.RoundingMode's constants, and the int
// constants BigDecimal/ROUND_... of the same modes.
var roundingModes = []string{"UP", "DOWN", "CEILING", "FLOOR", "HALF_UP", "HALF_DOWN", "HALF_EVEN", "UNNECESSARY"}

// modeOf is a rounding mode an argument names: RoundingMode/HALF_UP
// (which is the string "HALF_UP" here) or BigDecimal/ROUND_HALF_UP
// (Java's int constant for it).
func modeOf(fn string, v Value) (roundingMode, error) {
	switch x := v.(type) {
	case String:
		for _, m := range roundingModes {
			if string(x) == m {
				return roundingMode(m), nil
			}
		}
	case Int:
		if x >= 0 && int(x) < len(roundingModes) {
			return roundingMode(roundingModes[x]), nil
		}
	}
	return "", javaErrorf(typeError, "IllegalArgumentException", "%s expected a rounding mode such as RoundingMode/HALF_UP, got %s", fn, describe(v)).
		WithHint("write java.math.RoundingMode/HALF_UP, or another of its modes: UP, DOWN, CEILING, FLOOR, HALF_DOWN, HALF_EVEN, UNNECESSARY")
}

// roundingNecessary is Java's error for a mode of UNNECESSARY when the
// value must be rounded.
func roundingNecessary(fn string) *Error {
	return Errorf(arithmeticError, "%s: the result must be rounded, and no rounding mode was given", fn).
		WithHint("give a rounding mode: (.setScale x 2 java.math.RoundingMode/HALF_UP)").
		asJava("ArithmeticException", "Rounding necessary")
}

// roundQuo is num / den rounded to an integer by mode, as Java's
// BigDecimal rounds: a truncated quotient moved one away from zero when
// the mode says so.
func roundQuo(fn string, num, den *big.Int, mode roundingMode) (*big.Int, error) {
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Sign() == 0 {
		return q, nil
	}
	sign := num.Sign() * den.Sign()
	half := new(big.Int).Abs(r)
	half.Lsh(half, 1)
	c := half.Cmp(new(big.Int).Abs(den)) // twice the remainder against the divisor
	var away bool
	switch mode {
	case "UP":
		away = true
	case "DOWN":
	case "CEILING":
		away = sign > 0
	case "FLOOR":
		away = sign < 0
	case "HALF_UP":
		away = c >= 0
	case "HALF_DOWN":
		away = c > 0
	case "HALF_EVEN":
		away = c > 0 || c == 0 && q.Bit(0) == 1
	default:
		return nil, roundingNecessary(fn)
	}
	if away {
		q.Add(q, big.NewInt(int64(sign)))
	}
	return q, nil
}

// setScale is Java's setScale: v at the scale given, rounded by mode
// when digits are dropped.
func setScale(fn string, v *BigDec, scale int64, mode roundingMode) (*BigDec, error) {
	cur := int64(v.scale)
	switch {
	case scale == cur:
		return v, nil
	case scale > cur:
		if d := v.precision() + scale - cur; d > maxDecDigits && v.unscaled.Sign() != 0 {
			return nil, decDigitsError(fn, d)
		}
		return newDec(fn, new(big.Int).Mul(v.unscaled, bigPow10(scale-cur)), scale)
	}
	// When every digit goes, the value rounds as a fraction below 0.1
	// of the last place kept, which dropping precision+1 digits gives.
	drop := min(cur-scale, v.precision()+1)
	q, err := roundQuo(fn, v.unscaled, bigPow10(drop), mode)
	if err != nil {
		return nil, err
	}
	return newDec(fn, q, scale)
}

// mathContext is Java's MathContext, which with-precision binds: the
// significant digits a result keeps and how it is rounded.
type mathContext struct {
	precision int64
	mode      roundingMode
}

// roundTo is v rounded to mc's precision (Java's round(mc)).
func roundTo(fn string, v *BigDec, mc *mathContext) (*BigDec, error) {
	if mc == nil || mc.precision == 0 {
		return v, nil
	}
	p := v.precision()
	if p <= mc.precision {
		return v, nil
	}
	r, err := setScale(fn, v, int64(v.scale)-(p-mc.precision), mc.mode)
	if err != nil {
		return nil, err
	}
	if r.precision() > mc.precision { // 9.99 to two digits carries to 10.0
		return setScale(fn, r, int64(r.scale)-1, mc.mode)
	}
	return r, nil
}

// nonTerminating is Java's error for an exact division whose quotient
// has no finite decimal expansion, such as (/ 1M 3).
func nonTerminating(fn string) *Error {
	return Errorf(arithmeticError, "%s: the quotient has no exact decimal expansion", fn).
		WithHint("round it: (with-precision 10 (/ a b)), or (.divide a b 2 java.math.RoundingMode/HALF_UP) for two decimals").
		asJava("ArithmeticException", "Non-terminating decimal expansion; no exact representable decimal result.")
}

// decDivide is Java's divide of a by b (b not zero): exact, at the least
// scale not below a's scale minus b's that holds the quotient, or an
// error when it has no finite expansion; with mc, rounded to its
// precision, trailing zeros dropped down to that scale.
func decDivide(fn string, a, b *BigDec, mc *mathContext) (*BigDec, error) {
	preferred := int64(a.scale) - int64(b.scale)
	if a.unscaled.Sign() == 0 {
		return newDec(fn, new(big.Int), max(min(preferred, math.MaxInt32), math.MinInt32))
	}
	if mc != nil && mc.precision > 0 {
		return decDivideRounded(fn, a, b, preferred, mc)
	}
	g := new(big.Int).GCD(nil, nil, new(big.Int).Abs(a.unscaled), new(big.Int).Abs(b.unscaled))
	n := new(big.Int).Quo(a.unscaled, g)
	d := new(big.Int).Quo(b.unscaled, g)
	if d.Sign() < 0 {
		n.Neg(n)
		d.Neg(d)
	}
	// d must be 2^i × 5^j; n/d is then n × 2^(k-i) × 5^(k-j) / 10^k.
	twos := int64(d.TrailingZeroBits())
	odd := new(big.Int).Rsh(d, uint(twos))
	fives := int64(0)
	if odd.Cmp(big.NewInt(1)) != 0 {
		fives = int64(float64(odd.BitLen()) / math.Log2(5))
		found := false
		for _, j := range []int64{fives - 1, fives, fives + 1} {
			if j > 0 && new(big.Int).Exp(big.NewInt(5), big.NewInt(j), nil).Cmp(odd) == 0 {
				fives, found = j, true
				break
			}
		}
		if !found {
			return nil, nonTerminating(fn)
		}
	}
	k := max(twos, fives)
	if k > maxDecDigits {
		return nil, decDigitsError(fn, k)
	}
	m := new(big.Int).Mul(n, new(big.Int).Lsh(big.NewInt(1), uint(k-twos)))
	m.Mul(m, new(big.Int).Exp(big.NewInt(5), big.NewInt(k-fives), nil))
	scale := preferred + k
	// Java divides at a precision of a's digits and 10/3 of b's: a
	// quotient of more significant digits is non-terminating to it.
	limit := a.precision() + int64(math.Ceil(10*float64(b.precision())/3))
	if s := (&BigDec{unscaled: m}).stripped(); s.precision() > limit {
		return nil, nonTerminating(fn)
	}
	q, err := newDec(fn, m, scale)
	if err != nil {
		return nil, err
	}
	return stripTo(q, preferred), nil
}

// stripTo drops v's trailing zeros while its scale is above preferred.
func stripTo(v *BigDec, preferred int64) *BigDec {
	if v.unscaled.Sign() == 0 || int64(v.scale) <= preferred {
		return v
	}
	s := v.stripped()
	if int64(s.scale) >= preferred {
		return s
	}
	r, _ := setScale("", s, preferred, "UNNECESSARY") // adds back zeros stripped past it
	return r
}

// decDivideRounded is a / b at mc's precision, as Java's divide(b, mc).
func decDivideRounded(fn string, a, b *BigDec, preferred int64, mc *mathContext) (*BigDec, error) {
	// The quotient's first digit is at about a's leading exponent less
	// b's; the scale that keeps mc.precision digits follows from it.
	scale := mc.precision - (a.adjusted() - b.adjusted()) - 1
	if mc.precision > maxDecDigits {
		return nil, decDigitsError(fn, mc.precision)
	}
	for range 3 {
		q, exact, err := quotientAtScale(fn, a, b, scale, mc.mode)
		if err != nil {
			return nil, err
		}
		switch p := digitCount(q); {
		case p > mc.precision:
			scale--
			continue
		case p < mc.precision && q.Sign() != 0 && !exact:
			scale++
			continue
		}
		v, err := newDec(fn, q, scale)
		if err != nil {
			return nil, err
		}
		return stripTo(v, preferred), nil
	}
	return nil, javaErrorf(arithmeticError, "ArithmeticException", "%s: the quotient could not be rounded to %d digits", fn, mc.precision)
}

// quotientAtScale is the unscaled value of a / b at the scale given,
// rounded by mode: a.u × 10^(scale - a.scale + b.scale) / b.u. exact
// reports whether nothing was rounded away.
func quotientAtScale(fn string, a, b *BigDec, scale int64, mode roundingMode) (q *big.Int, exact bool, err error) {
	shift := scale - int64(a.scale) + int64(b.scale)
	if abs64(shift) > maxDecDigits {
		return nil, false, decDigitsError(fn, abs64(shift))
	}
	num, den := a.unscaled, b.unscaled
	if shift >= 0 {
		num = new(big.Int).Mul(num, bigPow10(shift))
	} else {
		den = new(big.Int).Mul(den, bigPow10(-shift))
	}
	exact = new(big.Int).Rem(num, den).Sign() == 0
	q, err = roundQuo(fn, num, den, mode)
	return q, exact, err
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// decQuotient is quot, rem or mod with a decimal operand and an integer
// or decimal other: Java's divideToIntegralValue and remainder, a
// decimal; mod is rem moved to the divisor's sign, as Clojure's mod is.
func decQuotient(fn string, a, b Value) (Value, bool, error) {
	x, ok1 := decOf(a)
	y, ok2 := decOf(b)
	if !ok1 || !ok2 {
		return nil, false, nil
	}
	if y.unscaled.Sign() == 0 {
		return nil, true, divideByZero(fn)
	}
	u, w, scale, err := alignedDecs(fn, x, y)
	if err != nil {
		return nil, true, err
	}
	q, r := new(big.Int).QuoRem(u, w, new(big.Int))
	if fn == "quot" {
		// divideToIntegralValue: the integer quotient at the preferred
		// scale, a's less b's, when that keeps it whole.
		v := &BigDec{unscaled: q}
		preferred := int64(x.scale) - int64(y.scale)
		if preferred > 0 {
			v, err = setScale(fn, v, preferred, "UNNECESSARY")
			return v, true, err
		}
		return stripTo(v, preferred), true, nil
	}
	rem := &BigDec{unscaled: r, scale: int32(scale)}
	if fn == "mod" && r.Sign() != 0 && r.Sign() != y.unscaled.Sign() {
		v, _, err := decArith(fn, '+', rem, y)
		return v, true, err
	}
	return rem, true, nil
}

// parseDec reads Java's BigDecimal text: an optional sign, digits with
// an optional point (at least one digit), an optional exponent.
func parseDec(s string) (*BigDec, bool) {
	digits, scale, ok := decParts(s)
	if !ok {
		return nil, false
	}
	u, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, false
	}
	if s[0] == '-' {
		u.Neg(u)
	}
	return &BigDec{unscaled: u, scale: int32(scale)}, true
}

// decParts checks s as parseDec reads it, without converting its
// digits: the digits, and the scale they are read at.
func decParts(s string) (digits string, scale int64, ok bool) {
	body := s
	if body != "" && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	mant, exp, hasExp := body, "", false
	if i := strings.IndexAny(body, "eE"); i >= 0 {
		mant, exp, hasExp = body[:i], body[i+1:], true
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits = intPart + frac
	if !lexDigits(digits) || (intPart != "" && !lexDigits(intPart)) || (frac != "" && !lexDigits(frac)) || len(digits) > maxBigDigits {
		return "", 0, false
	}
	scale = int64(len(frac))
	if hasExp {
		e, err := strconv.ParseInt(strings.TrimPrefix(exp, "+"), 10, 32) // Java's int exponent
		if err != nil || exp == "" || strings.HasPrefix(exp, "+-") || strings.HasPrefix(exp, "+") && len(exp) == 1 {
			return "", 0, false
		}
		scale -= e
	}
	if scale > math.MaxInt32 || scale < math.MinInt32 {
		return "", 0, false
	}
	return digits, scale, true
}

// decFromFloat is BigDecimal/valueOf of a double: its shortest decimal
// text, as Java's Double.toString gives it (bigdec does the same).
func decFromFloat(fn string, f float64) (*BigDec, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, Errorf(typeError, "%s of %s: it has no decimal value", fn, formatFloat(f)).
			asJava("NumberFormatException", "Character "+map[bool]string{true: "N", false: "I"}[math.IsNaN(f)]+" is neither a decimal digit number, decimal point, nor \"e\" notation exponential mark.")
	}
	d, ok := parseDec(formatFloat(f))
	if !ok {
		return nil, javaErrorf(executionError, "NumberFormatException", "%s cannot convert %s", fn, formatFloat(f))
	}
	return d, nil
}

// decExactFloat is (BigDecimal. x) of a double: its exact binary value,
// all its digits.
func decExactFloat(fn string, f float64) (*BigDec, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, Errorf(typeError, "%s of %s: it has no decimal value", fn, formatFloat(f)).
			asJava("NumberFormatException", "Infinite or NaN")
	}
	r := new(big.Rat).SetFloat64(f)
	// The denominator is a power of two, 2^k: n/2^k is n × 5^k / 10^k.
	k := int64(r.Denom().BitLen() - 1)
	u := new(big.Int).Mul(r.Num(), new(big.Int).Exp(big.NewInt(5), big.NewInt(k), nil))
	return &BigDec{unscaled: u, scale: int32(k)}, nil
}

// toBigDec is bigdec of v, as Clojure's: a decimal as it is, a float by
// its shortest text, an integer exactly, a string parsed as Java's
// BigDecimal reads it.
func toBigDec(fn string, v Value) (Value, error) {
	switch x := v.(type) {
	case *BigDec:
		return x, nil
	case Int, *BigInt:
		d, _ := decOf(x)
		return d, nil
	case Float, Float32:
		f, _ := asFloat(x)
		return decFromFloat(fn, f)
	case String:
		d, ok := parseDec(string(x))
		if !ok {
			return nil, Errorf(typeError, "%s: %q is not a decimal number", fn, string(x)).
				WithHint("the string must be digits with an optional sign, point and exponent, such as \"19.99\"").
				asJava("NumberFormatException", decParseMessage(string(x)))
		}
		return d, nil
	}
	// Clojure's bigdec ends in the BigDecimal constructor, which
	// reflection finds for no other value: NullPointerException for nil.
	return nil, Errorf(typeError, "%s expected a number or a string, got %s", fn, describe(v)).
		asJava("NullPointerException", "").notSeqable(v)
}

// decToInteger is long, int or bigint of a decimal: its integer part,
// as Clojure's (long through the double, as RT.longCast does).
func decToInteger(fn string, v *BigDec) (Value, error) {
	if fn == "bigint" || fn == "biginteger" {
		t, err := setScale(fn, v, 0, "DOWN")
		if err != nil {
			return nil, err
		}
		return &BigInt{n: t.unscaled, integer: fn == "biginteger"}, nil
	}
	f := decFloat(v)
	if fn == "int" {
		if t := math.Trunc(f); !math.IsInf(t, 0) && (t > math.MaxInt32 || t < math.MinInt32) {
			return nil, Errorf(executionError, "int: %s does not fit in Java's 32-bit int", shownDec(v)).
				asJava("IllegalArgumentException", "Value out of range for int: "+formatFloat(f))
		}
	}
	// RT.longCast: the double's truncation, out of range only past the
	// double nearest the long's bound.
	if t := math.Trunc(f); t > 9.223372036854775807e18 || t < -9.223372036854775808e18 {
		return nil, Errorf(executionError, "%s: %s is out of the 64-bit range", fn, shownDec(v)).
			asJava("IllegalArgumentException", "Value out of range for long: "+formatFloat(f))
	} else if t == 9.223372036854775807e18 {
		return Int(math.MaxInt64), nil
	}
	return floatToInt(fn, f)
}

// withinPrecision rounds v, a decimal result of fn, to th's
// with-precision, when there is one, as Java's operations taking a
// MathContext do. It passes err and any other value through.
func withinPrecision(th *Thread, fn string, v Value, err error) (Value, error) {
	d, ok := v.(*BigDec)
	if err != nil || !ok || th.mathContext() == nil {
		return v, err
	}
	return roundTo(fn, d, th.mathContext())
}

// decParseMessage is about Java's message for a string BigDecimal does
// not read: the first character that is no part of a number.
func decParseMessage(s string) string {
	for _, r := range s {
		if !strings.ContainsRune("0123456789+-.eE", r) {
			return "Character " + string(r) + " is neither a decimal digit number, decimal point, nor \"e\" notation exponential mark."
		}
	}
	return "" // Java's message for a misplaced sign, point or exponent is empty
}

// decWorkThreshold is the words below which an operation on decimals is
// charged as the step of its call: a few hundred digits cost nothing
// worth a charge.
const decWorkThreshold = 16

// decDigitWork charges what a comparison, hash key, quotient or
// conversion of decimals of w words (their unscaled values, and the
// power of ten that aligns or rescales them) costs: finding a decimal's
// digit count, stripping its trailing zeros or aligning it build a power
// of ten and a decimal text of that many words, superlinear work that
// takes 5-11 ms for 100,000 digits. It is charged as converting as many
// digits from text is (bigParseSteps), so that a loop of such operations
// ends at the step limit on any machine rather than when the clock says.
func decDigitWork(th *Thread, w int64) error {
	if th == nil || w < decWorkThreshold {
		return nil
	}
	w = min(w, 2*digitWords(maxDecDigits))
	return th.stepAtOnce(w * w / 48)
}

// decimalsWork charges decDigitWork for the largest decimal among vs;
// aligned counts the power of ten that moves its point to scale 0 (quot,
// rem, mod and conversions to an integer do; a comparison aligns only
// values whose first digits are in the same place, no longer than the
// longer of the two).
//
// A big integer among vs is read whole (chargeBigScan); beside a decimal
// it becomes one, whose digits are counted, and is charged as a decimal
// of its words; aligned, two big integers are divided, charged the
// product of their words as bigWork charges it.
func decimalsWork(th *Thread, vs []Value, aligned bool) error {
	var w, intWords int64
	decimals := false
	var integers []int64
	for _, v := range vs {
		switch d := v.(type) {
		case *BigDec:
			n := decWords(d)
			if aligned {
				n += digitWords(abs64(int64(d.scale)))
			}
			w = max(w, n)
			decimals = true
		case *BigInt:
			if err := chargeBigScan(th, d.n); err != nil {
				return err
			}
			n := int64(len(d.n.Bits()))
			intWords = max(intWords, n)
			integers = append(integers, n)
		}
	}
	if decimals {
		w = max(w, intWords)
	}
	if aligned && len(integers) == 2 && th != nil {
		if err := bigWorkWords(th, integers[0], integers[1], true); err != nil {
			return err
		}
	}
	return decDigitWork(th, w)
}

// comparesDecimals and alignsDecimals are decimalsWork as cost terms.
func comparesDecimals(sel argSelector) costTerm {
	return costTerm{what: "the digits of long decimals compared (decDigitWork)", sel: sel, charge: func(th *Thread, vs []Value) error {
		return decimalsWork(th, vs, false)
	}}
}

func alignsDecimals(sel argSelector) costTerm {
	return costTerm{what: "the digits of long decimals aligned to an integer (decDigitWork)", sel: sel, charge: func(th *Thread, vs []Value) error {
		return decimalsWork(th, vs, true)
	}}
}
