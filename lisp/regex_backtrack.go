package lisp

import (
	"fmt"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A backtracking matcher for the Java patterns RE2 cannot run: lookahead,
// lookbehind, backreferences, possessive quantifiers, atomic groups and
// class intersection. It is used only when RE2 refuses a pattern
// (compileRegex), and follows java.util.regex: the leftmost match, tried
// alternative by alternative and repetition by repetition in Java's order.
//
// Backtracking can take time exponential in the input ((a+)+b), so every
// instruction the matcher runs is one step of the evaluation's budget,
// charged as it runs, and the backtrack stack is charged to the allocation
// budget as it grows: a runaway match ends by a charge, at the same step
// alone and under load, never by the clock.

// btOp is an instruction of a compiled backtracking program.
type btOp uint8

const (
	btRune     btOp = iota // one character equal to r (folded when fold)
	btClass                // one character of cls
	btAny                  // one character; line terminators only when dotAll
	btSplit                // try x, and on failure y
	btJmp                  // go to x
	btSave                 // slot arg := position
	btAssert               // a zero-width assertion (arg is a btAssertKind)
	btBackref              // the text group arg matched (folded when fold)
	btMark                 // slot arg := position: where a loop's iteration began
	btProgress             // leave the loop (go to x) when its iteration matched nothing
	btLook                 // run the body at pc+1 as a lookaround or atomic group; go on at x
	btSubEnd               // end of a lookaround or atomic body
	btMatch                // the whole pattern matched
)

type btAssertKind int

const (
	assertLineStart       btAssertKind = iota // ^ in (?m)
	assertTextStart                           // ^, \A
	assertLineEnd                             // $ in (?m)
	assertEndOrFinalBreak                     // $, \Z
	assertTextEnd                             // \z
	assertWordBoundary                        // \b
	assertNotWordBoundary                     // \B
)

// btLookKind is what a btLook instruction runs its body as.
type btLookKind uint8

const (
	lookAhead btLookKind = iota
	lookBehind
	lookAtomic // (?>...) and a possessive quantifier
)

type btInst struct {
	op     btOp
	r      rune
	fold   foldMode
	cls    *charClass
	x, y   int
	arg    int
	look   btLookKind
	negate bool
	// memo marks the split of a greedy loop whose failures are remembered
	// (btMatcher.failed).
	memo bool
	// minLen and maxLen bound, in characters, what a lookbehind's body
	// matches (maxLen < 0: no bound): Java tries its starts from the
	// nearest back.
	minLen, maxLen int
}

// foldMode is how a character compares under (?i): not at all, ASCII
// letters only (Java's default), or Unicode simple folding ((?iu)).
type foldMode uint8

const (
	foldNone foldMode = iota
	foldASCII
	foldUnicode
)

// btProgram is a compiled pattern.
type btProgram struct {
	insts  []btInst
	groups int // capturing groups, not counting the whole match
	slots  int // 2*(groups+1) capture slots, then one per loop mark
	names  map[string]int
	// backrefs is whether the pattern has a backreference, when what
	// matches after a point depends on the groups matched before it.
	backrefs bool
}

// maxBacktrackInsts bounds a compiled program: counted repetitions are
// written out, so a{100}{100} is 10,000 instructions.
const maxBacktrackInsts = 20_000

// maxBacktrackSteps bounds one match whatever the step budget, as
// maxMatchWork bounds RE2's: the instructions a default budget pays for.
const maxBacktrackSteps = maxMatchWork

// btFrameBytes is what one backtrack stack entry is charged.
const btFrameBytes = 48

// ---- parsing Java's syntax into a tree ----

type btNodeKind uint8

const (
	nRune btNodeKind = iota
	nClass
	nAny
	nAssert
	nConcat
	nAlt
	nGroup // capturing (index) or not (index 0)
	nRepeat
	nLook
	nBackref
)

type btNode struct {
	kind     btNodeKind
	r        rune
	fold     foldMode
	cls      *charClass
	dotAll   bool
	assert   btAssertKind
	subs     []*btNode
	index    int // group index, or backreference
	min, max int // repetition; max < 0 is unbounded
	greedy   bool
	possess  bool
	look     btLookKind
	negate   bool
}

type btFlags struct {
	fold, unicodeCase, multiline, dotAll, comments bool
}

func (f btFlags) foldMode() foldMode {
	switch {
	case !f.fold:
		return foldNone
	case f.unicodeCase:
		return foldUnicode
	}
	return foldASCII
}

type btParser struct {
	src    string
	pos    int
	flags  btFlags
	groups int
	names  map[string]int
}

// btSyntaxError is a pattern Java itself would refuse, or one the
// matcher does not support.
func (p *btParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%s near index %d", fmt.Sprintf(format, args...), p.pos)
}

func parseBacktrack(pattern string) (*btNode, *btParser, error) {
	p := &btParser{src: pattern, names: map[string]int{}}
	n, err := p.alternation()
	if err != nil {
		return nil, nil, err
	}
	if p.pos < len(p.src) {
		return nil, nil, p.errorf("unmatched closing ')'")
	}
	return n, p, nil
}

func (p *btParser) more() bool { return p.pos < len(p.src) }

func (p *btParser) peekIs(s string) bool { return strings.HasPrefix(p.src[p.pos:], s) }

// skipComments skips, in (?x), whitespace and comments from # to the end
// of the line.
func (p *btParser) skipComments() {
	for p.flags.comments && p.more() {
		c := p.src[p.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\x0B':
			p.pos++
		case c == '#':
			for p.more() && p.src[p.pos] != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

func (p *btParser) alternation() (*btNode, error) {
	var alts []*btNode
	for {
		n, err := p.concatenation()
		if err != nil {
			return nil, err
		}
		alts = append(alts, n)
		if !p.more() || p.src[p.pos] != '|' {
			break
		}
		p.pos++
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return &btNode{kind: nAlt, subs: alts}, nil
}

func (p *btParser) concatenation() (*btNode, error) {
	seq := &btNode{kind: nConcat}
	for {
		p.skipComments()
		if !p.more() || p.src[p.pos] == '|' || p.src[p.pos] == ')' {
			return seq, nil
		}
		atom, err := p.atom()
		if err != nil {
			return nil, err
		}
		if atom == nil { // a flag group such as (?i): it changes what follows
			continue
		}
		atom, err = p.quantified(atom)
		if err != nil {
			return nil, err
		}
		seq.subs = append(seq.subs, atom)
	}
}

// quantified reads the quantifiers after an atom (Java allows a{2}{3}).
func (p *btParser) quantified(atom *btNode) (*btNode, error) {
	for {
		p.skipComments()
		if !p.more() {
			return atom, nil
		}
		lo, hi := 0, 0
		switch p.src[p.pos] {
		case '*':
			lo, hi = 0, -1
			p.pos++
		case '+':
			lo, hi = 1, -1
			p.pos++
		case '?':
			lo, hi = 0, 1
			p.pos++
		case '{':
			var ok bool
			if lo, hi, ok = p.braces(); !ok {
				return nil, p.errorf("illegal repetition")
			}
		default:
			return atom, nil
		}
		if atom.kind == nAssert || atom.kind == nLook && atom.look != lookAtomic {
			// Java repeats an assertion as it would anything; matching it
			// once or not at all is all repetition can do.
			hi = min(hi, 1)
			if hi < 0 {
				hi = 1
			}
		}
		rep := &btNode{kind: nRepeat, subs: []*btNode{atom}, min: lo, max: hi, greedy: true}
		if p.more() && p.src[p.pos] == '?' {
			rep.greedy = false
			p.pos++
		} else if p.more() && p.src[p.pos] == '+' {
			rep.possess = true
			p.pos++
		}
		atom = rep
	}
}

// braces reads {n}, {n,} or {n,m} at p.pos.
func (p *btParser) braces() (lo, hi int, ok bool) {
	end := strings.IndexByte(p.src[p.pos:], '}')
	if end < 0 {
		return 0, 0, false
	}
	body := p.src[p.pos+1 : p.pos+end]
	loText, hiText, comma := strings.Cut(body, ",")
	lo, err := strconv.Atoi(loText)
	if err != nil || lo < 0 || strings.HasPrefix(loText, "+") {
		return 0, 0, false
	}
	hi = lo
	if comma {
		hi = -1
		if hiText != "" {
			if hi, err = strconv.Atoi(hiText); err != nil || hi < lo || strings.HasPrefix(hiText, "+") {
				return 0, 0, false
			}
		}
	}
	if lo > 1000 || hi > 1000 {
		return 0, 0, false
	}
	p.pos += end + 1
	return lo, hi, true
}

func (p *btParser) atom() (*btNode, error) {
	c, w := utf8.DecodeRuneInString(p.src[p.pos:])
	switch c {
	case '(':
		return p.group()
	case '[':
		p.pos++
		cls, err := p.class()
		if err != nil {
			return nil, err
		}
		return &btNode{kind: nClass, cls: cls, fold: p.flags.foldMode()}, nil
	case '.':
		p.pos++
		return &btNode{kind: nAny, dotAll: p.flags.dotAll}, nil
	case '^':
		p.pos++
		if p.flags.multiline {
			return &btNode{kind: nAssert, assert: assertLineStart}, nil
		}
		return &btNode{kind: nAssert, assert: assertTextStart}, nil
	case '$':
		p.pos++
		if p.flags.multiline {
			return &btNode{kind: nAssert, assert: assertLineEnd}, nil
		}
		return &btNode{kind: nAssert, assert: assertEndOrFinalBreak}, nil
	case '\\':
		return p.escape()
	case '*', '+', '?':
		return nil, p.errorf("dangling meta character '%c'", c)
	}
	p.pos += w
	return &btNode{kind: nRune, r: c, fold: p.flags.foldMode()}, nil
}

// group reads a group from its "(".
func (p *btParser) group() (*btNode, error) {
	p.pos++
	node := &btNode{kind: nGroup}
	saved := p.flags
	switch {
	case p.peekIs("?:"):
		p.pos += 2
	case p.peekIs("?="), p.peekIs("?!"):
		node = &btNode{kind: nLook, look: lookAhead, negate: p.src[p.pos+1] == '!'}
		p.pos += 2
	case p.peekIs("?<="), p.peekIs("?<!"):
		node = &btNode{kind: nLook, look: lookBehind, negate: p.src[p.pos+2] == '!'}
		p.pos += 3
	case p.peekIs("?>"):
		node = &btNode{kind: nLook, look: lookAtomic}
		p.pos += 2
	case p.peekIs("?<"):
		end := strings.IndexByte(p.src[p.pos:], '>')
		if end < 0 {
			return nil, p.errorf("named capturing group is missing trailing '>'")
		}
		name := p.src[p.pos+2 : p.pos+end]
		if !validGroupName(name) {
			return nil, p.errorf("bad named capturing group name %q", name)
		}
		if _, dup := p.names[name]; dup {
			return nil, p.errorf("named capturing group <%s> is already defined", name)
		}
		p.groups++
		p.names[name] = p.groups
		node.index = p.groups
		p.pos += end + 1
	case p.peekIs("?"):
		// Flags: (?imsx-imsx) for what follows, (?i:...) for the group.
		p.pos++
		on := true
		for p.more() {
			c := p.src[p.pos]
			p.pos++
			switch c {
			case 'i':
				p.flags.fold = on
			case 'm':
				p.flags.multiline = on
			case 's':
				p.flags.dotAll = on
			case 'x':
				p.flags.comments = on
			case 'u':
				p.flags.unicodeCase = on
			case 'd', 'U':
				// UNIX_LINES and UNICODE_CHARACTER_CLASS change classes this
				// matcher reads one way only
				return nil, p.errorf("the flag %c is not supported", c)
			case '-':
				on = false
			case ')':
				return nil, nil // the flags stay for the rest of the enclosing group
			case ':':
				inner, err := p.alternation()
				if err != nil {
					return nil, err
				}
				p.flags = saved
				if !p.more() || p.src[p.pos] != ')' {
					return nil, p.errorf("unclosed group")
				}
				p.pos++
				return &btNode{kind: nGroup, subs: []*btNode{inner}}, nil
			default:
				return nil, p.errorf("unknown inline modifier")
			}
		}
		return nil, p.errorf("unclosed group")
	default:
		p.groups++
		node.index = p.groups
	}
	inner, err := p.alternation()
	if err != nil {
		return nil, err
	}
	p.flags = saved // flags set inside a group end with it
	if !p.more() || p.src[p.pos] != ')' {
		return nil, p.errorf("unclosed group")
	}
	p.pos++
	node.subs = []*btNode{inner}
	if node.kind == nLook && node.look == lookBehind {
		// Java 17 also runs a lookbehind of no bounded length (maxLen < 0),
		// trying every start back to the beginning.
		node.min, node.max = widthOf(inner)
	}
	return node, nil
}

func validGroupName(name string) bool {
	if name == "" || !isASCIILetter(name[0]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isASCIIAlnum(name[i]) {
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// widthOf is the least and most characters n matches (most < 0: no bound).
func widthOf(n *btNode) (lo, hi int) {
	switch n.kind {
	case nRune, nClass, nAny:
		return 1, 1
	case nAssert, nLook:
		if n.kind == nLook && n.look == lookAtomic {
			return widthOf(n.subs[0])
		}
		return 0, 0
	case nBackref:
		return 0, -1
	case nConcat, nGroup:
		for _, s := range n.subs {
			l, h := widthOf(s)
			lo += l
			if hi >= 0 {
				hi += h
				if h < 0 {
					hi = -1
				}
			}
		}
		return lo, hi
	case nAlt:
		lo = -1
		for _, s := range n.subs {
			l, h := widthOf(s)
			if lo < 0 || l < lo {
				lo = l
			}
			if hi >= 0 && (h < 0 || h > hi) {
				hi = h
			}
		}
		return max(lo, 0), hi
	case nRepeat:
		l, h := widthOf(n.subs[0])
		lo = l * n.min
		switch {
		case n.max < 0 && h != 0:
			hi = -1
		case h < 0:
			hi = -1
		case n.max < 0:
			hi = 0
		default:
			hi = h * n.max
		}
		return lo, hi
	}
	return 0, 0
}

// escape reads a backslash escape outside a class.
func (p *btParser) escape() (*btNode, error) {
	if p.pos+1 >= len(p.src) {
		return nil, p.errorf("unexpected internal error (a trailing backslash)")
	}
	c := p.src[p.pos+1]
	switch c {
	case 'b', 'B', 'A', 'z', 'Z':
		p.pos += 2
		kind := map[byte]btAssertKind{'b': assertWordBoundary, 'B': assertNotWordBoundary,
			'A': assertTextStart, 'z': assertTextEnd, 'Z': assertEndOrFinalBreak}[c]
		return &btNode{kind: nAssert, assert: kind}, nil
	case 'G':
		return nil, p.errorf(`\G is not supported`)
	case 'R': // a line break, \r\n as one
		p.pos += 2
		crlf := &btNode{kind: nConcat, subs: []*btNode{{kind: nRune, r: '\r'}, {kind: nRune, r: '\n'}}}
		breaks, _ := escapeClass('v')
		return &btNode{kind: nGroup, subs: []*btNode{{kind: nLook, look: lookAtomic, subs: []*btNode{
			{kind: nAlt, subs: []*btNode{crlf, {kind: nClass, cls: breaks}}}}}}}, nil
	case 'Q':
		rest := p.src[p.pos+2:]
		text := rest
		if end := strings.Index(rest, `\E`); end >= 0 {
			text = rest[:end]
			p.pos += 2 + end + 2
		} else {
			p.pos = len(p.src)
		}
		seq := &btNode{kind: nConcat}
		for _, r := range text {
			seq.subs = append(seq.subs, &btNode{kind: nRune, r: r, fold: p.flags.foldMode()})
		}
		return &btNode{kind: nGroup, subs: []*btNode{seq}}, nil
	case 'k':
		if !p.peekIs(`\k<`) {
			return nil, p.errorf(`\k is not followed by '<' for named capturing group`)
		}
		end := strings.IndexByte(p.src[p.pos:], '>')
		if end < 0 {
			return nil, p.errorf("named capturing group is missing trailing '>'")
		}
		name := p.src[p.pos+3 : p.pos+end]
		index, ok := p.names[name]
		if !ok {
			return nil, p.errorf("named capturing group <%s> does not exist", name)
		}
		p.pos += end + 1
		return &btNode{kind: nBackref, index: index, fold: p.flags.foldMode()}, nil
	}
	if c >= '1' && c <= '9' {
		// Java takes more digits while they name a group that exists.
		ref := int(c - '0')
		p.pos += 2
		for p.more() && isDigit(p.src[p.pos]) && ref*10+int(p.src[p.pos]-'0') <= p.groups {
			ref = ref*10 + int(p.src[p.pos]-'0')
			p.pos++
		}
		return &btNode{kind: nBackref, index: ref, fold: p.flags.foldMode()}, nil
	}
	if cls, ok, err := p.classEscape(); err != nil {
		return nil, err
	} else if ok {
		return &btNode{kind: nClass, cls: cls}, nil
	}
	r, err := p.literalEscape()
	if err != nil {
		return nil, err
	}
	return &btNode{kind: nRune, r: r, fold: p.flags.foldMode()}, nil
}

// classEscape reads an escape that stands for a class (\d, \p{Alpha},
// ...) at p.pos, in a class or not.
func (p *btParser) classEscape() (*charClass, bool, error) {
	c := p.src[p.pos+1]
	if cls, ok := escapeClass(c); ok {
		p.pos += 2
		return cls, true, nil
	}
	if c != 'p' && c != 'P' {
		return nil, false, nil
	}
	name := ""
	switch {
	case p.pos+2 < len(p.src) && p.src[p.pos+2] == '{':
		end := strings.IndexByte(p.src[p.pos:], '}')
		if end < 0 {
			return nil, false, p.errorf("unclosed character family")
		}
		name = p.src[p.pos+3 : p.pos+end]
		p.pos += end + 1
	case p.pos+2 < len(p.src):
		name = p.src[p.pos+2 : p.pos+3]
		p.pos += 3
	default:
		return nil, false, p.errorf("illegal character family")
	}
	text, ok := javaClassProperty(name, false, false)
	if !ok {
		text = `\p{` + name + `}`
	}
	cls, err := re2Class(text)
	if err != nil {
		return nil, false, p.errorf("unknown character property name {%s}", name)
	}
	cls.negate = c == 'P'
	return cls, true, nil
}

// escapeClass is the class of a one-letter class escape, as Java reads it.
func escapeClass(c byte) (*charClass, bool) {
	text := ""
	switch c {
	case 'd', 'D':
		text = `[0-9]`
	case 'w', 'W':
		text = `[a-zA-Z0-9_]`
	case 's', 'S', 'h', 'H', 'v', 'V':
		text = javaEscapes[c|0x20] // the lower case letter's class
	default:
		return nil, false
	}
	cls, err := re2Class(text)
	if err != nil {
		panic("escapeClass: " + err.Error()) // the texts above are valid
	}
	cls.negate = c >= 'A' && c <= 'Z'
	return cls, true
}

// re2Class reads a class written in RE2's syntax (the escape tables
// javaRegex uses) as the ranges it matches.
func re2Class(text string) (*charClass, error) {
	re, err := syntax.Parse(text, syntax.Perl)
	if err != nil {
		return nil, err
	}
	switch re.Op {
	case syntax.OpCharClass:
		return &charClass{ranges: re.Rune}, nil
	case syntax.OpLiteral:
		if len(re.Rune) == 1 {
			return &charClass{ranges: []rune{re.Rune[0], re.Rune[0]}}, nil
		}
	case syntax.OpAnyChar:
		return &charClass{ranges: []rune{0, unicode.MaxRune}}, nil
	}
	return nil, fmt.Errorf("not a class: %s", text)
}

// literalEscape reads an escape that stands for one character.
func (p *btParser) literalEscape() (rune, error) {
	c := p.src[p.pos+1]
	p.pos += 2
	switch c {
	case 't':
		return '\t', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 'f':
		return '\f', nil
	case 'a':
		return '\a', nil
	case 'e':
		return '\x1B', nil
	case '0':
		v, n := 0, 0
		for n < 3 && p.more() && p.src[p.pos] >= '0' && p.src[p.pos] <= '7' && v*8+int(p.src[p.pos]-'0') <= 0377 {
			v = v*8 + int(p.src[p.pos]-'0')
			p.pos++
			n++
		}
		if n == 0 {
			return 0, p.errorf("illegal octal escape sequence")
		}
		return rune(v), nil
	case 'x':
		if p.more() && p.src[p.pos] == '{' {
			end := strings.IndexByte(p.src[p.pos:], '}')
			if end < 0 {
				return 0, p.errorf("unclosed hexadecimal escape sequence")
			}
			v, err := strconv.ParseUint(p.src[p.pos+1:p.pos+end], 16, 32)
			if err != nil || v > unicode.MaxRune {
				return 0, p.errorf("illegal hexadecimal escape sequence")
			}
			p.pos += end + 1
			return rune(v), nil
		}
		return p.hexDigits(2)
	case 'u':
		return p.hexDigits(4)
	case 'c':
		if !p.more() {
			return 0, p.errorf("illegal control escape sequence")
		}
		p.pos++
		return rune(p.src[p.pos-1] ^ 64), nil
	}
	if isASCIIAlnum(c) {
		return 0, p.errorf("illegal/unsupported escape sequence")
	}
	p.pos-- // the escaped character may take several bytes
	r, w := utf8.DecodeRuneInString(p.src[p.pos:])
	p.pos += w
	return r, nil
}

func (p *btParser) hexDigits(n int) (rune, error) {
	if p.pos+n > len(p.src) {
		return 0, p.errorf("illegal hexadecimal escape sequence")
	}
	v, err := strconv.ParseUint(p.src[p.pos:p.pos+n], 16, 32)
	if err != nil {
		return 0, p.errorf("illegal hexadecimal escape sequence")
	}
	p.pos += n
	return rune(v), nil
}

// charClass is a set of characters: its ranges and nested classes
// (union), intersected with and when && follows, negated when negate.
type charClass struct {
	ranges []rune // pairs lo, hi
	union  []*charClass
	and    *charClass
	negate bool
}

func (c *charClass) has(r rune) bool { return c.members(r) != c.negate }

// contains is has under a case folding: a character is in the class when
// it or one of its other cases is a member, before negation.
func (c *charClass) contains(r rune, mode foldMode) bool {
	in := c.members(r)
	switch {
	case in || mode == foldNone:
	case mode == foldASCII:
		if r < 128 {
			if o := asciiLower(r); o != r {
				in = c.members(o)
			} else if r >= 'a' && r <= 'z' {
				in = c.members(r - 'a' + 'A')
			}
		}
	default:
		for f := unicode.SimpleFold(r); f != r && !in; f = unicode.SimpleFold(f) {
			in = c.members(f)
		}
	}
	return in != c.negate
}

// members is whether r is in the class, before its negation.
func (c *charClass) members(r rune) bool {
	in := false
	for i := 0; i+1 < len(c.ranges) && !in; i += 2 {
		in = c.ranges[i] <= r && r <= c.ranges[i+1]
	}
	for _, u := range c.union {
		if in {
			break
		}
		in = u.has(r)
	}
	if in && c.and != nil {
		in = c.and.has(r)
	}
	return in
}

// class reads a class after its "[": Java's syntax, with nested classes
// (a union) and && (an intersection with the rest of the class).
func (p *btParser) class() (*charClass, error) {
	cls := &charClass{}
	if p.more() && p.src[p.pos] == '^' {
		cls.negate = true
		p.pos++
	}
	body, err := p.classBody(true)
	if err != nil {
		return nil, err
	}
	body.negate = cls.negate
	return body, nil
}

// classBody reads the members of a class up to and past its "]".
func (p *btParser) classBody(first bool) (*charClass, error) {
	cls := &charClass{}
	for {
		if p.flags.comments {
			p.skipComments()
		}
		if !p.more() {
			return nil, p.errorf("unclosed character class")
		}
		c := p.src[p.pos]
		switch {
		case c == ']' && !first:
			p.pos++
			return cls, nil
		case c == '[':
			p.pos++
			nested, err := p.class()
			if err != nil {
				return nil, err
			}
			cls.union = append(cls.union, nested)
			first = false
			continue
		case c == '&' && p.peekIs("&&"):
			p.pos += 2
			rest, err := p.classBody(false)
			if err != nil {
				return nil, err
			}
			if len(rest.ranges) == 0 && len(rest.union) == 0 && rest.and == nil {
				return cls, nil // [a-z&&] is [a-z]
			}
			left := cls
			if len(cls.ranges) == 0 && len(cls.union) == 0 {
				left = nil // [&&a] is [a]
			}
			if left == nil {
				return rest, nil
			}
			return &charClass{union: []*charClass{left}, and: rest}, nil
		case c == '\\':
			if p.pos+1 >= len(p.src) {
				return nil, p.errorf("unclosed character class")
			}
			if p.src[p.pos+1] == 'Q' {
				end := strings.Index(p.src[p.pos+2:], `\E`)
				if end < 0 {
					return nil, p.errorf("unclosed character class")
				}
				for _, r := range p.src[p.pos+2 : p.pos+2+end] {
					cls.ranges = append(cls.ranges, r, r)
				}
				p.pos += end + 4
				first = false
				continue
			}
			if esc, ok, err := p.classEscape(); err != nil {
				return nil, err
			} else if ok {
				cls.union = append(cls.union, esc)
				first = false
				continue
			}
		}
		first = false
		lo, err := p.classChar()
		if err != nil {
			return nil, err
		}
		hi := lo
		if p.peekIs("-") && p.pos+1 < len(p.src) && p.src[p.pos+1] != ']' && p.src[p.pos+1] != '[' {
			p.pos++
			if hi, err = p.classChar(); err != nil {
				return nil, err
			}
			if hi < lo {
				return nil, p.errorf("illegal character range")
			}
		}
		cls.ranges = append(cls.ranges, lo, hi)
	}
}

// classChar reads one character of a class, escaped or not.
func (p *btParser) classChar() (rune, error) {
	if p.src[p.pos] == '\\' {
		if p.pos+1 >= len(p.src) {
			return 0, p.errorf("unclosed character class")
		}
		if c := p.src[p.pos+1]; c == 'b' || c >= '1' && c <= '9' || c == 'k' {
			return 0, p.errorf("illegal/unsupported escape sequence")
		}
		return p.literalEscape()
	}
	r, w := utf8.DecodeRuneInString(p.src[p.pos:])
	p.pos += w
	return r, nil
}

// ---- compiling the tree to instructions ----

type btCompiler struct {
	prog  *btProgram
	marks int
}

func compileBacktrack(pattern string) (*btProgram, error) {
	tree, p, err := parseBacktrack(pattern)
	if err != nil {
		return nil, err
	}
	c := &btCompiler{prog: &btProgram{groups: p.groups, names: p.names}}
	c.prog.slots = 2 * (p.groups + 1)
	if err := c.emit(tree); err != nil {
		return nil, err
	}
	c.add(btInst{op: btMatch})
	for i := range c.prog.insts {
		if c.prog.insts[i].op == btMark || c.prog.insts[i].op == btProgress {
			c.prog.insts[i].arg += c.prog.slots
		}
	}
	c.prog.slots += c.marks
	return c.prog, nil
}

func (c *btCompiler) add(in btInst) int {
	c.prog.insts = append(c.prog.insts, in)
	return len(c.prog.insts) - 1
}

func (c *btCompiler) emit(n *btNode) error {
	if len(c.prog.insts) > maxBacktrackInsts {
		return fmt.Errorf("the pattern compiles to more than %d instructions", maxBacktrackInsts)
	}
	switch n.kind {
	case nRune:
		c.add(btInst{op: btRune, r: n.r, fold: n.fold})
	case nClass:
		c.add(btInst{op: btClass, cls: n.cls, fold: n.fold})
	case nAny:
		c.add(btInst{op: btAny, negate: n.dotAll})
	case nAssert:
		c.add(btInst{op: btAssert, arg: int(n.assert)})
	case nBackref:
		c.add(btInst{op: btBackref, arg: n.index, fold: n.fold})
		c.prog.backrefs = true
	case nConcat:
		for _, s := range n.subs {
			if err := c.emit(s); err != nil {
				return err
			}
		}
	case nAlt:
		// split L1, next; L1: a; jmp end; next: split L2, next2; ...
		var jumps []int
		for i, s := range n.subs {
			split := -1
			if i < len(n.subs)-1 {
				split = c.add(btInst{op: btSplit})
				c.prog.insts[split].x = split + 1
			}
			if err := c.emit(s); err != nil {
				return err
			}
			if split >= 0 {
				jumps = append(jumps, c.add(btInst{op: btJmp}))
				c.prog.insts[split].y = len(c.prog.insts)
			}
		}
		for _, j := range jumps {
			c.prog.insts[j].x = len(c.prog.insts)
		}
	case nGroup:
		if n.index > 0 {
			c.add(btInst{op: btSave, arg: 2 * n.index})
		}
		if err := c.emit(n.subs[0]); err != nil {
			return err
		}
		if n.index > 0 {
			c.add(btInst{op: btSave, arg: 2*n.index + 1})
		}
	case nLook:
		look := c.add(btInst{op: btLook, look: n.look, negate: n.negate, minLen: n.min, maxLen: n.max})
		if err := c.emit(n.subs[0]); err != nil {
			return err
		}
		c.add(btInst{op: btSubEnd})
		c.prog.insts[look].x = len(c.prog.insts)
	case nRepeat:
		if n.possess {
			inner := *n
			inner.possess = false
			return c.emit(&btNode{kind: nLook, look: lookAtomic, subs: []*btNode{&inner}})
		}
		return c.emitRepeat(n)
	}
	return nil
}

func (c *btCompiler) split(greedy bool, body, past int) btInst {
	if greedy {
		return btInst{op: btSplit, x: body, y: past}
	}
	return btInst{op: btSplit, x: past, y: body}
}

func (c *btCompiler) emitRepeat(n *btNode) error {
	sub := n.subs[0]
	for i := 0; i < n.min; i++ {
		if err := c.emit(sub); err != nil {
			return err
		}
	}
	if n.max < 0 {
		// loop: split body, exit; body: mark; sub; progress exit; jmp loop
		mark := c.marks
		c.marks++
		loop := c.add(btInst{op: btSplit})
		c.add(btInst{op: btMark, arg: mark})
		if err := c.emit(sub); err != nil {
			return err
		}
		progress := c.add(btInst{op: btProgress, arg: mark})
		c.add(btInst{op: btJmp, x: loop})
		exit := len(c.prog.insts)
		c.prog.insts[loop] = c.split(n.greedy, loop+1, exit)
		c.prog.insts[loop].memo = n.greedy
		c.prog.insts[progress].x = exit
		return nil
	}
	var splits []int
	for i := n.min; i < n.max; i++ {
		splits = append(splits, c.add(btInst{op: btSplit}))
		if err := c.emit(sub); err != nil {
			return err
		}
	}
	exit := len(c.prog.insts)
	for _, s := range splits {
		c.prog.insts[s] = c.split(n.greedy, s+1, exit)
	}
	return nil
}

// ---- matching ----

type btFrameKind uint8

const (
	frameBranch   btFrameKind = iota // resume at pc, pos
	frameRestore                     // slot := old
	frameSnapshot                    // every slot := snap
	frameFailed                      // every path into loop pc's body at pos failed
)

type btFrame struct {
	kind    btFrameKind
	pc, pos int
	snap    []int
}

// btMatcher is one match's state: nothing in it outlives the call.
type btMatcher struct {
	prog    *btProgram
	th      *Thread
	s       string
	caps    []int
	stack   []btFrame
	charged int // stack frames charged to the allocation budget
	steps   int64
	// failed holds the (loop, position) pairs from which entering a
	// greedy loop's body again has failed: as Java does since Java 9
	// (Pattern.Loop), the loop is then left at once there, which ends the
	// exponential backtracking of (a+)+ without changing any result. It is
	// sound only when nothing after the loop depends on what came before:
	// no backreference in the pattern, and not inside a lookbehind, whose
	// body must end at a position each try sets (behind counts those).
	failed map[int64]bool
	behind int
}

// memoKey is the key of a loop at pc entered at pos in failed.
func (m *btMatcher) memoKey(pc, pos int) int64 {
	return int64(pc)*int64(len(m.s)+1) + int64(pos)
}

// btMemoBytes is what one remembered failure is charged.
const btMemoBytes = 32

func (m *btMatcher) step() error {
	m.steps++
	if m.steps > maxBacktrackSteps {
		return Errorf(stepLimit, "the regex took more than %d steps of backtracking for one match", maxBacktrackSteps).
			WithHint("%s", backtrackHint)
	}
	if m.th == nil {
		return nil
	}
	err := m.th.step(1)
	if e, ok := err.(*Error); ok && e.Kind == stepLimit {
		return e.WithHint("%s", backtrackHint)
	}
	return err
}

// backtrackHint is the hint of a match that ran out of steps.
const backtrackHint = `this pattern backtracks without bound on this input: write it without nested repetition, a+b for (a+)+b, or match a shorter string`

func (m *btMatcher) push(f btFrame) error {
	m.stack = append(m.stack, f)
	if len(m.stack) > m.charged {
		grow := max(len(m.stack)-m.charged, 64)
		if m.th != nil {
			if err := m.th.alloc(int64(grow) * btFrameBytes); err != nil {
				return err
			}
		}
		m.charged += grow
	}
	return nil
}

func (m *btMatcher) set(slot, pos int) error {
	if err := m.push(btFrame{kind: frameRestore, pc: slot, pos: m.caps[slot]}); err != nil {
		return err
	}
	m.caps[slot] = pos
	return nil
}

// run matches from instruction pc at pos until btMatch, or btSubEnd for a
// lookaround's body (at mustEnd, when it is not negative). It returns
// where the match ended; on failure every slot is as it was.
func (m *btMatcher) run(pc, pos, mustEnd int) (int, bool, error) {
	base := len(m.stack)
	s := m.s
	for {
		if err := m.step(); err != nil {
			return 0, false, err
		}
		in := &m.prog.insts[pc]
		ok := true
		switch in.op {
		case btRune, btClass, btAny:
			r, w := utf8.DecodeRuneInString(s[pos:])
			switch {
			case pos >= len(s):
				ok = false
			case in.op == btRune:
				ok = r == in.r || in.fold != foldNone && foldEqual(r, in.r, in.fold)
			case in.op == btClass:
				ok = in.cls.contains(r, in.fold)
			default:
				ok = in.negate || !isLineBreak(r)
			}
			if ok {
				pos += w
				pc++
			}
		case btSplit:
			remember := in.memo && !m.prog.backrefs && m.behind == 0
			if remember && m.failed[m.memoKey(pc, pos)] {
				pc = in.y // the body failed from here before: leave the loop
				continue
			}
			if err := m.push(btFrame{kind: frameBranch, pc: in.y, pos: pos}); err != nil {
				return 0, false, err
			}
			if remember {
				if err := m.push(btFrame{kind: frameFailed, pc: pc, pos: pos}); err != nil {
					return 0, false, err
				}
			}
			pc = in.x
		case btJmp:
			pc = in.x
		case btSave, btMark:
			if err := m.set(in.arg, pos); err != nil {
				return 0, false, err
			}
			pc++
		case btProgress:
			if m.caps[in.arg] == pos {
				pc = in.x // an iteration that matched nothing ends the loop
			} else {
				pc++
			}
		case btAssert:
			ok = m.assert(btAssertKind(in.arg), pos)
			pc++
		case btBackref:
			var end int
			end, ok = m.backref(in, pos)
			pos = end
			pc++
		case btLook:
			var err error
			pos, ok, err = m.look(in, pc, pos)
			if err != nil {
				return 0, false, err
			}
			pc = in.x
		case btSubEnd, btMatch:
			if mustEnd < 0 || pos == mustEnd {
				m.stack = m.stack[:base] // the slots it set stay
				return pos, true, nil
			}
			ok = false
		}
		if ok {
			continue
		}
		// Backtrack to the last branch, undoing what was set since.
		resumed := false
		for len(m.stack) > base && !resumed {
			f := m.stack[len(m.stack)-1]
			m.stack = m.stack[:len(m.stack)-1]
			switch f.kind {
			case frameBranch:
				pc, pos, resumed = f.pc, f.pos, true
			case frameRestore:
				m.caps[f.pc] = f.pos
			case frameSnapshot:
				copy(m.caps, f.snap)
			case frameFailed:
				if m.th != nil {
					if err := m.th.alloc(btMemoBytes); err != nil {
						return 0, false, err
					}
				}
				if m.failed == nil {
					m.failed = map[int64]bool{}
				}
				m.failed[m.memoKey(f.pc, f.pos)] = true
			}
		}
		if !resumed {
			return 0, false, nil
		}
	}
}

// look runs a lookaround or atomic group's body (at pc+1) at pos, and
// returns where matching goes on from. The body is matched on its own:
// once it succeeds, nothing after it backtracks into it, as in Java.
func (m *btMatcher) look(in *btInst, pc, pos int) (int, bool, error) {
	snap := append([]int(nil), m.caps...)
	if m.th != nil {
		if err := m.th.alloc(int64(len(snap)) * 8); err != nil {
			return 0, false, err
		}
	}
	found, end := false, pos
	switch in.look {
	case lookAhead, lookAtomic:
		e, ok, err := m.run(pc+1, pos, -1)
		if err != nil {
			return 0, false, err
		}
		found, end = ok, e
	case lookBehind:
		// Java tries the starts from the nearest (the shortest body) back.
		start, n := pos, 0
		for ; n < in.minLen && start > 0; n++ {
			_, w := utf8.DecodeLastRuneInString(m.s[:start])
			start -= w
		}
		m.behind++
		defer func() { m.behind-- }()
		for n >= in.minLen {
			_, ok, err := m.run(pc+1, start, pos)
			if err != nil {
				return 0, false, err
			}
			if found = ok; found || n == in.maxLen || start == 0 {
				break
			}
			_, w := utf8.DecodeLastRuneInString(m.s[:start])
			start -= w
			n++
		}
	}
	if in.look != lookAtomic {
		end = pos
	}
	if found == in.negate {
		copy(m.caps, snap)
		return pos, false, nil
	}
	if in.negate {
		copy(m.caps, snap) // a negative lookaround captures nothing
	} else if err := m.push(btFrame{kind: frameSnapshot, snap: snap}); err != nil {
		return 0, false, err
	}
	return end, true, nil
}

func (m *btMatcher) backref(in *btInst, pos int) (int, bool) {
	g := in.arg
	if g > m.prog.groups || m.caps[2*g] < 0 || m.caps[2*g+1] < 0 {
		return pos, false // a group that did not match fails, as in Java
	}
	text := m.s[m.caps[2*g]:m.caps[2*g+1]]
	rest := m.s[pos:]
	if in.fold == foldNone {
		if strings.HasPrefix(rest, text) {
			return pos + len(text), true
		}
		return pos, false
	}
	i := 0
	for _, want := range text {
		got, w := utf8.DecodeRuneInString(rest[i:])
		if i >= len(rest) || got != want && !foldEqual(got, want, in.fold) {
			return pos, false
		}
		i += w
	}
	return pos + i, true
}

func (m *btMatcher) assert(kind btAssertKind, pos int) bool {
	s := m.s
	switch kind {
	case assertTextStart:
		return pos == 0
	case assertTextEnd:
		return pos == len(s)
	case assertLineStart:
		if pos == 0 {
			return true
		}
		if pos == len(s) {
			return false // Java: not after a final line break
		}
		prev, _ := utf8.DecodeLastRuneInString(s[:pos])
		return isLineBreak(prev) && !(prev == '\r' && s[pos] == '\n')
	case assertLineEnd:
		if pos == len(s) {
			return true
		}
		next, _ := utf8.DecodeRuneInString(s[pos:])
		if next == '\n' && pos > 0 && s[pos-1] == '\r' {
			return false // between \r and \n
		}
		return isLineBreak(next)
	case assertEndOrFinalBreak:
		rest := s[pos:]
		if rest == "" || rest == "\r\n" {
			return true
		}
		r, w := utf8.DecodeRuneInString(rest)
		return w == len(rest) && isLineBreak(r) && !(r == '\n' && pos > 0 && s[pos-1] == '\r')
	case assertWordBoundary, assertNotWordBoundary:
		before, after := false, false
		if pos > 0 {
			r, _ := utf8.DecodeLastRuneInString(s[:pos])
			before = isJavaWordChar(r)
		}
		if pos < len(s) {
			r, _ := utf8.DecodeRuneInString(s[pos:])
			after = isJavaWordChar(r)
		}
		return (before != after) == (kind == assertWordBoundary)
	}
	return false
}

// isJavaWordChar is what Java 17's \b counts as a word character.
func isJavaWordChar(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// isLineBreak is Java's line terminator, which . does not match.
func isLineBreak(r rune) bool {
	return r == '\n' || r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029
}

func foldEqual(a, b rune, mode foldMode) bool {
	if mode == foldASCII {
		return a < 128 && b < 128 && asciiLower(a) == asciiLower(b)
	}
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}

func asciiLower(r rune) rune {
	if r >= 'A' && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}

// find is the first match starting at or after from: the positions of
// the whole match and each group (-1 for a group that did not take part),
// or nil.
func (prog *btProgram) find(th *Thread, s string, from int, whole bool) ([]int, error) {
	m := &btMatcher{prog: prog, th: th, s: s, caps: make([]int, prog.slots)}
	if th != nil {
		if err := th.alloc(int64(prog.slots) * 8); err != nil {
			return nil, err
		}
	}
	mustEnd := -1
	if whole {
		mustEnd = len(s)
	}
	for start := from; start <= len(s); {
		for i := range m.caps {
			m.caps[i] = -1
		}
		end, ok, err := m.run(0, start, mustEnd)
		if err != nil {
			return nil, err
		}
		if ok {
			loc := append([]int(nil), m.caps[:2*(prog.groups+1)]...)
			loc[0], loc[1] = start, end
			return loc, nil
		}
		if whole || start == len(s) {
			break
		}
		_, w := utf8.DecodeRuneInString(s[start:])
		start += w
	}
	return nil, nil
}

// findAll is every match in s as Java's Matcher.find gives them: after an
// empty match the next search starts one character on, after another at
// its end; at most limit of them (limit < 0: all). Each match found is
// charged before the next is searched for.
func (prog *btProgram) findAll(th *Thread, s string, limit int) ([][]int, error) {
	var locs [][]int
	for from := 0; from <= len(s) && (limit < 0 || len(locs) < limit); {
		loc, err := prog.find(th, s, from, false)
		if err != nil || loc == nil {
			return locs, err
		}
		if th != nil {
			if err := th.alloc(int64(len(loc)) * 8); err != nil {
				return nil, err
			}
		}
		locs = append(locs, loc)
		from = loc[1]
		if loc[0] == loc[1] {
			if from == len(s) {
				break
			}
			_, w := utf8.DecodeRuneInString(s[from:])
			from += w
		}
	}
	return locs, nil
}
