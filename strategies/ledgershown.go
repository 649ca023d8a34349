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
		// A numbered line is shown by its text too: a note's preview of
		// the same lines leaves the numbers out.
		if _, text, ok := lineNumber(l); ok {
			s.add(collapse(text))
		}
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

// shownCount stands for n lines left out of a preview.
func shownCount(n int) string {
	if n == 1 {
		return "(1 line shown above)"
	}
	return fmt.Sprintf("(%d lines shown above)", n)
}

// textPreview is the start of a text result up to limit characters
// (runes), and its length when that is only a part. Each line reads as the
// result holds it (indentation and inner spacing kept: a model copies a
// line of code with them), trailing white space and blank lines left out.
// With shown, the lines of that start shown before are left out where they
// run to minShownRun characters or more ("(N lines shown above)" in their
// place), and the lines it shows whole are added to shown (each line
// compared with its white space collapsed).
func textPreview(s string, limit int, shown *shownLines) string {
	type line struct {
		text, key string
		seen      bool
	}
	var lines []line
	total, start, cut := 0, 0, ""
	// A viewer's line numbers are left out, the range shown named instead
	// (ledgernumbered.go).
	run := numberedRun{on: startsNumbered(s)}
	firstNumber, lastNumber := 0, 0
	textTotal := 0 // the length of the lines a preview may show (not numbered blank ones)
	for rest := s; rest != ""; {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		l = strings.TrimRight(l, " \t\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if total > 0 {
			total, textTotal = total+1, textTotal+1
		}
		n := utf8.RuneCountInString(l)
		total += n
		// The preview shows the lines that fit limit with their numbers,
		// and writes them without: the same lines for fewer tokens.
		number, l := run.strip(l)
		l = strings.TrimRight(l, " \t\r")
		if strings.TrimSpace(l) == "" {
			continue // a numbered blank line
		}
		textTotal += n
		switch {
		case cut != "" || start >= limit && start > 0:
		case start+n > limit:
			cut = string([]rune(l[:runePrefix(l, max(limit-start-(n-utf8.RuneCountInString(l)), 0))]))
			if cut == "" {
				cut = " "
			}
		default:
			k := collapse(l)
			lines = append(lines, line{l, k, shown != nil && shown.set[k]})
			start += n + 1
			if number > 0 {
				if firstNumber == 0 {
					firstNumber = number
				}
				lastNumber = number
			}
		}
	}
	parts := make([]string, 0, len(lines)+2)
	for i := 0; i < len(lines); {
		j, chars := i, 0
		for j < len(lines) && lines[j].seen {
			chars += utf8.RuneCountInString(lines[j].key) + 1
			j++
		}
		if chars >= minShownRun {
			parts = append(parts, shownCount(j-i))
			i = j
			continue
		}
		for ; i <= j && i < len(lines); i++ {
			parts = append(parts, lines[i].text)
		}
	}
	if shown != nil {
		for _, l := range lines {
			shown.add(l.key)
		}
	}
	if firstNumber > 0 {
		parts = append([]string{lineRange(firstNumber, lastNumber)}, parts...)
	}
	out := strings.Join(parts, "\n")
	if textTotal > limit {
		if c := strings.TrimSpace(cut); c != "" && out != "" {
			out += "\n" + cut
		} else if c != "" {
			out = cut
		}
		out += fmt.Sprintf("... (%d chars)", total)
	}
	return out
}

// pathsIn lists the path-like tokens of s (runs of letters, digits and
// "._-/@" holding a "/" and a letter, 3 to 200 characters) that shown does
// not already contain, each once, ", " apart, up to limit characters.
func pathsIn(s, shownText string, limit int) string {
	var b strings.Builder
	seen := map[string]bool{}
	isPathRune := func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/@", r)
	}
	// Each line is read where it lies, not gathered first: a result of
	// millions of short lines made a slice of a string header per line,
	// twice the result's bytes for lines of two.
	for rest := s; rest != ""; {
		var tok string
		tok, rest, _ = strings.Cut(rest, "\n")
		tok = strings.TrimLeft(tok, " \t")
		if i := strings.IndexFunc(tok, func(r rune) bool { return !isPathRune(r) }); i >= 0 {
			tok = tok[:i]
		}
		tok = strings.TrimRight(tok, ".")
		n := len(tok)
		if n < 3 || n > 200 || !strings.Contains(tok, "/") || strings.HasPrefix(tok, "//") || seen[tok] || strings.Contains(shownText, tok) {
			continue
		}
		if !strings.ContainsFunc(tok, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) {
			continue
		}
		seen[tok] = true
		if b.Len()+n+2 > limit {
			break
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(tok)
	}
	return b.String()
}
