package lisp

import (
	"context"
	"math/big"
	"strings"
	"testing"
)

// Decimals as Clojure's BigDecimal: read, printed, computed with and
// compared; the coverage table's rows check the same against Clojure
// itself.
func TestBigDecimals(t *testing.T) {
	cases := []srcWant{
		{`[1.5M 1M -0.00M 1e3M 1.M 0.0000001M 1.0e20M +1.5M]`, `[1.5M 1M 0.00M 1E+3M 1M 1E-7M 1.0E+20M 1.5M]`},
		{`[(str 1.50M) (pr-str 1.50M) (str 1e3M)]`, `["1.50" "1.50M" "1E+3"]`},
		{`[(+ 1.5M 1) (* 1.5M 2.0) (* 1.50M 1.5M) (/ 1M 4) (/ 100M 0.1M) (/ 6.00M 2)]`, `[2.5M 3.0 2.250M 0.25M 1.00E+3M 3.00M]`},
		{`[(quot 7.5M 2) (rem 7.50M 0.2M) (mod -7.5M 2) (inc 1.50M) (abs -1.50M)]`, `[3.0M 0.10M 0.5M 2.50M 1.50M]`},
		{`[(= 1.5M 1.50M) (= 1M 1) (== 1M 1) (= 1.5M 1.5) (get {1.5M :a} 1.50M) (count (hash-set 1.5M 1.50M))]`, `[true false true false :a 1]`},
		{`[(max 1M 1) (min 1 1M) (compare 0.1M 0.1) (sort [2M 1 1.5 0.5M])]`, `[1 1M 0 [0.5M 1 1.5 2M]]`},
		{`[(bigdec 0.1) (bigdec "1.230") (double 1.5M) (long 1.9M) (bigint 1.9M) (decimal? 1M) (rational? 1M)]`, `[0.1M 1.230M 1.5 1 1N true true]`},
		{`[(format "%.2f" 2.345M) (format "%.2f" -0.001M) (.setScale 1.005M 2 java.math.RoundingMode/HALF_UP)]`, `["2.35" "-0.00" 1.01M]`},
		{`[(.setScale 2.345M 2 RoundingMode/HALF_EVEN) (.stripTrailingZeros 1.500M) (.toPlainString 1e3M) (.scale 1.50M) (.precision 1.50M)]`, `[2.34M 1.5M "1000" 2 3]`},
		{`[(.divide 1M 3M 4 RoundingMode/HALF_UP) (.equals 1.5M 1.50M) (BigDecimal/valueOf 5 2) (BigDecimal. 0.5) (class 1M)]`, `[0.3333M false 0.05M 0.5M java.math.BigDecimal]`},
		{`[(.precision (.setScale 1M 99)) (.precision (.setScale 1M 99999)) (= (.setScale 1M 99999) 1M) (.precision 99999999999999999999M)]`, `[100 100000 true 20]`},
		{`[(with-precision 10 (/ 1M 3)) (with-precision 3 :rounding FLOOR (/ 2M 3)) (with-precision 2 (inc 9.99M))]`, `[0.3333333333M 0.666M 11M]`},
	}
	checkValuesAndErrors(t, cases, []srcWant{
		{`(/ 1M 3)`, "Non-terminating decimal expansion"},
		{`(/ 1M 0)`, "Divide by zero"},
		{`(.setScale 1.25M 1)`, "Rounding necessary"},
		{`(bigdec "1,5")`, "Character ,"},
	})
}

// A decimal crosses the wire as EDN with its M, and reads back as the
// same decimal, scale and all; as JSON it is the exact number.
func TestBigDecimalWireText(t *testing.T) {
	checkWireText(t, []wireCase{
		{`1.50M`, `1.50M`, `1.50`},
		{`{:price 19.99M :n [1E+3M -0.001M]}`, `{:price 19.99M, :n [1E+3M -0.001M]}`, `{"price":19.99,"n":[1E+3,-0.001]}`},
	})
}

// wireCase is a program and the EDN and JSON texts of its value.
type wireCase struct{ src, edn, json string }

// checkWireText checks each case's value's texts, and that its EDN reads
// back as the same value, as source too.
func checkWireText(t *testing.T, cases []wireCase) {
	t.Helper()
	for _, c := range cases {
		res := run(t, c.src, Env{})
		if res.Err != nil {
			t.Fatalf("%s: %v", c.src, res.Err)
		}
		if res.ValueText != c.edn || res.ValueJSON != c.json {
			t.Errorf("%s: emitted %s and %s, want %s and %s", c.src, res.ValueText, res.ValueJSON, c.edn, c.json)
		}
		back, err := ReadValue(context.Background(), res.ValueText, 0, 0)
		if err != nil {
			t.Fatalf("%s: reading %s back: %v", c.src, res.ValueText, err)
		}
		if !Equal(back, res.Value) || printText(back, modeSource) != printText(res.Value, modeSource) {
			t.Errorf("%s: read back as %s", c.src, printText(back, modeSource))
		}
	}
}

// Multiplying decimals costs the product of their sizes, as for big
// integers; a decimal of few digits and a far exponent is refused before
// its point is moved, rather than built digit by digit.
func TestBigDecimalWorkIsCharged(t *testing.T) {
	mul := builtins.byName["*"]
	digits := func(n int) Value {
		x, _ := new(big.Int).SetString(strings.Repeat("7", n), 10)
		return &BigDec{unscaled: x, scale: 2}
	}
	checkProductChargeGrows(t, mul, digits)
	for _, src := range []string{
		`(reduce (fn [a _] (* a a)) 3.3M (range 64))`,
		`(let [x (bigdec (apply str (repeat 100000 "7")))] (* x x))`,
	} {
		res := run(t, src, Env{})
		if res.Err == nil || (res.Err.Kind != stepLimit && res.Err.Kind != memoryLimit) {
			t.Errorf("%s: %v, want a step or memory limit", src, res.Err)
		}
	}
	for _, src := range []string{
		`(+ 1e999999999M 1)`, `(.toPlainString 1e999999999M)`, `(.setScale 1M 999999999)`,
		`(quot 1e999999999M 1)`, `(with-precision 2147483647 (/ 1M 3))`, `(format "%.2f" 1e999999M)`,
	} {
		if res := run(t, src, Env{}); res.Err == nil {
			t.Errorf("%s: gave %s, want an error before a number of a billion digits is built", src, printText(res.Value, modeRepr))
		}
	}
}

// checkProductChargeGrows checks that mul's charge on two numbers of
// 10,000 digits is about 100 times that on two of 1,000: the product's
// work, not its bytes.
func checkProductChargeGrows(t *testing.T, mul *Builtin, digits func(n int) Value) {
	t.Helper()
	_, small, err1 := measureCall(mul, func() []Value { return []Value{digits(1000), digits(1000)} })
	_, large, err2 := measureCall(mul, func() []Value { return []Value{digits(10000), digits(10000)} })
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	growth := float64(large) / float64(small)
	t.Logf("charge of a product: %d at 1,000 digits, %d at 10,000 (%.1fx)", small, large, growth)
	if growth < 30 {
		t.Errorf("from 1,000 to 10,000 digits the charge of a product grew %.1fx (%d to %d); the work grows about 100x", growth, small, large)
	}
}

// srcWant is a program and what it gives: the printed value, or a text
// its error mentions.
type srcWant struct{ src, want string }

// checkValuesAndErrors runs each of values and checks its printed value,
// then each of errs and checks that it fails with the text given in its
// message or Java message.
func checkValuesAndErrors(t *testing.T, values, errs []srcWant) {
	t.Helper()
	for _, c := range values {
		res := run(t, c.src, Env{})
		if res.Err != nil {
			t.Errorf("%s: %v", c.src, res.Err)
			continue
		}
		if got := printText(res.Value, modeRepr); got != c.want {
			t.Errorf("%s = %s, want %s", c.src, got, c.want)
		}
	}
	for _, c := range errs {
		res := run(t, c.src, Env{})
		if res.Err == nil || !strings.Contains(res.Err.Error()+res.Err.javaMessage, c.want) {
			t.Errorf("%s: got %v, want an error mentioning %q", c.src, res.Err, c.want)
		}
	}
}
