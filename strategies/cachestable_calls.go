package strategies

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// An agent often calls one tool many times in a turn with the same
// arguments but one (a record fetched per id). A cache-stable entry is
// written once and read on every later call, so it shows such a run as one
// line: the call with _ where the argument that changes goes, then its
// values in call order:
//
//	evidence.get({"evidence_id" _ "incident_id" "x"}) for _ in "a-1" "b-2" "c-3"
//
// Each value is shown verbatim, as in the lines it replaces, unless an
// output the prompt keeps shows every value of the run (an agent printing
// the ids it then fetches one by one): the line then says how many there
// were,
//
//	evidence.get({"evidence_id" _ "incident_id" "x"}) for _ in 13 values, each in the output of this or an earlier turn
//
// A value counts as kept when the entry's own output shows it, or when an
// earlier entry shows or lists it and so does the summary's list of values
// for the turns before (summaryIndexes): a re-base that summarizes the
// entry showing it lists it in its place.
//
// The summary of a re-base lists the calls one a line, as
// single-user-coalesced does.

// callGroupMin is the fewest consecutive calls shown as one line: two lines
// cost about what the grouped line does.
const callGroupMin = 3

// writeCallLines writes lines, the tool calls of an entry as writeToolCall
// renders them, each after "\n;   ", a run of callGroupMin or more
// consecutive calls of one tool that differ in one argument as one line.
// The values of such a line are counted rather than listed when kept
// reports each of them kept elsewhere in the prompt (nil: none).
func writeCallLines(b *strings.Builder, lines []string, kept func(string) bool) {
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && sameTool(lines[i], lines[j]) {
			j++
		}
		if pre, suf, ok := callPattern(lines[i:j]); ok && j-i >= callGroupMin {
			b.WriteString("\n;   ")
			b.WriteString(lines[i][:pre])
			b.WriteString("_")
			b.WriteString(lines[i][len(lines[i])-suf:])
			b.WriteString(" for _ in")
			if allKept(kept, lines[i:j], pre, suf) {
				b.WriteString(" " + strconv.Itoa(j-i) + " values, each in the output of this or an earlier turn")
				i = j
				continue
			}
			for _, l := range lines[i:j] {
				b.WriteByte(' ')
				b.WriteString(l[pre : len(l)-suf])
			}
			i = j
			continue
		}
		// A run that does not group is shown a line a call, whole: looking
		// for a group within it again from each call would take time
		// quadratic in tool_call_limit.
		for ; i < j; i++ {
			b.WriteString("\n;   ")
			b.WriteString(lines[i])
		}
	}
}

// allKept reports whether kept holds each value of a group of call lines
// (between pre and suf): a string's contents, when it has no escape, or
// another value's text, of evidenceMinChars characters or more (a shorter
// one is found in any output).
func allKept(kept func(string) bool, lines []string, pre, suf int) bool {
	if kept == nil {
		return false
	}
	for _, l := range lines {
		v := l[pre : len(l)-suf]
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		if utf8.RuneCountInString(v) < evidenceMinChars || strings.ContainsAny(v, "\\\"") || !kept(v) {
			return false
		}
	}
	return true
}

// sameTool reports whether two call lines name the same tool.
func sameTool(a, b string) bool {
	i := strings.IndexByte(a, '(')
	return i > 0 && len(b) > i && b[:i+1] == a[:i+1]
}

// callPattern finds what lines share: the length of their common start,
// ending after a space or an opening bracket outside a string, and of their
// common end, beginning at a space or a closing bracket, such that what
// lies between (the argument that changes) is, in every line, one whole
// value without white space: its strings closed and its brackets balanced.
// ok is false when there is no such argument, or when the lines are all
// the same.
func callPattern(lines []string) (pre, suf int, ok bool) {
	if len(lines) < 2 {
		return 0, 0, false
	}
	first := lines[0]
	pre, suf = len(first), len(first)
	for _, l := range lines[1:] {
		pre = min(pre, commonPrefix(first, l))
		suf = min(suf, commonSuffix(first, l))
	}
	for pre > 0 && (!strings.ContainsRune(" ({[", rune(first[pre-1])) || inString(first[:pre])) {
		pre--
	}
	for suf > 0 && !strings.ContainsRune(" )}]", rune(first[len(first)-suf])) {
		suf--
	}
	if pre == 0 || suf == 0 {
		return 0, 0, false
	}
	for _, l := range lines {
		if pre+suf >= len(l) {
			return 0, 0, false // an empty value, or the start and end overlap
		}
		if v := l[pre : len(l)-suf]; strings.ContainsAny(v, " \t\n") || !wholeValue(v) {
			return 0, 0, false
		}
	}
	return pre, suf, true
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// inString reports whether s ends inside a string literal.
func inString(s string) bool {
	in := false
	for i := 0; i < len(s); i++ {
		switch {
		case in && s[i] == '\\':
			i++ // an escaped character
		case s[i] == '"':
			in = !in
		}
	}
	return in
}

// wholeValue reports whether v closes the strings and brackets it opens.
func wholeValue(v string) bool {
	if inString(v) {
		return false
	}
	depth := 0
	in := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case in:
		case strings.IndexByte("([{", c) >= 0:
			depth++
		case strings.IndexByte(")]}", c) >= 0:
			if depth--; depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}
