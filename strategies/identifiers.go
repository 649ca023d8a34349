package strategies

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// A memory value's identifiers. A sample shows a few items of a collection
// (sample_limit); but what a model copies from memory into its next
// program is mostly identifiers: a content digest, an id, a timestamp, a
// key. So in cache-stable's prelude a value line with a sample also lists,
// within identifiersChars, the identifiers the value holds that its line
// does not show yet: strings of 3 to identifierMaxChars characters without
// white space, keywords and map keys, and integers of 3 or more digits,
// each once, in the order the value holds them. Strings with spaces are
// prose, which a sample shows the start of.
//
// Where and why only there (measured on the real model's runs,
// docs/STRATEGIES.md): a line is written once and read from the cache on
// every later turn in cache-stable, so the list costs little there.
// single-user-coalesced resends its whole prompt as one new message every
// turn and already bills as much as full; any line it adds bills more than
// full. Values whose turn printed show no sample and list nothing: listing
// them cost a fifth more of cache-stable's bill for a point of recall.

// listsIdentifiers reports whether a strategy's prelude lists the
// identifiers of values with a sample.
func listsIdentifiers(o *Options) bool { return o.Strategy == "cache-stable" }

const (
	identifiersChars   = 400 // the list's length at most, in characters
	identifierMaxChars = 100 // a longer string is not an identifier
)

// writeIdentifiers appends ", ids: ..." to a value's line when the value
// holds identifiers that line (shown) does not show; " ..." ends a list
// that did not fit.
func writeIdentifiers(b *strings.Builder, v lisp.Value, shown string) {
	w := idWalk{seen: map[string]bool{}, shown: shown}
	w.value(v)
	if w.list.Len() == 0 {
		return
	}
	b.WriteString(", ids: ")
	b.WriteString(w.list.String())
	if w.full {
		b.WriteString(" ...")
	}
}

// idWalk collects identifiers until the list is full.
type idWalk struct {
	list  strings.Builder
	seen  map[string]bool
	shown string
	full  bool
}

// value walks v; it recurses once per level v nests, as writeValue does,
// and stops once the list is full.
func (w *idWalk) value(v lisp.Value) {
	if w.full {
		return
	}
	switch v := v.(type) {
	case lisp.String:
		s := string(v)
		if n := utf8.RuneCountInString(s); n >= evidenceMinChars && n <= identifierMaxChars && !strings.ContainsAny(s, " \t\n\r") {
			w.add(strconv.Quote(s), s)
		}
	case lisp.Keyword:
		if len(v) >= evidenceMinChars {
			w.add(":"+string(v), string(v))
		}
	case lisp.Int:
		if s := strconv.FormatInt(int64(v), 10); len(strings.TrimPrefix(s, "-")) >= evidenceMinDigits {
			w.add(s, s)
		}
	case *lisp.Vector:
		for _, e := range v.Elems() {
			w.value(e)
		}
	case *lisp.Set:
		for _, e := range v.Elems() {
			w.value(e)
		}
	case *lisp.Map:
		for _, e := range v.Entries() {
			if k, ok := e.Key.(lisp.Keyword); ok && hiddenName(string(k)) {
				continue // hidden keys stay hidden, as in samples
			}
			if k, ok := e.Key.(lisp.String); ok && hiddenName(string(k)) {
				continue
			}
			w.value(e.Key)
			w.value(e.Val)
		}
	}
}

// add lists an identifier, written as text, unless raw (its content) is
// already on the line or listed.
func (w *idWalk) add(text, raw string) {
	if w.seen[raw] || strings.Contains(w.shown, raw) {
		return
	}
	if w.list.Len()+1+len(text) > identifiersChars {
		w.full = true
		return
	}
	w.seen[raw] = true
	if w.list.Len() > 0 {
		w.list.WriteByte(' ')
	}
	w.list.WriteString(text)
}
