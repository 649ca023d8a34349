package lisp

import (
	"cmp"
	"math"
	"unicode/utf16"
	"unicode/utf8"
)

// Ordering. The comparison operators (< > <= >=) order numbers only
// (spec 11.3): (> "b" "a") is a type error, so that a program cannot
// silently compare a number with a string it forgot to parse. sort, sort-by
// and compare use a wider total order, as Clojure's compare does: numbers
// with numbers, strings with strings, keywords with keywords, booleans with
// booleans, vectors element-wise (shorter first), and nil before
// everything. Values of different kinds never compare.
//
// The specification has sort refuse nil; Clojure orders it first, and
// models rely on that: (sort-by :date records) where no record has a date
// returns the records in their order, as the sort is stable.

// compareValues orders a and b: negative, zero or positive. fn is the
// function named in errors. The comparison charges th for what it reads
// (nil: not charged): a step per part of a vector it visits and per 64
// bytes of two long strings, so that every sort, extreme and sorted
// collection pays for keys of any size, not a step per comparison.
func compareValues(th *Thread, a, b Value, fn string) (int, error) {
	// Fast paths for the common sort keys.
	switch x := a.(type) {
	case Int:
		if y, ok := b.(Int); ok {
			return cmp.Compare(x, y), nil
		}
	case Float:
		if y, ok := b.(Float); ok && x == x && y == y {
			return cmp.Compare(x, y), nil
		}
	case String:
		if y, ok := b.(String); ok {
			return compareStrings(string(x), string(y)), chargeTextPair(th, x, y)
		}
	}
	_, aNil := a.(NilType)
	_, bNil := b.(NilType)
	if aNil || bNil {
		switch {
		case aNil && bNil:
			return 0, nil
		case aNil:
			return -1, nil
		}
		return 1, nil
	}
	switch x := a.(type) {
	case Int, Float, Float32, *BigInt, *BigDec:
		if _, ok := asFloat(b); ok {
			return compareNumbersTotal(a, b), nil
		}
	case Keyword:
		if y, ok := b.(Keyword); ok {
			return sign(compareNamed(string(x), string(y))), chargeTextPair(th, String(x), String(y))
		}
	case symbol:
		if y, ok := b.(symbol); ok {
			return sign(compareNamed(string(x), string(y))), chargeTextPair(th, String(x), String(y))
		}
	case Bool:
		if y, ok := b.(Bool); ok {
			switch {
			case x == y:
				return 0, nil
			case !bool(x):
				return -1, nil
			}
			return 1, nil
		}
	case *Vector:
		if y, ok := b.(*Vector); ok && !x.IsList() && !y.IsList() {
			return compareVectors(th, x, y, fn)
		}
		if x.IsList() {
			// A vector is Comparable in Clojure, a list is not.
			return 0, castError(fn, "a vector", a, "java.lang.Comparable")
		}
	}
	if y, ok := b.(*Vector); ok && y.IsList() {
		return 0, castError(fn, "a vector", b, "java.lang.Comparable")
	}
	return 0, uncomparable(fn, a, b)
}

// compareVectors orders two vectors: the shorter first, then element by
// element. It walks a (walk.go) with b's element at the same place beside
// each of a's, charging th a step per part it reaches.
func compareVectors(th *Thread, a, b *Vector, fn string) (c int, err error) {
	w := newWalk(th, a, math.MaxInt)
	defer func() { err = w.ended(err) }()
	others := []*Vector{} // b's counterparts of the vectors being walked
	for ev, at := w.next(); ev != walkDone; ev, at = w.next() {
		if ev == walkLeave {
			others = others[:len(others)-1]
			continue
		}
		var y Value = b
		if len(others) > 0 {
			y = others[len(others)-1].elems[w.index]
		}
		x, xv := at.(*Vector)
		yv, yIsVector := y.(*Vector)
		if !xv || !yIsVector || x.IsList() || yv.IsList() {
			// A list inside a vector is not Comparable in Clojure either:
			// compareValues refuses it.
			w.skip()
			if c, err := compareValues(th, at, y, fn); err != nil || c != 0 {
				return c, err
			}
			continue
		}
		if c := cmp.Compare(x.Len(), yv.Len()); c != 0 {
			return c, nil
		}
		others = append(others, yv)
	}
	return 0, nil
}

// chargeTextPair charges th for comparing or testing the equality of two
// strings: a step per 64 bytes of the shorter, which bounds the bytes
// read; nothing for short ones.
func chargeTextPair(th *Thread, x, y String) error {
	if th == nil || min(len(x), len(y)) < 64 {
		return nil
	}
	return th.step(int64(min(len(x), len(y))) / 64)
}

func uncomparable(fn string, a, b Value) *Error {
	if a.TypeName() == b.TypeName() {
		return Errorf(typeError, "%s cannot order %s values", fn, a.TypeName()).
			WithHint("order numbers, strings, keywords or vectors of them; for maps, sort by a field with (sort-by :field coll)").
			asJava("ClassCastException", "")
	}
	return Errorf(typeError, "%s cannot compare %s with %s", fn, describe(a), describe(b)).
		WithHint("all values must be of one kind: numbers, strings, keywords or vectors").
		asJava("ClassCastException", "") // Java's compareTo casts the other value
}

// compareNumbersTotal orders numbers with NaN equal to itself and above
// every other number, as Java's Double.compare does, so that sorting is a
// total order and stays deterministic.
func compareNumbersTotal(a, b Value) int {
	if c, ok := compareNumbers(a, b); ok {
		return c
	}
	fa, _ := asFloat(a)
	fb, _ := asFloat(b)
	an, bn := math.IsNaN(fa), math.IsNaN(fb)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	}
	return -1
}

// orderNumbers implements < > <= >=: numbers only, NaN compares false.
func orderNumbers(fn string, args []Value, holds func(c int) bool) (Value, error) {
	if len(args) == 1 {
		return trueValue, nil // Clojure's one-argument arity checks nothing
	}
	for _, a := range args {
		if _, ok := asFloat(a); !ok {
			e := asNumberError(Errorf(typeError, "%s expected a number, got %s", fn, describe(a)), a)
			switch a.(type) {
			case String:
				e = e.WithHint("%s compares numbers only; compare strings with (compare a b) or parse them with parse-long", fn)
			case NilType:
				e = e.WithHint("a value is nil; check for missing keys first, e.g. (and (:price x) (%s (:price x) 10))", fn)
			}
			return nil, e
		}
	}
	result := true
	for i := 0; i+1 < len(args); i++ {
		c, ok := compareNumbers(args[i], args[i+1])
		if !ok || !holds(c) {
			result = false
		}
	}
	return boolValue(result), nil
}

// compareStrings is the sign of Java's String.compareTo, which orders by
// UTF-16 code units: the same as the bytes of UTF-8 except where one
// string has a character past U+FFFF (two units, from 0xD800) and the
// other one from U+E000 to U+FFFF at the first difference.
func compareStrings(x, y string) int {
	i := 0
	for i < len(x) && i < len(y) && x[i] == y[i] {
		i++
	}
	if i == len(x) || i == len(y) {
		return cmp.Compare(len(x), len(y))
	}
	for i > 0 && !utf8.RuneStart(x[i]) {
		i--
	}
	rx, _ := utf8.DecodeRuneInString(x[i:])
	ry, _ := utf8.DecodeRuneInString(y[i:])
	if (rx > 0xFFFF) == (ry > 0xFFFF) {
		return cmp.Compare(rx, ry)
	}
	return cmp.Compare(firstUTF16Unit(rx), firstUTF16Unit(ry))
}

// firstUTF16Unit is the first UTF-16 code unit of r.
func firstUTF16Unit(r rune) rune {
	if r > 0xFFFF {
		hi, _ := utf16.EncodeRune(r)
		return hi
	}
	return r
}
