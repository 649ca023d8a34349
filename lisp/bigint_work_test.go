package lisp

import (
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"strings"
	"testing"
	"time"
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

// TestOneOperationIsBoundedWhateverTheStepLimit: big-integer and decimal
// work runs as one Go call that sees neither the clock nor the context
// until it returns, so lifting or raising the step limit lets a program
// make more such calls, never a longer one (stepAtOnce). With no step
// limit and the clock far away, each program below is refused by the
// count of its one operation, the same way each time; they ran for 1.4 s
// (a power), 9 s (a gcd) and hours (a primality test) past a 1 s timeout.
// Under the default limits they end at the step limit as before.
func TestOneOperationIsBoundedWhateverTheStepLimit(t *testing.T) {
	programs := []string{
		`(.bitLength (.pow (biginteger 3) 20000000))`,
		`(.bitLength (.gcd (.pow (biginteger 3) 4000000) (.pow (biginteger 7) 1000000)))`,
		`(.isProbablePrime (.add (.pow (biginteger 3) 100000) (biginteger 2)) 50)`,
		`(loop [x 1.5M i 0] (if (< i 40) (recur (* x x) (inc i)) 1))`,
		`(loop [x 3N i 0] (if (< i 40) (recur (*' x x) (inc i)) 1))`,
		`(.modPow (biginteger 3) (.pow (biginteger 2) 100000) (.add (.pow (biginteger 2) 30000) (biginteger 1)))`,
	}
	for _, src := range programs {
		for _, steps := range []int64{Unlimited, 1 << 50} {
			res := run(t, src, Env{Limits: Limits{MaxSteps: steps, Timeout: 20 * time.Second}})
			if res.Err == nil || res.Err.Kind != stepLimit || !strings.Contains(res.Err.Message, "one operation would count") {
				t.Errorf("%s with a step limit of %d: %v %v, want one operation refused", src, steps, Repr(res.Value), res.Err)
			}
		}
		res := run(t, src, Env{})
		if res.Err == nil || res.Err.Kind != stepLimit || !strings.Contains(res.Err.Message, "step limit of 1000000 exceeded") {
			t.Errorf("%s under the default limits: %v %v, want the step limit", src, Repr(res.Value), res.Err)
		}
	}
	// Operations under the bound run to their answer with no step limit.
	res := run(t, `(count (str (.pow (biginteger 3) 60000)))`, Env{Limits: Limits{MaxSteps: Unlimited}})
	want := len(new(big.Int).Exp(big.NewInt(3), big.NewInt(60000), nil).String())
	if res.Err != nil || res.Value != Int(want) {
		t.Errorf("the digits of 3^60000 with no step limit: %v %v, want %d", Repr(res.Value), res.Err, want)
	}
}
