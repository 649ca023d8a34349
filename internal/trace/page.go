package trace

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
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
type page struct {
	b     strings.Builder
	style Style
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
	if p.b.Len() > 0 {
		p.b.WriteByte('\n')
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
	p.b.WriteByte('\n')
}

// titleSpaces keeps a title on one line.
var titleSpaces = strings.NewReplacer("\n", " ", "\t", " ")

// titlePart is one part of a box title and its colour code ("" for none).
type titlePart struct{ text, code string }

func plain(s string) titlePart { return titlePart{s, ""} }

// close ends a box with a rule of Width columns.
func (p *page) close() {
	p.b.WriteString(p.paint(sgrDim, "└"+strings.Repeat("─", Width-1)))
	p.b.WriteByte('\n')
}

// label writes a section heading inside a box.
func (p *page) label(s string) {
	p.line(p.paint(sgrCyan, s))
}

// field writes "label: value" with the value wrapped under the label's
// text indent when it is long.
func (p *page) field(label, value, code string) {
	head := label + ": "
	lines := wrap(sanitize(value), Width-borderWidth-len(head), Width-borderWidth-textIndent)
	for i, l := range lines {
		if i == 0 {
			p.line(p.paint(sgrCyan, label+":") + " " + p.paint(code, l))
			continue
		}
		p.line(strings.Repeat(" ", textIndent) + p.paint(code, l))
	}
}

// text writes s indented by indent columns, each of its lines wrapped to
// the box.
func (p *page) text(indent int, s, code string) {
	avail := Width - borderWidth - indent
	for _, l := range wrap(sanitize(s), avail, avail) {
		p.line(strings.Repeat(" ", indent) + p.paint(code, l))
	}
}

// line writes one content line after the border; trailing spaces are
// dropped so that the text has none.
func (p *page) line(s string) {
	p.b.WriteString(p.paint(sgrDim, "│"))
	if s = strings.TrimRight(s, " "); s != "" {
		p.b.WriteByte(' ')
		p.b.WriteString(s)
	}
	p.b.WriteByte('\n')
}

// wrap splits s into lines at its newlines, then splits every line wider
// than the columns it has: first for the first line, rest for every further
// line, which begins with contMark. A line breaks at its last space within
// the limit when that space lies in the second half (the space itself is
// not shown), else exactly at the limit. Widths are terminal columns (see
// runeWidth).
func wrap(s string, first, rest int) []string {
	var out []string
	for i, l := range strings.Split(s, "\n") {
		avail := rest
		if i == 0 {
			avail = first
		}
		out = append(out, wrapLine(expandTabs(l), avail, rest)...)
	}
	return out
}

func wrapLine(l string, avail, rest int) []string {
	if len(l) <= avail {
		// No rune is wider in columns than in UTF-8 bytes.
		return []string{l}
	}
	r := []rune(l)
	var out []string
	prefix := ""
	for {
		cut, cols, space, spaceCol := len(r), 0, -1, 0
		for i, c := range r {
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
		if cut == len(r) {
			return append(out, prefix+string(r))
		}
		skip := 0
		switch {
		case r[cut] == ' ':
			skip = 1
		case space > 0 && spaceCol > avail/2:
			cut, skip = space, 1
		case cut == 0:
			cut = 1 // a rune wider than the space left still moves on
		}
		out = append(out, prefix+string(r[:cut]))
		r = r[cut+skip:]
		prefix = contMark
		avail = rest - stringWidth(contMark)
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
	if !strings.Contains(l, "\t") {
		return l
	}
	var b strings.Builder
	col := 0
	for _, r := range l {
		if r == '\t' {
			n := tabStop - col%tabStop
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// sanitize makes text safe to print on a terminal: a carriage return before
// a newline is dropped, and every other control character (an escape
// sequence in a program's output would restyle or move the cursor) is shown
// as its escape \xNN or \u00NN. Newlines and tabs stay. Invalid UTF-8 shows
// as U+FFFD.
func sanitize(s string) string {
	clean := true
	for _, r := range s {
		if isControl(r) || r == utf8.RuneError {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
		case r < 0x80 && isControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case isControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
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
