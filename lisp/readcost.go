package lisp

import (
	"fmt"
	"math"
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
			return collShape(n, heapSlot, false)
		}
	case *Set:
		if n := len(x.elems); n > 0 {
			return collShape(n, heapSlot, readIndexed(x.elems, nil))
		}
	case *Map:
		if n := len(x.entries); n > 0 {
			return collShape(n, heapEntry, readIndexed(nil, x.entries))
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

// NumberReadWork is what reading the long integers and decimals spelled
// in a value's text (EDN, JSON or source) costs in time, in the bytes of
// ReadCost that take as long to read: converting n decimal digits to a
// big integer is quadratic in them (bigParseSteps), so 100 integers of
// 100,000 digits, 10 MB of text that costs 4 MB once read, take about a
// second. A host that bounds what a request's values cost by its timeout
// adds this, so that such values are refused by what they cost, the same
// alone and under load, rather than by the clock. It is counted from the
// text alone, before anything is read, and the same whether the value
// was read before or not. Digits inside strings and comments cost
// nothing.
func NumberReadWork(text string) int64 {
	work, _ := scanCode(text)
	return work
}

// scanCode is what reading text's long numbers costs (NumberReadWork) and
// how many forms it opens with a parenthesis outside strings, comments
// and character literals: the calls source evaluates.
func scanCode(text string) (numberWork, calls int64) {
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '"':
			// A string: to its closing quote, past escaped characters.
			for i++; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' {
					i++
				}
			}
		case c == '\\':
			i++ // a character literal: \" is not a string
		case c == ';':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '(':
			calls++
		case c >= '0' && c <= '9':
			start := i
			for i+1 < len(text) && text[i+1] >= '0' && text[i+1] <= '9' {
				i++
			}
			if n := i + 1 - start; n > 19 {
				numberWork += numberReadWork(n)
			}
		}
	}
	return numberWork, calls
}

// numberReadWork is the read cost of converting n digits: about 2.5
// bytes a step of bigParseSteps, which reads 100,000 digits (18 ms) at
// a third of the time a request's values may take per second of its
// timeout to cost what they cost (24 MiB a second, the server's
// readCostPerSecond), leaving the same margin for a loaded machine that
// wide maps of keywords, the slowest data to read, have.
func numberReadWork(n int) int64 { return bigParseSteps(n) * 5 / 2 }
