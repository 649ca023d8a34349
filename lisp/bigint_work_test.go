package lisp

import (
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"testing"
)

// TestBigIntegerReadWholeIsCharged: every operation that reads a big integer
// whole (a comparison, a hash, a division, a conversion, arithmetic
// outside + and *, a BigInteger method) is charged for its words, at
// least a step per 4 of them: a 100,000-digit integer (5,191 words) is
// 1,297 steps or more a call. Each was the step of its call, and a loop
// of them spent 0.5-3.5 s of CPU to the step limit (or reached the
// clock).
func TestBigIntegerReadWholeIsCharged(t *testing.T) {
	const build = `(let [x (biginteger (read-string (apply str (repeat 100000 "9")))) nx (.negate x) x2 (.add x BigInteger/ZERO)] [%s])`
	// Reading x takes most of the default step limit, and a form whose
	// value holds x is charged again for printing it in the result.
	limits := DefaultLimits()
	limits.MaxSteps = 10_000_000
	base := run(t, fmt.Sprintf(build, ""), Env{Limits: limits})
	if base.Err != nil {
		t.Fatal(base.Err)
	}
	for _, form := range []string{
		`(== x x2)`, `(< x x2)`, `(< x 1.5)`, `(= x x2)`, `(compare x x2)`, `(hash x)`, `(conj #{} x)`,
		`(assoc {} x 1)`, `(= [x] [x2])`, `(mod x 3)`, `(quot x 7)`, `(rem x 3)`, `(inc' nx)`, `(dec' x)`,
		`(inc nx)`, `(dec x)`, `(- x)`, `(unchecked-add nx 1)`, `(unchecked-inc nx)`, `(unchecked-negate x)`,
		`(.compareTo x x2)`, `(.bitLength nx)`, `(.intValue nx)`, `(.signum x)`,
	} {
		res := run(t, fmt.Sprintf(build, form), Env{Limits: limits})
		if res.Err != nil {
			t.Fatalf("%s: %v", form, res.Err)
		}
		if got := res.Steps - base.Steps; got < 1297 {
			t.Errorf("%s: charged %d steps, want its 5,191 words' (at least 1,297)", form, got)
		}
	}
	// A decimal beside it makes it a decimal, whose digits are counted.
	dec := run(t, fmt.Sprintf(build, `(< x 1.5M)`), Env{Limits: limits})
	if dec.Err != nil {
		t.Fatal(dec.Err)
	}
	if got := dec.Steps - base.Steps; got < 5191*5191/48 {
		t.Errorf("(< x 1.5M): charged %d steps, want a decimal of 5,191 words' (at least %d)", got, 5191*5191/48)
	}
}

// TestPrimalityIsChargedByItsSquarings: isProbablePrime of a prime is
// charged the squarings of its Miller-Rabin rounds (primalitySteps), so
// that a 127-bit prime costs thousands of steps and a 4,423-bit one is
// past the default step limit.
func TestPrimalityIsChargedByItsSquarings(t *testing.T) {
	const src = `(.isProbablePrime (.subtract (.pow (biginteger 2) %d) BigInteger/ONE) 100)`
	small := run(t, fmt.Sprintf(src, 127), Env{})
	if small.Err != nil || small.Value != trueValue {
		t.Fatalf("M127: %v %v", small.Value, small.Err)
	}
	if small.Steps < 2000 {
		t.Errorf("M127 was charged %d steps, want at least 2,000", small.Steps)
	}
	if res := run(t, fmt.Sprintf(src, 4423), Env{}); res.Err == nil || res.Err.Kind != stepLimit {
		t.Errorf("M4423: got %v, want step_limit", res.Err)
	}
}

// TestBigIntegerNarrowingAsBefore: the low bits and the double of a big
// integer, read from its lowest word and its length, are what the full
// conversions give.
func TestBigIntegerNarrowingAsBefore(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	mask := new(big.Int).Lsh(big.NewInt(1), 64)
	for i := range 3000 {
		x := new(big.Int).Rand(r, new(big.Int).Lsh(big.NewInt(1), uint(1+i%1100)))
		if i%2 == 1 {
			x.Neg(x)
		}
		want := new(big.Int).Mod(x, mask).Uint64()
		if got := bigLow64(x); got != want {
			t.Fatalf("bigLow64(%s) = %d, want %d", x, got, want)
		}
		f, _ := new(big.Float).SetInt(x).Float64()
		if got := bigFloat(x); got != f && !(math.IsInf(got, 0) && math.IsInf(f, 0) && (got > 0) == (f > 0)) {
			t.Fatalf("bigFloat(%s) = %v, want %v", x, got, f)
		}
	}
	huge := new(big.Int).Lsh(big.NewInt(-3), 5000)
	if bigFloat(huge) != math.Inf(-1) || bigLow64(huge) != 0 {
		t.Errorf("-3×2^5000: %v %d", bigFloat(huge), bigLow64(huge))
	}
}
