package trace

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"

	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// Width is the number of columns of the text: every box's top and bottom
// rule is this wide, and no content line is longer.
const Width = 80

// Layout of a box: a left border "│ " before every content line, labels at
// column 0 of the content and their text indented by textIndent.
const (
	borderWidth = 2 // "│ "
	textIndent  = 2
	tabStop     = 4
)

// contMark starts a continuation line: the part of a line too long for the
// box, so the reader can tell a wrapped line from two lines.
const contMark = "↪ "

// Style says how the text is decorated.
type Style struct {
	// Color adds ANSI colour codes: box rules dim, titles bold, success
	// green, errors red, labels cyan. The layout is the same either way.
	Color bool
}

// ANSI SGR sequences of the palette.
const (
	sgrReset = "\x1b[0m"
	sgrBold  = "\x1b[1m"
	sgrDim   = "\x1b[2m"
	sgrRed   = "\x1b[31m"
	sgrGreen = "\x1b[32m"
	sgrCyan  = "\x1b[36m"
)

// page accumulates the rendered text, one box after another.
//
// The text is kept in pieces of about pageChunk bytes and joined once at
// the end (String): grown as one buffer, a text of megabytes would leave
// its earlier sizes behind for the collector, several times its size, and
// a request's text may render to four times its bytes (a line of its own
// for each newline).
//
// room counts the page against the caller's receive limit: once the text
// passes it, the page is full, and what follows is not kept (Render
// answers *strategies.AnswerTooLargeError), so a text the caller would
// refuse is not built past the limit.
type page struct {
	b      strings.Builder // the piece being written
	pieces []string        // the pieces written before it
	size   int             // the bytes of pieces
	style  Style
	room   *strategies.AnswerRoom
	full   error // the room's error once the text passed it
}

// pageChunk is the size past which the piece being written is put aside.
const pageChunk = 64 << 10

// len is the number of bytes written.
func (p *page) len() int { return p.size + p.b.Len() }

// endLine ends a line and, when the piece is full, puts it aside.
func (p *page) endLine() {
	p.b.WriteByte('\n')
	if p.b.Len() >= pageChunk {
		if p.full = p.room.Take(p.b.Len()); p.full != nil {
			p.b.Reset()
			p.pieces = nil // never sent
			return
		}
		piece := p.b.String()
		p.pieces = append(p.pieces, piece)
		p.size += len(piece)
		p.b = strings.Builder{}
		p.b.Grow(pageChunk + pageChunk/8)
	}
}

// String is the text written, in one string.
func (p *page) String() string {
	if len(p.pieces) == 0 {
		return p.b.String()
	}
	var all strings.Builder
	all.Grow(p.len())
	for i, piece := range p.pieces {
		all.WriteString(piece)
		p.pieces[i] = ""
	}
	all.WriteString(p.b.String())
	p.pieces, p.size, p.b = nil, 0, strings.Builder{}
	return all.String()
}

// paint wraps s in the SGR code when colour is on.
func (p *page) paint(code, s string) string {
	if !p.style.Color || code == "" || s == "" {
		return s
	}
	return code + s + sgrReset
}

// open starts a box: "┌─ " then the title parts joined by " · ", then a
// rule to Width columns. A part may carry its own colour; widths count what
// is visible.
func (p *page) open(parts ...titlePart) {
	if p.len() > 0 {
		p.endLine()
	}
	if p.full != nil {
		return
	}
	p.b.WriteString(p.paint(sgrDim, "┌─ "))
	used := 3
	for i, part := range parts {
		sep := ""
		if i > 0 {
			sep = " · "
		}
		// Keep room for the separator, one column of text and " ─".
		room := Width - used - len([]rune(sep)) - 2
		if room < 1 {
			break // a long title drops its last parts
		}
		text := clip(sanitize(titleSpaces.Replace(part.text)), room)
		p.b.WriteString(p.paint(sgrDim, sep))
		p.b.WriteString(p.paint(part.code, text))
		used += len([]rune(sep)) + stringWidth(text)
	}
	p.b.WriteString(p.paint(sgrDim, " "+strings.Repeat("─", max(Width-used-1, 1))))
	p.endLine()
}

// titleSpaces keeps a title on one line.
var titleSpaces = strings.NewReplacer("\n", " ", "\t", " ")

// titlePart is one part of a box title and its colour code ("" for none).
type titlePart struct{ text, code string }

func plain(s string) titlePart { return titlePart{s, ""} }

// close ends a box with a rule of Width columns.
func (p *page) close() {
	p.b.WriteString(p.paint(sgrDim, "└"+strings.Repeat("─", Width-1)))
	p.endLine()
}

// label writes a section heading inside a box.
func (p *page) label(s string) {
	p.line(p.paint(sgrCyan, s))
}

// field writes "label: value" with the value wrapped under the label's
// text indent when it is long.
func (p *page) field(label, value, code string) {
	head := label + ": "
	first := true
	eachShown(value, Width-borderWidth-len(head), Width-borderWidth-textIndent, func(cont, l string) {
		if first {
			first = false // the first piece of the first line: no contMark
			p.line(p.paint(sgrCyan, label+":") + " " + p.paint(code, l))
			return
		}
		p.indented(textIndent, cont, l, code)
	})
}

// text writes s indented by indent columns, each of its lines wrapped to
// the box.
func (p *page) text(indent int, s, code string) {
	avail := Width - borderWidth - indent
	eachShown(s, avail, avail, func(cont, l string) { p.indented(indent, cont, l, code) })
}

// line writes one content line after the border; trailing spaces are
// dropped so that the text has none.
func (p *page) line(s string) { p.indented(0, "", s, "") }

// spaces are the indents of content lines.
const spaces = "                                                                                "

// indented writes one content line after the border: indent spaces,
// then cont (a continuation's contMark, or nothing) and s, painted with
// code; trailing spaces are dropped, and a line of nothing but spaces is
// the border alone.
func (p *page) indented(indent int, cont, s, code string) {
	if p.full != nil {
		return // the caller will not receive the text
	}
	p.b.WriteString(p.paint(sgrDim, "│"))
	if cont != "" && p.paint(code, "x") == "x" {
		// Uncoloured, the mark is written before the piece rather than
		// joined to it: one string less for each piece of a long line.
		p.b.WriteByte(' ')
		p.b.WriteString(spaces[:min(indent, len(spaces))])
		if s = strings.TrimRight(s, " "); s == "" {
			p.b.WriteString(strings.TrimRight(cont, " "))
		} else {
			p.b.WriteString(cont)
			p.b.WriteString(s)
		}
		p.endLine()
		return
	}
	if s = strings.TrimRight(p.paint(code, cont+s), " "); s != "" {
		p.b.WriteByte(' ')
		p.b.WriteString(spaces[:min(indent, len(spaces))])
		p.b.WriteString(s)
	}
	p.endLine()
}

// eachWrapped splits s into lines at its newlines, then splits every line
// wider than the columns it has: first for the first line, rest for every
// further line, which begins with contMark; and calls f with each, in
// order, its contMark apart (cont, "" for the first piece of a line). A line breaks at its last space within the limit when that space
// lies in the second half (the space itself is not shown), else exactly
// at the limit. Widths are terminal columns (see runeWidth). s must be
// valid UTF-8 (sanitize). No list of the lines is built: a text of
// millions of short lines costs no more than its lines.
func eachWrapped(s string, first, rest int, f func(cont, l string)) {
	avail := first
	for l := range strings.SplitSeq(s, "\n") {
		wrapLine(expandTabs(l), avail, rest, f)
		avail = rest
	}
}

// wrapLine calls f with the pieces of the line l, avail columns for the
// first, rest for each further one after its contMark.
func wrapLine(l string, avail, rest int, f func(cont, l string)) {
	if len(l) <= avail {
		// No rune is wider in columns than in UTF-8 bytes.
		f("", l)
		return
	}
	prefix := ""
	for {
		// Byte offsets in l: where the piece ends, and its last space.
		cut, cols, space, spaceCol := len(l), 0, -1, 0
		for i, c := range l {
			w := runeWidth(c)
			if cols+w > avail {
				cut = i
				break
			}
			if c == ' ' {
				space, spaceCol = i, cols
			}
			cols += w
		}
		if cut == len(l) {
			f(prefix, l)
			return
		}
		skip := 0
		switch {
		case l[cut] == ' ':
			skip = 1
		case space > 0 && spaceCol > avail/2:
			cut, skip = space, 1
		case cut == 0:
			_, cut = utf8.DecodeRuneInString(l) // a rune wider than the space left still moves on
		}
		f(prefix, l[:cut])
		l = l[cut+skip:]
		prefix = contMark
		avail = rest - stringWidth(contMark)
	}
}

// shownWindow is the most of a line's bytes sanitized at once: a line of
// control characters, each shown as an escape of four bytes or six, is
// made safe and wrapped a window at a time rather than copied whole.
const shownWindow = 64 << 10

// eachShown is eachWrapped(sanitize(s), first, rest, f), without the
// sanitized copy of s when s has anything to escape: each line is made
// safe on its own, a long one a window at a time.
func eachShown(s string, first, rest int, f func(cont, l string)) {
	eachShownBy(s, first, rest, shownWindow, f)
}

// eachShownBy is eachShown with windows of window bytes.
func eachShownBy(s string, first, rest, window int, f func(cont, l string)) {
	if isClean(s) {
		eachWrapped(s, first, rest, f)
		return
	}
	avail := first
	for {
		line, after, found := strings.Cut(s, "\n")
		if found {
			line = strings.TrimSuffix(line, "\r") // as sanitize drops it
		}
		wrapShownLine(line, avail, rest, window, f)
		if !found {
			return
		}
		s, avail = after, rest
	}
}

// wrapShownLine is wrapLine(expandTabs(sanitize(line)), avail, rest, f)
// for a line without newlines, made safe window bytes at a time.
func wrapShownLine(line string, avail, rest, window int, f func(cont, l string)) {
	if len(line) <= window {
		wrapLine(expandTabs(sanitize(line)), avail, rest, f)
		return
	}
	c := pieceCutter{f: f, avail: avail, rest: rest, space: -1}
	col := 0
	for len(line) > 0 {
		n := min(len(line), window)
		// A window ends where a rune begins, or three bytes later: no
		// rune of UTF-8 is cut, so each decodes as in the whole line.
		for k := 0; k < utf8.UTFMax-1 && n < len(line) && !utf8.RuneStart(line[n]); k++ {
			n++
		}
		var shown string
		shown, col = expandTabsFrom(sanitize(line[:n]), col)
		line = line[n:]
		c.add(shown, len(line) > 0)
	}
}

// pieceCutter cuts one line, given a part at a time, into the pieces
// wrapLine cuts the whole line into. What it holds is the piece not yet
// cut, and how far it has looked into it.
type pieceCutter struct {
	f           func(cont, l string)
	avail, rest int
	prefix      string
	buf         []byte // buf[start:] is the text not yet cut
	start       int
	scanned     int // bytes of buf[start:] measured, into cols
	cols        int
	space       int // the last space measured (-1: none), and its column
	spaceCol    int
}

// add appends text to the line and calls f with every piece that is
// decided; more says whether more of the line follows.
func (c *pieceCutter) add(text string, more bool) {
	if c.start > 0 {
		c.buf = c.buf[:copy(c.buf, c.buf[c.start:])]
		c.start = 0
	}
	c.buf = append(c.buf, text...)
	for {
		l := c.buf[c.start:]
		cut := -1
		for c.scanned < len(l) {
			r, size := utf8.DecodeRune(l[c.scanned:])
			w := runeWidth(r)
			if c.cols+w > c.avail {
				cut = c.scanned
				break
			}
			if r == ' ' {
				c.space, c.spaceCol = c.scanned, c.cols
			}
			c.cols += w
			c.scanned += size
		}
		if cut < 0 {
			if !more {
				c.f(c.prefix, string(l))
			}
			return
		}
		skip := 0
		switch {
		case l[cut] == ' ':
			skip = 1
		case c.space > 0 && c.spaceCol > c.avail/2:
			cut, skip = c.space, 1
		case cut == 0:
			_, cut = utf8.DecodeRune(l) // a rune wider than the space left still moves on
		}
		c.f(c.prefix, string(l[:cut]))
		c.start += cut + skip
		c.scanned, c.cols, c.space, c.spaceCol = 0, 0, -1, 0
		c.prefix = contMark
		c.avail = c.rest - stringWidth(contMark)
	}
}

// runeWidth is the number of terminal columns r takes: two for East Asian
// wide and fullwidth characters (most emoji among them), none for combining
// marks and format characters, one otherwise.
func runeWidth(r rune) int {
	if r < 0x300 {
		return 1 // Latin, before the first combining mark: the common case
	}
	if unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) {
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

func stringWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

// expandTabs replaces each tab with the spaces up to the next tab stop, so
// that a line's width is its number of runes.
func expandTabs(l string) string {
	out, _ := expandTabsFrom(l, 0)
	return out
}

// expandTabsFrom is expandTabs for a part of a line that begins col runes
// into it; it also returns the column the part ends at.
func expandTabsFrom(l string, col int) (string, int) {
	if !strings.Contains(l, "\t") {
		return l, col + utf8.RuneCountInString(l)
	}
	// The size first, so that the line is written into room of its size.
	size, end := 0, col
	for _, r := range l {
		if r == '\t' {
			size += tabStop - end%tabStop
			end += tabStop - end%tabStop
			continue
		}
		size += utf8.RuneLen(r)
		end++
	}
	var b strings.Builder
	b.Grow(size)
	for _, r := range l {
		if r == '\t' {
			n := tabStop - col%tabStop
			b.WriteString(spaces[:n])
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String(), col
}

// sanitize makes text safe to print on a terminal: a carriage return before
// a newline is dropped, and every other control character (an escape
// sequence in a program's output would restyle or move the cursor) is shown
// as its escape \xNN or \u00NN. Newlines and tabs stay. Invalid UTF-8 shows
// as U+FFFD.
func sanitize(s string) string {
	if isClean(s) {
		return s
	}
	// The size first, so that the text is written into room of its size.
	size := 0
	for i, r := range s {
		switch {
		case r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
		case r < 0x80 && isControl(r):
			size += len(`\x00`)
		case isControl(r):
			size += len(`\u0000`)
		default:
			size += utf8.RuneLen(r)
		}
	}
	var b strings.Builder
	b.Grow(size)
	for i, r := range s {
		switch {
		case r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
		case r < 0x80 && isControl(r):
			b.WriteString(`\x`)
			writeHex(&b, uint32(r), 2)
		case isControl(r):
			b.WriteString(`\u`)
			writeHex(&b, uint32(r), 4)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// writeHex writes v as digits lower-case hexadecimal digits, as %0Nx
// does for a v that fits them.
func writeHex(b *strings.Builder, v uint32, digits int) {
	for shift := 4 * (digits - 1); shift >= 0; shift -= 4 {
		b.WriteByte("0123456789abcdef"[v>>shift&0xf])
	}
}

// isClean reports whether s shows as it is: no control character but
// newline and tab, no invalid UTF-8.
func isClean(s string) bool {
	for _, r := range s {
		if isControl(r) || r == utf8.RuneError {
			return false
		}
	}
	return true
}

func isControl(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return r < 0x20 || (r >= 0x7f && r < 0xa0)
}

// clip cuts s to n columns, ending it with "…" when cut.
func clip(s string, n int) string {
	if stringWidth(s) <= n {
		return s
	}
	var b strings.Builder
	cols := 0
	for _, r := range s {
		w := runeWidth(r)
		if cols+w > n-1 {
			break
		}
		b.WriteRune(r)
		cols += w
	}
	return b.String() + "…"
}
