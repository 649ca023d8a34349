package lisp

import (
	"math/big"
	"strings"
	"testing"
)

// Big integers as Clojure's: read, printed, computed with and compared;
// the coverage table's rows check the same against Clojure itself.
func TestBigIntegers(t *testing.T) {
	cases := []srcWant{
		{`1N`, `1N`},
		{`[99999999999999999999 -5N 0N]`, `[99999999999999999999N -5N 0N]`},
		{`(str 123N "/" (biginteger 4))`, `"123/4"`},
		{`(pr-str [1N (biginteger 2)])`, `"[1N 2]"`},
		{`(+' 9223372036854775807 1)`, `9223372036854775808N`},
		{`(class (+' 1 2))`, `java.lang.Long`},
		{`(reduce *' (range 1 30))`, `8841761993739701954543616000000N`},
		{`(-' -9223372036854775808)`, `9223372036854775808N`},
		{`[(+ 1N 2) (* 1N 2.5) (inc 1N) (quot 10N 3) (mod -10N 3)]`, `[3N 2.5 2N 3N 2N]`},
		{`[(= 1 1N) (= 1N 1.0) (== 1N 1.0) (get {1 :a} 1N) (get {1N :a} 1) (count #{1 2N})]`, `[true false true :a :a 2]`},
		{`[(int? 1N) (integer? 1N) (even? 99999999999999999998) (compare 1N 2)]`, `[false true true -1]`},
		{`(sort [3N 1 2.5 99999999999999999999 -1N])`, `[-1N 1 2.5 3N 99999999999999999999N]`},
		{`[(class 1N) (class (biginteger 1)) (bigint 2.7) (bigint "-42")]`, `[clojure.lang.BigInt java.math.BigInteger 2N -42N]`},
		{`(abs Long/MIN_VALUE)`, `-9223372036854775808`},
		{`[(unchecked-add 1N 2) (unchecked-negate 1N) (nth [1 2 3] 1N) (take 2N [1 2 3])]`, `[3N -1N 2 [1 2]]`},
	}
	checkValuesAndErrors(t, cases, []srcWant{
		{`(+ 9223372036854775807 1)`, "+'"},
		{`(long 99999999999999999999)`, "Value out of range for long"},
		{`(bigint ##NaN)`, "NaN"},
	})
}

// A big integer crosses the wire as EDN with its N and as a JSON number
// of all its digits, and reads back equal; a BigInteger, which prints
// without the N, is sent as the source that makes it.
func TestBigIntegerWireText(t *testing.T) {
	checkWireText(t, []wireCase{
		{`99999999999999999999`, `99999999999999999999N`, `99999999999999999999`},
		{`{:n 1N}`, `{:n 1N}`, `{"n":1}`},
		{`(biginteger 5)`, `(biginteger 5)`, `5`},
	})
}

// Multiplying big integers costs the product of their sizes: the charge
// of a product of two 10,000-digit numbers grows with that, not with the
// bytes of the result, and a program squaring a number again and again
// stops at its budget before the numbers outgrow memory.
func TestBigIntegerWorkIsCharged(t *testing.T) {
	mul := builtins.byName["*'"]
	digits := func(n int) Value {
		x, _ := new(big.Int).SetString(strings.Repeat("7", n), 10)
		return newBig(x)
	}
	checkProductChargeGrows(t, mul, digits)
	res := run(t, `(reduce (fn [a _] (*' a a)) 3N (range 64))`, Env{})
	if res.Err == nil || (res.Err.Kind != stepLimit && res.Err.Kind != memoryLimit) {
		t.Errorf("squaring 64 times: %v, want a step or memory limit", res.Err)
	}
}
