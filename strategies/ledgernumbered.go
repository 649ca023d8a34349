package strategies

import (
	"fmt"
	"strconv"
	"strings"
)

// A file viewer's output numbers its lines: Claude Code's Read writes
// "    12→" before each line, `cat -n` and `nl -ba` "    12\t". In a note's
// preview the numbers take a sixth of a Read's characters, and they are
// not what a model copies: a later Edit copies the line's text, never its
// number. A preview therefore shows a numbered run without the numbers,
// led by the range it covers ("(lines 12-30)"), so the number of its first
// and last lines (a later Read's offset) stays in the prompt.

// lineNumber splits a numbered line into its number and its text: up to
// eight spaces, a number, then "→" or a tab.
func lineNumber(l string) (n int, text string, ok bool) {
	i := 0
	for i < len(l) && i < 8 && l[i] == ' ' {
		i++
	}
	j := i
	for j < len(l) && j-i < 9 && l[j] >= '0' && l[j] <= '9' {
		j++
	}
	if j == i {
		return 0, "", false
	}
	rest := l[j:]
	switch {
	case strings.HasPrefix(rest, "→"):
		rest = rest[len("→"):]
	case strings.HasPrefix(rest, "\t"):
		rest = rest[1:]
	default:
		return 0, "", false
	}
	n, err := strconv.Atoi(l[i:j])
	return n, rest, err == nil
}

// startsNumbered reports whether s starts, past blank lines, with
// minNumberedLines lines whose numbers follow one another.
func startsNumbered(s string) bool {
	run := numberedRun{on: true}
	count := 0
	for rest := s; rest != "" && count < minNumberedLines; {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n, _ := run.strip(l); n == 0 {
			return false
		}
		count++
	}
	return count == minNumberedLines
}

// numberedRun strips the numbers of a run of numbered lines, line by line,
// until a line does not carry the number that follows the previous one.
type numberedRun struct {
	on   bool
	next int // the number the next line carries; 0 before the first
}

// strip returns the number of the line l (0 when l is not in the run) and
// its text without the number.
func (r *numberedRun) strip(l string) (int, string) {
	if !r.on {
		return 0, l
	}
	n, text, ok := lineNumber(l)
	if !ok || n <= 0 || r.next > 0 && n != r.next {
		r.on = false
		return 0, l
	}
	r.next = n + 1
	return n, text
}

// minNumberedLines is the fewest consecutive numbered lines read as a
// viewer's numbering: fewer could be a result's own data ("1\tok").
const minNumberedLines = 3

// lineRange names the lines a preview shows of a numbered run.
func lineRange(first, last int) string {
	if first == last {
		return fmt.Sprintf("(line %d)", first)
	}
	return fmt.Sprintf("(lines %d-%d)", first, last)
}
