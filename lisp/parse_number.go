package lisp

import "strings"

// Reading numbers out of strings (parse-long, parse-double and Java's
// parsers). A string may be as long as any value, and its charge (a step
// per 64 bytes) is taken whole before the parse starts; the parse itself
// then runs in one call. So it reads the string with a scan of a few
// nanoseconds a byte that looks at the evaluation's context every
// numberScanStride bytes (a regular expression took 0.3 µs a byte: 0.5 s
// for 4 MB of digits with no look at the clock), and it never hands Go's
// number parsers more than a number can need: an integer's leading zeros
// are dropped first, and a decimal number longer than maxDecimalChars is
// refused with an error naming the limit, where Java would read it.

// numberScanStride is how many bytes a number's scan reads between two
// looks at the evaluation's context.
const numberScanStride = 64 << 10

// maxDecimalChars bounds the decimal numbers parse-double and
// Double/parseDouble read: strconv reads one in about 25 ns a byte without
// a look at the clock (1.6 ms at the bound), and no number a program
// meets in data is longer.
const maxDecimalChars = 64 << 10

// stopped is the error that ends the evaluation when its context is done
// (its time is up or its caller went away), else nil.
func (th *Thread) stopped() error {
	if th.ctx != nil {
		if err := th.ctx.Err(); err != nil {
			return th.contextError(err)
		}
	}
	return nil
}

// digitsFrom returns the end of the run of ASCII digits of s starting at
// i, looking at the context every numberScanStride bytes.
func (th *Thread) digitsFrom(s string, i int) (int, error) {
	return th.runFrom(s, i, isDigit)
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

func isHexDigit(b byte) bool {
	return isDigit(b) || 'a' <= b && b <= 'f' || 'A' <= b && b <= 'F'
}

// runFrom returns the end of the run of bytes of s starting at i that
// digit accepts, looking at the context every numberScanStride bytes.
func (th *Thread) runFrom(s string, i int, digit func(byte) bool) (int, error) {
	for i < len(s) {
		end := min(len(s), i+numberScanStride)
		for i < end && digit(s[i]) {
			i++
		}
		if i < end {
			break
		}
		if err := th.stopped(); err != nil {
			return i, err
		}
	}
	return i, nil
}

// integerText returns s, an optionally signed run of digits, with its
// leading zeros dropped (one kept for zero), and whether s is one: what
// parse-long accepts (^[+-]?[0-9]+$).
func (th *Thread) integerText(s string) (string, bool, error) {
	sign := ""
	if s != "" && (s[0] == '+' || s[0] == '-') {
		sign, s = s[:1], s[1:]
	}
	end, err := th.digitsFrom(s, 0)
	if err != nil || end == 0 || end != len(s) {
		return "", false, err
	}
	digits := strings.TrimLeft(s, "0")
	if digits == "" {
		digits = "0"
	}
	return sign + digits, true, nil
}

// isDecimal reports whether s is a number as parse-double accepts it:
// ^[+-]?(NaN|Infinity|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)$,
// or a hexadecimal one (isHexDecimal).
func (th *Thread) isDecimal(s string) (bool, error) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if s[i:] == "NaN" || s[i:] == "Infinity" {
		return true, nil
	}
	if strings.HasPrefix(s[i:], "0x") || strings.HasPrefix(s[i:], "0X") {
		return th.isHexDecimal(s[i+2:])
	}
	i, digits, err := th.mantissaFrom(s, i, isDigit)
	if err != nil || digits == 0 {
		return false, err
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		if i, err = th.exponentFrom(s, i+1); err != nil || i < 0 {
			return false, err
		}
	}
	return i == len(s), nil
}

// mantissaFrom returns the end of the mantissa of s that starts at i,
// digits with at most one point, and how many digits it holds.
func (th *Thread) mantissaFrom(s string, i int, digit func(byte) bool) (end, digits int, err error) {
	start := i
	if i, err = th.runFrom(s, i, digit); err != nil {
		return i, 0, err
	}
	digits = i - start
	if i < len(s) && s[i] == '.' {
		next, err := th.runFrom(s, i+1, digit)
		if err != nil {
			return next, 0, err
		}
		digits += next - (i + 1)
		i = next
	}
	return i, digits, nil
}

// exponentFrom returns the end of the signed decimal exponent of s that
// starts at i, after its letter, or -1 when it has no digit.
func (th *Thread) exponentFrom(s string, i int) (int, error) {
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	start := i
	i, err := th.digitsFrom(s, i)
	if err != nil || i == start {
		return -1, err
	}
	return i, nil
}

// isHexDecimal reports whether s, what follows the 0x of a number, is a
// hexadecimal floating-point number as Java's Double.parseDouble reads it
// (0x1.8p1 is 3.0): ^([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+$,
// the binary exponent required. Clojure's reader has no such literal;
// Double/parseDouble and parse-double read it.
func (th *Thread) isHexDecimal(s string) (bool, error) {
	i, digits, err := th.mantissaFrom(s, 0, isHexDigit)
	if err != nil || digits == 0 || i == len(s) || (s[i] != 'p' && s[i] != 'P') {
		return false, err
	}
	if i, err = th.exponentFrom(s, i+1); err != nil || i < 0 {
		return false, err
	}
	return i == len(s), nil
}

// decimalTooLong is the error of a decimal number of n characters, past
// maxDecimalChars, read by fn.
func decimalTooLong(fn string, n int) *Error {
	return javaErrorf(executionError, noJavaClass, "%s: a number of %d characters, longer than the %d this sidecar reads", fn, n, maxDecimalChars).
		WithHint("a number in data has at most a few dozen digits; take the digits you need with subs first")
}
