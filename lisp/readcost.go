package lisp

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// What a value costs once read, against its text.
//
// Most data reads to a few times its text, but collections of almost
// nothing do not: "[1]" is three bytes and a vector of 80 (its header,
// its element's slot and its own slot in the enclosing vector), and
// "#{[]}" is five bytes and a set with a hash index of its own, about
// 400. A request of such text took 25 to 80 times its bytes in memory,
// so a pod sized by the bytes it accepts could be killed by one request.
// The reader and the JSON decoder therefore count what they build, by
// readNodeCost, and refuse a value that would pass ReadCostLimit of its
// text; a turn may not emit one either (the printer counts the same
// nodes as it prints them), so what a turn emits is always read back.
//
// Only collections are counted: a scalar costs the slot its collection
// counts for it, and at most a small multiple of its own text besides
// (a string's header, a float's box).

// ReadCostPerByte is how many bytes a value may cost once read per byte
// of its text. Records and lists of numbers and strings cost 3-10; a
// vector of single-key maps of one digit ({:a 1}) 14, and of pairs of one
// digit ([1 2]) 16, which only the floor lets through. The multiple
// leaves room for the request's own bytes and the collector's slack
// within 16 times the request (SECURITY.md).
const ReadCostPerByte = 12

// readCostFloor lets a small value cost more than its multiple: a few
// sets of pairs, a small map keyed by vectors, each with a hash index,
// must read however dense they are. A host that reads many values in one
// request bounds their sum (ReadCost) so that the floor is not claimed
// many times over.
const readCostFloor = 64 << 10

// ReadCost is what v, read from EDN or JSON text, cost the reader:
// every collection where it occurs, as the text spells each occurrence.
// A value read from text of size bytes costs at most ReadCostLimit(size),
// so a host reading many values in one request can bound their sum. It is counted only up to limit: ok is
// false, and n passes limit, when v costs more (a value built by running
// source may share parts, which the count would meet once per path).
func ReadCost(v Value, limit int64) (n int64, ok bool) {
	w := newWalk(nil, v, math.MaxInt)
	for ev, at := w.next(); ev != walkDone && n <= limit; ev, at = w.next() {
		if ev != walkLeave {
			n += readNodeCost(at)
		}
	}
	return n, n <= limit
}

// ReadCostLimit is the most a value of size bytes of text may cost once
// read.
func ReadCostLimit(size int64) int64 { return ReadCostPerByte*size + readCostFloor }

const readCostHint = "send such data flatter: a vector of numbers rather than of one-element vectors, a vector rather than a set of small collections"

// readNodeCost is what one collection costs once read, besides what its
// parts cost: its heap shape (heap.go) as the reader builds it, with the
// hash index a set or map keeps when it is large or keyed by collections
// (as buildSet and Map.indexKey decide). An empty collection is shared:
// it costs nothing but the slot that holds it.
func readNodeCost(v Value) int64 {
	switch x := v.(type) {
	case *Vector:
		if n := len(x.elems); n > 0 {
			return vectorHeap.shape(n, false)
		}
	case *Set:
		if n := len(x.elems); n > 0 {
			return setHeap.shape(n, readIndexed(x.elems, nil))
		}
	case *Map:
		if n := len(x.entries); n > 0 {
			return mapHeap.shape(n, readIndexed(nil, x.entries))
		}
	case *BigInt:
		return x.heapShape()
	case *BigDec:
		return x.heapShape()
	}
	return 0
}

// readIndexed reports whether the reader gives a set of elems or a map of
// entries a hash index: past smallMap parts, or with a part that is not a
// cheap key.
func readIndexed(elems []Value, entries []MapEntry) bool {
	if len(elems)+len(entries) > smallMap {
		return true
	}
	for _, e := range elems {
		if !cheapKey(e) {
			return true
		}
	}
	for _, e := range entries {
		if !cheapKey(e.Key) {
			return true
		}
	}
	return false
}

// overReadCost is why the reader or the JSON decoder refuses a value of
// size bytes of text once what it built cost passes its limit; parts
// names its collections in the value's notation.
func overReadCost(cost, size int64, parts string) string {
	return fmt.Sprintf("the value would take more than %s once read, more than %d times its %s of text: it is mostly %s of one or two small parts",
		byteCount(cost), ReadCostPerByte, byteCount(size), parts)
}

// readCostError is the failure of reading, or of emitting, a value that
// would cost more than ReadCostLimit of its text of size bytes.
func readCostError(what string, cost, size int64) *Error {
	return Errorf(validationError, "%s would take %s once read, more than %d times its %s of text: it is mostly collections of one or two small parts",
		what, byteCount(cost), ReadCostPerByte, byteCount(size)).WithHint(readCostHint)
}

// ReadWork is what reading a value's text (EDN or source; JSON when json
// is set) takes in
// time besides what the value costs once read (ReadCost), in the bytes of
// read cost that take as long to read, counted from the text alone,
// before anything is read, and the same whether the value was read before
// or not: a unit for every byte (readByteWork), readTokenWork for every
// token (a number, keyword, string, character, comment, bracket: what the
// reader stops at and decides on; readJSONTokenWork in JSON, whose
// decoder is dearer a token), readEscapeWork for every escape inside
// a string, and converting the long numbers (NumberReadWork). Reading a
// value of small tokens (a vector of keywords, of nils, of one-character
// strings; JSON objects of short keys) took up to 60 ns for each unit of
// its read cost, which counted only its collections; with its tokens and
// bytes counted, every kind of text measured reads at 4 ns a unit or
// less on an unloaded machine (docs/RELIABILITY.md, "Reading decided by
// work"), so that a host that bounds this by its timeout at 24 MiB a
// second (the server's readCostPerSecond) refuses a request by its
// work, the same alone and under load, with the clock ten times
// further away.
func ReadWork(text string, json bool) int64 {
	s := scanCode(text)
	perToken := int64(readTokenWork)
	if json {
		perToken = readJSONTokenWork
	}
	return readByteWork*int64(len(text)) + perToken*s.tokens + readEscapeWork*s.escapes + s.numberWork
}

// The parts of ReadWork, in bytes of read cost, from the reader's time
// per byte of strings, comments and blanks (1-6 ns), per token (40-70
// ns; JSON's decoder 100-170 ns) and per escape, alone on the 2-core
// machine.
const (
	readByteWork      = 1
	readTokenWork     = 16
	readJSONTokenWork = 40
	readEscapeWork    = 4
)

// NumberReadWork is what reading the long integers and decimals spelled
// in a value's text (EDN, JSON or source) costs in time, in the bytes of
// ReadCost that take as long to read: converting n digits to a big
// integer is quadratic in them in every radix but the powers of two
// (numberReadWork), so 100 integers of 100,000 digits, 10 MB of text
// that costs 4 MB once read, take about a second. A host that bounds
// what a request's values cost by its timeout adds this (ReadWork counts
// it), so that such values are refused by what they cost, the same alone
// and under load, rather than by the clock. Digits inside strings,
// comments, symbols and character literals cost nothing.
func NumberReadWork(text string) int64 {
	return scanCode(text).numberWork
}

// textScan is what scanCode counts in a text.
type textScan struct {
	// numberWork is what converting its long numbers costs
	// (numberTokenWork); tokens and escapes are its tokens and the
	// escapes inside its strings; calls the forms it opens with a
	// parenthesis: the calls source evaluates; quotes the forms a reader
	// macro ('a, @a, `a, ~a, #'a) reads as a call, compiled as one.
	numberWork, tokens, escapes, calls, quotes int64
}

// scanCode reads text's tokens as the reader and the JSON decoder split
// them, outside strings, comments and character literals alike, and
// counts what ReadWork and SourceReadWork weigh.
func scanCode(text string) (s textScan) {
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == ' ' || c == ',' || c == '\n' || c == '\t' || c == '\r':
		case c == '"':
			// A string: to its closing quote, past escaped characters.
			s.tokens++
			for i++; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' {
					s.escapes++
					i++
				}
			}
		case c == '\\':
			// A character literal: \" is not a string, \newline one token.
			s.tokens++
			for i += 2; i < len(text) && (text[i] >= utf8.RuneSelf || !asciiTerminators[text[i]]); i++ {
			}
			i--
		case c == ';':
			s.tokens++
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c < utf8.RuneSelf && asciiTerminators[c]:
			// A bracket, a quote or a blank the cases above leave.
			s.tokens++
			switch c {
			case '(':
				s.calls++
			case '@', '`', '~':
				s.quotes++
			}
		default:
			start := i
			for i+1 < len(text) && (text[i+1] >= utf8.RuneSelf || !asciiTerminators[text[i+1]]) {
				i++
			}
			s.tokens++
			tok := text[start : i+1]
			if strings.HasPrefix(tok, "'") || strings.HasPrefix(tok, "#'") {
				s.quotes++
			}
			s.numberWork += numberTokenWork(tok)
		}
	}
	return s
}

// numberTokenWork is what converting tok, one token, costs when it is a
// number of more than 19 digits (numberReadWork): a radix literal by the
// bits of its digits in its radix, linear (and free) in a power of two,
// as hex literals are; any other by all the decimal digits it spells, a
// decimal's or a ratio's alike. A ':' before it (a JSON key's, or a
// keyword of digits) is passed over: the JSON decoder reads the number
// after it.
func numberTokenWork(tok string) int64 {
	tok = strings.TrimLeft(tok, ":")
	if tok != "" && (tok[0] == '+' || tok[0] == '-') {
		tok = tok[1:]
	}
	if tok == "" || !isDigit(tok[0]) || len(tok) <= 19 {
		return 0
	}
	if len(tok) > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X') {
		return 0
	}
	if i := strings.IndexAny(tok, "rR"); i == 1 || i == 2 && isDigit(tok[1]) {
		radix, _ := strconv.Atoi(tok[:i])
		if radix < 2 || radix&(radix-1) == 0 {
			return 0
		}
		return numberReadWork(float64(len(tok)-i-1) * math.Log2(float64(radix)))
	}
	digits := 0
	for j := 0; j < len(tok); j++ {
		if isDigit(tok[j]) {
			digits++
		}
	}
	if digits <= 19 {
		return 0
	}
	return numberReadWork(float64(digits) * math.Log2(10))
}

// numberReadWork is the read cost of converting a number of the given
// bits: big.Int's conversion multiplies the words read so far by each
// next word's digits, quadratic in the words, as bigParseSteps counts
// for decimals (100,000 decimal digits, 332,000 bits, take 11 ms alone,
// 100,000 radix-36 digits 26 ms), at 5 bytes a step: 4 ns a unit alone,
// the rate of the slowest tokens.
func numberReadWork(bits float64) int64 {
	words := int64(bits/64) + 1
	return words * words / 48 * 5
}
