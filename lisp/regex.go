package lisp

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// regex is a compiled regular expression, built by re-pattern. It is an
// opaque value (spec 8.10) that prints as #"pattern", which the reader
// reads back (so regexes survive memory serialization). Go's RE2 engine
// matches in time linear in the input, so there is no backtracking to
// bound; what it cannot express (lookaround, backreferences) runs on the
// backtracking matcher (bt), which charges every step as it runs.
type regex struct {
	source string
	re     *regexp.Regexp
	whole  *regexp.Regexp // the pattern anchored at both ends, for re-matches
	// insts is the size of the compiled program. RE2 matches in time
	// linear in the input, but times the program: a short pattern such as
	// (\w+\s*){1000}x compiles to thousands of instructions, each run on
	// every byte.
	insts int
	// held is the bytes the compiled programs hold (regexHeld), the
	// regex's heap shape.
	held int64
	// emptyMatch is the submatch positions of the pattern's match of the
	// empty string, when it has one and asserts nothing about its context:
	// it matches there at every position, and Java finds the empty match
	// right after a longer one, which Go's FindAll skips (javaMatches).
	emptyMatch []int
	// afterRune, for a pattern that asserts something about its context
	// (^, $, \b, \B), is it preceded by one character of any kind and
	// anchored at the start: whether it matches the empty string right
	// after a match, in that match's context (javaMatches).
	afterRune *regexp.Regexp
	// bt, for a pattern RE2 refuses (lookaround, backreferences,
	// possessive quantifiers, atomic groups, class intersection), is the
	// backtracking program that runs it instead, charging each step
	// (regex_backtrack.go); re and whole are then nil.
	bt *btProgram
}

// maxPatternBytes is the longest pattern re-pattern accepts (spec 8.10).
const maxPatternBytes = 256

// TypeName implements Value.
func (*regex) TypeName() string { return "regex" }

// compileRegex compiles a pattern, explaining in the error what RE2 could
// not accept.
func compileRegex(fn, pattern string) (*regex, error) {
	if len(pattern) > maxPatternBytes {
		return nil, javaErrorf(executionError, noJavaClass, "%s: pattern of %d bytes is longer than the limit of %d", fn, len(pattern), maxPatternBytes).
			WithHint("use a shorter pattern, or split the work into several simpler patterns")
	}
	java := pattern
	pattern, ok := javaRegex(pattern)
	if !ok {
		return backtrackRegex(fn, java, nil)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		reason := err.Error()
		if se, ok := err.(*syntax.Error); ok {
			reason = string(se.Code)
			if se.Expr != "" {
				reason += " in `" + se.Expr + "`"
			}
		}
		return backtrackRegex(fn, java, javaErrorf(executionError, noJavaClass, "%s: RE2 cannot compile the pattern %q: %s", fn, java, reason).
			WithHint(`regexes run on Go's RE2, which lacks this construct: write the pattern with what Java and RE2 share, e.g. \p{IsGreek} for \p{InGreek}`))
	}
	whole, err := regexp.Compile(`^(?:` + pattern + `)$`)
	if err != nil {
		return nil, javaErrorf(executionError, noJavaClass, "%s: RE2 cannot anchor the pattern %q: %v", fn, java, err)
	}
	r := &regex{source: java, re: re, whole: whole}
	programs := 2
	if !looksAround(pattern) {
		r.emptyMatch = re.FindStringSubmatchIndex("")
	} else if r.afterRune, err = regexp.Compile(`^(?s:.)(?:` + pattern + `)`); err != nil {
		return nil, javaErrorf(executionError, noJavaClass, "%s: RE2 cannot anchor the pattern %q: %v", fn, java, err)
	} else {
		programs = 3
	}
	if prog := re2Program(pattern); prog != nil {
		r.insts = len(prog.Inst)
		r.held = regexHeld(prog, programs)
	} else {
		r.insts = len(pattern)
		r.held = heapRegex + int64(programs)*heapRegexInst*int64(r.insts)
	}
	return r, nil
}

// backtrackRegex compiles a pattern RE2 cannot run for the backtracking
// matcher. When that cannot read it either, RE2's refusal stands if there
// was one (its hint names what RE2 and Java share), else the matcher's.
func backtrackRegex(fn, java string, refused *Error) (*regex, error) {
	prog, err := compileBacktrack(java)
	switch {
	case err == nil:
		return &regex{source: java, bt: prog, insts: len(prog.insts), held: prog.held()}, nil
	case refused != nil:
		return nil, refused
	}
	return nil, javaErrorf(executionError, noJavaClass, "%s: the pattern %q cannot be compiled: %v", fn, java, err).
		WithHint(`write the pattern in Java's syntax: escape a metacharacter to match it, \( for (, and close every group and class`)
}

// groupCount is the number of capturing groups of r.
func (r *regex) groupCount() int {
	if r.bt != nil {
		return r.bt.groups
	}
	return r.re.NumSubexp()
}

// find is the positions of r's first match in s and of its groups, or nil.
func (r *regex) find(th *Thread, s string) ([]int, error) {
	if r.bt != nil {
		return r.bt.find(th, s, 0, false)
	}
	return r.re.FindStringSubmatchIndex(s), nil
}

// matchWhole is find for a match of the whole of s (re-matches).
func (r *regex) matchWhole(th *Thread, s string) ([]int, error) {
	if r.bt != nil {
		return r.bt.find(th, s, 0, true)
	}
	return r.whole.FindStringSubmatchIndex(s), nil
}

// Compiling a pattern parses and compiles it four times (the pattern,
// its anchored copy, and twice to measure and inspect it): 14-20 µs for
// "a" or \w+@\w+\.com, 0.6 ms for (a|b|c|d|e|f|g){1,100} (401
// instructions) and 3.4 ms for [a-z]{1,1000} (2,001), and the compiled
// regex holds its programs (heapShape). Charged as one step and its
// pattern's bytes, 100,000 of them (re-pattern in a loop) ran until the
// clock stopped them and held 90-240 MiB against a 10 MiB budget.
const (
	regexCompileSteps = 128 // the fixed part
	regexInstSteps    = 16  // per instruction of the program
)

// chargeRegex charges th for having compiled r: the steps the compiling
// took and the heap r holds.
func chargeRegex(th *Thread, r *regex) error {
	if th == nil {
		return nil
	}
	if err := th.step(regexCompileSteps + regexInstSteps*int64(r.insts)); err != nil {
		return err
	}
	return th.alloc(r.heapShape())
}

// looksAround reports whether pattern asserts anything about its context
// (^, $, \b, \B, \A, \z), so that where it matches the empty string
// depends on the text around.
func looksAround(pattern string) bool {
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return true
	}
	var walk func(r *syntax.Regexp) bool
	walk = func(r *syntax.Regexp) bool {
		switch r.Op {
		case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
			return true
		}
		return slices.ContainsFunc(r.Sub, walk)
	}
	return walk(parsed)
}

// programSize is the number of instructions RE2 compiles pattern to (a
// pattern that compiled with regexp compiles here too).
func programSize(pattern string) int {
	if translated, ok := javaRegex(pattern); ok {
		pattern = translated
	}
	if prog := re2Program(pattern); prog != nil {
		return len(prog.Inst)
	}
	return len(pattern)
}

// re2Program is the program RE2 compiles an RE2 pattern to, or nil
// when it cannot compile it.
func re2Program(pattern string) *syntax.Prog {
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		return nil
	}
	return prog
}

// What Go's regexp holds of a compiled pattern, measured with Go 1.26
// (TestRegexChargedWhatItHolds): each program it compiles (the pattern,
// its anchored copy for re-matches, the copy for matches after a rune)
// keeps every instruction and its rune table, a Unicode class being
// hundreds of ranges; a program anchored at its start is also compiled
// one-pass when it can be, a second copy of each instruction with its
// rune table and a successor per range.
const (
	heapRegexProgram    = 1536 // a regexp.Regexp and its syntax.Prog
	heapRegexInst       = 80   // a syntax.Inst, its rune slice header included
	heapOnePassInst     = 80   // a one-pass instruction, its successor slice included
	heapOnePassRuneByte = 2    // a one-pass rune table and successors, per rune table byte

	// maxOnePassInsts is the size from which Go's regexp compiles no
	// one-pass copy (regexp/onepass.go); the anchored copies are larger
	// than the pattern's own program, never smaller.
	maxOnePassInsts = 1000
)

// regexHeld is the bytes a regex holds whose pattern compiles to prog,
// compiled as programs programs (compileRegex): each holds prog's
// instructions and their rune tables, each table once (a repeat's copies
// share one); each anchored at its start (all but the pattern's own,
// unless it is anchored too) and under maxOnePassInsts may hold a
// one-pass copy, where every instruction has its own copy of the rune
// tables it can consume first, merged, and a successor per range.
func regexHeld(prog *syntax.Prog, programs int) int64 {
	var plain, onePass int64
	tables := map[*rune]bool{}
	first := make([]int64, len(prog.Inst))
	for pc, in := range prog.Inst {
		plain += heapRegexInst
		if len(in.Rune) > 0 && !tables[&in.Rune[0]] {
			tables[&in.Rune[0]] = true
			plain += runeTableBytes(len(in.Rune))
		}
		onePass += heapOnePassInst + heapOnePassRuneByte*firstRuneBytes(prog, uint32(pc), first)
	}
	onePassPrograms := programs - 1
	if start := prog.Inst[prog.Start]; start.Op == syntax.InstEmptyWidth && syntax.EmptyOp(start.Arg)&syntax.EmptyBeginText != 0 {
		onePassPrograms++
	}
	if len(prog.Inst) >= maxOnePassInsts {
		onePassPrograms = 0
	}
	return heapRegex + int64(programs)*(heapRegexProgram+plain) + int64(onePassPrograms)*onePass
}

// firstRuneBytes is the bytes of the rune tables of the instructions
// that can consume the first rune from pc on, as a one-pass alternation
// merges them; first memoizes it per instruction (-1 while it is being
// walked, for loops).
func firstRuneBytes(prog *syntax.Prog, pc uint32, first []int64) int64 {
	if first[pc] != 0 {
		return max(first[pc], 0)
	}
	first[pc] = -1
	in := prog.Inst[pc]
	var n int64
	switch in.Op {
	case syntax.InstAlt, syntax.InstAltMatch:
		n = firstRuneBytes(prog, in.Out, first) + firstRuneBytes(prog, in.Arg, first)
	case syntax.InstNop, syntax.InstCapture, syntax.InstEmptyWidth:
		n = firstRuneBytes(prog, in.Out, first)
	default:
		n = runeTableBytes(max(len(in.Rune), 1))
	}
	first[pc] = n
	return n
}

// runeTableBytes is the bytes a table of n runes takes, rounded up to
// the word.
func runeTableBytes(n int) int64 { return (4*int64(n) + 7) &^ 7 }

// instBytesPerStep is how many (instruction, input byte) pairs of regex
// matching one step pays for, so that with capture groups, where Go's
// matcher is slowest per pair, a step buys about as much time here as
// elsewhere in the interpreter (docs/BENCHMARKS.md); simple patterns run
// far faster, which the division leaves them some credit for.
const instBytesPerStep = 8

// maxMatchWork bounds the (instruction, input byte) pairs of one match
// whatever the step budget, since a match cannot be interrupted: it is
// the work the most one operation may count pays for (maxStepsAtOnce).
const maxMatchWork = maxStepsAtOnce * instBytesPerStep

// chargeMatch charges for matching a regex of insts instructions against
// n bytes of input, before the match: a match cannot be interrupted once
// it starts, so its whole worst case must fit in the step budget first,
// and below maxMatchWork. The builtins declare it (matching).
func chargeMatch(th *Thread, insts, n int) error {
	work := int64(n) * int64(insts)
	if work > maxMatchWork {
		return Errorf(stepLimit, "matching a regex of %d instructions against %d bytes is too much work for one match", insts, n).
			WithHint("match a shorter string (split it first) or use a simpler pattern with fewer repetitions")
	}
	return th.step(1 + work/instBytesPerStep)
}

// regexArg accepts a regex: a string is Clojure's ClassCastException.
func regexArg(fn string, v Value) (*regex, error) {
	if r, ok := v.(*regex); ok {
		return r, nil
	}
	return nil, Errorf(typeError, "%s expected a regex, got %s", fn, describe(v)).
		WithHint(`build one with (re-pattern "\\d+")`).
		asJava("ClassCastException", javaCastMessage(javaValueClass(v), "java.util.regex.Pattern"))
}

// javaValueClass is the name of v's Java class, for a message.
func javaValueClass(v Value) string {
	c, err := classOf("", v)
	switch {
	case err != nil:
		return "java.lang.Object"
	case c == fnClass:
		return functionClassName(v)
	}
	return string(c)
}

// matchValue is what re-find and re-matches return for a match: the matched
// text when the pattern has no groups, else [whole group1 ...] with nil for
// a group that did not take part.
func matchValue(th *Thread, s string, loc []int) (Value, error) {
	if len(loc) == 2 {
		return newString(th, s[loc[0]:loc[1]])
	}
	n := len(loc) / 2
	out, err := makeSlice(th, n)
	if err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		if loc[2*i] < 0 {
			out = append(out, Nil)
			continue
		}
		g, err := newString(th, s[loc[2*i]:loc[2*i+1]])
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return NewVector(out), nil
}

// perMatchCost is what one match is charged: the matched string and its
// place in a result vector.
const perMatchCost = heapString + heapSlot

// findAll returns the submatch positions of every match of re in s. Matches
// are counted against what is left of the allocation budget before Go
// builds them: a pattern that matches every character of a long string
// fails on the budget instead of building millions of positions.
func findAll(th *Thread, re *regex, s string, n int) ([][]int, error) {
	limit := n
	if left := th.limitsInUse().MaxAllocBytes - th.allocatedBytes(); th.limitsInUse().MaxAllocBytes > 0 {
		most := int(min(left/perMatchCost+1, int64(len(s))+2))
		if limit < 0 || limit > most {
			limit = most
		}
	}
	var locs [][]int
	if re.bt != nil {
		var err error
		if locs, err = re.bt.findAll(th, s, limit); err != nil {
			return nil, err
		}
	} else {
		locs = javaMatches(re, s, re.re.FindAllStringSubmatchIndex(s, limit))
	}
	if n >= 0 && len(locs) > n {
		locs = locs[:n]
	}
	if err := th.alloc(int64(len(locs)) * perMatchCost); err != nil {
		return nil, err
	}
	return locs, nil
}

// javaMatches adds to Go's matches the empty ones Java's Matcher.find
// gives right after a non-empty match, where Go skips an empty match that
// abuts the one before: (re-seq #"a*" "baa") is ("" "aa" "") in Clojure.
// A pattern whose empty match does not depend on its context
// (re.emptyMatch) matches the empty string everywhere; one that asserts
// something about its context ((re-seq #"a*$" "baa") is ("aa" "") in
// Clojure) is tried right after the match, with the match's last
// character before it (re.afterRune).
func javaMatches(re *regex, s string, locs [][]int) [][]int {
	if re.emptyMatch == nil && re.afterRune == nil {
		return locs
	}
	var out [][]int
	for i, loc := range locs {
		out = append(out, loc)
		end := loc[1]
		if loc[0] == end || (i+1 < len(locs) && locs[i+1][0] == end) {
			continue
		}
		shift, at := end, re.emptyMatch
		if at == nil {
			_, w := utf8.DecodeLastRuneInString(s[:end])
			m := re.afterRune.FindStringSubmatchIndex(s[end-w:])
			if m == nil || m[1] != w {
				continue // no match right there, or a longer one Go found
			}
			shift, at = end-w, m
		}
		empty := make([]int, len(at))
		for j, p := range at {
			empty[j] = -1
			if p >= 0 {
				empty[j] = p + shift
			}
		}
		empty[0], empty[1] = end, end // the whole match: after the character before it
		out = append(out, empty)
	}
	return out
}

// javaReplacement turns a Java/Clojure replacement string ($1 for a group,
// \$ for a dollar) into Go's template syntax (${1}, $$), for a regex of
// groups groups. As Java's, a group number takes digits while it names a
// group ("$12" is group 1 and a 2 when there are fewer than 12), and one
// whose first digit names none is an IndexOutOfBoundsException.
func javaReplacement(repl string, groups int) (string, error) {
	var b strings.Builder
	b.Grow(len(repl))
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		switch {
		case c == '\\' && i+1 == len(repl):
			return "", replacementError("character to be escaped is missing")
		case c == '\\':
			i++
			if repl[i] == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte(repl[i])
			}
		case c == '$' && i+1 < len(repl) && isDigit(repl[i+1]):
			g := int(repl[i+1] - '0')
			if g > groups {
				msg := fmt.Sprintf("No group %d", g)
				return "", Errorf(executionError, "the replacement string names group %d, and the regex has %d", g, groups).
					asJava("IndexOutOfBoundsException", msg)
			}
			j := i + 2
			for ; j < len(repl) && isDigit(repl[j]) && g*10+int(repl[j]-'0') <= groups; j++ {
				g = g*10 + int(repl[j]-'0')
			}
			b.WriteString("${" + strconv.Itoa(g) + "}")
			i = j - 1
		case c == '$' && i+1 == len(repl):
			return "", replacementError("Illegal group reference: group index is missing")
		case c == '$' && repl[i+1] != '{':
			return "", replacementError("Illegal group reference")
		case c == '$':
			b.WriteString("$$")
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// expandReplacement appends to dst the replacement template (as
// javaReplacement writes it: ${N} for group N, $$ for a dollar) for the
// match at loc in s; a group that did not take part adds nothing.
func expandReplacement(dst []byte, template, s string, loc []int) []byte {
	for i := 0; i < len(template); i++ {
		c := template[i]
		if c != '$' || i+1 >= len(template) {
			dst = append(dst, c)
			continue
		}
		if template[i+1] == '$' {
			dst = append(dst, '$')
			i++
			continue
		}
		end := strings.IndexByte(template[i:], '}')
		g, err := strconv.Atoi(template[i+2 : i+end])
		if err == nil && 2*g+1 < len(loc) && loc[2*g] >= 0 {
			dst = append(dst, s[loc[2*g]:loc[2*g+1]]...)
		}
		i += end
	}
	return dst
}

// replacementError is Java's refusal of a replacement string, which
// Clojure's clojure.string/replace passes on.
func replacementError(message string) *Error {
	return Errorf(executionError, "the replacement string is invalid: %s", message).
		WithHint(`in a replacement, $ starts a group reference ($1) and \\ escapes: write "\\$" for a literal $, or pass a function: (fn [_] "$")`).
		asJava("IllegalArgumentException", message)
}

// Besides its instructions, a backtracking program holds its classes:
// each a charClass and its ranges, and its unions' and intersection's.
const (
	heapBacktrackInst  = 72
	heapBacktrackClass = 64
)

// held is the bytes p holds, as a regex's heap shape.
func (p *btProgram) held() int64 {
	n := heapRegex + heapRegexProgram + heapBacktrackInst*int64(len(p.insts))
	classes := map[*charClass]bool{} // a repeat's copies share their class
	for i := range p.insts {
		if c := p.insts[i].cls; !classes[c] {
			classes[c] = true
			n += c.held()
		}
	}
	return n
}

// held is the bytes c holds, or 0 for no class.
func (c *charClass) held() int64 {
	if c == nil {
		return 0
	}
	n := heapBacktrackClass + runeTableBytes(len(c.ranges)) + heapWord*int64(len(c.union)) + c.and.held()
	for _, u := range c.union {
		n += u.held()
	}
	return n
}
