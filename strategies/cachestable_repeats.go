package strategies

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// repeatMinRunes is the least a run of output lines an earlier entry
// already shows must hold for an entry to write it as a reference: a
// reference line costs about 10 tokens, so shorter runs stay verbatim.
const repeatMinRunes = 80

// entryLines remembers, for each output line an entry of the record
// shows, the first turn whose entry shows it.
type entryLines map[string]int

// add records the lines of prints as shown by turn k's entry (a line an
// earlier entry showed keeps its turn).
func (s entryLines) add(prints []string, k int) {
	for _, p := range prints {
		for _, line := range strings.Split(p, "\n") {
			if _, ok := s[line]; !ok && strings.TrimSpace(line) != "" {
				s[line] = k
			}
		}
	}
}

// withoutRepeats returns prints with each run of consecutive lines that
// one earlier entry already shows, of repeatMinRunes or more, written as
// one line that names that turn: ";; (5 lines as printed in turn 4)". A
// model often prints again what it printed before (the records it is
// about to cite, a body it reads twice); the record shows each such line
// once and every later call reads it from there, verbatim. Blank lines
// inside a run belong to it. prints itself is not changed; where nothing
// repeats it is returned as is.
func (s entryLines) withoutRepeats(prints []string) []string {
	if len(s) == 0 {
		return prints
	}
	var out []string
	for i, p := range prints {
		q := s.replaceRuns(p)
		if q == p && out == nil {
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(prints)), prints[:i]...)
		}
		out = append(out, q)
	}
	if out == nil {
		return prints
	}
	return out
}

// replaceRuns writes the runs of one print's lines that an earlier entry
// shows as references (withoutRepeats).
func (s entryLines) replaceRuns(p string) string {
	lines := strings.Split(p, "\n")
	out := make([]string, 0, len(lines))
	changed := false
	for i := 0; i < len(lines); {
		turn, ok := s[lines[i]]
		if !ok {
			out = append(out, lines[i])
			i++
			continue
		}
		// The run: lines shown by the same earlier turn, blank lines
		// within it included; it ends at its last line that is not blank.
		end := i + 1
		for j := end; j < len(lines); j++ {
			if strings.TrimSpace(lines[j]) == "" {
				continue
			}
			if t, ok := s[lines[j]]; !ok || t != turn {
				break
			}
			end = j + 1
		}
		runes, count := 0, 0
		for _, line := range lines[i:end] {
			runes += utf8.RuneCountInString(line)
			if strings.TrimSpace(line) != "" {
				count++
			}
		}
		if runes < repeatMinRunes {
			out = append(out, lines[i:end]...)
			i = end
			continue
		}
		changed = true
		word := " lines"
		if count == 1 {
			word = " line"
		}
		out = append(out, ";; ("+strconv.Itoa(count)+word+" as printed in turn "+strconv.Itoa(turn)+")")
		i = end
	}
	if !changed {
		return p
	}
	return strings.Join(out, "\n")
}
