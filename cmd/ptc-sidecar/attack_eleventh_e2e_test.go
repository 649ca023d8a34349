package main_test

// An eleventh pass of attacks of issue 33's classes, aimed at what the
// last release added to the interpreter: the backtracking regex matcher
// (lookbehind, backreferences, possessive and atomic groups, class
// intersection, many groups, patterns built at run time), read-string
// and clojure.edn/read-string at run time, BigInteger's methods and the
// big integers they make, reflection's analysis of huge programs, and
// the java.time, String and Character statics. Each attack is sent three
// times over each listener to a server of its own and judged as the
// input attacks are (runInputAttack): a limit, not the clock, must end
// it, the same way every time.

import (
	"strconv"
	"strings"
	"testing"
)

// eleventhPassAttacks are the attacks of the eleventh pass.
func eleventhPassAttacks() []inputAttack {
	prog := programAttack
	// A 100,000-digit integer (the most read-string reads), made once,
	// then used by one call in a loop until a limit ends it: each call
	// read or copied its 5,200 words for the step of the call.
	const huge = `(biginteger (read-string (apply str (repeat 100000 "9"))))`
	bigLoop := func(call string) inputAttack {
		return prog(call+" of a 100,000-digit integer in a loop", "step_limit",
			`(let [x `+huge+` nx (.negate x) x2 (.add x BigInteger/ZERO)] (loop [i 0] (if (nil? (`+call+`)) i (recur (inc i)))))`)
	}
	// A program of 20,000 functions calling overloaded statics, which
	// reflection types before the clock would start.
	var reflected strings.Builder
	for i := range 20000 {
		reflected.WriteString("(defn f" + strconv.Itoa(i) + " [a b] (Math/abs (Math/max a (Math/min b (Math/addExact a b)))))\n")
	}
	reflected.WriteString("1")
	return []inputAttack{
		// Big integers: conversions, comparisons, hashes and arithmetic
		// outside + and *.
		bigLoop("number? x"),
		bigLoop("zero? x"),
		bigLoop(".doubleValue x"),
		bigLoop("== x x2"),
		bigLoop("< x 1.5M"),
		bigLoop("= x x2"),
		bigLoop("compare x x2"),
		bigLoop("hash x"),
		bigLoop("conj #{} x"),
		bigLoop("unchecked-long x"),
		bigLoop("unchecked-int nx"),
		bigLoop("mod x 3"),
		bigLoop("inc' x"),
		bigLoop("- x"),
		bigLoop(".bitLength nx"),
		bigLoop(".intValue nx"),
		prog("unchecked-long of a decimal of exponent 99,999 in a loop", "step_limit",
			`(loop [i 0] (if (int? (unchecked-long 1E99999M)) (recur (inc i)) i))`),
		// BigInteger's primality test, charged below its CPU.
		prog(".isProbablePrime of a 127-bit prime in a loop", "step_limit",
			`(let [p (.subtract (.pow (biginteger 2) 127) BigInteger/ONE)] (loop [i 0] (if (.isProbablePrime p 100) (recur (inc i)) i)))`),
		prog(".isProbablePrime of a 4,423-bit prime", "step_limit",
			`(.isProbablePrime (.subtract (.pow (biginteger 2) 4423) BigInteger/ONE) 100)`),
		prog(".modPow with a 600-bit exponent and a 20,000-bit modulus", "step_limit",
			`(let [m (.subtract (.pow (biginteger 2) 20000) BigInteger/ONE) e (.subtract (.pow (biginteger 2) 600) BigInteger/ONE)] (.bitLength (.modPow (biginteger 3) e m)))`),
		// The backtracking matcher over long inputs.
		prog("an unbounded lookbehind over 50,000 characters", "memory_limit",
			`(count (re-seq #"(?<=^a*)a" (apply str (repeat 50000 "a"))))`),
		prog("a backreference to a 200,000-character group", "step_limit",
			`(count (first (re-find #"(a+)\1" (apply str (repeat 200000 "a")))))`),
		prog("nested possessive groups over 50,000 characters", "step_limit",
			`(count (re-seq #"(?>a+)+b" (apply str (repeat 50000 "a"))))`),
		prog("a class intersection of all of Unicode in a lookahead", "step_limit",
			`(count (re-seq #"(?=[\x{0}-\x{10FFFF}&&[^b]]{1,100}b)" (apply str (repeat 100000 "a"))))`),
		prog("ten groups per match over 200,000 characters", "step_limit",
			`(count (re-seq #"(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)" (apply str (repeat 200000 "a"))))`),
		prog("a lookbehind pattern built at run time 200,000 times", "step_limit",
			`(reduce (fn [n i] (+ n (count (str (re-pattern (str "(?<=a)" (mod i 100) "(a+)+\\1")))))) 0 (range 200000))`),
		// read-string at run time.
		prog("read-string of a 100,000-digit number in a loop", "step_limit",
			`(reduce (fn [n i] (+ n (if (pos? (read-string (apply str (repeat 20000 "9")))) 1 0))) 0 (range 1000))`),
		prog("read-string of a vector of 300,000 numbers", "memory_limit",
			`(count (read-string (str "[" (apply str (repeat 300000 "1 ")) "]")))`),
		prog("read-string of 100,000 nested vectors", "execution_error",
			`(read-string (str (apply str (repeat 100000 "[")) (apply str (repeat 100000 "]"))))`),
		prog("read-string of a decimal of exponent 999,999,999 added to", "step_limit", `(+ 1 (read-string "1E-999999999M"))`),
		// Reflection of 20,000 functions calling overloaded statics.
		prog("20,000 functions of overloaded statics", "step_limit", reflected.String()),
		// java.time over huge ranges.
		prog("plusDays two million times", "step_limit",
			`(loop [d (java.time.LocalDate/of 2020 1 1) i 0] (if (< i 2000000) (recur (.plusDays d 1) (inc i)) (str d)))`),
		prog("a date formatted in a loop", "step_limit",
			`(let [d (java.time.LocalDateTime/of 2020 1 1 10 15 30 123456789) f (java.time.format.DateTimeFormatter/ofPattern "yyyy-MM-dd HH:mm:ss.SSSSSSSSS EEEE MMMM")] (loop [i 0] (if (string? (.format d f)) (recur (inc i)) i)))`),
		prog("a 900-byte date pattern formatted in a loop", "step_limit",
			`(let [d (java.time.LocalDateTime/of 2020 1 1 10 15 30) f (java.time.format.DateTimeFormatter/ofPattern (apply str (repeat 30 "yyyy-MM-dd HH:mm:ss EEEE MMMM ")))] (loop [i 0] (if (string? (.format d f)) (recur (inc i)) i)))`),
		prog("isBefore and getNano of date-times in a loop", "step_limit",
			`(let [d (java.time.LocalDateTime/of 2020 1 1 10 15 30 123456789) e (java.time.LocalDateTime/of 2021 1 1 10 15)] (loop [i 0] (if (and (.isBefore d e) (int? (.getNano d))) (recur (inc i)) i)))`),
	}
}

// TestAttacksEleventhPass sends every attack of the eleventh pass three
// times over both listeners, each to a server of its own.
func TestAttacksEleventhPass(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, eleventhPassAttacks())
}
