package lisp

import (
	"fmt"
	"math/big"
	"strings"
)

// Integer literals as Clojure's reader (LispReader and EdnReader alike)
// reads them: its pattern is
//
//	[-+]?(0 | [1-9][0-9]* | 0[xX][0-9A-Fa-f]+ | 0[0-7]+ | [1-9][0-9]?[rR][0-9A-Za-z]+ | 0[0-9]+)N?
//
// so 017 is octal 15, 0x10 is 16, 2r1010 is 10 and 36rZZ is 1295; the last
// alternative, 08 or 0129, matches but is no number ("Invalid number"),
// and the radix alternative's digits take a final N as a digit (36rZZN is
// a long, 2r1010N has a bad digit). A text that matches none of them is
// left to the float and ratio patterns.

// intLiteral is one integer literal split as Clojure's pattern splits it.
type intLiteral struct {
	negative bool
	digits   string // in radix, without prefix or suffix
	radix    int
	big      bool // the N suffix: a BigInt whatever its size
}

// splitIntLiteral matches tok against Clojure's integer pattern. matched
// is false when tok is not an integer literal at all (it may be a float or
// a ratio); problem is set when it matches yet is no number.
func splitIntLiteral(tok string) (lit intLiteral, matched bool, problem string) {
	body := tok
	if body != "" && (body[0] == '+' || body[0] == '-') {
		lit.negative = body[0] == '-'
		body = body[1:]
	}
	// The radix alternative first: its digits swallow a final N.
	if i := strings.IndexAny(body, "rR"); i == 1 || i == 2 {
		if body[0] >= '1' && body[0] <= '9' && (i == 1 || isDigit(body[1])) && i+1 < len(body) && allRadixChars(body[i+1:]) {
			radix := int(body[0] - '0')
			if i == 2 {
				radix = radix*10 + int(body[1]-'0')
			}
			if radix < 2 || radix > 36 {
				return lit, true, "radix out of range: a radix is 2 to 36"
			}
			lit.digits, lit.radix = body[i+1:], radix
			return lit, true, ""
		}
		return lit, false, ""
	}
	if rest, ok := strings.CutSuffix(body, "N"); ok {
		lit.big, body = true, rest
	}
	switch {
	case body == "":
		return lit, false, ""
	case body == "0":
		lit.digits, lit.radix = "0", 10
	case body[0] >= '1' && body[0] <= '9' && lexDigits(body):
		lit.digits, lit.radix = body, 10
	case len(body) > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X') && allHexDigits(body[2:]):
		lit.digits, lit.radix = body[2:], 16
	case body[0] == '0' && allOctalDigits(body[1:]):
		lit.digits, lit.radix = body[1:], 8
	case body[0] == '0' && lexDigits(body):
		return lit, true, "a literal starting with 0 is octal, digits 0 to 7"
	default:
		return lit, false, ""
	}
	return lit, true, ""
}

// value is the literal's number: a long when it fits and has no N, else a
// BigInt; an error when a digit is not one of its radix.
func (lit intLiteral) value() (Value, error) {
	digits := strings.TrimLeft(lit.digits, "0")
	if digits == "" {
		digits = "0"
	}
	if len(digits) > maxBigDigits {
		return nil, fmt.Errorf("an integer literal of %d digits: at most %d are read", len(digits), maxBigDigits)
	}
	n, ok := new(big.Int).SetString(digits, lit.radix)
	if !ok || strings.ContainsAny(digits, "_+-") {
		return nil, fmt.Errorf("%q is not a number in radix %d", lit.digits, lit.radix)
	}
	if lit.negative {
		n.Neg(n)
	}
	if !lit.big && n.IsInt64() {
		return Int(n.Int64()), nil
	}
	return newBig(n), nil
}

func allOctalDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '7' {
			return false
		}
	}
	return s != ""
}

func allHexDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHexDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

func allRadixChars(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isDigit(c) && !('a' <= c && c <= 'z') && !('A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}
