package lisp

import (
	"math"
	"math/big"
	"math/rand"
	"testing"
)

// ratFloat is the double nearest u × 10^-scale, through an exact
// fraction: the reference decFloat is checked against.
func ratFloat(u *big.Int, scale int64) float64 {
	r := new(big.Rat)
	if scale >= 0 {
		r.SetFrac(u, bigPow10(scale))
	} else {
		r.SetInt(new(big.Int).Mul(u, bigPow10(-scale)))
	}
	f, _ := r.Float64()
	return f
}

// TestDecFloatIsExact: the double of a decimal is the exact fraction's
// nearest double, for random decimals of 1 to 2,000 digits at scales
// that reach the double range's ends (subnormals, infinities), and for
// the halfway points between neighbouring doubles and their neighbours,
// where rounding goes to even.
func TestDecFloatIsExact(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	check := func(u *big.Int, scale int64) {
		t.Helper()
		d, err := newDec("test", u, scale)
		if err != nil {
			t.Fatal(err)
		}
		got, want := decFloat(d), ratFloat(u, scale)
		if e := d.adjusted(); e > 400 {
			want = math.Inf(u.Sign())
		} else if e < -400 {
			want = math.Copysign(0, float64(u.Sign()))
		}
		if got != want || math.Signbit(got) != math.Signbit(want) {
			t.Fatalf("%sE-%d: got %v, want %v", u, scale, got, want)
		}
	}
	for i := range 4000 {
		digits := 1 + r.Intn([]int{20, 60, 400, 2000}[i%4])
		u := new(big.Int).Rand(r, bigPow10(int64(digits)))
		if r.Intn(2) == 0 {
			u.Neg(u)
		}
		adjusted := int64(r.Intn(840) - 420)
		check(u, int64(digits)-1-adjusted)
	}
	for range 2000 {
		// m × 2^e with m odd of 54 bits is halfway between two doubles;
		// written in decimal it is exact, and one unit of its last
		// digit either side decides the rounding.
		m := new(big.Int).Rand(r, new(big.Int).Lsh(big.NewInt(1), 53))
		m.SetBit(m, 53, 1).SetBit(m, 0, 1)
		e := int64(r.Intn(1200) - 1150)
		var u *big.Int
		var scale int64
		if e >= 0 {
			u, scale = new(big.Int).Lsh(m, uint(e)), 0
		} else {
			u, scale = new(big.Int).Mul(m, new(big.Int).Exp(big.NewInt(5), big.NewInt(-e), nil)), -e
		}
		for _, delta := range []int64{-1, 0, 1} {
			check(new(big.Int).Add(u, big.NewInt(delta)), scale)
		}
	}
	check(big.NewInt(1), 0)
	check(big.NewInt(-25), 1)
	check(big.NewInt(49), 324)
	check(big.NewInt(5), 324)
}
