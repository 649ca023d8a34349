package lisp

import (
	"context"
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
// proportion to the text (MaxSourceValueBytes). Source that evaluates to
// plain data is not accepted: data is sent as EDN, and the reported error
// is then the EDN one.
func ReadValue(ctx context.Context, text string, maxNesting, keep int) (Value, error) {
	v, err := parseEDN(text, maxNesting, keep)
	if err == nil {
		return v, nil
	}
	if loaded, lerr := loadSource(ctx, text, maxNesting); lerr == nil && needsSource(loaded) {
		return loaded, nil
	}
	return nil, err
}

// MaxSourceValueBytes is the most that reading a text of n bytes as
// source (ReadValue, DecodeMemory) may build: its allocation budget.
// Callers that keep what was read count it as what the value holds.
func MaxSourceValueBytes(n int) int64 { return sourceLimits(n).MaxAllocBytes }

// needsSource reports whether v holds something that EDN cannot spell.
func needsSource(v Value) bool {
	switch v := v.(type) {
	case NilType, Bool, Int, Float, String, *varRef:
		return false
	case Keyword:
		return !keywordReads(string(v))
	case *Vector:
		return anyNeedsSource(v.Elems())
	case *Set:
		return anyNeedsSource(v.Elems())
	case *Map:
		for _, e := range v.Entries() {
			if needsSource(e.Key) || needsSource(e.Val) {
				return true
			}
		}
		return false
	}
	return true // symbols, regexes, functions
}

func anyNeedsSource(vs []Value) bool {
	for _, e := range vs {
		if needsSource(e) {
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

// appendKeywordSource appends the source of a keyword: :name when that
// reads back, else the call that makes it.
func appendKeywordSource(buf []byte, name string) []byte {
	if keywordReads(name) {
		return append(append(buf, ':'), name...)
	}
	return append(appendQuoted(append(buf, "(keyword "...), name), ')')
}

// appendRegexSource appends the source of a regex as the call that makes
// it: its pattern as a string literal reads back exactly, where the #"..."
// literal cannot hold a pattern ending in a backslash before a quote.
func appendRegexSource(buf []byte, r *regex) []byte {
	return append(appendQuoted(append(buf, "(re-pattern "...), r.source), ')')
}
