package lisp

import (
	"context"
	"strings"
	"testing"
)

// TestLongDecimalWorkIsCharged: comparing, hashing, dividing to an
// integer and converting long decimals aligns them or counts and strips
// their digits, superlinear work charged as converting as many digits
// (decDigitWork), so a loop of them ends at the step limit on any
// machine; the same operations on short decimals cost a step.
func TestLongDecimalWorkIsCharged(t *testing.T) {
	const long = `(.setScale 1E+99000M 0)`
	checkAttacks(t, []attack{
		{name: "a long decimal hashed as a key", src: `(let [x ` + long + `] (dotimes [i 10000] (get {x 1} 1E+99000M)) 1)`, want: stepLimit, maxAlloc: 32 << 20},
		{name: "= at different scales", src: `(let [x ` + long + `] (dotimes [i 100000] (= x 1E+99000M)) 1)`, want: stepLimit, maxAlloc: 32 << 20},
		{name: "compare and max", src: `(let [x ` + long + `] (dotimes [i 100000] (max x (compare x 1E+99000M))) 1)`, want: stepLimit, maxAlloc: 32 << 20},
		{name: "<", src: `(let [x ` + long + `] (dotimes [i 100000] (< x 1E+99000M)) 1)`, want: stepLimit, maxAlloc: 32 << 20},
		{name: "quot of a large exponent", src: `(dotimes [i 1000] (quot 1E+99999M 7))`, want: stepLimit, maxAlloc: 32 << 20},
		{name: "rem and mod", src: `(dotimes [i 1000] (+ (rem 1E+99999M 7) (mod 1E+99999M 7)))`, want: stepLimit, maxAlloc: 32 << 20},
		{name: "bigint", src: `(dotimes [i 1000] (bigint 1E+99999M))`, want: stepLimit, maxAlloc: 32 << 20},
		{name: "double", src: `(let [x (/ ` + long + ` 1E+99000M)] (dotimes [i 1000] (double x)) 1)`, want: stepLimit, maxAlloc: 32 << 20},
	}, Env{})
	// One of each fits the default budget, and short decimals cost a step.
	for _, src := range []string{
		`(let [x ` + long + `] (= x 1E+99000M))`,
		`(count {` + long + ` 1})`,
		`(quot 1E+99999M 1E+99998M)`,
		`(dotimes [i 100000] (quot 1.5M (compare 2.5M (max 1.25M 3M))))`,
		`(= 1E+999999999M 1E-999999999M)`,
	} {
		if res := run(t, src, Env{}); res.Err != nil {
			t.Errorf("%.60s: %v", src, res.Err)
		}
	}
}

// TestExtendedPrecisionMathIsCharged: sin, cos, tan, exp, log, log10 and
// pow are computed to Java's last digit in extended-precision floats, up
// to tens of microseconds a call, and charged as such (extendedPrecision,
// powCost), so that a loop of them ends at the step limit, not the clock;
// hundreds of each still fit the default budget. What Go allocates for
// them is garbage the collector takes back, not held.
func TestExtendedPrecisionMathIsCharged(t *testing.T) {
	checkAttacks(t, []attack{
		{name: "tan of the largest double", src: `(dotimes [i 100000] (Math/tan 1.7976931348623157E308))`, want: stepLimit, maxAlloc: 128 << 20},
		{name: "sin", src: `(dotimes [i 100000] (Math/sin i))`, want: stepLimit, maxAlloc: 128 << 20},
		{name: "exp", src: `(dotimes [i 100000] (exp 0.5))`, want: stepLimit, maxAlloc: 128 << 20},
		{name: "log10", src: `(dotimes [i 100000] (math/log10 2.5))`, want: stepLimit, maxAlloc: 128 << 20},
		{name: "log", src: `(dotimes [i 100000] (Math/log (+ i 1.5)))`, want: stepLimit, maxAlloc: 128 << 20},
		{name: "pow of a fractional exponent", src: `(dotimes [i 100000] (Math/pow 1.0001 (+ i 0.5)))`, want: stepLimit, maxAlloc: 128 << 20},
		{name: "pow of an integral exponent past 1024", src: `(dotimes [i 100000] (math/pow 1.0001 (+ i 2000)))`, want: stepLimit, maxAlloc: 128 << 20},
	}, Env{})
	if res := run(t, `(count (map (fn [i] (+ (Math/sin i) (Math/cos i) (exp 1) (log 2) (log10 3) (Math/pow 1.5 0.5))) (range 500)))`, Env{}); res.Err != nil {
		t.Errorf("500 of each: %v", res.Err)
	}
	// pow of a small integral exponent is taken by squaring, a few
	// microseconds: thousands fit.
	if res := run(t, `(reduce + (map (fn [i] (Math/pow 1.05 (mod i 100))) (range 10000)))`, Env{}); res.Err != nil {
		t.Errorf("10,000 pows of integral exponents: %v", res.Err)
	}
}

// TestRegexCompilingIsCharged: re-pattern is charged the steps of
// compiling a pattern and the heap the regex holds (chargeRegex), and a
// regex literal is compiled once, when the program is analyzed, so that a
// literal in a loop costs its compiling once.
func TestRegexCompilingIsCharged(t *testing.T) {
	checkAttacks(t, []attack{
		{name: "100,000 regexes compiled and kept", src: `(count (mapv (fn [i] (re-pattern (str "a" i))) (range 100000)))`, want: memoryLimit, maxAlloc: 64 << 20},
		{name: "long programs kept", src: `(count (mapv (fn [i] (re-pattern (str "[a-z]{1,1000}" i))) (range 1000)))`, want: stepLimit, maxAlloc: 256 << 20},
		{name: "a program of 100,000 literals", src: "(count [" + strings.Repeat(`#"a" `, 100_000) + "])", want: stepLimit, maxAlloc: 64 << 20},
	}, Env{})
	res := run(t, `(count (filter (fn [i] (re-find #"7" (str i))) (range 100000)))`, Env{})
	if res.Err != nil || res.Value != Int(40951) {
		t.Errorf("a literal matched 100,000 times: %v, %v; want 40951", res.Value, res.Err)
	}
	// A value's source may spell regexes that take far more steps and
	// heap to compile than its bytes.
	for _, src := range []string{`(re-pattern "[a-z]{1,1000}")`, `[#"[a-z]{1,1000}" #"(a|b|c|d|e|f|g){1,100}" #"a"]`} {
		if _, err := loadSource(context.Background(), src, 0); err != nil {
			t.Errorf("loading %s as a value's source: %v", src, err)
		}
	}
	// A literal that does not compile fails where it is evaluated.
	if res := run(t, `(if false #"(?<=a)(b" 1)`, Env{}); res.Err != nil || res.Value != Int(1) {
		t.Errorf("an unevaluated literal that does not compile: %v, %v; want 1", res.Value, res.Err)
	}
	if res := run(t, `(re-find #"(?<=a)(b" "ab")`, Env{}); res.Err == nil {
		t.Errorf("a literal that does not compile, evaluated: %v, want an error", res.Value)
	}
	// A local named re-pattern is called, not compiled.
	if res := run(t, `(let [re-pattern (fn [s] (count s))] (re-pattern "abc"))`, Env{}); res.Err != nil || res.Value != Int(3) {
		t.Errorf("a local re-pattern: %v, %v; want 3", res.Value, res.Err)
	}
}

// TestNumberReadWork: the read cost of converting the long numbers of a
// value's text grows with the square of their digits, counts numbers in
// EDN and JSON alike, and not digits in strings, comments or character
// literals.
func TestNumberReadWork(t *testing.T) {
	d := strings.Repeat("7", 100_000)
	one := NumberReadWork(d)
	if one < 1<<20 {
		t.Errorf("100,000 digits cost %d, want at least a MiB", one)
	}
	if tenth := NumberReadWork(d[:10_000]); one < 90*tenth {
		t.Errorf("10 times the digits cost %d times the work, want about 100", one/max(tenth, 1))
	}
	for text, want := range map[string]int64{
		"[" + d + " " + d + "]":              2 * one,
		`{"xs": [` + d + `,` + d + `]}`:      2 * one,
		`["` + d + `" "a\"` + d + `"]`:       0,
		"; " + d + "\n[1 2 3]":               0,
		`[\" ` + d + `]`:                     one,
		"[1.5M 123456789012345678 -42 1e10]": 0,
	} {
		if got := NumberReadWork(text); got != want {
			t.Errorf("NumberReadWork(%.30q...) = %d, want %d", text, got, want)
		}
	}
}

// TestHashIsChargedWhole: hash visits its argument whole, nested
// collections and the digits of long decimals in them included, and is
// charged for it; it hashes decimals as Clojure does.
func TestHashIsChargedWhole(t *testing.T) {
	checkAttacks(t, []attack{
		{name: "a vector holding 200,000 items", src: `(let [v [(vec (range 200000))]] (dotimes [i 1000] (hash v)) 1)`, want: stepLimit, maxAlloc: 64 << 20},
		{name: "long decimals in a vector", src: `(let [x (.setScale 1E+99000M 0)] (dotimes [i 100] (hash [x x x x x x x x x x])) 1)`, want: stepLimit, maxAlloc: 64 << 20},
	}, Env{})
	// As Clojure 1.11 prints them.
	res := run(t, `[(hash 1.50M) (hash 1.5M) (hash 0.0M) (hash 100M) (hash 1E+2M) (hash -3.25M)]`, Env{})
	if res.Err != nil || Repr(res.Value) != "[466 466 0 29 29 -10073]" {
		t.Errorf("hash of decimals: %v, %v; want [466 466 0 29 29 -10073]", res.Value, res.Err)
	}
}

// TestSourceReadWork: loading source costs by its calls, not its bytes
// alone: a closure over a large literal map costs about what the map
// does, a vector of atoms far more.
func TestSourceReadWork(t *testing.T) {
	data := "{" + strings.Repeat(`:k "some text" `, 10_000) + "}"
	closure := SourceReadWork("(let [m " + data + "] (fn [k] (get m k)))")
	if limit := ReadCostLimit(int64(len(data))); closure > 2*limit {
		t.Errorf("a closure over %d bytes of data costs %d to load, want at most twice its read cost limit %d", len(data), closure, limit)
	}
	atoms := SourceReadWork("[" + strings.Repeat("(atom 0) ", 10_000) + "]")
	if atoms < 10_000*sourceCallWork {
		t.Errorf("10,000 calls cost %d, want at least %d", atoms, 10_000*sourceCallWork)
	}
	if got := SourceReadWork(`[#"a" (re-pattern "b") "(not a call)"]`); got != sourceByteWork*38+sourceCallWork+2*regexSourceSteps*5/2 {
		t.Errorf("two regexes and a string: %d", got)
	}
}
