package strategies

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The values of cut output. A cache-stable entry shows a long output by its
// first lines; the rest is shown once, while the turn is the last. What a
// model copies from such an output into a later program is mostly
// identifiers: a content digest, a record id, a timestamp, a source name
// (measured on the recorded runs of a real model, docs/STRATEGIES.md,
// "Evidence recall"). So an entry whose output was cut lists, after its
// lines, the identifiers of the output it does not show and that neither
// the prompt before the record (SYSTEM, mission, tools, data) nor an
// earlier entry shows or lists, each once; and the summary of a re-base,
// which keeps only the last output lines, lists those of every output it
// summarizes. Both lists are made from the turns' own records: an entry's
// never changes, and a summary's begins with that of any earlier summary,
// so each is written to the cache once and read from it on every later
// call. The entry's list takes its room from the excerpt (cutOutput); the
// summary's is bounded by the pricing (summaryIndexBound): every run must
// still bill less with cache-stable than with single-user-coalesced, which
// lists nothing.

const (
	// outputIndexChars bounds an entry's list; a list that is full says
	// so with " ...".
	outputIndexChars = 500
	// cutLaterReads is how many later calls the rule of cutOutput expects
	// to read an entry: about what a run of the recorded real ones has
	// left after its middle turn.
	cutLaterReads = 10
	// cutWholeMaxRunes is the longest output the rule of cutOutput may
	// show whole: a longer one kept whole grew a real run's prompts past
	// 1.2 times single-user-coalesced's (at 2,000).
	cutWholeMaxRunes = 1500
	// entryExcerptMinRunes is the shortest excerpt of a cut output.
	entryExcerptMinRunes = 100
	// identifierMaxRunes: a longer token is text, not an identifier.
	identifierMaxRunes = 100

	outputIndexLabel = ";; values in the lines cut: "

	// summaryIndexChars is the summary's list's bound before the pricing
	// scales it (summaryIndexBound).
	summaryIndexChars = 1200
	summaryIndexLabel = ";; values in earlier output: "

	// maxIDCandidates bounds the tokens a list looks at: past it the list
	// is full, so a huge output costs a bounded time.
	maxIDCandidates = 10000
)

// idList collects identifiers, each once, in the order they occur, up to
// a bound in characters.
type idList struct {
	b     strings.Builder
	seen  map[string]bool
	limit int
	full  bool
	// examined counts the candidates looked at, up to maxIDCandidates.
	examined int
	// skip reports identifiers already shown where the list is read.
	skip func(string) bool
}

func newIDList(limit int, skip func(string) bool) *idList {
	return &idList{seen: map[string]bool{}, limit: limit, skip: skip}
}

// add lists id unless it was listed, is shown already, or does not fit;
// once one does not fit the list is full and takes nothing more, so a list
// made from more output begins with the list made from less.
func (l *idList) add(id string) {
	if l.full || l.seen[id] {
		return
	}
	if l.examined++; l.examined > maxIDCandidates {
		l.full = true
		return
	}
	l.seen[id] = true
	if l.skip != nil && l.skip(id) {
		return
	}
	if l.b.Len()+1+len(id) > l.limit {
		l.full = true
		return
	}
	if l.b.Len() > 0 {
		l.b.WriteByte(' ')
	}
	l.b.WriteString(id)
}

// String is the list, " ..." after it when it is full; "" when empty.
func (l *idList) String() string {
	if l.b.Len() == 0 {
		return ""
	}
	if l.full {
		return l.b.String() + " ..."
	}
	return l.b.String()
}

// text adds the identifiers of printed text, of evidenceMinChars to
// identifierMaxRunes characters: the contents of its quoted strings that
// hold no white space (a source name, an id), and its other tokens that
// are opaque (a timestamp, a digest, a record id). Prose words, short
// tokens and plain numbers are left out: the lines shown say what the
// output was about.
func (l *idList) text(s string) {
	for i := 0; i < len(s) && !l.full; {
		c := s[i]
		switch {
		case c == '"':
			str, next := readString(s, i)
			if identifierLike(str) {
				l.add(str)
			}
			i = next
		case tokenDelimiter(c):
			i++
		default:
			start := i
			for i < len(s) && !tokenDelimiter(s[i]) && s[i] != '"' {
				i++
			}
			tok := strings.TrimRight(strings.TrimLeft(s[start:i], "':"), "'.:")
			if identifierLike(tok) && opaque(tok) {
				l.add(tok)
			}
		}
	}
}

// identifierLike reports whether s could be an identifier: evidenceMinChars
// to identifierMaxRunes characters without white space or control
// characters.
func identifierLike(s string) bool {
	n := utf8.RuneCountInString(s)
	if n < evidenceMinChars || n > identifierMaxRunes {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) < 0
}

func tokenDelimiter(c byte) bool {
	return strings.IndexByte(" \t\n\r\v\f,;()[]{}", c) >= 0
}

// cutOutput splits a turn's output (all, of which prints are the most
// recent println_limit lines) into the lines its entry shows, the rest, and
// the list of the identifiers of all that the shown lines do not hold and
// no earlier entry showed or listed, nor the prompt before the record
// (known). The list takes its room from the excerpt, each of its characters
// counting as three (a digest or a timestamp takes two to three times the
// tokens of prose of its length), down to an excerpt of
// entryExcerptMinRunes characters. An output that cutting would not shorten
// by enough to pay for its list, under the request's pricing, is shown
// whole.
func cutOutput(all, prints []string, known, earlier map[string]bool, p Pricing) (shown, rest []string, ids string) {
	shown, rest = splitOutput(prints, entryExcerptRunes)
	if len(rest) == 0 && len(prints) == len(all) {
		return shown, rest, ""
	}
	index := func(shown []string) string {
		text := strings.Join(shown, "\n")
		l := newIDList(outputIndexChars, func(id string) bool { return earlier[id] || known[id] || strings.Contains(text, id) })
		for _, p := range all {
			l.text(p)
		}
		return l.String()
	}
	if len(rest) == 0 {
		return shown, rest, index(shown)
	}
	ids = index(shown)
	excerpt := max(entryExcerptMinRunes, entryExcerptRunes-3*utf8.RuneCountInString(ids))
	if excerpt < entryExcerptRunes {
		shown, rest = splitOutput(prints, excerpt)
		ids = index(shown)
	}
	// A cut writes the same output as the whole (its excerpt in the entry,
	// the rest once after the record) and its list besides; it pays back
	// in reads of a shorter entry on later calls. So an output of up to
	// cutWholeMaxRunes is cut only where it is more than
	// 1 + write / (cutLaterReads x read) times the excerpt and list (2.25
	// under anthropic, 1.2 under openai).
	factor := 1 + p.WriteRate/(cutLaterReads*max(p.ReadRate, 0.01))
	if whole, _ := splitOutput(prints, math.MaxInt); cutSize(whole, "") <= cutWholeMaxRunes && factor*float64(cutSize(shown, ids)) > float64(cutSize(whole, "")) {
		if len(prints) == len(all) {
			return whole, nil, ""
		}
		return whole, nil, index(whole)
	}
	return shown, rest, ids
}

// cutSize is the size of an entry's output in characters of prose: its
// lines, and its list at three characters each.
func cutSize(lines []string, ids string) int {
	n := 3 * utf8.RuneCountInString(ids)
	for _, l := range lines {
		n += utf8.RuneCountInString(l)
	}
	return n
}

// identifiersOf adds the identifiers of text to set.
func identifiersOf(set map[string]bool, text string) {
	l := newIDList(math.MaxInt, func(id string) bool {
		set[id] = true
		return true
	})
	l.text(text)
}

// knownIdentifiers is the set of identifiers of known, the prompt before
// the record, that no list repeats.
func knownIdentifiers(known string) map[string]bool {
	set := map[string]bool{}
	identifiersOf(set, known)
	return set
}

// opaqueMinRunes: a shorter unquoted token (a ticket number, a count) is
// one a model can read again from the lines shown or the data; a longer
// one mixing letters and digits (a digest, a timestamp, a record id) it
// can only copy.
const opaqueMinRunes = 8

// opaque reports whether an unquoted token is an identifier worth listing:
// opaqueMinRunes characters or more, with a letter and a digit.
func opaque(tok string) bool {
	return utf8.RuneCountInString(tok) >= opaqueMinRunes && strings.ContainsAny(tok, "0123456789") && strings.IndexFunc(tok, unicode.IsLetter) >= 0 && !timeOfDay(tok)
}

// timeOfDay reports whether tok is a time of day alone, digits and colons
// with a zone letter (09:11:47Z, 23:59:60.5Z): prose around a record's
// timestamp repeats its time, which a model copies whole, date and all.
func timeOfDay(tok string) bool {
	body, ok := strings.CutSuffix(tok, "Z")
	if !ok || !strings.Contains(body, ":") {
		return false
	}
	return strings.Trim(body, "0123456789:.") == ""
}

// summaryIndexes returns, for each n from 0 to len(turns), the list of the
// summary of turns 1..n: the identifiers of what those turns' entries
// showed of their work (their output, or the sample of the result of a turn
// that printed nothing) that the prompt before the record (known) does not
// show, in turn order. A summary's list begins with that of any summary of
// fewer turns, so a re-base reads the earlier list from the cache.
func summaryIndexes(turns []Turn, known map[string]bool, o *Options) []string {
	out := make([]string, len(turns)+1)
	l := newIDList(summaryIndexBound(o.Pricing), func(id string) bool { return known[id] })
	for i := range turns {
		t := &turns[i]
		if t.Success {
			for _, p := range t.Prints {
				l.text(p)
			}
			// The result an entry shows (makeEntry): what a later program
			// copies from it (a source's name in a listing it returned)
			// is gone with the entry at a re-base, as printed values are.
			if len(t.Prints) == 0 && (!emptyValue(t.Result) || t.Returned) {
				l.text(RenderValue(orNil(t.Result), o.SampleLimit, o.SamplePrintableLimit))
			}
		}
		out[i+1] = l.String()
	}
	return out
}

// summaryIndexBound is the summary's list's bound under pricing p. The list
// is read on every call after a re-base and rewritten from its new values
// at the next: it pays most where the cache reads cheaply and writes at
// little premium, so it shortens as reads cost more and as writes cost
// more than Anthropic's 5-minute cache (1.25). It keeps half its length
// where reads cost half a fresh token or more (openai, none): the runs
// re-base most there, and what a later turn copies from the output of the
// turns a re-base summarized is in no other place (without it, recall on
// the recorded real runs was 0.957 under openai and 0.953 under none).
func summaryIndexBound(p Pricing) int {
	return int(float64(summaryIndexChars) * max(0.5, 1-2*p.ReadRate) * min(1, 1.25/max(p.WriteRate, 1)))
}
