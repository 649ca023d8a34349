package lisp

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Repr returns v as EDN, the way Clojure's pr-str prints it. Strings are
// quoted, maps keep insertion order, sets print their elements in order of
// their text so that the output is deterministic.
func Repr(v Value) string {
	return printed(v, appendRepr)
}

// The printers append to a byte slice held in a local variable rather than
// write through a *strings.Builder: storing the grown slice back through a
// pointer costs a write barrier whenever the collector is running, which
// for printing large values was a fifth of the time.

// textBuffers hold the buffers printed texts are built in; the text is then
// copied out once, at its final size.
var textBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledText bounds the buffers kept for reuse.
const maxPooledText = 256 << 10

// printed returns the text that appendText writes for v.
func printed(v Value, appendText func([]byte, Value) []byte) string {
	bp := textBuffers.Get().(*[]byte)
	buf := appendText((*bp)[:0], v)
	text := string(buf)
	if cap(buf) <= maxPooledText {
		*bp = buf
		textBuffers.Put(bp)
	}
	return text
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

// printer is implemented by values that print themselves.
type printer interface {
	WriteRepr(b *strings.Builder)
}

// holder is a function that holds values and prints with them: a closure
// with what it captured (as its fn form in a let), a function built by a
// combinator with its arguments (as the call that makes it). Walks over
// values treat one as a level of nesting, like a collection: a program can
// chain them as deep as it can nest vectors.
type holder interface {
	Value
	heldValues() []Value
	appendText(buf []byte) []byte // its source, the held values' included
	ownTextSize() int64           // the length of that text without the held values
}

// WriteRepr appends the EDN text of v to b.
func WriteRepr(b *strings.Builder, v Value) {
	var small [64]byte
	b.Write(appendRepr(small[:0], v))
}

// appendRepr appends the EDN text of v to buf.
func appendRepr(buf []byte, v Value) []byte {
	switch v := v.(type) {
	case NilType:
		return append(buf, "nil"...)
	case Bool:
		return strconv.AppendBool(buf, bool(v))
	case Int:
		return strconv.AppendInt(buf, int64(v), 10)
	case Float:
		return append(buf, formatFloat(float64(v))...)
	case String:
		return appendQuoted(buf, string(v))
	case Keyword:
		return append(append(buf, ':'), v...)
	case symbol:
		return append(buf, v...)
	case *varRef:
		return append(append(buf, "#'"...), v.Name...)
	case *Vector:
		if v.list {
			return appendSeq(buf, "(", ")", v.elems)
		}
		return appendSeq(buf, "[", "]", v.elems)
	case *list:
		return appendSeq(buf, "(", ")", v.Elems)
	case *Map:
		buf = append(buf, '{')
		for i, e := range v.entries {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = appendRepr(buf, e.Key)
			buf = append(buf, ' ')
			buf = appendRepr(buf, e.Val)
		}
		return append(buf, '}')
	case *Set:
		return appendSeq(buf, "#{", "}", sortedByText(v.elems))
	case holder:
		return v.appendText(buf)
	case printer:
		var own strings.Builder
		v.WriteRepr(&own)
		return append(buf, own.String()...)
	case *Builtin:
		return append(append(append(buf, "#fn["...), v.Name...), ']')
	}
	return append(append(append(buf, "#<"...), v.TypeName()...), '>')
}

// writeSeq writes elems between open and close, separated by spaces.
func writeSeq(b *strings.Builder, open, close string, elems []Value) {
	var small [64]byte
	b.Write(appendSeq(small[:0], open, close, elems))
}

func appendSeq(buf []byte, open, close string, elems []Value) []byte {
	buf = append(buf, open...)
	for i, e := range elems {
		if i > 0 {
			buf = append(buf, ' ')
		}
		buf = appendRepr(buf, e)
	}
	return append(buf, close...)
}

// sortedByText returns a copy of elems ordered by their printed text, the
// deterministic order in which sets are shown.
func sortedByText(elems []Value) []Value {
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

func appendQuoted(buf []byte, s string) []byte {
	return append(appendEscaped(append(buf, '"'), s), '"')
}

// WriteEscaped appends s with the escapes of a PTC-Lisp string literal
// (\", \\, \n, \t, \r) and without the quotes, so that renderers that
// shorten a string first escape it by the same rule. A byte that is not
// valid UTF-8 is written as U+FFFD, so the output is always valid UTF-8
// (it ends up in proto strings).
func WriteEscaped(b *strings.Builder, s string) {
	for start := 0; ; {
		i, esc, n := nextEscape(s, start)
		b.WriteString(s[start:i])
		if n == 0 {
			return
		}
		b.WriteString(esc)
		start = i + n
	}
}

// appendEscaped is WriteEscaped appending to buf.
func appendEscaped(buf []byte, s string) []byte {
	for start := 0; ; {
		i, esc, n := nextEscape(s, start)
		buf = append(buf, s[start:i]...)
		if n == 0 {
			return buf
		}
		buf = append(buf, esc...)
		start = i + n
	}
}

// nextEscape finds the first byte at or after i that a string literal
// escapes: its position, its escape and the number of bytes it replaces
// (len(s), "", 0 when there is none).
func nextEscape(s string, i int) (at int, esc string, n int) {
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return i, string(utf8.RuneError), 1
			}
			i += size - 1
		case c == '"':
			return i, `\"`, 1
		case c == '\\':
			return i, `\\`, 1
		case c == '\n':
			return i, `\n`, 1
		case c == '\t':
			return i, `\t`, 1
		case c == '\r':
			return i, `\r`, 1
		}
	}
	return len(s), "", 0
}

// formatFloat prints a double as Clojure does (Java's Double.toString):
// the shortest digits that read back to the same value, plain between 1e-3
// and 1e7 ("3.3000000000000003", "1.0"), else scientific ("1.0E7", "1.5E-4").
func formatFloat(f float64) string {
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
