package lisp

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Repr returns v as EDN, the way Clojure's pr-str prints it. Strings are
// quoted, maps keep insertion order, sets print their elements in order of
// their text so that the output is deterministic.
func Repr(v Value) string {
	var b strings.Builder
	growFor(&b, v)
	WriteRepr(&b, v)
	return b.String()
}

// growFor sizes b for the text of a collection v up front, so that printing
// a large value allocates its text once rather than doubling its way there.
func growFor(b *strings.Builder, v Value) {
	switch v.(type) {
	case *Vector, *Map, *Set:
		b.Grow(textSize(v))
	}
}

// textSize estimates the length of v's printed text: exact for data
// without escapes in its strings or floats, short for those and for
// functions, which only cost a later growth.
func textSize(v Value) int {
	switch v := v.(type) {
	case NilType:
		return 3
	case Bool:
		return 5
	case Int:
		n := 1
		if v < 0 {
			n++
		}
		for x := v; x >= 10 || x <= -10; x /= 10 {
			n++
		}
		return n
	case Float:
		return 6
	case String:
		return len(v) + 2
	case Keyword:
		return len(v) + 1
	case Symbol:
		return len(v)
	case *Vector:
		return seqTextSize(v.elems)
	case *Set:
		return 1 + seqTextSize(v.elems)
	case *Map:
		n := 2
		for i, e := range v.entries {
			if i > 0 {
				n += 2
			}
			n += textSize(e.Key) + 1 + textSize(e.Val)
		}
		return n
	}
	return 16
}

func seqTextSize(elems []Value) int {
	n := 2
	for i, e := range elems {
		if i > 0 {
			n++
		}
		n += textSize(e)
	}
	return n
}

// Str is Clojure's str of one value: strings unquoted, nil empty, everything
// else as Repr.
func Str(v Value) string {
	switch v := v.(type) {
	case String:
		return string(v)
	case NilType:
		return ""
	}
	return Repr(v)
}

// Printer is implemented by values that print themselves (closures print
// their source).
type Printer interface {
	WriteRepr(b *strings.Builder)
}

// WriteRepr appends the EDN text of v to b.
func WriteRepr(b *strings.Builder, v Value) {
	switch v := v.(type) {
	case NilType:
		b.WriteString("nil")
	case Bool:
		b.WriteString(strconv.FormatBool(bool(v)))
	case Int:
		var digits [20]byte
		b.Write(strconv.AppendInt(digits[:0], int64(v), 10))
	case Float:
		b.WriteString(FormatFloat(float64(v)))
	case String:
		writeQuoted(b, string(v))
	case Keyword:
		b.WriteByte(':')
		b.WriteString(string(v))
	case Symbol:
		b.WriteString(string(v))
	case *Var:
		b.WriteString("#'")
		b.WriteString(v.Name)
	case *Vector:
		writeSeq(b, "[", "]", v.elems)
	case *List:
		writeSeq(b, "(", ")", v.Elems)
	case *Map:
		b.WriteByte('{')
		for i, e := range v.entries {
			if i > 0 {
				b.WriteString(", ")
			}
			WriteRepr(b, e.Key)
			b.WriteByte(' ')
			WriteRepr(b, e.Val)
		}
		b.WriteByte('}')
	case *Set:
		writeSeq(b, "#{", "}", SortedByText(v.elems))
	case Printer:
		v.WriteRepr(b)
	case *Builtin:
		b.WriteString("#fn[" + v.Name + "]")
	default:
		b.WriteString("#<" + v.TypeName() + ">")
	}
}

func writeSeq(b *strings.Builder, open, close string, elems []Value) {
	b.WriteString(open)
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(' ')
		}
		WriteRepr(b, e)
	}
	b.WriteString(close)
}

// SortedByText returns a copy of elems ordered by their printed text, the
// deterministic order in which sets are shown.
func SortedByText(elems []Value) []Value {
	type keyed struct {
		text string
		v    Value
	}
	ks := make([]keyed, len(elems))
	for i, e := range elems {
		ks[i] = keyed{Repr(e), e}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return strings.Compare(a.text, b.text) })
	out := make([]Value, len(ks))
	for i, k := range ks {
		out[i] = k.v
	}
	return out
}

func writeQuoted(b *strings.Builder, s string) {
	b.WriteByte('"')
	WriteEscaped(b, s)
	b.WriteByte('"')
}

// WriteEscaped appends s with the escapes of a PTC-Lisp string literal
// (\", \\, \n, \t, \r) and without the quotes, so that renderers that
// shorten a string first escape it by the same rule. A byte that is not
// valid UTF-8 is written as U+FFFD, so the output is always valid UTF-8
// (it ends up in proto strings).
func WriteEscaped(b *strings.Builder, s string) {
	start := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch c := s[i]; {
		case c >= utf8.RuneSelf:
			if r, size := utf8.DecodeRuneInString(s[i:]); r == utf8.RuneError && size == 1 {
				esc = string(utf8.RuneError)
			} else {
				i += size - 1
				continue
			}
		case c == '"':
			esc = `\"`
		case c == '\\':
			esc = `\\`
		case c == '\n':
			esc = `\n`
		case c == '\t':
			esc = `\t`
		case c == '\r':
			esc = `\r`
		default:
			continue
		}
		b.WriteString(s[start:i])
		b.WriteString(esc)
		start = i + 1
	}
	b.WriteString(s[start:])
}

// FormatFloat prints a double as Clojure does (Java's Double.toString):
// the shortest digits that read back to the same value, plain between 1e-3
// and 1e7 ("3.3000000000000003", "1.0"), else scientific ("1.0E7", "1.5E-4").
func FormatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "##NaN"
	case math.IsInf(f, 1):
		return "##Inf"
	case math.IsInf(f, -1):
		return "##-Inf"
	}
	abs := math.Abs(f)
	if abs == 0 || (abs >= 1e-3 && abs < 1e7) {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // e.g. "1.5e-04", "1e+07"
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}
