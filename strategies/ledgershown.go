package strategies

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// A coding agent views the same file, reruns the same script and greps the
// same tree again and again: the start of a result its ledger note shows is
// often lines an earlier note, or a step sent whole, already shows (the
// imports of a file read twice, the banner of a test run). loop-slice's
// notes leave those lines out, a count in their place. The value a model
// copies from such a line stays in the prompt, in the earlier message, and
// the prompt stays append-only: which lines an earlier message shows is
// decided before the note is, once for good (planLedger).

// minShownRun is the fewest characters of a run of lines shown before that
// a note leaves out: a shorter run costs about what its count does.
const minShownRun = 30

// shownLines holds the lines (whitespace collapsed) the output shows
// before a note, and the lines added since the last commit, so that a note
// form tried and not taken can be undone.
type shownLines struct {
	set   map[string]bool
	added []string
}

func newShownLines() *shownLines { return &shownLines{set: map[string]bool{}} }

func (s *shownLines) add(line string) {
	if line != "" && !s.set[line] {
		s.set[line] = true
		s.added = append(s.added, line)
	}
}

// addText adds every line of text.
func (s *shownLines) addText(text string) {
	for rest := text; rest != ""; {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		s.add(collapse(l))
	}
}

// collapse is s with its whitespace collapsed, as a note shows it.
func collapse(s string) string {
	t := strings.TrimSpace(s)
	for i := 0; i < len(t); i++ {
		// Only ASCII single spaces are left as they are.
		if c := t[i]; c >= utf8.RuneSelf || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == ' ' && t[i+1] == ' ' {
			return strings.Join(strings.Fields(t), " ")
		}
	}
	return t
}

// mark and undo take back the lines added since mark; commit forgets them.
func (s *shownLines) mark() int { return len(s.added) }

func (s *shownLines) undo(to int) {
	for _, l := range s.added[to:] {
		delete(s.set, l)
	}
	s.added = s.added[:to]
}

func (s *shownLines) commit() { s.added = s.added[:0] }

// addWhole adds the lines of a unit the output sends whole, in the form it
// sends each message.
func (s *shownLines) addWhole(ch *chatHistory, unit []int) {
	for _, i := range unit {
		s.addText(ch.form(i).text())
	}
}

// textPreview is the start of a text result, whitespace collapsed, up to
// limit characters (runes), and its length when that is only a part. With
// shown, the lines of that start shown before are left out where they run
// to minShownRun characters or more ("(N lines shown above)" in their
// place), and the lines it shows whole are added to shown.
func textPreview(s string, limit int, shown *shownLines) string {
	flat := strings.Join(strings.Fields(s), " ")
	total := utf8.RuneCountInString(flat)
	whole := flat
	if total > limit {
		whole = clipText(flat, limit) + fmt.Sprintf(" (%d chars)", total)
	}
	if shown == nil || limit == 0 {
		return whole
	}
	// The lines of the start, as flat joins them; cut is the start of the
	// line the limit falls in.
	type line struct {
		text string
		seen bool
	}
	var lines []line
	cut, start := "", 0
	for rest := s; rest != "" && start < limit; {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		f := collapse(l)
		if f == "" {
			continue
		}
		n := utf8.RuneCountInString(f)
		if start+n > limit {
			cut = string([]rune(f)[:limit-start])
			break
		}
		lines = append(lines, line{f, shown.set[f]})
		start += n + 1
	}
	parts := make([]string, 0, len(lines)+2)
	left := false
	for i := 0; i < len(lines); {
		j, chars := i, 0
		for j < len(lines) && lines[j].seen {
			chars += utf8.RuneCountInString(lines[j].text) + 1
			j++
		}
		if chars >= minShownRun {
			parts = append(parts, shownCount(j-i))
			left = true
			i = j
			continue
		}
		for ; i < j; i++ {
			parts = append(parts, lines[i].text)
		}
		if i < len(lines) {
			parts = append(parts, lines[i].text)
			i++
		}
	}
	if !left {
		for _, l := range lines {
			shown.add(l.text)
		}
		return whole
	}
	for _, l := range lines {
		shown.add(l.text)
	}
	out := strings.Join(parts, " ")
	if total > limit {
		if cut != "" {
			out += " " + cut
		}
		out += fmt.Sprintf("... (%d chars)", total)
	}
	return out
}

// shownCount stands for n lines left out of a preview.
func shownCount(n int) string {
	if n == 1 {
		return "(1 line shown above)"
	}
	return fmt.Sprintf("(%d lines shown above)", n)
}
