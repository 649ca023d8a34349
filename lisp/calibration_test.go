package lisp

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestHostileWorkEndsByACharge: each kind of work the calibration
// benchmark measures, made large enough to pass the default limits, ends
// by its step or memory charge, at the same step in every run, with the
// clock set far away: its outcome is decided by counted work, so a loaded
// machine cannot turn it into a timeout before its CPU reaches the
// default timeout (BenchmarkCalibration: at most 0.12 s of CPU per
// million steps).
func TestHostileWorkEndsByACharge(t *testing.T) {
	var defmethods strings.Builder
	defmethods.WriteString("(defmulti f :k)\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&defmethods, "(defmethod f %d [x] %d)\n", i, i)
	}
	defmethods.WriteString("(f {:k 19999})")
	programs := []string{
		`(loop [i 0 s 0] (if (< i 2000000) (recur (inc i) (+ s i)) s))`,
		`(count (reduce (fn [v i] (with-meta v {:i i})) [1 2 3] (range 1000000)))`,
		`(count (reduce (fn [v i] (vary-meta v assoc :i i)) [1 2 3] (range 1000000)))`,
		defmethods.String(),
		`(defmulti g :k) (defmethod g :a [x] 1) (reduce (fn [s i] (+ s (g {:k :a}))) 0 (range 1000000))`,
		`(defprotocol P (p [x])) (extend-protocol P Long (p [x] x)) (reduce (fn [s i] (+ s (p i))) 0 (range 1000000))`,
		`(reduce (fn [s i] (+ s (count (re-find #"[0-9]+" (str "ab" i))))) 0 (range 1000000))`,
		`(count (sort (fn [a b] (compare b a)) (range 1000000)))`,
		`(count (mapv #(format "%05d %s %.2f" % "x" 1.5) (range 1000000)))`,
		`(count (frequencies (map #(mod % 1000) (range 2000000))))`,
		`(count (reduce (fn [m i] (assoc m i i)) {} (range 1000000)))`,
		// Views of a set, a padded partition and a partial's fixed
		// arguments: each did work of the set's, the pad's or the fixed
		// arguments' size on every call, which nothing charged.
		`(let [s (set (range 20000))] (reduce (fn [n i] (+ n (first (rest s)))) 0 (range 100000)))`,
		`(let [p (vec (range 200000))] (reduce (fn [n i] (+ n (count (partition 1.5 1 p [1])))) 0 (range 100000)))`,
		`(let [g (apply partial (constantly 1) (range 40000))] (reduce (fn [n i] (+ n (g i))) 0 (range 100000)))`,
		// Writing a big integer in decimal is superlinear in its digits:
		// charged by its bytes alone, printing one of 38,000 digits in a
		// loop took 0.2 s of CPU to the memory limit.
		`(let [n (bigint (apply str (repeat 38000 "7")))] (reduce (fn [s i] (+ s (count (str n)))) 0 (range 100000)))`,
		`(let [n (bigint (apply str (repeat 38000 "7")))] (reduce (fn [s i] (+ s (count (pr-str [n])))) 0 (range 100000)))`,
		`(let [n (biginteger (bigint (apply str (repeat 38000 "7"))))] (reduce (fn [s i] (+ s (count (format "%d" n)) (count (.toString n)))) 0 (range 100000)))`,
		`(let [n (bigdec (bigint (apply str (repeat 38000 "7"))))] (reduce (fn [s i] (+ s (count (str n "")))) 0 (range 100000)))`,
		`(let [n (bigint (apply str (repeat 38000 "7")))] (reduce (fn [s i] (+ s (count (json/generate-string [n])))) 0 (range 100000)))`,
		// A 100,000-digit integer compared, hashed, narrowed and divided,
		// and a small prime tested: each call read or copied its words,
		// or ran 21 modular powers, for the step of the call.
		`(let [x (biginteger (read-string (apply str (repeat 100000 "9")))) y (.add x BigInteger/ZERO)] (loop [i 0] (if (and (== x y) (= x y) (number? x) (int? (hash x))) (recur (+ (unchecked-long x) (mod x 3))) i)))`,
		`(let [p (.subtract (.pow (biginteger 2) 127) BigInteger/ONE)] (loop [i 0] (if (.isProbablePrime p 100) (recur (inc i)) i)))`,
		// java.time methods read their arguments' ISO text and a
		// formatter's pattern at every call: a loop of them spent 280 ns
		// to 7 µs of CPU a step.
		`(let [d (java.time.LocalDateTime/of 2020 1 1 10 15 30 123456789) f (java.time.format.DateTimeFormatter/ofPattern "yyyy-MM-dd HH:mm:ss.SSSSSSSSS EEEE MMMM")] (loop [i 0] (if (string? (.format d f)) (recur (inc i)) i)))`,
		`(loop [d (java.time.LocalDate/of 2020 1 1) i 0] (if (.isBefore d (java.time.LocalDate/of 9999 1 1)) (recur (.plusDays d 1) (+ i (.getDayOfMonth d))) i))`,
		`(reduce + (map (fn [i] (+ (Math/sin i) (Math/pow 1.0001 (+ i 0.5)) (Math/log10 (inc i)) (Math/log (inc i)) (Math/exp (/ i 1e4)))) (range 1000000)))`,
	}
	limits := DefaultLimits()
	limits.Timeout = 10 * time.Minute
	for _, src := range programs {
		var steps int64
		for i := range 2 {
			res := run(t, src, Env{Limits: limits})
			if res.Err == nil || (res.Err.Kind != stepLimit && res.Err.Kind != memoryLimit) {
				t.Fatalf("%.60s: got %v, want step_limit or memory_limit", src, res.Err)
			}
			if i > 0 && res.Steps != steps {
				t.Errorf("%.60s: ended at step %d, then %d", src, steps, res.Steps)
			}
			steps = res.Steps
		}
	}
}

// TestBigNumberConversionIsCharged: every way of writing a big integer or
// decimal in decimal charges the superlinear conversion (bigTextSteps:
// about 14,000 steps for 38,000 digits, 1 ms of CPU) before it converts,
// not only the text's bytes (about 600 steps).
func TestBigNumberConversionIsCharged(t *testing.T) {
	const build = `(let [n (bigint (apply str (repeat 38000 "7"))) b (biginteger n) d (bigdec n)] %s)`
	base := run(t, fmt.Sprintf(build, "1"), Env{})
	if base.Err != nil {
		t.Fatal(base.Err)
	}
	for _, form := range []string{
		`(count (str n))`, `(count (str d))`, `(count (str n "x"))`, `(count (pr-str [n]))`, `(count (pr-str {:d d}))`,
		`(count (format "%d" b))`, `(count (.toString b))`, `(count (json/generate-string [n]))`, `(count (print-str n))`,
	} {
		res := run(t, fmt.Sprintf(build, form), Env{})
		if res.Err != nil {
			t.Fatalf("%s: %v", form, res.Err)
		}
		if got := res.Steps - base.Steps; got < 12000 {
			t.Errorf("%s: charged %d steps, want the conversion's (at least 12,000)", form, got)
		}
	}
}

// TestJSONDecodingIsCharged: json/parse-string and json/parse-lines of a
// text from data end by a charge within a ten-minute clock, and charge
// the decoder's own work (its set-up per value read, each token), not only
// the values' bytes: charged by those alone, 1.5 M one-byte lines took
// 1.1 s of CPU to the memory limit and an array of 3 M numbers 0.18 s.
func TestJSONDecodingIsCharged(t *testing.T) {
	limits := DefaultLimits()
	limits.Timeout = 10 * time.Minute
	for _, c := range []struct{ src, text string }{
		{`(count (json/parse-lines data/s))`, strings.Repeat("1\n", 1_500_000)},
		{`(count (json/parse-string data/s))`, "[" + strings.Repeat("1,", 3_000_000) + "1]"},
		{`(count (json/parse-string data/s))`, "[" + strings.Repeat("1.5e300,", 800_000) + "1]"},
	} {
		res := run(t, c.src, Env{Limits: limits, Data: textData(c.text)})
		if res.Err == nil || (res.Err.Kind != stepLimit && res.Err.Kind != memoryLimit) {
			t.Fatalf("%s of %d bytes: got %v, want step_limit or memory_limit", c.src, len(c.text), res.Err)
		}
	}
	// 10,000 lines of one value each: the set-up and the token of each.
	lines := run(t, `(count (json/parse-lines data/s))`, Env{Data: textData(strings.Repeat("1\n", 10_000))})
	tokens := run(t, `(count (json/parse-string data/s))`, Env{Data: textData("[" + strings.Repeat("1,", 10_000) + "1]")})
	if lines.Err != nil || tokens.Err != nil {
		t.Fatal(lines.Err, tokens.Err)
	}
	if lines.Steps < 10_000*(jsonDecoderSteps+jsonTokenSteps) {
		t.Errorf("10,000 lines cost %d steps, want at least %d", lines.Steps, 10_000*(jsonDecoderSteps+jsonTokenSteps))
	}
	if tokens.Steps < 10_000*jsonTokenSteps {
		t.Errorf("10,000 numbers cost %d steps, want at least %d", tokens.Steps, 10_000*jsonTokenSteps)
	}
}
