package lisp

import (
	"context"
	"math"
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

// ReadValue reads a value as it arrives on the wire: EDN (see
// ParseEDNSample for maxNesting and keep) or, when the text is not EDN,
// the source WireText writes for a value EDN cannot spell, loaded in the
// sandbox memory bindings load in, under ctx and with a budget in
// proportion to the text. Source that evaluates to plain data is not
// accepted: data is sent as EDN, and the reported error is then the EDN
// one.
func ReadValue(ctx context.Context, text string, maxNesting, keep int) (Value, error) {
	v, err := parseEDN(text, maxNesting, keep)
	if err == nil {
		return v, nil
	}
	if refusedAsSourceToo(err) {
		return nil, err
	}
	if loaded, lerr := loadSource(ctx, text, maxNesting); lerr == nil && needsSource(loaded) {
		return loaded, nil
	}
	return nil, err
}

// refusedAsSourceToo reports whether err, why a text does not read as
// EDN, refuses it as source too: sets and map keys nested too deeply to
// hash, and collections too dense for their text, cost the same built
// from source.
func refusedAsSourceToo(err error) bool {
	e, ok := err.(*Error)
	return ok && (e.Hint == keyTextHint || e.Hint == readCostHint)
}

// needsSource reports whether v holds something that EDN cannot spell:
// symbols, regexes, functions, keywords that :name does not read back as.
func needsSource(v Value) bool {
	w := newWalk(nil, v, math.MaxInt)
	for ev, at := w.next(); ev != walkDone; ev, at = w.next() {
		if ev == walkLeave {
			continue
		}
		switch x := at.(type) {
		case NilType, Bool, Int, Float, String, *varRef, *Vector, *Set, *Map:
		case Keyword:
			if !keywordReads(string(x)) {
				return true
			}
		default:
			return true
		}
	}
	return false
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
