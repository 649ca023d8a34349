package lisp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomNumbers returns a vector of n integers and floats, duplicates likely.
func randomNumbers(r *rand.Rand, n int) *Vector {
	out := make([]Value, n)
	for i := range out {
		if r.IntN(4) == 0 {
			out[i] = Float(float64(r.IntN(20)) / 2)
		} else {
			out[i] = Int(r.IntN(20) - 10)
		}
	}
	return NewVector(out)
}

func TestSortIsOrderedPermutation(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		in := randomNumbers(r, r.IntN(50))
		th := newTestThread()
		out, err := callBuiltin(th, "sort", in)
		if err != nil {
			t.Fatal(err)
		}
		sorted := out.(*Vector)
		if sorted.Len() != in.Len() {
			t.Fatalf("sort %s changed the length: %s", Repr(in), Repr(sorted))
		}
		for i := 1; i < sorted.Len(); i++ {
			if c, _ := compareNumbers(sorted.index(i-1), sorted.index(i)); c > 0 {
				t.Fatalf("sort %s is not ordered: %s", Repr(in), Repr(sorted))
			}
		}
		fin, _ := callBuiltin(th, "frequencies", in)
		fout, _ := callBuiltin(th, "frequencies", sorted)
		if !Equal(fin, fout) {
			t.Fatalf("sort %s is not a permutation: %s", Repr(in), Repr(sorted))
		}
	}
}

func TestSortByIsStable(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		n := r.IntN(40)
		items := make([]Value, n)
		for i := range items {
			items[i] = hashMap(kw("k"), Int(r.IntN(5)), kw("i"), Int(i))
		}
		for _, args := range [][]Value{
			{kw("k"), NewVector(items)},
			{kw("k"), kw("desc"), NewVector(items)},
			{kw("k"), builtinFn(">"), NewVector(items)},
		} {
			out, err := callBuiltin(newTestThread(), "sort-by", args...)
			if err != nil {
				t.Fatal(err)
			}
			desc := len(args) == 3
			elems := out.(*Vector).Elems()
			for j := 1; j < len(elems); j++ {
				a, b := elems[j-1].(*Map), elems[j].(*Map)
				ka, _ := a.Get(kw("k"))
				kb, _ := b.Get(kw("k"))
				ia, _ := a.Get(kw("i"))
				ib, _ := b.Get(kw("i"))
				c, _ := compareNumbers(ka, kb)
				if desc {
					c = -c
				}
				if c > 0 || (c == 0 && ia.(Int) > ib.(Int)) {
					t.Fatalf("sort-by %v is not a stable sort: %s", args[:len(args)-1], Repr(out))
				}
			}
		}
	}
}

func TestFrequenciesAndDistinct(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 300 {
		in := randomNumbers(r, r.IntN(60))
		th := newTestThread()
		freq, err := callBuiltin(th, "frequencies", in)
		if err != nil {
			t.Fatal(err)
		}
		total := Int(0)
		for _, e := range freq.(*Map).Entries() {
			total += e.Val.(Int)
		}
		if int(total) != in.Len() {
			t.Fatalf("frequencies of %s sum to %d", Repr(in), total)
		}
		d, _ := callBuiltin(th, "distinct", in)
		if d.(*Vector).Len() != freq.(*Map).Len() {
			t.Fatalf("distinct %s has %d items, frequencies %d keys", Repr(in), d.(*Vector).Len(), freq.(*Map).Len())
		}
		again, _ := callBuiltin(th, "distinct", d)
		if !Equal(again, d) {
			t.Fatalf("distinct is not idempotent on %s", Repr(in))
		}
	}
}

// TestIntegerDivisionIdentities checks quot/rem/mod against their
// definitions over random operands, including the extremes.
func TestIntegerDivisionIdentities(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	pick := func() int64 {
		switch r.IntN(6) {
		case 0:
			return math.MaxInt64 - r.Int64N(3)
		case 1:
			return math.MinInt64 + r.Int64N(3)
		}
		return r.Int64N(2001) - 1000
	}
	for range 5000 {
		a, b := pick(), pick()
		if b == 0 {
			continue
		}
		q, qerr := quotNumbers("quot", Int(a), Int(b))
		rem, err := remNumbers("rem", Int(a), Int(b))
		if err != nil {
			t.Fatal(err)
		}
		m, err := modNumbers("mod", Int(a), Int(b))
		if err != nil {
			t.Fatal(err)
		}
		if qerr == nil && int64(q.(Int))*b+int64(rem.(Int)) != a {
			t.Fatalf("quot/rem identity fails for %d, %d: q=%v r=%v", a, b, q, rem)
		}
		mv := int64(m.(Int))
		if mv != 0 && (mv < 0) != (b < 0) {
			t.Fatalf("(mod %d %d) = %d does not take the divisor's sign", a, b, mv)
		}
		if (mv-int64(rem.(Int)))%b != 0 {
			t.Fatalf("(mod %d %d) = %d and rem %v differ by a non-multiple", a, b, mv, rem)
		}
	}
}

// TestArithmeticOverflowIsExact checks that + - * either give the exact
// result or report overflow, never a wrapped value.
func TestArithmeticOverflowIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 5000 {
		a, b := r.Int64()>>r.UintN(63), r.Int64()>>r.UintN(63)
		if r.IntN(2) == 0 {
			a = -a
		}
		for _, op := range []struct {
			fn    func(string, Value, Value) (Value, error)
			exact func(x, y float64) float64
		}{
			{addNumbers, func(x, y float64) float64 { return x + y }},
			{subNumbers, func(x, y float64) float64 { return x - y }},
			{mulNumbers, func(x, y float64) float64 { return x * y }},
		} {
			v, err := op.fn("op", Int(a), Int(b))
			approx := op.exact(float64(a), float64(b))
			if err != nil {
				if math.Abs(approx) < 9e18 {
					t.Fatalf("overflow reported for %d, %d (about %g)", a, b, approx)
				}
				continue
			}
			if math.Abs(float64(v.(Int))-approx) > math.Abs(approx)*1e-9+1 {
				t.Fatalf("wrapped result %v for %d, %d (about %g)", v, a, b, approx)
			}
		}
	}
}
