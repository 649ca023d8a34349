package lisp

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// WireText is v as the sidecar writes it on the wire (docs/VALUES.md):
// EDN for plain data, and for what EDN cannot spell the PTC-Lisp source
// that evaluates back to it: (fn ...) for functions, (quote x) for
// symbols, (re-pattern "...") for regexes, (keyword "...") for a keyword
// whose name does not read back as :name. ReadValue reads every such text
// back to an equal value, and writing that value again gives the same text
// (docs/VALUES.md, "Round trip").
func WireText(v Value) string { return sourceText(v) }

// WireRead says how ReadWire reads a value's text.
type WireRead struct {
	// MaxNesting bounds how deep the text nests, EDN or source alike, and
	// how deep the value built from source nests (0: DefaultMaxNesting).
	// The emit side writes no text nested deeper (see emitText), so what
	// a turn emits reads back under the same setting.
	MaxNesting int
	// Keep > 0 keeps only the first Keep elements of EDN lists and
	// vectors (ParseEDNSample).
	Keep int
	// JSON reads the text as JSON (DecodeJSON) rather than EDN.
	JSON bool
	// Ctx is the caller's: reading stops, with its error, once it ends,
	// however the text reads. Nil is context.Background(). What a value
	// costs is bounded by its text (ReadCostLimit), never by a clock, so
	// a request reads the same alone and under load.
	Ctx context.Context
	// Source gives the context a text that is not EDN runs under as
	// source; called only for such a text. Nil runs it under
	// context.Background().
	Source func() (context.Context, error)
}

// ReadWire is the one way a value comes in from the wire, for every field
// of every request: it decides whether the text is EDN, JSON or the
// source WireText writes for what EDN cannot spell, applies the nesting
// setting to the text and the value, and returns the value frozen with
// what it costs once read (counted as it is built, at most
// ReadCostLimit of the text). Source is loaded in the sandbox memory
// bindings load in, under the context how.Source gives and a budget in
// proportion to the text, and accepted only when the value holds
// something EDN cannot spell: data travels as EDN, and for source that
// evaluates to data the reported error is the EDN one.
//
// An error that is the context's (cancelled, deadline passed) is returned
// as it came; every other error depends on the text and the settings
// alone, so a caller may remember it.
func ReadWire(text string, how WireRead) (Value, int64, error) {
	ctx := how.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	if how.JSON {
		return decodeJSON(ctx, text, how.MaxNesting)
	}
	v, cost, err := parseEDNCounted(ctx, text, how.MaxNesting, how.Keep)
	if cerr := ctx.Err(); cerr != nil && err != nil {
		return nil, 0, cerr
	}
	if err == nil || refusedAsSourceToo(err) {
		return v, cost, err
	}
	if how.Source != nil {
		var cerr error
		if ctx, cerr = how.Source(); cerr != nil {
			return nil, 0, cerr
		}
	}
	loaded, lerr := loadSource(ctx, text, how.MaxNesting)
	if cerr := ctx.Err(); cerr != nil {
		return nil, 0, cerr
	}
	if lerr != nil {
		// A text that opens with a call is source (EDN has no calls but
		// lists, and a list read): why it did not load is the error, not
		// that EDN has no symbols. So is source that did not fit the
		// budget a value's source gets.
		if e, ok := lerr.(*Error); ok && (budgetKinds[e.Kind] || opensCall(text)) {
			return nil, 0, Errorf(e.Kind, "read as the source of a value: %s", e.Message).WithHint("%s", e.Hint)
		}
		if opensCall(text) {
			return nil, 0, fmt.Errorf("read as the source of a value: %v", lerr)
		}
		return nil, 0, err
	}
	needs, deep, cost, cell := sourceValue(loaded, how.MaxNesting, ReadCostLimit(int64(len(text))))
	switch {
	case cell != nil:
		what := withArticle(cell.TypeName())
		// The server remembers a value read from text and shares it with
		// every caller that sends the text again: an atom in it, captured
		// by a function, would carry one caller's changes to the next,
		// and an exception hides its data from the walk that freezes and
		// measures what is shared.
		return nil, 0, Errorf(validationError, "read as the source of a value: it holds %s, which lives only while the program that made it runs; "+
			"send the value it holds (@a of an atom, ex-data of an exception) and make the %s in the program", what, cell.TypeName())
	case deep:
		return nil, 0, Errorf(parseError, "the value this source builds nests more than %d levels deep", nestingOrDefault(how.MaxNesting)).
			WithHint("flatten the data; deeply nested values are not supported")
	case !needs:
		return nil, 0, err
	}
	return Freeze(loaded), cost, nil
}

// opensCall reports whether text, after blanks, opens a parenthesized
// form.
func opensCall(text string) bool {
	t := strings.TrimLeft(text, " \t\r\n,")
	return strings.HasPrefix(t, "(")
}

// budgetKinds are the errors of source that ran out of the budget a
// value's source is read within.
var budgetKinds = map[ErrorKind]bool{stepLimit: true, memoryLimit: true, depthLimit: true}

// nestingOrDefault is maxNesting as readers apply it.
func nestingOrDefault(maxNesting int) int {
	if maxNesting <= 0 {
		return DefaultMaxNesting
	}
	return maxNesting
}

// ReadValue reads a value as it arrives on the wire (ReadWire) with
// the given nesting and sample settings, source under ctx.
func ReadValue(ctx context.Context, text string, maxNesting, keep int) (Value, error) {
	v, _, err := ReadWire(text, WireRead{MaxNesting: maxNesting, Keep: keep,
		Source: func() (context.Context, error) { return ctx, nil }})
	return v, err
}

// refusedAsSourceToo reports whether err, why a text does not read as
// EDN, refuses it as source too: sets and map keys nested too deeply to
// hash, collections too dense for their text, and text nested too
// deeply cost the same, or more, read as source; and #', which no value's
// text holds.
func refusedAsSourceToo(err error) bool {
	e, ok := err.(*Error)
	return ok && (e.Hint == keyTextHint || e.Hint == readCostHint || e.Hint == tooDeepHint || e.Hint == varQuoteHint)
}

// needsSource reports whether v holds something that EDN cannot spell:
// symbols, regexes, functions, keywords that :name does not read back as.
func needsSource(v Value) bool {
	needs, _, _, _ := sourceValue(v, MaxValueNesting, math.MaxInt64)
	return needs
}

// sourceValue walks v, a value built by running source, once: whether it
// holds something that EDN cannot spell, whether it nests deeper than
// maxNesting, and what it costs once read (readNodeCost), counted up to
// limit and at most limit (parts shared by several paths count on each);
// and the first value it holds, at any depth and inside functions too,
// that lives only while a program runs (kinds.go): an atom or volatile,
// a transient, an exception, a transducer or its state. No turn emits
// one, and it has no wire text.
func sourceValue(v Value, maxNesting int, limit int64) (needs, deep bool, cost int64, cell Value) {
	w := newWalk(nil, v, nestingOrDefault(maxNesting))
	var comparators []Value
	seenOrders := map[*keyOrder]bool{}
	for ev, at := w.next(); ev != walkDone; ev, at = w.next() {
		if ev == walkLeave {
			continue
		}
		if cost < limit {
			cost += readNodeCost(at)
		}
		if o := orderOf(at); o != nil && o.by != nil && !seenOrders[o] {
			seenOrders[o] = true
			comparators = append(comparators, o.by)
		}
		switch x := at.(type) {
		case NilType, Bool, Int, Float, Float32, String, *Vector, *Set, *Map, *BigDec:
		case *BigInt:
			needs = needs || x.integer // (biginteger n): its digits read back as a BigInt
		case Keyword:
			needs = needs || !keywordReads(string(x))
		case *atom, *transient, *thrown, *transducer, *stepFn, *reducedValue:
			return true, false, 0, x
		default:
			needs = true
		}
	}
	// A sorted collection's comparator is no part of it (the collection
	// travels as a plain one), yet every reader of the collection calls
	// it: an atom it captured would carry one caller's changes to the
	// next. Each comparator is searched once, with the ones it holds in
	// turn, on the heap rather than the Go stack.
	for len(comparators) > 0 && cell == nil {
		by := comparators[len(comparators)-1]
		comparators = comparators[:len(comparators)-1]
		cw := newWalk(nil, by, math.MaxInt)
		cw.visitOnce()
		for ev, at := cw.next(); ev != walkDone; ev, at = cw.next() {
			if ev == walkLeave {
				continue
			}
			if o := orderOf(at); o != nil && o.by != nil && !seenOrders[o] {
				seenOrders[o] = true
				comparators = append(comparators, o.by)
			}
			switch at.(type) {
			case *atom, *transient, *thrown, *transducer, *stepFn, *reducedValue:
				return true, false, 0, at
			}
		}
	}
	return needs, w.err == errTooDeep, min(cost, limit), nil
}

// symbolReads reports whether name, written as it is, reads back as the
// symbol name: the reader takes nil, true, false and what starts with a
// digit (or a sign and a digit) as other values, and a ':' as a keyword.
// The symbol builtin makes no symbol of any other name, so every symbol a
// value holds is written as (quote name) and reads back, or, when its
// slashes do not read as a token ((symbol "a/"), whose namespace is a and
// name is empty, as Clojure makes it), as (symbol "name").
func symbolReads(name string) bool {
	if !lexSymbolChars(name) {
		return false
	}
	switch name {
	case "nil", "true", "false":
		return false
	}
	return !startsNumber(name)
}

// keywordReads reports whether :name reads back as the keyword name: the
// reader takes a keyword as the token after ':' up to the next terminator
// and refuses an empty name, a second ':' and a '/' at either end. (One
// pass over the bytes: every keyword the sidecar writes is checked.)
func keywordReads(name string) bool {
	if name == "" || name[0] == ':' || name[0] == '/' || name[len(name)-1] == '/' {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < utf8.RuneSelf {
			if asciiTerminators[c] {
				return false
			}
		} else {
			r, n := utf8.DecodeRuneInString(name[i:])
			if lexTerminator(r) {
				return false
			}
			i += n - 1
		}
	}
	return true
}
