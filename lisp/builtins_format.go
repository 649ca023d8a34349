package lisp

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
)

// format follows Java's String.format, which is what Clojure's format
// calls: %[flags][width][.precision]conversion with the conversions
// s S d x X o f e E g b c n %. Floats are rounded half-up from their
// shortest decimal form, as Java does ((format "%.1f" 0.15) is "0.2").
// Integers given to a float conversion are converted; floats given to %d
// are a type error, as in Java.
func builtinFormat(th *Thread, args []Value) (Value, error) {
	pattern, err := stringArg("format", args[0])
	if err != nil {
		return nil, err
	}
	rest := args[1:]
	next := 0      // the ordinary index: conversions without one take the arguments in turn
	var last Value // the argument the conversion before took, for %<s
	b := textWriter{th: th}
	if err := checkFormatPattern(pattern); err != nil {
		return nil, err
	}
	// Once the writer has stopped (the budget or its limit), the text is
	// decided: the conversions left would build text only to drop it.
	for i := 0; i < len(pattern) && !b.stopped(); i++ {
		c := pattern[i]
		if c != '%' {
			b.writeByte(c)
			continue
		}
		spec, n, err := parseFormatSpec(pattern[i+1:])
		if err != nil {
			return nil, err
		}
		i += n
		switch spec.conv {
		case '%':
			b.writeString(pad(spec, "%"))
			continue
		case 'n':
			b.writeByte('\n')
			continue
		}
		// Java's argument indexes: %2$s takes the second argument and
		// %<s the one before, neither moving the ordinary index.
		var arg Value
		switch {
		case spec.index == -1 && last != nil:
			arg = last
		case spec.index > 0 && spec.index <= len(rest):
			arg = rest[spec.index-1]
		case spec.index == 0 && next < len(rest):
			arg = rest[next]
			next++
		default:
			return nil, Errorf(executionError, "format: no argument left for %%%c", spec.conv).
				WithHint("give one argument per conversion; write %%%% for a literal percent sign").
				asJava("MissingFormatArgumentException", "Format specifier '%"+pattern[i-n+1:i+1]+"'")
		}
		last = arg
		if _, isNil := arg.(NilType); spec.conv == 's' && spec.width == 0 && spec.precision < 0 && !isNil && !spec.has('#') {
			// The common %s: the value's text goes straight into the
			// writer, charged there, with no copy built beside it.
			if err := writeValue(&b, th, arg, asStr); err != nil {
				return nil, err
			}
			continue
		}
		// A conversion builds its text apart from the writer: the padding,
		// the padded copy, the digits of a precision. They are charged
		// before they are built, so that wide widths repeated end at the
		// budget rather than past it by what the collector has yet to free.
		if built := 2 * int64(max(spec.width, spec.precision)); built > 0 {
			if err := th.alloc(built); err != nil {
				return nil, err
			}
		}
		text, err := formatOne(th, spec, arg)
		if err != nil {
			return nil, err
		}
		b.writeString(text)
	}
	return b.text()
}

// checkFormatPattern parses every conversion of pattern, as Java's
// Formatter does before it formats any: a bad conversion late in the
// pattern is its error even when an earlier argument is wrong.
func checkFormatPattern(pattern string) error {
	for i := 0; i < len(pattern); i++ {
		if pattern[i] != '%' {
			continue
		}
		_, n, err := parseFormatSpec(pattern[i+1:])
		if err != nil {
			return err
		}
		i += n
	}
	return nil
}

type formatSpec struct {
	index     int // 1 for %1$s; -1 for %<s; 0 for none
	flags     string
	width     int
	precision int // -1: none
	conv      byte
}

func (s formatSpec) has(flag byte) bool { return strings.IndexByte(s.flags, flag) >= 0 }

// maxFormatWidth bounds widths and precisions so that "%999999999d" cannot
// build a huge string before the budget sees it.
const maxFormatWidth = 10_000

// parseFormatSpec reads a conversion after '%'; n is how many bytes it used.
func parseFormatSpec(s string) (spec formatSpec, n int, err error) {
	spec.precision = -1
	i := 0
	if j := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }); j > 0 && s[j] == '$' && s[0] != '0' {
		spec.index, _ = strconv.Atoi(s[:j])
		i = j + 1
	} else if len(s) > 0 && s[0] == '<' {
		spec.index, i = -1, 1
	}
	flagsFrom := i
	for i < len(s) && strings.IndexByte("-#+ 0,(", s[i]) >= 0 {
		i++
	}
	spec.flags = s[flagsFrom:i]
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > start {
		spec.width, _ = strconv.Atoi(s[start:i])
	}
	if i < len(s) && s[i] == '.' {
		i++
		start = i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		spec.precision, _ = strconv.Atoi(s[start:i])
	}
	if i >= len(s) {
		return spec, 0, Errorf(executionError, "format: the pattern ends inside a %% conversion").
			WithHint("write %%%% for a literal percent sign").asJava("UnknownFormatConversionException", "Conversion = '%'")
	}
	if spec.width > maxFormatWidth || spec.precision > maxFormatWidth {
		return spec, 0, javaErrorf(executionError, noJavaClass, "format: width or precision above %d", maxFormatWidth)
	}
	spec.conv = s[i]
	if strings.IndexByte("sSdxXofeEgGbBchHn%", spec.conv) < 0 {
		return spec, 0, Errorf(executionError, "format: unknown conversion %%%c", spec.conv).
			WithHint("use %%s, %%d, %%f, %%.2f, %%x, %%e or %%%%").
			asJava("UnknownFormatConversionException", fmt.Sprintf("Conversion = '%c'", spec.conv))
	}
	if err := spec.javaCheck(); err != nil {
		return spec, 0, err
	}
	return spec, i + 1, nil
}

// javaCheck refuses a conversion whose flags, width or precision Java's
// Formatter refuses, with its exception and message (its FormatSpecifier's
// checks, in their order): a flag twice, a precision of an integer or
// character, - or 0 with no width, + with a space or - with 0, and each
// flag its conversion does not take. Java parses the whole pattern
// before it formats, so these come before any argument's error.
func (s formatSpec) javaCheck() error {
	for i := 0; i < len(s.flags); i++ {
		if strings.IndexByte(s.flags[i+1:], s.flags[i]) >= 0 {
			fixed := s
			fixed.flags = s.flags[:i] + s.flags[i+1:]
			return s.formatError("DuplicateFormatFlagsException", "Flags = '"+s.flags[i:i+1]+"'", fixed)
		}
	}
	conv := s.conv | 0x20 // Java names the conversion in lower case: %S is s
	noWidth := s.width == 0
	missingWidth := func() error {
		fixed := s
		fixed.width = 8
		return s.formatError("MissingFormatWidthException", s.text(), fixed)
	}
	switch conv {
	case 's', 'b', 'h':
		if s.has('#') && conv != 's' { // %#s fails as it prints (formatOne)
			return s.mismatch('#')
		}
		if noWidth && s.has('-') {
			return missingWidth()
		}
		return s.badFlags("+ 0,(")
	case 'c':
		if s.precision >= 0 {
			return s.noPrecision()
		}
		if err := s.badFlags("#+ 0,("); err != nil {
			return err
		}
		if noWidth && s.has('-') {
			return missingWidth()
		}
	case 'd', 'o', 'x', 'e', 'f', 'g':
		if noWidth && (s.has('-') || s.has('0')) {
			return missingWidth()
		}
		if s.has('+') && s.has(' ') || s.has('-') && s.has('0') {
			fixed := s // keep the + of + and space, the - of - and 0
			fixed.flags = strings.Map(func(r rune) rune {
				if r == ' ' || r == '0' {
					return -1
				}
				return r
			}, s.flags)
			return s.formatError("IllegalFormatFlagsException", "Flags = '"+javaFlagOrder(s.flags, s.conv != conv)+"'", fixed)
		}
		switch conv {
		case 'd', 'o', 'x':
			if s.precision >= 0 {
				return s.noPrecision()
			}
			if conv == 'd' {
				return s.badFlags("#")
			}
			return s.badFlags(",")
		case 'e':
			return s.badFlags(",")
		case 'g':
			return s.badFlags("#")
		}
	}
	return nil
}

// widthText is the width and precision as Java's message writes them.
func (s formatSpec) widthText() string {
	text := ""
	if s.width > 0 {
		text = strconv.Itoa(s.width)
	}
	if s.precision >= 0 {
		text += "." + strconv.Itoa(s.precision)
	}
	return text
}

// javaFlagOrder is flags in the order Java's Flags.toString writes them,
// with ^, its flag for an upper-case conversion (%X), when upper is set.
func javaFlagOrder(flags string, upper bool) string {
	if upper {
		flags += "^"
	}
	var b strings.Builder
	for _, f := range []byte("-^#+ 0,(") {
		if strings.IndexByte(flags, f) >= 0 {
			b.WriteByte(f)
		}
	}
	return b.String()
}

// cut keeps at most precision characters of text, as Java's general
// conversions (%s, %b, %h) do.
func cut(text string, precision int) string {
	if precision >= 0 {
		if r := []rune(text); len(r) > precision {
			return string(r[:precision])
		}
	}
	return text
}

// badFlags refuses the first of flags (in Java's order) that s has.
func (s formatSpec) badFlags(flags string) error {
	for i := 0; i < len(flags); i++ {
		if s.has(flags[i]) {
			return s.mismatch(flags[i])
		}
	}
	return nil
}

// mismatch is Java's refusal of a flag its conversion does not take.
func (s formatSpec) mismatch(flag byte) error {
	fixed := s
	fixed.flags = strings.ReplaceAll(s.flags, string(flag), "")
	return s.formatError("FormatFlagsConversionMismatchException", fmt.Sprintf("Conversion = %c, Flags = %c", s.conv|0x20, flag), fixed)
}

// noPrecision is Java's refusal of a precision its conversion does not
// take (an integer's, a character's).
func (s formatSpec) noPrecision() error {
	fixed := s
	fixed.precision = -1
	return s.formatError("IllegalFormatPrecisionException", strconv.Itoa(s.precision), fixed)
}

// text is the conversion as written, its argument index left out, as
// Java's messages write it.
func (s formatSpec) text() string { return "%" + s.flags + s.widthText() + string(s.conv) }

// formatError is a conversion Java's Formatter refuses, as class, with
// its message.
// fixed is the conversion the hint offers instead: the flag or precision
// dropped, or a width given.
func (s formatSpec) formatError(class, message string, fixed formatSpec) *Error {
	return Errorf(executionError, "format: Java's Formatter refuses %s (%s: %s)", s.text(), class, message).
		WithHint("write %s instead of %s", fixed.text(), s.text()).
		asJava(class, message)
}

// pad applies the width, on the left unless the - flag is set.
func pad(spec formatSpec, text string) string {
	n := len([]rune(text))
	if n >= spec.width {
		return text
	}
	fill := strings.Repeat(" ", spec.width-n)
	if spec.has('-') {
		return text + fill
	}
	return fill + text
}

// padNumber applies the width to a number, with zeros after the sign when
// the 0 flag is set.
func padNumber(spec formatSpec, text string) string {
	if !spec.has('0') || spec.has('-') || len(text) >= spec.width {
		return pad(spec, text)
	}
	sign := ""
	if text != "" && (text[0] == '-' || text[0] == '+' || text[0] == ' ') {
		sign, text = text[:1], text[1:]
	}
	return sign + strings.Repeat("0", spec.width-len(sign)-len(text)) + text
}

// signed adds the + or space flag's sign and the , flag's grouping.
func signed(spec formatSpec, neg bool, digits string) string {
	if spec.has(',') {
		intPart, frac, _ := strings.Cut(digits, ".")
		var g strings.Builder
		for i, c := range intPart {
			if i > 0 && (len(intPart)-i)%3 == 0 {
				g.WriteByte(',')
			}
			g.WriteRune(c)
		}
		digits = g.String()
		if frac != "" {
			digits += "." + frac
		}
	}
	switch {
	case neg && spec.has('('):
		return "(" + digits + ")"
	case neg:
		return "-" + digits
	case spec.has('+'):
		return "+" + digits
	case spec.has(' '):
		return " " + digits
	}
	return digits
}

func formatOne(th *Thread, spec formatSpec, arg Value) (string, error) {
	if err := chargeNumberText(th, arg); err != nil {
		return "", err
	}
	if _, isNil := arg.(NilType); isNil && strings.IndexByte("dxXofeEgG", spec.conv) >= 0 {
		// Java's Formatter prints nil as "null" for a number conversion
		// too: padded to the width, cut to the precision, upper case for
		// an upper-case conversion; (format "%d items" nil) is "null items".
		text := "null"
		if spec.precision >= 0 && spec.precision < len(text) {
			text = text[:spec.precision]
		}
		if spec.conv >= 'A' && spec.conv <= 'Z' {
			text = strings.ToUpper(text)
		}
		return pad(spec, text), nil
	}
	switch spec.conv {
	case 's', 'S':
		if spec.has('#') {
			// Java's # asks a Formattable to print itself; no value is one.
			return "", spec.mismatch('#')
		}
		text := "null"
		if s, ok := arg.(String); ok {
			text = string(s) // shared, not copied: only %S's upper case is
			if spec.conv == 'S' {
				if err := th.alloc(int64(len(s))); err != nil {
					return "", err
				}
			}
		} else if _, isNil := arg.(NilType); !isNil {
			// Built through a writer charged as it grows; a precision
			// keeps at most that many characters, of at most 4 bytes.
			t := textWriter{th: th}
			if spec.precision >= 0 {
				t.limit = 4*int64(spec.precision) + 4
			}
			if err := writeValue(&t, th, arg, asStr); err != nil {
				return "", err
			}
			if err := t.finish(); err != nil {
				return "", err
			}
			// The copies made of it below are charged too: the string, and
			// its upper case for %S (padding is charged with the width).
			copies := int64(1)
			if spec.conv == 'S' {
				copies++
			}
			if err := th.alloc(copies * int64(len(t.buf))); err != nil {
				return "", err
			}
			text = string(t.buf)
		}
		text = cut(text, spec.precision)
		if spec.conv == 'S' {
			text = strings.ToUpper(text)
		}
		return pad(spec, text), nil
	case 'h', 'H':
		// Java's Integer.toHexString of the argument's hashCode.
		text := "null"
		if _, isNil := arg.(NilType); !isNil {
			h, ok := javaHashCode(arg)
			if !ok {
				return "", javaErrorf(typeError, noJavaClass, "format %%h of %s: Java hashes it by identity, which differs from run to run", describe(arg))
			}
			text = strconv.FormatUint(uint64(h), 16)
		}
		if spec.conv == 'H' {
			text = strings.ToUpper(text)
		}
		return pad(spec, cut(text, spec.precision)), nil
	case 'b', 'B':
		text := "true"
		switch v := arg.(type) {
		case NilType:
			text = "false"
		case Bool:
			text = strconv.FormatBool(bool(v))
		}
		if spec.conv == 'B' {
			text = strings.ToUpper(text)
		}
		return pad(spec, cut(text, spec.precision)), nil
	case 'c':
		// Java's Formatter takes a Character (or a byte, short or int,
		// which no value here is: every integer is a long, which it
		// refuses) and prints nil as null.
		switch v := arg.(type) {
		case String:
			if r := []rune(string(v)); len(r) == 1 {
				return pad(spec, string(r)), nil
			}
		case NilType:
			return pad(spec, "null"), nil
		}
		return "", Errorf(typeError, "format %%c expected a character, got %s", describe(arg)).asJava(formatConversion(spec.conv, arg))
	case 'd':
		if b, ok := arg.(*BigInt); ok && b.integer {
			// Java's Formatter takes a java.math.BigInteger, not
			// Clojure's BigInt (the error below).
			digits := new(big.Int).Abs(b.n).String()
			return padNumber(spec, signed(spec, b.n.Sign() < 0, digits)), nil
		}
		n, ok := arg.(Int)
		if !ok {
			e := javaErrorf(typeError, "IllegalFormatConversionException", "format %%d expected an integer, got %s", describe(arg))
			if isFloat(arg) {
				e = e.WithHint("use %%.0f or %%.2f for floats, or (int x)").asJava(formatConversion(spec.conv, arg))
			} else if _, ok := arg.(*BigInt); ok {
				e = e.WithHint("use (biginteger x), which Java's format takes").asJava(formatConversion(spec.conv, arg))
			} else {
				e = e.asJava(formatConversion(spec.conv, arg))
			}
			return "", e
		}
		digits := strconv.FormatUint(absUint(int64(n)), 10)
		return padNumber(spec, signed(spec, n < 0, digits)), nil
	case 'x', 'X', 'o':
		n, ok := arg.(Int)
		if !ok {
			return "", Errorf(typeError, "format %%%c expected an integer, got %s", spec.conv, describe(arg)).
				asJava(formatConversion(spec.conv, arg))
		}
		// A long in hex or octal takes no sign flag: Java prints it in
		// two's complement.
		if err := spec.badFlags("( +"); err != nil {
			return "", err
		}
		base := 16
		if spec.conv == 'o' {
			base = 8
		}
		text := strconv.FormatUint(uint64(n), base)
		if spec.conv == 'X' {
			text = strings.ToUpper(text)
		}
		if spec.has('#') {
			if spec.conv == 'X' {
				text = "0X" + text
			} else if base == 16 {
				text = "0x" + text
			} else {
				text = "0" + text
			}
		}
		return padNumber(spec, text), nil
	}
	// f e E g G: Java takes a float only, (format "%.2f" 1) is an error.
	if isInteger(arg) {
		return "", Errorf(typeError, "format %%%c expected a float, got the integer %s", spec.conv, shown(arg)).
			WithHint("convert it first: (format \"%%.2f\" (double x))").
			asJava(formatConversion(spec.conv, arg))
	}
	if d, ok := arg.(*BigDec); ok && spec.conv == 'f' {
		// Java formats a BigDecimal exactly, rounding half up.
		prec := spec.precision
		if prec < 0 {
			prec = 6
		}
		if err := decScaleWork(th, d, int64(prec)); err != nil {
			return "", err
		}
		r, err := setScale("format", d, int64(prec), "HALF_UP")
		if err != nil {
			return "", err
		}
		abs := &BigDec{unscaled: new(big.Int).Abs(r.unscaled), scale: r.scale}
		// Rounded to the precision it has other digits than the
		// argument's, charged above: charged by the same model.
		if err := chargeDigitsText(th, decPlainLen(abs)); err != nil {
			return "", err
		}
		text, err := plainDec("format", abs)
		if err != nil {
			return "", err
		}
		if err := th.alloc(int64(len(text))); err != nil {
			return "", err
		}
		return padNumber(spec, signed(spec, d.unscaled.Sign() < 0, text)), nil // Java keeps the sign of -0.001 at "-0.00"
	}
	f, ok := asFloat(arg)
	if !ok {
		return "", Errorf(typeError, "format %%%c expected a number, got %s", spec.conv, describe(arg)).
			asJava(formatConversion(spec.conv, arg))
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		// Java signs an infinity as a number (+, space and ( flags
		// included) but groups no digits in it; NaN takes no sign.
		text := "NaN"
		if math.IsInf(f, 0) {
			ungrouped := spec
			ungrouped.flags = strings.ReplaceAll(spec.flags, ",", "")
			text = signed(ungrouped, f < 0, "Infinity")
		}
		return pad(spec, text), nil
	}
	prec := spec.precision
	if prec < 0 {
		prec = 6
	}
	var digits string
	switch spec.conv {
	case 'f':
		digits = fixedHalfUp(math.Abs(f), prec)
	case 'e', 'E':
		digits = sciHalfUp(math.Abs(f), prec)
		if d, ok := arg.(*BigDec); ok {
			digits = decSciHalfUp(d, prec)
		}
	default:
		digits = javaGeneral(math.Abs(f), max(prec, 1))
		if d, ok := arg.(*BigDec); ok && d.unscaled.Sign() == 0 && d.scale != 0 {
			// Java prints a BigDecimal zero in fixed notation only when it
			// equals 0 (scale 0); 0.0M is 0.00000e-01.
			digits = decSciHalfUp(d, max(prec, 1)-1)
		}
	}
	if spec.conv == 'E' || spec.conv == 'G' {
		digits = strings.ToUpper(digits)
	}
	// -0.0 is negative to Java's Formatter: (format "%.2f" -0.0) is "-0.00".
	return padNumber(spec, signed(spec, math.Signbit(f), digits)), nil
}

// javaGeneral is Java's %g of x >= 0 with prec significant digits: fixed
// notation, trailing zeros kept, when x rounded is at least 10^-4 and below
// 10^prec, scientific otherwise. C's %g differs: it drops trailing zeros.
func javaGeneral(x float64, prec int) string {
	sci := sciHalfUp(x, prec-1)
	rounded, _ := strconv.ParseFloat(sci, 64)
	if x != 0 && (rounded < 1e-4 || rounded >= math.Pow(10, float64(prec))) {
		return sci
	}
	exp := 0
	if x != 0 {
		exp = int(math.Floor(math.Log10(rounded)))
	}
	return fixedHalfUp(x, max(prec-1-exp, 0))
}

// formatConversion is the exception Java's Formatter throws for a number
// of the wrong kind: its class and message, "f != java.lang.Long".
func formatConversion(conv byte, arg Value) (class, message string) {
	kind := "java.lang.Long"
	switch arg.(type) {
	case Float:
		kind = "java.lang.Double"
	case Float32:
		kind = "java.lang.Float"
	case Int:
	default:
		kind = javaValueClass(arg) // a BigInt, a string, a keyword, a vector, ...
	}
	return "IllegalFormatConversionException", fmt.Sprintf("%c != %s", unicode.ToLower(rune(conv)), kind)
}

func absUint(n int64) uint64 {
	if n < 0 {
		return uint64(-(n + 1)) + 1
	}
	return uint64(n)
}

// fixedHalfUp prints x >= 0 with prec digits after the point, rounding its
// shortest decimal form half up.
func fixedHalfUp(x float64, prec int) string {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	if len(frac) <= prec {
		frac += strings.Repeat("0", prec-len(frac))
		if prec == 0 {
			return intPart
		}
		return intPart + "." + frac
	}
	digits := []byte(intPart + frac[:prec])
	if frac[prec] >= '5' && addOne(digits) {
		digits = append([]byte{'1'}, digits...)
	}
	cut := len(digits) - prec
	if prec == 0 {
		return string(digits)
	}
	return string(digits[:cut]) + "." + string(digits[cut:])
}

// sciHalfUp prints x >= 0 in Java's scientific notation with prec digits
// after the point, rounding its shortest decimal form half up, as Java's
// %e does: (format "%.3e" 1234.5) is "1.235e+03" (C's rounds the binary
// value to even, 1.234e+03).
func sciHalfUp(x float64, prec int) string {
	s := strconv.FormatFloat(x, 'e', -1, 64)
	mantissa, expText, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expText)
	return sciDigits(strings.Replace(mantissa, ".", "", 1), exp, prec)
}

// decSciHalfUp is sciHalfUp of the magnitude of d, from its exact digits:
// a zero's exponent is its scale negated, as Java's (0.00M is
// 0.000000e-02).
func decSciHalfUp(d *BigDec, prec int) string {
	digits := new(big.Int).Abs(d.unscaled).String()
	return sciDigits(digits, len(digits)-1-int(d.scale), prec)
}

// sciDigits writes digits × 10^(exp - len(digits) + 1), whose first digit
// is at 10^exp, as d.ddde±xx with prec digits after the point, rounded
// half up.
func sciDigits(digits string, exp, prec int) string {
	keep := []byte(digits)
	if len(keep) > prec+1 {
		roundUp := keep[prec+1] >= '5'
		keep = keep[:prec+1]
		if roundUp && addOne(keep) { // 9.99 rounded up is 10.0: shifted
			keep = append([]byte{'1'}, keep[:prec]...)
			exp++
		}
	}
	for len(keep) < prec+1 {
		keep = append(keep, '0')
	}
	var b strings.Builder
	b.WriteByte(keep[0])
	if prec > 0 {
		b.WriteByte('.')
		b.Write(keep[1:])
	}
	sign := '+'
	if exp < 0 {
		sign, exp = '-', -exp
	}
	fmt.Fprintf(&b, "e%c%02d", sign, exp)
	return b.String()
}

// addOne adds one to the last of digits, carrying, and reports whether
// the carry left the first (all nines, now all zeros).
func addOne(digits []byte) (overflow bool) {
	for i := len(digits) - 1; i >= 0; i-- {
		if digits[i] != '9' {
			digits[i]++
			return false
		}
		digits[i] = '0'
	}
	return true
}
