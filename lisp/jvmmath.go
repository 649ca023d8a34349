package lisp

import (
	"math"
	"math/big"
	"sync"
)

// The JVM's elementary functions, to the last digit. Go's math package
// and the JVM's Math differ in the last bit of about one result in four
// for sin, cos, exp, log, pow and the like ((Math/exp 0.3) printed a
// digit Clojure does not), and a last digit a program prints is a wrong
// value. Two kinds of JVM function are matched:
//
//   - sin, cos, tan, exp, log, log10 and pow are HotSpot intrinsics,
//     within an ulp and in practice correctly rounded: these compute
//     with 75 bits to spare (math/big) and round once;
//   - asin, acos, atan, atan2, sinh, cosh, tanh, cbrt and hypot are
//     StrictMath's fdlibm: these are fdlibm's algorithms, step for step.
//
// Checked against Clojure 1.11 on OpenJDK 17 over 300 arguments each
// (the coverage rows of clojure.math): the fdlibm ones agree on every
// one, the intrinsic ones on all but one or two in 300, where the
// intrinsic is the one not correctly rounded. The special values (NaN,
// infinities, zeros, overflow) are Java's, handled first.

// workPrec is the working precision: 53 bits of result and 75 to spare,
// enough that rounding the wider result is rounding the exact one.
const workPrec = 128

// piBits is how many bits of pi are kept: sin of the largest double
// (about 2^1024) still has workPrec bits after taking out its multiples
// of pi/2.
const piBits = 1024 + 2*workPrec

func bfNew(prec uint) *big.Float { return new(big.Float).SetPrec(prec) }

func bfOf(x float64, prec uint) *big.Float { return bfNew(prec).SetFloat64(x) }

// atanInv is atan(1/n) to prec bits, by its series.
func atanInv(n int64, prec uint) *big.Float {
	x := bfNew(prec).Quo(bfOf(1, prec), bfOf(float64(n), prec))
	x2 := bfNew(prec).Mul(x, x)
	sum := bfNew(prec).Set(x)
	term := bfNew(prec).Set(x)
	eps := bfNew(prec).SetMantExp(bfOf(1, prec), -int(prec)-8)
	for k := int64(1); ; k++ {
		term.Mul(term, x2)
		t := bfNew(prec).Quo(term, bfOf(float64(2*k+1), prec))
		if k%2 == 1 {
			sum.Sub(sum, t)
		} else {
			sum.Add(sum, t)
		}
		if t.Cmp(eps) < 0 {
			return sum
		}
	}
}

// bigPi is pi to piBits, by Machin's formula, made once (it never
// changes, so it is shared safely).
var bigPi = sync.OnceValue(func() *big.Float {
	const p = piBits + 32
	a := bfNew(p).Mul(bfOf(16, p), atanInv(5, p))
	b := bfNew(p).Mul(bfOf(4, p), atanInv(239, p))
	return bfNew(piBits).Sub(a, b)
})

// bigLn2 is log 2 to workPrec+64 bits: 2 atanh(1/3), made once.
var bigLn2 = sync.OnceValue(func() *big.Float {
	const p = workPrec + 64
	return bfNew(p).Mul(bfOf(2, p), atanhSeries(bfNew(p).Quo(bfOf(1, p), bfOf(3, p)), p))
})

// bigLn10 is log 10 to log10's working precision, made once: log10 took
// two extended-precision logarithms a call, twice the CPU it needs.
var bigLn10 = sync.OnceValue(func() *big.Float {
	const p = workPrec + 32
	return bigLog(bfOf(10, p), p)
})

// atanhSeries is atanh(z) for a small z: z + z³/3 + z⁵/5 + ...
func atanhSeries(z *big.Float, prec uint) *big.Float {
	z2 := bfNew(prec).Mul(z, z)
	sum := bfNew(prec).Set(z)
	term := bfNew(prec).Set(z)
	eps := bfNew(prec).SetMantExp(bfOf(1, prec), -int(prec)-8)
	for k := 1; ; k++ {
		term.Mul(term, z2)
		t := bfNew(prec).Quo(term, bfOf(float64(2*k+1), prec))
		sum.Add(sum, t)
		if t.Sign() == 0 || bfNew(prec).Abs(t).Cmp(eps) < 0 {
			return sum
		}
	}
}

// bigExp is e^x for a finite x whose e^x is a finite double or near one
// (|x| < 1100), to prec bits.
func bigExp(x *big.Float, prec uint) *big.Float {
	p := prec + 32
	ln2 := bigLn2()
	// x = k ln2 + r with |r| <= ln2/2, then r/2^10 in the series.
	q, _ := bfNew(p).Quo(x, ln2).Float64()
	k := math.Round(q)
	r := bfNew(p).Sub(x, bfNew(p).Mul(bfOf(k, p), ln2))
	r.SetMantExp(r, -10)
	sum := bfOf(1, p)
	term := bfOf(1, p)
	eps := bfNew(p).SetMantExp(bfOf(1, p), -int(p)-8)
	for n := 1; ; n++ {
		term.Mul(term, r)
		term.Quo(term, bfOf(float64(n), p))
		sum.Add(sum, term)
		if term.Sign() == 0 || bfNew(p).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	for range 10 {
		sum.Mul(sum, sum)
	}
	return bfNew(prec).SetMantExp(sum, int(k))
}

// bigLog is log x for a finite x > 0, to prec bits.
func bigLog(x *big.Float, prec uint) *big.Float {
	p := prec + 32
	m := bfNew(p)
	e := x.MantExp(m) // x = m 2^e, m in [0.5, 1)
	if m.Cmp(bfOf(math.Sqrt2/2, p)) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	// log m = 2 atanh((m-1)/(m+1)), |(m-1)/(m+1)| < 0.18.
	z := bfNew(p).Quo(bfNew(p).Sub(m, bfOf(1, p)), bfNew(p).Add(m, bfOf(1, p)))
	l := bfNew(p).Mul(bfOf(2, p), atanhSeries(z, p))
	l.Add(l, bfNew(p).Mul(bfOf(float64(e), p), bigLn2()))
	return bfNew(prec).Set(l)
}

// sinCosReduced is sin and cos of x (finite) by taking out multiples of
// pi/2 with piBits of pi, then the two series.
func sinCosReduced(x float64) (sin, cos *big.Float) {
	p := uint(workPrec + 32)
	pi := bigPi()
	halfPi := bfNew(piBits).SetMantExp(pi, -1)
	bx := bfOf(x, piBits)
	kf := bfNew(piBits).Quo(bx, halfPi)
	kInt, _ := kf.Int(nil)
	// Round to the nearest multiple.
	frac := bfNew(piBits).Sub(kf, bfNew(piBits).SetInt(kInt))
	if frac.Cmp(bfOf(0.5, piBits)) > 0 {
		kInt.Add(kInt, big.NewInt(1))
	} else if frac.Cmp(bfOf(-0.5, piBits)) < 0 {
		kInt.Sub(kInt, big.NewInt(1))
	}
	r := bfNew(piBits).Sub(bx, bfNew(piBits).Mul(bfNew(piBits).SetInt(kInt), halfPi))
	r = bfNew(p).Set(r)
	quadrant := new(big.Int).And(kInt, big.NewInt(3)).Int64()
	s, c := sinCosSeries(r, p)
	switch quadrant {
	case 1:
		s, c = c, s.Neg(s)
	case 2:
		s, c = s.Neg(s), c.Neg(c)
	case 3:
		s, c = c.Neg(c), s
	}
	return s, c
}

// sinCosSeries is sin r and cos r for |r| <= pi/4.
func sinCosSeries(r *big.Float, p uint) (*big.Float, *big.Float) {
	r2 := bfNew(p).Mul(r, r)
	eps := bfNew(p).SetMantExp(bfOf(1, p), -int(p)-8)
	sin := bfNew(p).Set(r)
	term := bfNew(p).Set(r)
	for n := 1; ; n++ {
		term.Mul(term, r2)
		term.Quo(term, bfOf(float64((2*n)*(2*n+1)), p))
		term.Neg(term)
		sin.Add(sin, term)
		if term.Sign() == 0 || bfNew(p).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	cos := bfOf(1, p)
	term = bfOf(1, p)
	for n := 1; ; n++ {
		term.Mul(term, r2)
		term.Quo(term, bfOf(float64((2*n-1)*(2*n)), p))
		term.Neg(term)
		cos.Add(cos, term)
		if term.Sign() == 0 || bfNew(p).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	return sin, cos
}

// rounded is b rounded once to the nearest double.
func rounded(b *big.Float) float64 {
	f, _ := b.Float64()
	return f
}

func jvmExp(x float64) float64 {
	switch {
	case x != x || math.IsInf(x, 0) || x > 710 || x < -746 || x == 0:
		return math.Exp(x)
	}
	return rounded(bigExp(bfOf(x, workPrec), workPrec))
}

func jvmLog(x float64) float64 {
	if x != x || x <= 0 || math.IsInf(x, 1) {
		return math.Log(x)
	}
	return rounded(bigLog(bfOf(x, workPrec), workPrec))
}

func jvmLog10(x float64) float64 {
	if x != x || x <= 0 || math.IsInf(x, 1) {
		return math.Log10(x)
	}
	p := uint(workPrec + 32)
	return rounded(bfNew(p).Quo(bigLog(bfOf(x, p), p), bigLn10()))
}

func jvmSin(x float64) float64 {
	if x != x || math.IsInf(x, 0) || x == 0 {
		return math.Sin(x)
	}
	s, _ := sinCosReduced(x)
	return rounded(s)
}

func jvmCos(x float64) float64 {
	if x != x || math.IsInf(x, 0) {
		return math.Cos(x)
	}
	_, c := sinCosReduced(x)
	return rounded(c)
}

func jvmTan(x float64) float64 {
	if x != x || math.IsInf(x, 0) || x == 0 {
		return math.Tan(x)
	}
	s, c := sinCosReduced(x)
	return rounded(s.Quo(s, c))
}

// highWord is the high 32 bits of |x|'s IEEE bits, as fdlibm tests them.
func highWord(x float64) uint32 { return uint32(math.Float64bits(x)>>32) & 0x7fffffff }

// jvmSinh, jvmCosh and jvmTanh are fdlibm's (Java's StrictMath, which
// Math calls for them), on expm1 (Go's is fdlibm's) and fdlibm's exp.
func jvmSinh(x float64) float64 {
	ix := highWord(x)
	h := 0.5
	if x < 0 {
		h = -h
	}
	switch {
	case x != x || math.IsInf(x, 0):
		return x
	case ix < 0x40360000: // |x| < 22
		if ix < 0x3e300000 { // |x| < 2^-28
			return x
		}
		t := math.Expm1(math.Abs(x))
		if ix < 0x3ff00000 {
			return h * (2*t - t*t/(t+1))
		}
		return h * (t + t/(t+1))
	case ix < 0x40862E42: // |x| in [22, log(MAX_VALUE)]
		return h * fdlibmExp(math.Abs(x))
	case ix <= 0x408633CE: // up to the overflow threshold
		w := fdlibmExp(0.5 * math.Abs(x))
		return h * w * w
	}
	return x * 1.0e307
}

func jvmCosh(x float64) float64 {
	ix := highWord(x)
	switch {
	case x != x:
		return x
	case math.IsInf(x, 0):
		return math.Inf(1)
	case ix < 0x3fd62e43: // |x| in [0, ln2/2]
		t := math.Expm1(math.Abs(x))
		w := 1 + t
		if ix < 0x3c800000 {
			return w
		}
		return 1 + (t*t)/(w+w)
	case ix < 0x40360000: // |x| in [ln2/2, 22]
		t := fdlibmExp(math.Abs(x))
		return 0.5*t + 0.5/t
	case ix < 0x40862E42:
		return 0.5 * fdlibmExp(math.Abs(x))
	case ix <= 0x408633CE:
		w := fdlibmExp(0.5 * math.Abs(x))
		return 0.5 * w * w
	}
	return math.Inf(1)
}

func jvmTanh(x float64) float64 {
	ix := highWord(x)
	var z float64
	switch {
	case x != x:
		return x
	case math.IsInf(x, 0):
		return math.Copysign(1, x)
	case ix < 0x40360000: // |x| < 22
		if ix < 0x3c800000 {
			return x * (1 + x)
		}
		if ix >= 0x3ff00000 {
			t := math.Expm1(2 * math.Abs(x))
			z = 1 - 2/(t+2)
		} else {
			t := math.Expm1(-2 * math.Abs(x))
			z = -t / (t + 2)
		}
	default:
		z = 1
	}
	return math.Copysign(z, x)
}

// jvmCbrt is fdlibm's cbrt (Java's StrictMath.cbrt): a 5-bit guess from
// the exponent, a rational step to 23 bits and one Newton step.
func jvmCbrt(x float64) float64 {
	const (
		b1 = 715094163
		b2 = 696219795
		c  = 5.42857142857142815906e-01
		d  = -7.05306122448979611050e-01
		e  = 1.41428571428571436819e+00
		f  = 1.60714285714285720630e+00
		g  = 3.57142857142857150787e-01
	)
	bits := math.Float64bits(x)
	hx := uint32(bits >> 32)
	sign := hx & 0x80000000
	hx ^= sign
	if hx >= 0x7ff00000 {
		return x + x
	}
	if hx|uint32(bits) == 0 {
		return x
	}
	x = math.Abs(x)
	setHigh := func(v float64, hi uint32) float64 {
		return math.Float64frombits(uint64(hi)<<32 | math.Float64bits(v)&0xffffffff)
	}
	var t float64
	if hx < 0x00100000 { // subnormal
		t = setHigh(0, 0x43500000) // 2^54
		t *= x
		t = setHigh(t, uint32(math.Float64bits(t)>>32)/3+b2)
	} else {
		t = setHigh(0, hx/3+b1)
	}
	r := t * t / x
	s := c + r*t
	t *= g + f/(s+e+d/s)
	// Chop to 20 bits, rounded up.
	t = math.Float64frombits((math.Float64bits(t)>>32 + 1) << 32)
	s = t * t
	r = x / s
	w := t + t
	r = (r - t) / (w + r)
	t = t + t*r
	return math.Float64frombits(math.Float64bits(t) | uint64(sign)<<32)
}

// withHigh is v with its high 32 bits replaced by hi, as fdlibm's
// __HI(v) = hi.
func withHigh(v float64, hi uint32) float64 {
	return math.Float64frombits(uint64(hi)<<32 | math.Float64bits(v)&0xffffffff)
}

// jvmHypot is fdlibm's hypot (Java's StrictMath.hypot, which Math.hypot
// calls): sqrt(a²+b²) with a² and b² split into exact halves.
func jvmHypot(x, y float64) float64 {
	if math.IsInf(x, 0) || math.IsInf(y, 0) {
		return math.Inf(1)
	}
	if x != x || y != y {
		return math.NaN()
	}
	ha, hb := highWord(x), highWord(y)
	a, b := math.Abs(x), math.Abs(y)
	if hb > ha {
		a, b, ha, hb = b, a, hb, ha
	}
	if ha-hb > 0x3c00000 { // a/b > 2^60
		return a + b
	}
	k := 0
	if ha > 0x5f300000 { // a > 2^500: scale both by 2^-600
		ha -= 0x25800000
		hb -= 0x25800000
		k += 600
		a, b = withHigh(a, ha), withHigh(b, hb)
	}
	if hb < 0x20b00000 { // b < 2^-500
		if hb <= 0x000fffff { // b subnormal or zero
			if b == 0 {
				return a
			}
			t1 := withHigh(0, 0x7fd00000) // 2^1022
			b *= t1
			a *= t1
			k -= 1022
			ha, hb = highWord(a), highWord(b)
		} else { // scale both by 2^600
			ha += 0x25800000
			hb += 0x25800000
			k -= 600
			a, b = withHigh(a, ha), withHigh(b, hb)
		}
	}
	var w float64
	if d := a - b; d > b {
		t1 := withHigh(0, ha)
		t2 := a - t1
		w = math.Sqrt(t1*t1 - (b*(-b) - t2*(a+t1)))
	} else {
		a = a + a
		y1 := withHigh(0, hb)
		y2 := b - y1
		t1 := withHigh(0, ha+0x00100000)
		t2 := a - t1
		w = math.Sqrt(t1*y1 - (d*(-d) - (t1*y2 + t2*b)))
	}
	if k != 0 {
		return withHigh(1, uint32(int32(0x3ff00000)+int32(k<<20))) * w
	}
	return w
}

// jvmPow is Java's Math.pow: its special cases, then e^(y log |x|).
func jvmPow(x, y float64) float64 {
	switch {
	case y == 0:
		return 1
	case y != y, x != x:
		return math.NaN()
	case y == 1:
		return x
	case math.IsInf(y, 0) && math.Abs(x) == 1:
		return math.NaN() // Go's Pow says 1
	case x == 0 || math.IsInf(x, 0) || math.IsInf(y, 0):
		return math.Pow(x, y)
	}
	neg := false
	if x < 0 {
		if y != math.Trunc(y) {
			return math.NaN()
		}
		neg = math.Abs(math.Mod(y, 2)) == 1
		x = -x
	}
	g := math.Pow(x, y)
	if g == 0 || math.IsInf(g, 0) || g < 0x1p-1000 || g > 0x1p1000 {
		// Past the exponent range, or near its ends: Go's answer, whose
		// rounding there is the same.
		if neg {
			return -g
		}
		return g
	}
	p := uint(workPrec + 64) // y log x reaches about 710: more bits
	l := bfNew(p).Mul(bfOf(y, p), bigLog(bfOf(x, p), p))
	r := rounded(bigExp(l, p))
	if neg {
		return -r
	}
	return r
}

// The JVM's Math.toDegrees and Math.toRadians multiply by one constant.
func jvmToDegrees(x float64) float64 { return x * 57.29577951308232 }
func jvmToRadians(x float64) float64 { return x * 0.017453292519943295 }

// fdlibmExp is fdlibm's exp (Java's StrictMath.exp), which fdlibm's
// cosh and sinh call: Math.exp itself is the JVM's intrinsic, which
// jvmExp matches.
func fdlibmExp(x float64) float64 {
	const (
		oThreshold = 7.09782712893383973096e+02
		uThreshold = -7.45133219101941108420e+02
		ln2Hi      = 6.93147180369123816490e-01
		ln2Lo      = 1.90821492927058770002e-10
		invLn2     = 1.44269504088896338700e+00
		p1         = 1.66666666666666019037e-01
		p2         = -2.77777777770155933842e-03
		p3         = 6.61375632143793436117e-05
		p4         = -1.65339022054652515390e-06
		p5         = 4.13813679705723846039e-08
		twoM1000   = 9.33263618503218878990e-302
	)
	hx := highWord(x)
	neg := x < 0
	if hx >= 0x40862E42 {
		switch {
		case x != x:
			return x
		case math.IsInf(x, 1):
			return x
		case math.IsInf(x, -1):
			return 0
		case x > oThreshold:
			return math.Inf(1)
		case x < uThreshold:
			return 0
		}
	}
	var hi, lo float64
	k := 0
	switch {
	case hx > 0x3fd62e42: // |x| > ln2/2
		if hx < 0x3FF0A2B2 { // and < 1.5 ln2
			if neg {
				hi, lo, k = x+ln2Hi, -ln2Lo, -1
			} else {
				hi, lo, k = x-ln2Hi, ln2Lo, 1
			}
		} else {
			half := 0.5
			if neg {
				half = -0.5
			}
			k = int(invLn2*x + half)
			t := float64(k)
			hi = x - t*ln2Hi
			lo = t * ln2Lo
		}
		x = hi - lo
	case hx < 0x3e300000: // |x| < 2^-28
		return 1 + x
	}
	t := x * x
	c := x - t*(p1+t*(p2+t*(p3+t*(p4+t*p5))))
	if k == 0 {
		return 1 - ((x*c)/(c-2.0) - x)
	}
	y := 1 - ((lo - (x*c)/(2.0-c)) - hi)
	if k >= -1021 {
		return math.Float64frombits(math.Float64bits(y) + uint64(int64(k)<<52))
	}
	return math.Float64frombits(math.Float64bits(y)+uint64(int64(k+1000)<<52)) * twoM1000
}

// fdlibmAtan is fdlibm's atan (Java's StrictMath.atan, which Math.atan
// calls): a reduction to one of five intervals and a polynomial.
func fdlibmAtan(x float64) float64 {
	atanHi := [4]float64{4.63647609000806093515e-01, 7.85398163397448278999e-01, 9.82793723247329054082e-01, 1.57079632679489655800e+00}
	atanLo := [4]float64{2.26987774529616870924e-17, 3.06161699786838301793e-17, 1.39033110312309984516e-17, 6.12323399573676603587e-17}
	aT := [11]float64{3.33333333333329318027e-01, -1.99999999998764832476e-01, 1.42857142725034663711e-01,
		-1.11111104054623557880e-01, 9.09088713343650656196e-02, -7.69187620504482999495e-02,
		6.66107313738753120669e-02, -5.83357013379057348645e-02, 4.97687799461593236017e-02,
		-3.65315727442169155270e-02, 1.62858201153657823623e-02}
	ix := highWord(x)
	neg := x < 0
	id := -1
	switch {
	case ix >= 0x44100000: // |x| >= 2^66
		if x != x {
			return x
		}
		if x > 0 {
			return atanHi[3] + atanLo[3]
		}
		return -atanHi[3] - atanLo[3]
	case ix < 0x3fdc0000: // |x| < 0.4375
		if ix < 0x3e200000 { // |x| < 2^-29
			return x
		}
	default:
		x = math.Abs(x)
		if ix < 0x3ff30000 { // |x| < 1.1875
			if ix < 0x3fe60000 { // 7/16 <= |x| < 11/16
				id, x = 0, (2.0*x-1.0)/(2.0+x)
			} else { // 11/16 <= |x| < 19/16
				id, x = 1, (x-1.0)/(x+1.0)
			}
		} else {
			if ix < 0x40038000 { // |x| < 2.4375
				id, x = 2, (x-1.5)/(1.0+1.5*x)
			} else { // 2.4375 <= |x| < 2^66
				id, x = 3, -1.0/x
			}
		}
	}
	z := x * x
	w := z * z
	s1 := z * (aT[0] + w*(aT[2]+w*(aT[4]+w*(aT[6]+w*(aT[8]+w*aT[10])))))
	s2 := w * (aT[1] + w*(aT[3]+w*(aT[5]+w*(aT[7]+w*aT[9]))))
	if id < 0 {
		return x - x*(s1+s2)
	}
	r := atanHi[id] - ((x*(s1+s2) - atanLo[id]) - x)
	if neg {
		return -r
	}
	return r
}

// fdlibmAtan2 is fdlibm's atan2 (Java's StrictMath.atan2).
func fdlibmAtan2(y, x float64) float64 {
	const (
		pi   = 3.1415926535897931160e+00
		piLo = 1.2246467991473531772e-16
	)
	switch {
	case x != x || y != y:
		return x + y
	case x == 1:
		return fdlibmAtan(y)
	case y == 0 || x == 0 || math.IsInf(x, 0) || math.IsInf(y, 0):
		return math.Atan2(y, x) // the special cases are IEEE's, the same in Go
	}
	hx, hy := int32(math.Float64bits(x)>>32), int32(math.Float64bits(y)>>32)
	ix, iy := hx&0x7fffffff, hy&0x7fffffff
	m := (hy>>31)&1 | (hx>>30)&2 // 2*sign(x) + sign(y)
	var z float64
	k := (iy - ix) >> 20
	switch {
	case k > 60: // |y/x| > 2^60
		z = pi/2 + 0.5*piLo
	case hx < 0 && k < -60: // |y|/x < -2^-60
		z = 0
	default:
		z = fdlibmAtan(math.Abs(y / x))
	}
	switch m {
	case 0:
		return z
	case 1:
		return -z
	case 2:
		return pi - (z - piLo)
	}
	return (z - piLo) - pi
}

// asinRatio is the rational function fdlibm's asin and acos share.
func asinRatio(t float64) float64 {
	const (
		pS0 = 1.66666666666666657415e-01
		pS1 = -3.25565818622400915405e-01
		pS2 = 2.01212532134862925881e-01
		pS3 = -4.00555345006794114027e-02
		pS4 = 7.91534994289814532176e-04
		pS5 = 3.47933107596021167570e-05
		qS1 = -2.40339491173441421878e+00
		qS2 = 2.02094576023350569471e+00
		qS3 = -6.88283971605453293030e-01
		qS4 = 7.70381505559019352791e-02
	)
	p := t * (pS0 + t*(pS1+t*(pS2+t*(pS3+t*(pS4+t*pS5)))))
	q := 1 + t*(qS1+t*(qS2+t*(qS3+t*qS4)))
	return p / q
}

// fdlibmAsin is fdlibm's asin (Java's StrictMath.asin).
func fdlibmAsin(x float64) float64 {
	const (
		pio2Hi = 1.57079632679489655800e+00
		pio2Lo = 6.12323399573676603587e-17
		pio4Hi = 7.85398163397448278999e-01
	)
	ix := highWord(x)
	switch {
	case x != x:
		return x
	case x == 1 || x == -1:
		return x*pio2Hi + x*pio2Lo
	case x > 1 || x < -1:
		return math.NaN()
	case ix < 0x3fe00000: // |x| < 0.5
		if ix < 0x3e400000 { // |x| < 2^-27
			return x
		}
		return x + x*asinRatio(x*x)
	}
	w := 1 - math.Abs(x)
	t := w * 0.5
	r := asinRatio(t)
	s := math.Sqrt(t)
	if ix >= 0x3FEF3333 { // |x| > 0.975
		t = pio2Hi - (2.0*(s+s*r) - pio2Lo)
	} else {
		w = math.Float64frombits(math.Float64bits(s) &^ 0xffffffff)
		c := (t - w*w) / (s + w)
		p := 2.0*s*r - (pio2Lo - 2.0*c)
		q := pio4Hi - 2.0*w
		t = pio4Hi - (p - q)
	}
	if x < 0 {
		return -t
	}
	return t
}

// fdlibmAcos is fdlibm's acos (Java's StrictMath.acos).
func fdlibmAcos(x float64) float64 {
	const (
		pi     = 3.14159265358979311600e+00
		pio2Hi = 1.57079632679489655800e+00
		pio2Lo = 6.12323399573676603587e-17
	)
	ix := highWord(x)
	switch {
	case x != x:
		return x
	case x == 1:
		return 0
	case x == -1:
		return pi + 2.0*pio2Lo
	case x > 1 || x < -1:
		return math.NaN()
	}
	switch {
	case ix < 0x3fe00000: // |x| < 0.5
		if ix <= 0x3c600000 { // |x| < 2^-57
			return pio2Hi + pio2Lo
		}
		z := x * x
		return pio2Hi - (x - (pio2Lo - x*asinRatio(z)))
	case x < 0: // x < -0.5
		z := (1 + x) * 0.5
		s := math.Sqrt(z)
		w := asinRatio(z)*s - pio2Lo
		return pi - 2.0*(s+w)
	}
	z := (1 - x) * 0.5
	s := math.Sqrt(z)
	df := math.Float64frombits(math.Float64bits(s) &^ 0xffffffff)
	c := (z - df*df) / (s + df)
	w := asinRatio(z)*s + c
	return 2.0 * (df + w)
}
