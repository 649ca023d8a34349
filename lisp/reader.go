package lisp

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// DefaultMaxNesting bounds how deeply collections may nest in source text and
// in EDN values. The reader is recursive, so the bound is what keeps hostile
// input ("((((((..." a hundred thousand times) from exhausting the Go stack.
const DefaultMaxNesting = 1000

// mapForm is a map literal in code: its keys and values are forms that are
// evaluated, so it cannot be a *Map until evaluation. Elems alternate key and
// value.
type mapForm struct {
	Elems []Value
	Pos   Pos
	class *recordClass // a record literal's type (record.go), else nil
}

// setForm is a set literal in code; its elements are forms.
type setForm struct {
	Elems []Value
	Pos   Pos
}

func (*mapForm) TypeName() string { return "map" }
func (*setForm) TypeName() string { return "set" }

// read parses a whole program: the sequence of top-level forms. maxNesting
// bounds collection nesting (0 means DefaultMaxNesting; at most
// MaxValueNesting).
func read(src string, maxNesting int) ([]Value, error) {
	p, err := readProgram(src, maxNesting, nil)
	if err != nil {
		return nil, err
	}
	return p.forms, nil
}

// readForms is what the reader makes of a program's text: its top-level
// forms, where each starts, and what it forgave.
type readForms struct {
	forms    []Value
	starts   []Pos
	warnings []Warning
	// count is the number of forms read, at every depth.
	count int64
}

// readProgram reads the top-level forms and where each starts.
//
// Closing brackets left over after the last complete form are dropped
// with a warning rather than failing the program: a balanced program
// followed by a stray ")" is a habit of some models, and what the program
// means is not in doubt. A stray bracket with a form after it is still an
// error, since which form it was meant to close is a guess.
//
// Reading is the evaluation's work: th, when not nil, is charged
// readFormSteps a form as it is read, so that a program of millions of
// forms meets the step budget, the clock and the caller's cancellation
// while it is read, the same way however busy the machine.
func readProgram(src string, maxNesting int, th *Thread) (*readForms, error) {
	r := newReader(src, maxNesting, false)
	r.th = th
	out := &readForms{}
	for {
		if err := r.skipSpace(); err != nil {
			return nil, err
		}
		if r.eof() {
			out.count = r.forms
			return out, nil
		}
		start := Pos{r.line, r.col}
		if c := r.peek(); (c == ')' || c == ']' || c == '}') && len(out.forms) > 0 {
			if w, ok := r.trailingClosers(); ok {
				out.warnings = append(out.warnings, w)
				out.count = r.forms
				return out, nil
			}
		}
		f, err := r.readForm()
		if err != nil {
			return nil, err
		}
		out.forms = append(out.forms, f)
		out.starts = append(out.starts, start)
	}
}

// readFormSteps is what reading a form is charged: reading one takes
// about as long as four steps of evaluation, so that the step budget
// stops a program of millions of forms after about as much time as it
// stops a loop (1,000,000 steps, 250,000 forms: about 50 ms here), far
// inside the timeout even on a busy machine.
const readFormSteps = 4

// trailingClosers reports whether nothing but closing brackets, spaces
// and comments is left, and if so the warning that drops them.
func (r *reader) trailingClosers() (Warning, bool) {
	line, col := r.line, r.col
	// The warning quotes the first few: it is sent back with the turn,
	// and millions of brackets would make it megabytes.
	const quoted = 16
	var closers strings.Builder
	n := 0
	probe := *r
	for !probe.eof() {
		switch c := probe.peek(); c {
		case ')', ']', '}':
			if n++; n <= quoted {
				closers.WriteRune(probe.next())
			} else {
				probe.next()
			}
		default:
			if err := probe.skipSpace(); err != nil || !probe.eof() && probe.peek() == c {
				return Warning{}, false
			}
		}
	}
	if n == 0 {
		return Warning{}, false
	}
	shown := strconv.Quote(closers.String())
	if n > quoted {
		shown += " and more"
	}
	return Warning{Type: WarningUnmatchedClose, Message: fmt.Sprintf(
		"ignored %d unmatched closing bracket%s %s at the end of the program (line %d, column %d); the program ran without %s",
		n, plural(n), shown, line, col, map[bool]string{true: "it", false: "them"}[n == 1])}, true
}

// ParseEDN reads one literal value as sent on the wire: nil, booleans,
// numbers, strings, keywords, vectors, lists, maps, sets and
// vars. Symbols and code are rejected; maxNesting bounds the nesting depth (0
// means DefaultMaxNesting).
func ParseEDN(text string, maxNesting int) (Value, error) {
	return parseEDN(text, maxNesting, 0)
}

func parseEDN(text string, maxNesting, keep int) (Value, error) {
	v, _, err := parseEDNCounted(context.Background(), text, maxNesting, keep)
	return v, err
}

// parseEDNCounted is parseEDN that also returns what the value costs once
// read (readNodeCost), counted as it was built.
func parseEDNCounted(ctx context.Context, text string, maxNesting, keep int) (Value, int64, error) {
	r := newReader(text, maxNesting, true)
	r.keep, r.ctx = keep, ctx
	if err := r.skipSpace(); err != nil {
		return nil, 0, err
	}
	if r.eof() {
		return nil, 0, r.errorf(r.line, r.col, "empty value").WithHint("send an EDN value such as nil, 42 or {:a 1}")
	}
	line, col := r.line, r.col
	v, err := r.readForm()
	if err != nil {
		return nil, 0, err
	}
	if err := r.charge(v, line, col); err != nil {
		return nil, 0, err
	}
	if err := r.skipSpace(); err != nil {
		return nil, 0, err
	}
	if !r.eof() {
		return nil, 0, r.errorf(r.line, r.col, "unexpected text after the value").WithHint("send exactly one EDN value")
	}
	return v, r.cost, nil
}

// ParseEDNSample reads text as ParseEDN does and reports the same errors,
// but keeps only the first keep elements of every list and vector (at any
// depth): the rest are read and checked but not built, and stand as nil
// in the result, so its lengths and type labels are right. It is for callers that
// only show a sample of the value, at most keep elements per sequence, and
// saves building the rest (a 1,000-element list of maps is ~100 times
// cheaper to read). keep <= 0 keeps everything.
func ParseEDNSample(text string, maxNesting, keep int) (Value, error) {
	return parseEDN(text, maxNesting, keep)
}

type reader struct {
	src        string
	off        int
	line, col  int
	depth      int
	maxNesting int
	edn        bool
	quoted     int // how many quotes enclose the form being read
	// shortFn is non-nil while reading the body of #( ... ).
	shortFn *shortFnArgs
	stack   formStack // see readSeq
	// keep > 0 keeps only the first keep elements of lists and vectors
	// (ParseEDNSample); discard > 0 while reading forms that are dropped.
	keep, discard int
	// defName is set while reading the name of a def or defn, whose
	// metadata (^:private, ^:dynamic, ^{:doc ...}) becomes its var's.
	defName  bool
	keywords map[string]Value        // see keyword
	counted  map[int]int             // forms of the long sequences counted ahead, by open (see seqForms)
	keyText  int                     // EDN: the text of the collections read as set elements and map keys (keyTextLimit)
	cost     int64                   // EDN: what the collections built so far cost (readNodeCost)
	classes  map[string]*recordClass // EDN: the record type last read by name (see recordClass)
	// forms counts the forms read; th is the evaluation reading a
	// program, if any (see readProgram).
	forms int64
	th    *Thread
	// ctx, when set, is the caller's: reading a value stops when it ends
	// (see WireRead.Ctx). checked is the offset of its last look.
	ctx     context.Context
	checked int
	// symbols: a value read at run time (read-string) holds symbols as
	// data; quoting: clojure.core's read-string, which reads 'x, @x and
	// ::name as Clojure's reader does (builtins_read.go).
	symbols, quoting bool
}

// ctxCheckForms is how many forms the reader of a value reads between two
// looks at its caller's context: a few hundred microseconds of reading.
// ctxCheckBytes bounds the text between two looks as well: one form of
// 100,000 digits takes milliseconds to convert, a few hundred of them
// seconds.
const (
	ctxCheckForms = 1 << 12
	ctxCheckBytes = 64 << 10
)

type shortFnArgs struct {
	max  int
	rest bool
}

func newReader(src string, maxNesting int, edn bool) *reader {
	if maxNesting <= 0 {
		maxNesting = DefaultMaxNesting
	}
	maxNesting = min(maxNesting, MaxValueNesting)
	return &reader{src: src, line: 1, col: 1, maxNesting: maxNesting, edn: edn}
}

func (r *reader) eof() bool { return r.off >= len(r.src) }

func (r *reader) peek() rune {
	if r.off < len(r.src) && r.src[r.off] < utf8.RuneSelf {
		return rune(r.src[r.off])
	}
	c, _ := utf8.DecodeRuneInString(r.src[r.off:])
	return c
}

func (r *reader) next() rune {
	c, n := rune(0), 0
	if r.off < len(r.src) && r.src[r.off] < utf8.RuneSelf {
		c, n = rune(r.src[r.off]), 1
	} else {
		c, n = utf8.DecodeRuneInString(r.src[r.off:])
	}
	r.off += n
	if c == '\n' {
		r.line++
		r.col = 1
	} else {
		r.col++
	}
	return c
}

func (r *reader) errorf(line, col int, format string, args ...any) *Error {
	e := Errorf(parseError, format, args...)
	e.Pos = Pos{line, col}
	return e
}

// skipSpace skips whitespace, commas, comments and #_ discarded forms.
func (r *reader) skipSpace() error {
	for !r.eof() {
		c := r.peek()
		switch {
		case c == ' ' || c == ',':
			r.off++
			r.col++
		case c == '\n' || c == '\t' || c == '\r' || c == '\uFEFF' || unicode.IsSpace(c):
			r.next()
		case c == ';':
			for !r.eof() && r.peek() != '\n' {
				r.next()
			}
		case c == '#' && strings.HasPrefix(r.src[r.off:], "#_"):
			line, col := r.line, r.col
			r.next()
			r.next()
			// #_ #_ a b discards both: each #_ is a level of nesting,
			// since skipping the space after one reads the next.
			if err := r.enter(line, col); err != nil {
				return err
			}
			err := r.skipSpace()
			if err == nil && r.eof() {
				err = r.errorf(line, col, "#_ must be followed by a form to discard")
			}
			if err == nil {
				_, err = r.readForm()
			}
			r.depth--
			if err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

// lexTerminator reports characters that end a token.
func lexTerminator(c rune) bool {
	switch c {
	case '(', ')', '[', ']', '{', '}', '"', ';', ',', '\\', '@', '^', '`', '~', ' ', '\n', '\t', '\r':
		return true
	}
	if c < utf8.RuneSelf {
		return c == '\v' || c == '\f' // the other ASCII spaces are above
	}
	return unicode.IsSpace(c)
}

func (r *reader) token() string {
	start, off, src := r.off, r.off, r.src
	chars := 0 // a token holds no newline: the column moves by one per character
	for off < len(src) {
		if c := src[off]; c < utf8.RuneSelf {
			if asciiTerminators[c] {
				break
			}
			off++
		} else if c, n := utf8.DecodeRuneInString(src[off:]); !lexTerminator(c) {
			off += n
		} else {
			break
		}
		chars++
	}
	r.off, r.col = off, r.col+chars
	return src[start:off]
}

// asciiTerminators is lexTerminator for ASCII, as a table for token's loop.
var asciiTerminators = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = lexTerminator(rune(c))
	}
	return t
}()

// varQuoteHint is the hint of a value whose text holds #', which EDN
// has no dispatch for (the sidecar writes a var as (var ns/name)): it is
// refused as the source of a value too, as Clojure's EDN reader refuses it.
const varQuoteHint = "values are literal data, and EDN has no #'; send the name as a string or a keyword"

const tooDeepHint = "flatten the program or the data; deeply nested forms are not supported"

func (r *reader) enter(line, col int) error {
	r.depth++
	if r.depth > r.maxNesting {
		return r.errorf(line, col, "forms are nested more than %d levels deep", r.maxNesting).
			WithHint(tooDeepHint)
	}
	return nil
}

func (r *reader) readForm() (Value, error) {
	r.forms++
	if r.th != nil {
		if err := r.th.step(readFormSteps); err != nil {
			return nil, err
		}
	}
	if r.ctx != nil && (r.forms%ctxCheckForms == 0 || r.off-r.checked >= ctxCheckBytes) {
		r.checked = r.off
		if err := r.ctx.Err(); err != nil {
			return nil, err
		}
	}
	line, col := r.line, r.col
	c := r.peek()
	switch c {
	case '(':
		r.next()
		elems, _, err := r.readSeq(')', line, col, seqList)
		if err != nil || r.discard > 0 {
			return Nil, err
		}
		if r.edn {
			return newReadList(elems), nil
		}
		return &list{Elems: elems, Pos: Pos{line, col}}, nil
	case '[':
		r.next()
		elems, _, err := r.readSeq(']', line, col, seqList)
		if err != nil || r.discard > 0 {
			return Nil, err
		}
		return newReadVector(elems), nil
	case '{':
		r.next()
		if r.edn {
			return r.readMap(line, col)
		}
		return r.readMapForm(line, col)
	case ')', ']', '}':
		r.next()
		return nil, r.errorf(line, col, "unexpected %q", c).
			WithHint("there is a closing bracket without a matching opening one")
	case '"':
		s, err := r.readString()
		if err != nil || r.discard > 0 {
			return Nil, err
		}
		return String(s), nil
	case '\\':
		return r.readChar()
	case '\'':
		if r.quoting {
			return r.readWrapped(symbol("quote"), line, col)
		}
		if r.edn {
			return nil, r.errorf(line, col, "quote is not allowed in a value")
		}
		r.next()
		if err := r.skipSpace(); err != nil {
			return nil, err
		}
		if r.eof() {
			return nil, r.errorf(line, col, "' must be followed by a form")
		}
		if err := r.enter(line, col); err != nil {
			return nil, err
		}
		r.quoted++
		f, err := r.readForm()
		r.quoted--
		r.depth--
		if err != nil {
			return nil, err
		}
		return &list{Elems: []Value{symbol("quote"), f}, Pos: Pos{line, col}}, nil
	case '#':
		return r.readDispatch()
	case '^':
		return r.readMeta(line, col)
	case '@':
		// @a is (deref a), as in Clojure.
		if r.quoting {
			return r.readWrapped(symbol("clojure.core/deref"), line, col)
		}
		if r.edn {
			r.next()
			return nil, r.errorf(line, col, "@ is not allowed in a value")
		}
		f, err := r.readAfterPrefix(line, col, "@ must be followed by a form")
		if err != nil {
			return nil, err
		}
		return &list{Elems: []Value{symbol("clojure.core/deref"), f}, Pos: Pos{line, col}}, nil
	case '`', '~':
		r.next()
		return nil, r.errorf(line, col, "%q is not supported in PTC-Lisp", c).
			WithHint("PTC-Lisp has no syntax-quote or unquote; write plain expressions")
	}
	tok := r.token()
	if tok == "" {
		r.next()
		return nil, r.errorf(line, col, "unexpected character %q", c)
	}
	v, err := r.atom(tok, line, col)
	if err != nil || r.discard > 0 {
		return Nil, err
	}
	return v, nil
}

// duplicateKey is the error of a map or set read at run time
// (read-string) that names a key twice, which Clojure's reader refuses
// where a literal in a program may not; key(i) is the i-th key, nil past
// the last.
func (r *reader) duplicateKey(line, col int, key func(int) Value) *Error {
	seen := map[any]bool{}
	for i := 0; key(i) != nil; i++ {
		k := hashKey(key(i))
		if seen[k] {
			return r.errorf(line, col, "Duplicate key: %s", Repr(key(i)))
		}
		seen[k] = true
	}
	return r.errorf(line, col, "Duplicate key")
}

// readAfterPrefix reads the form after a one-character prefix (@, or '
// at run time) that opens at line, col; missing is the error when the text
// ends first.
func (r *reader) readAfterPrefix(line, col int, missing string) (Value, error) {
	r.next()
	if err := r.skipSpace(); err != nil {
		return nil, err
	}
	if r.eof() {
		return nil, r.errorf(line, col, "%s", missing)
	}
	if err := r.enter(line, col); err != nil {
		return nil, err
	}
	f, err := r.readForm()
	r.depth--
	return f, err
}

// readWrapped reads the form after 'x or @x in a value read at run time
// (read-string): the list (head x), as Clojure's reader makes it.
func (r *reader) readWrapped(head symbol, line, col int) (Value, error) {
	f, err := r.readAfterPrefix(line, col, "EOF while reading")
	if err != nil || r.discard > 0 {
		return Nil, err
	}
	if err := r.charge(f, line, col); err != nil {
		return nil, err
	}
	return newReadList([]Value{head, f}), nil
}

// seqKind tells readSeq what it reads, for ParseEDNSample: only lists and
// vectors are sampled.
type seqKind uint8

const (
	seqList seqKind = iota
	seqMap
	seqSet
)

// readMeta reads metadata (^:private, ^{:doc "..."}, ^String) and the form
// after it. On a vector, map or set literal it makes a metaForm, which
// evaluates to the collection carrying it, and so does it on the name a
// def or defn binds (the var's metadata); a type hint (^String, ^long:
// only a :tag) means nothing here and is dropped, and so is metadata on a
// call or on a parameter or local's name, which Clojure's compiler reads
// and a program's values never see. (Its own function: a defer in
// readForm would cost every form.)
func (r *reader) readMeta(line, col int) (Value, error) {
	if r.edn {
		return nil, r.errorf(line, col, "metadata is not allowed in a value")
	}
	inName := r.defName
	r.defName = false
	r.next()
	if err := r.skipSpace(); err != nil {
		return nil, err
	}
	if r.eof() {
		return nil, r.errorf(line, col, "^ must be followed by metadata and a form")
	}
	if err := r.enter(line, col); err != nil {
		return nil, err
	}
	defer func() { r.depth-- }()
	mf, err := r.readForm()
	if err != nil {
		return nil, err
	}
	var entries []Value
	switch m := mf.(type) {
	case Keyword:
		entries = []Value{m, trueValue}
	case symbol, String:
		entries = []Value{Keyword("tag"), m}
	case *mapForm:
		entries = m.Elems
	default:
		return nil, r.errorf(line, col, "metadata must be a keyword, a symbol, a string or a map, got %s", formText(mf)).
			WithHint("write ^:flag, ^Type or ^{:key value} before the form")
	}
	if err := r.skipSpace(); err != nil {
		return nil, err
	}
	if r.eof() {
		return nil, r.errorf(line, col, "^ must be followed by metadata and a form")
	}
	r.defName = inName // for the name after a further ^
	f, err := r.readForm()
	r.defName = false
	if err != nil {
		return nil, err
	}
	inner, _ := f.(*metaForm)
	target := f
	if inner != nil {
		target = inner.Form
	}
	switch target.(type) {
	case *Vector, *mapForm, *setForm, *Map, *Set:
	case symbol:
		if r.quoted > 0 && r.discard == 0 {
			// Quoted, the symbol is data and Clojure's meta would read
			// the metadata back; a symbol here holds none.
			return nil, r.errorf(line, col, "metadata on the quoted symbol %s: symbols carry no metadata in PTC-Lisp", formText(target)).
				WithHint("keep the metadata beside the symbol in a map, {:sym '%s :meta %s}, and read it with (:meta m)", formText(target), formText(&mapForm{Elems: entries}))
		}
		if !inName {
			return target, nil
		}
	case *list:
		return f, nil
	default:
		return nil, r.errorf(line, col, "metadata can only be applied to a collection or a name, not %s", formText(target)).
			asJava("IllegalArgumentException", "Metadata can only be applied to IMetas")
	}
	if _, isName := target.(symbol); isName && onlyTag(entries) && inner == nil {
		return f, nil // a def's type hint means nothing here
	}
	if inner != nil {
		entries = mergeMetaEntries(inner.Meta.Elems, entries)
	}
	return &metaForm{Meta: &mapForm{Elems: entries, Pos: Pos{line, col}}, Form: target}, nil
}

// readSeq reads the forms of a sequence up to close and returns them and
// how many there were: a slice of their exact length, or nil when the
// sequence is dropped (past a sample's end).
func (r *reader) readSeq(close rune, line, col int, kind seqKind) ([]Value, int, error) {
	if err := r.enter(line, col); err != nil {
		return nil, 0, err
	}
	// Forms collect on a stack shared by every level, so each sequence
	// costs one allocation of its final size; a long one moves to that
	// allocation as it grows long (seqForms). (No defers: this is the
	// reader's innermost loop.)
	discard := r.discard
	s := seqForms{mark: r.stack.n, open: r.off, count: discard > 0, own: true}
	err := r.readElems(close, line, col, kind, &s)
	var elems []Value
	if err == nil && discard == 0 {
		if elems = s.long; elems == nil {
			elems = r.stack.copyFrom(s.mark)
		}
	}
	r.stack.truncate(s.mark)
	r.discard = discard
	r.depth--
	return elems, s.n, err
}

// readMap reads an EDN map: like readSeq, but the map is built from the
// pairs where they lie on the stack, without first copying them out.
func (r *reader) readMap(line, col int) (Value, error) { return r.readMapIn("", line, col) }

// readMapIn is readMap whose keys take the namespace ns, as #:ns{...}'s
// do (qualifyMapKey; "" for none): qualified as the map is built, so
// that a namespaced map is built once, as a plain one is.
func (r *reader) readMapIn(ns string, line, col int) (Value, error) {
	if err := r.enter(line, col); err != nil {
		return nil, err
	}
	discard := r.discard
	s := seqForms{mark: r.stack.n, open: r.off, count: discard > 0}
	err := r.readElems('}', line, col, seqMap, &s)
	r.discard = discard
	var m Value
	if err == nil {
		m, err = r.buildMap(s, ns, line, col)
	}
	r.stack.truncate(s.mark)
	r.depth--
	return m, err
}

// buildMap builds the map of the pairs s read onto the stack, sized
// exactly and without a lineage to extend in place (see newReadVector).
func (r *reader) buildMap(s seqForms, ns string, line, col int) (Value, error) {
	if err := r.checkPairs(s.n, line, col); err != nil {
		return nil, err
	}
	if r.discard > 0 {
		return Nil, nil
	}
	if s.n == 0 {
		return emptyMap, nil
	}
	b := MapBuilder{m: &Map{entries: make([]MapEntry, 0, s.n/2), weight: 1}}
	for i := s.mark; i < r.stack.n; i += 2 {
		k := r.stack.at(i)
		if ns != "" {
			k = qualifyMapKey(ns, k)
		}
		b.Set(k, r.stack.at(i+1))
	}
	m := b.Map()
	if r.symbols && m.Len() != s.n/2 {
		return nil, r.duplicateKey(line, col, func(i int) Value {
			if i*2 >= s.n {
				return nil
			}
			return r.stack.at(s.mark + i*2)
		})
	}
	return measureReadMap(m), nil
}

func (r *reader) checkPairs(n, line, col int) error {
	if n%2 != 0 {
		return r.errorf(line, col, "map literal has %d forms; it needs key/value pairs", n).
			WithHint("every key needs a value, e.g. {:a 1 :b 2}")
	}
	return nil
}

// seqForms is where readElems puts the forms of one sequence. A short one
// keeps them on the stack, to be copied into a slice of their number when
// it closes. A long one would then hold them twice at once, the stack and
// the copy, sixteen bytes a form each: as it reaches longSeq forms, the
// reader counts the rest ahead (reading them without building anything),
// moves them to a slice with room for all, and reads the rest into it. A
// count ahead also counts the long sequences inside it, which are then
// not counted again, so no text is read more than twice.
type seqForms struct {
	mark  int     // its first form's place on the stack
	open  int     // the offset just past its opening bracket: its name in reader.counted
	n     int     // the forms read
	count bool    // dropped (past a sample's end, or counted ahead): count the forms, keep none
	own   bool    // it may move to a slice of its own (readSeq; readMap builds from the stack)
	long  []Value // once long, its forms, with room for all of them
}

// longSeq is the number of forms at which a sequence moves off the stack:
// the stack's first chunk.
const longSeq = formChunk

// readElems reads forms into s up to close.
func (r *reader) readElems(close rune, line, col int, kind seqKind, s *seqForms) error {
	sampled := false // this sequence drops its elements after r.keep
	for {
		if err := r.skipSpace(); err != nil {
			return err
		}
		if r.eof() {
			return r.errorf(line, col, "%q opened here is never closed", lexOpener(close)).
				WithHint("add the missing %q", close)
		}
		if c := r.peek(); c == close {
			r.next()
			if s.count && s.n >= longSeq {
				r.count(s)
			}
			return nil
		} else if c == ')' || c == ']' || c == '}' {
			return r.errorf(r.line, r.col, "found %q but %q opened at line %d, column %d is still open", c, lexOpener(close), line, col).
				WithHint("close it with %q first", close)
		}
		if r.keep > 0 && !sampled && kind == seqList && s.n == r.keep {
			sampled = true
			r.discard++ // readSeq restores it
		}
		// Set elements and map keys are read whole: two that differ only
		// after a sample's end would otherwise become one.
		keep := r.keep
		key := kind == seqSet || kind == seqMap && s.n%2 == 0
		if key {
			r.keep = 0
		}
		start := r.off
		r.defName = kind == seqList && s.n == 1 && r.afterDefHead(s)
		quoting := kind == seqList && s.n == 1 && r.afterQuoteHead(s)
		if quoting {
			r.quoted++
		}
		f, err := r.readForm()
		if quoting {
			r.quoted--
		}
		r.defName = false
		r.keep = keep
		if err != nil {
			return err
		}
		if key && r.edn && r.discard == 0 {
			if err := r.hashedWhole(f, r.off-start, line, col); err != nil {
				return err
			}
		}
		if err := r.charge(f, line, col); err != nil {
			return err
		}
		switch {
		case s.count:
		case s.long != nil:
			s.long = append(s.long, f)
		default:
			r.stack.push(f)
			if s.own && s.n+1 == longSeq {
				r.moveLong(close, line, col, kind, s)
			}
		}
		s.n++
	}
}

// count records the number of forms of s, a long sequence counted ahead.
func (r *reader) count(s *seqForms) {
	if r.counted == nil {
		r.counted = map[int]int{}
	}
	r.counted[s.open] = s.n
}

// hashedWhole counts the text of f, read as a set element or a map key,
// towards keyTextLimit when f is a collection: building the set or map
// hashes it whole.
func (r *reader) hashedWhole(f Value, text, line, col int) error {
	switch f.(type) {
	case *Vector, *Map, *Set:
	default:
		return nil
	}
	if r.keyText += text; int64(r.keyText) > keyTextLimit(int64(len(r.src))) {
		return r.errorf(line, col, "sets and map keys nest too deeply in one another: the collections they hold are %d bytes of text, more than %d times the value's %d",
			r.keyText, keyTextPerByte, len(r.src)).WithHint(keyTextHint)
	}
	return nil
}

// charge counts what f, a form just read, cost to build (readNodeCost),
// when the reader reads a value and builds it: past ReadCostLimit of the
// value's text the value is refused. line and col are where the
// enclosing collection opened.
func (r *reader) charge(f Value, line, col int) error {
	if !r.edn || r.discard > 0 {
		return nil
	}
	r.cost += readNodeCost(f)
	if size := int64(len(r.src)); r.cost > ReadCostLimit(size) {
		return r.errorf(line, col, "%s", overReadCost(r.cost, size, "collections")).WithHint(readCostHint)
	}
	return nil
}

// moveLong moves the forms of s, a sequence that has just grown long, off
// the stack into s.long, with room for the forms still to come, counted
// ahead unless a count ahead of an enclosing sequence counted them
// already. When the count ahead meets an error the forms stay on the
// stack: reading them will meet it too, and the sequence is never built.
func (r *reader) moveLong(close rune, line, col int, kind seqKind, s *seqForms) {
	total, ok := r.counted[s.open]
	if !ok {
		off, ln, cl, depth, discard := r.off, r.line, r.col, r.depth, r.discard
		r.discard++
		ahead := seqForms{open: s.open, n: s.n + 1, count: true}
		err := r.readElems(close, line, col, kind, &ahead)
		r.off, r.line, r.col, r.depth, r.discard = off, ln, cl, depth, discard
		if err != nil {
			return
		}
		total = ahead.n
	}
	// The stack holds the forms read so far (s.n of them, and the one
	// just pushed).
	s.long = make([]Value, s.n+1, max(total, s.n+1))
	for i := range s.long {
		s.long[i] = r.stack.at(s.mark + i)
	}
	r.stack.truncate(s.mark)
}

// formStack holds the forms of the sequences being read. Its first chunk
// grows as a slice does, its others are of a fixed size: a long sequence
// grows it without copying, so reading n forms holds n slots, and the n
// more of the copy its value keeps, rather than the three times n of a
// slice doubling.
type formStack struct {
	first []Value
	more  [][]Value // chunks of formChunk forms
	n     int
}

const formChunk = 4096

func (s *formStack) push(v Value) {
	if s.n < formChunk {
		s.first = append(s.first[:s.n], v)
	} else {
		i := s.n - formChunk
		if i/formChunk == len(s.more) {
			s.more = append(s.more, make([]Value, formChunk))
		}
		s.more[i/formChunk][i%formChunk] = v
	}
	s.n++
}

func (s *formStack) at(i int) Value {
	if i < formChunk {
		return s.first[i]
	}
	i -= formChunk
	return s.more[i/formChunk][i%formChunk]
}

// copyFrom returns the forms from mark on, in a slice of their length.
func (s *formStack) copyFrom(mark int) []Value {
	if mark == s.n {
		return nil
	}
	out := make([]Value, s.n-mark)
	if s.n <= formChunk {
		copy(out, s.first[mark:s.n])
		return out
	}
	for i := range out {
		out[i] = s.at(mark + i)
	}
	return out
}

// truncate drops the forms from mark on, letting go of them.
func (s *formStack) truncate(mark int) {
	if s.n <= formChunk {
		clear(s.first[mark:s.n])
		s.n = mark
		return
	}
	for i := mark; i < s.n; i++ {
		if i < formChunk {
			s.first[i] = nil
		} else {
			j := i - formChunk
			s.more[j/formChunk][j%formChunk] = nil
		}
	}
	s.n = mark
}

func lexOpener(close rune) string {
	switch close {
	case ')':
		return "("
	case ']':
		return "["
	}
	return "{"
}

func (r *reader) readString() (string, error) {
	line, col := r.line, r.col
	r.next() // opening quote
	// Most strings hold no escape and no newline: they are a slice of the
	// source, and the column moves by their length in characters.
	for i := r.off; i < len(r.src); i++ {
		if c := r.src[i]; c == '"' {
			text := r.src[r.off:i]
			r.col += utf8.RuneCountInString(text) + 1
			r.off = i + 1
			return text, nil
		} else if c == '\\' || c == '\n' {
			break
		}
	}
	var b strings.Builder
	for {
		if r.eof() {
			return "", r.errorf(line, col, "string opened here is never closed").WithHint(`add the closing "`)
		}
		c := r.next()
		switch c {
		case '"':
			return b.String(), nil
		case '\\':
			if r.eof() {
				return "", r.errorf(line, col, "string opened here is never closed").WithHint(`add the closing "`)
			}
			el, ec := r.line, r.col
			e := r.next()
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case '"', '\\', '/':
				b.WriteRune(e)
			case 'u':
				if len(r.src)-r.off < 4 {
					return "", r.errorf(el, ec, `\u needs four hex digits`)
				}
				n, err := strconv.ParseUint(r.src[r.off:r.off+4], 16, 32)
				if err != nil {
					return "", r.errorf(el, ec, `\u needs four hex digits`)
				}
				for range 4 {
					r.next()
				}
				b.WriteRune(r.surrogatePair(rune(n)))
			default:
				return "", r.errorf(el, ec-1, `unsupported escape \%c in string`, e).
					WithHint(`supported escapes are \\ \" \n \t \r \b \f \uXXXX`)
			}
		default:
			b.WriteRune(c)
		}
	}
}

// surrogatePair completes a \uXXXX escape: a high surrogate followed by
// a \uXXXX low surrogate is one character outside the Basic Multilingual
// Plane, as Java reads "\uD83D\uDE00" as one emoji. Half of a pair alone
// is no character a UTF-8 string can hold: it reads as U+FFFD, as a JSON
// decoder reads it, so that data holding an emoji cut in half (a
// truncated tool result) is still accepted.
func (r *reader) surrogatePair(high rune) rune {
	if !utf16.IsSurrogate(high) {
		return high
	}
	if high >= 0xDC00 || len(r.src)-r.off < 6 || r.src[r.off:r.off+2] != `\u` {
		return utf8.RuneError
	}
	low, err := strconv.ParseUint(r.src[r.off+2:r.off+6], 16, 32)
	if err != nil || low < 0xDC00 || low > 0xDFFF {
		return utf8.RuneError
	}
	for range 6 {
		r.next()
	}
	return utf16.DecodeRune(high, rune(low))
}

var lexCharNames = map[string]string{
	"newline": "\n", "space": " ", "tab": "\t", "return": "\r",
	"backspace": "\b", "formfeed": "\f",
}

// readChar reads a character literal; PTC-Lisp represents characters as
// one-character strings (spec 3.5).
func (r *reader) readChar() (Value, error) {
	line, col := r.line, r.col
	r.next() // backslash
	if r.eof() {
		return nil, r.errorf(line, col, `\ at end of input is not a character`)
	}
	start := r.off
	r.next() // the first character is taken whatever it is
	for !r.eof() && !lexTerminator(r.peek()) {
		r.next()
	}
	tok := r.src[start:r.off]
	if utf8.RuneCountInString(tok) == 1 {
		return String(tok), nil
	}
	if s, ok := lexCharNames[tok]; ok {
		return String(s), nil
	}
	if len(tok) == 5 && tok[0] == 'u' {
		if n, err := strconv.ParseUint(tok[1:], 16, 32); err == nil {
			if utf16.IsSurrogate(rune(n)) {
				// A char holding half a pair is Java's, not a character a
				// UTF-8 string can hold.
				return nil, r.errorf(line, col, `\%s is half of a UTF-16 surrogate pair, no character on its own`, tok).
					WithHint(`write the character itself in a string, e.g. "\uD83D\uDE00"`)
			}
			return String(string(rune(n))), nil
		}
	}
	return nil, r.errorf(line, col, `unsupported character literal \%s`, tok).
		WithHint(`characters are \a, \newline, \space, \tab, \return, \backspace, \formfeed or \uXXXX; write strings in double quotes`)
}

func (r *reader) readDispatch() (Value, error) {
	line, col := r.line, r.col
	rest := r.src[r.off:]
	switch {
	case strings.HasPrefix(rest, "#{"):
		r.next()
		r.next()
		elems, _, err := r.readSeq('}', line, col, seqSet)
		if err != nil || r.discard > 0 {
			return Nil, err
		}
		if r.edn {
			set := newReadSet(elems)
			if r.symbols && set.Len() != len(elems) {
				return nil, r.duplicateKey(line, col, func(i int) Value { return argAt(elems, i) })
			}
			return set, nil
		}
		return &setForm{Elems: elems, Pos: Pos{line, col}}, nil
	case strings.HasPrefix(rest, "##"):
		r.next()
		r.next()
		switch tok := r.token(); tok {
		case "Inf":
			return Float(math.Inf(1)), nil
		case "-Inf":
			return Float(math.Inf(-1)), nil
		case "NaN":
			return Float(math.NaN()), nil
		default:
			return nil, r.errorf(line, col, "unknown symbolic value ##%s", tok).WithHint("use ##Inf, ##-Inf or ##NaN")
		}
	case strings.HasPrefix(rest, "#'"):
		// Data holds no vars: a value's text and clojure.edn/read-string
		// refuse #' as Clojure's EDN reader does, and clojure.core's
		// read-string reads #'x as the list (var x), as Clojure's does.
		if r.quoting {
			r.next()
			return r.readWrapped(symbol("var"), line, col)
		}
		if r.edn {
			return nil, r.errorf(line, col, "#' (a var) is not allowed in a value").WithHint(varQuoteHint)
		}
		r.next()
		r.next()
		// The name without its namespace reads back as a symbol: #'0 and
		// #'user/0 would print #'user/0, which does not read.
		v := varNamed(r.token())
		if !symbolReads(v.Name) || !lexPlainSymbol(v.Name) {
			return nil, r.errorf(line, col, "#' must be followed by a name, e.g. #'x")
		}
		return v, nil
	case strings.HasPrefix(rest, "#("):
		if r.edn {
			return nil, r.errorf(line, col, "functions are not allowed in a value")
		}
		if r.shortFn != nil {
			return nil, r.errorf(line, col, "nested #() is not allowed").
				WithHint("use (fn [x] ...) for the inner function")
		}
		r.next()
		r.shortFn = &shortFnArgs{}
		r.next()
		elems, _, err := r.readSeq(')', line, col, seqList)
		args := r.shortFn
		r.shortFn = nil
		if err != nil {
			return nil, err
		}
		params := make([]Value, 0, args.max+2)
		for i := 1; i <= args.max; i++ {
			params = append(params, symbol("%"+strconv.Itoa(i)))
		}
		if args.rest {
			params = append(params, symbol("&"), symbol("%&"))
		}
		body := &list{Elems: elems, Pos: Pos{line, col}}
		return &list{Elems: []Value{symbol("fn"), NewVector(params), body}, Pos: Pos{line, col}}, nil
	case strings.HasPrefix(rest, `#"`):
		if r.edn {
			return nil, r.errorf(line, col, "regex literals are not allowed in a value")
		}
		// A regex literal reads as (re-pattern "..."): the pattern text is
		// taken verbatim, as Clojure does, with no string escapes applied.
		r.next()
		r.next()
		var b strings.Builder
		for {
			if r.eof() {
				return nil, r.errorf(line, col, "regex literal opened here is never closed")
			}
			c := r.next()
			if c == '"' {
				break
			}
			b.WriteRune(c)
			if c == '\\' && !r.eof() {
				b.WriteRune(r.next())
			}
		}
		return &list{Elems: []Value{symbol("re-pattern"), String(b.String())}, Pos: Pos{line, col}}, nil
	}
	r.next()
	tok := r.token()
	if recordClassName(tok) && !r.eof() && r.peek() == '{' {
		return r.readRecord(tok, line, col)
	}
	if ns, ok := strings.CutPrefix(tok, ":"); ok && !r.eof() && r.peek() == '{' {
		return r.readNamespacedMap(ns, line, col)
	}
	e := r.errorf(line, col, "unsupported reader syntax #%s", tok)
	switch {
	case strings.HasPrefix(tok, "?"):
		return nil, e.WithHint("there are no reader conditionals: write the form of the :clj branch itself, (+ 1 2) for #?(:clj (+ 1 2) :cljs 0)")
	case tok == "inst" || tok == "uuid":
		return nil, e.WithHint(`there are no #inst or #uuid values: write the text alone, "2024-01-01T00:00:00Z" for #inst "2024-01-01T00:00:00Z"`)
	}
	return nil, e.WithHint(`PTC-Lisp reads only #{...} sets, #(...) functions, #"regex", #'name vars, #_ comments and ##Inf/##NaN: write the form after the # syntax by itself`)
}

// readNamespacedMap reads #:ns{...}, Clojure's namespaced map: a keyword
// or symbol key with no namespace takes ns, one written :_/name has none,
// and one with a namespace keeps it. Clojure prints a map whose keys share
// one namespace this way, so data copied from a REPL reads as it means.
func (r *reader) readNamespacedMap(ns string, line, col int) (Value, error) {
	if ns == "" || ns == ":" || strings.ContainsAny(ns, ":/") || !lexPlainSymbol(ns) {
		return nil, r.errorf(line, col, "#:%s{...} needs a namespace name after #:", ns).
			WithHint("write the keys with their namespace, {:user/id 1} for #:user{:id 1}")
	}
	r.next()
	if r.edn {
		return r.readMapIn(ns, line, col)
	}
	v, err := r.readMapForm(line, col)
	if err != nil || r.discard > 0 {
		return v, err
	}
	form := v.(*mapForm)
	for i := 0; i < len(form.Elems); i += 2 {
		form.Elems[i] = qualifyMapKey(ns, form.Elems[i])
	}
	return form, nil
}

// qualifyMapKey is a key of #:ns{...} as Clojure reads it.
func qualifyMapKey(ns string, k Value) Value {
	switch k := k.(type) {
	case Keyword:
		if local, ok := strings.CutPrefix(string(k), "_/"); ok {
			return Keyword(local)
		}
		if !strings.Contains(string(k), "/") {
			return Keyword(ns + "/" + string(k))
		}
	case symbol:
		if local, ok := strings.CutPrefix(string(k), "_/"); ok {
			return symbol(local)
		}
		if !strings.Contains(string(k), "/") {
			return symbol(ns + "/" + string(k))
		}
	}
	return k
}

// readRecord reads the map of a record literal, #user.Name{...}, as a
// record of that type (record.go): in a value, the record; in code, a
// map form that makes one.
func (r *reader) readRecord(name string, line, col int) (Value, error) {
	r.next()
	if r.edn {
		v, err := r.readMap(line, col)
		m, ok := v.(*Map)
		if err != nil || !ok {
			return v, err
		}
		if m == emptyMap {
			m = &Map{weight: 1 << nestsShift}
		}
		m.setClass(r.recordClass(name, m.entries))
		return m, nil
	}
	v, err := r.readMapForm(line, col)
	if f, ok := v.(*mapForm); ok {
		entries := make([]MapEntry, 0, len(f.Elems)/2)
		for i := 0; i < len(f.Elems); i += 2 {
			entries = append(entries, MapEntry{Key: f.Elems[i]})
		}
		f.class = readRecordClass(name, entries)
	}
	return v, err
}

// recordClass is the record type of a record literal #name{...} read in
// a value with entries: the type the last literal of that name read has
// when its fields are the same, so that a value of many records of one
// type holds their field list once; else a new type, whose field list
// the read cost counts (a literal of a million fields holds a list of a
// million beside its map).
func (r *reader) recordClass(name string, entries []MapEntry) *recordClass {
	if c := r.classes[name]; c != nil && c.fieldsOf(entries) {
		return c
	}
	c := readRecordClass(name, entries)
	if r.classes == nil {
		r.classes = map[string]*recordClass{}
	}
	r.classes[name] = c
	// Checked against the limit with the next form charged: the list is
	// shorter than the map's entries, charged just before.
	r.cost += heapClass + int64(len(c.fields))*heapSlot
	return c
}

// readMapForm reads a map literal in code, its { read.
func (r *reader) readMapForm(line, col int) (Value, error) {
	elems, n, err := r.readSeq('}', line, col, seqMap)
	if err != nil {
		return nil, err
	}
	if err := r.checkPairs(n, line, col); err != nil {
		return nil, err
	}
	if r.discard > 0 {
		return Nil, nil
	}
	return &mapForm{Elems: elems, Pos: Pos{line, col}}, nil
}

func (r *reader) atom(tok string, line, col int) (Value, error) {
	switch tok {
	case "nil":
		return Nil, nil
	case "true":
		return trueValue, nil
	case "false":
		return falseValue, nil
	}
	if startsNumber(tok) {
		return r.number(tok, line, col)
	}
	if tok[0] == ':' {
		name := tok[1:]
		if local, ok := strings.CutPrefix(name, ":"); ok && (!r.edn || r.quoting) && local != "" && !strings.ContainsAny(local, ":/") {
			// ::name is auto-resolved in the program's namespace, which is
			// user, as Clojure reads it there.
			name = "user/" + local
		}
		if name == "" || strings.HasPrefix(name, ":") || strings.HasSuffix(name, "/") || strings.HasPrefix(name, "/") {
			return nil, r.errorf(line, col, "invalid keyword %s", tok).WithHint("keywords look like :name")
		}
		if r.discard > 0 {
			return Nil, nil
		}
		return r.keyword(name), nil
	}
	if r.edn && !r.symbols {
		return nil, r.errorf(line, col, "symbol %s is not allowed in a value", tok).
			WithHint("values are literal data; quote text as a string or use a keyword")
	}
	if !lexSymbolText(tok) {
		if lexSymbolChars(tok) {
			return nil, r.errorf(line, col, "invalid token %s", tok) // its slashes: Clojure's "Invalid token"
		}
		e := r.errorf(line, col, "invalid symbol %s", tok)
		if strings.ContainsAny(tok, "\u201c\u201d\u2018\u2019") {
			return nil, e.WithHint(`strings use straight double quotes: "text"`)
		}
		return nil, e.WithHint("symbols use letters, digits and * + ! - _ ? < > = / . $ & %%")
	}
	if r.shortFn != nil && tok[0] == '%' {
		switch {
		case tok == "%":
			r.shortFn.max = max(r.shortFn.max, 1)
			return symbol("%1"), nil
		case tok == "%&":
			r.shortFn.rest = true
			return symbol(tok), nil
		default:
			n, err := strconv.Atoi(tok[1:])
			if err != nil || n < 1 || n > 20 {
				return nil, r.errorf(line, col, "invalid argument %s in #()", tok).WithHint("use %%, %%1 ... %%20 or %%&")
			}
			r.shortFn.max = max(r.shortFn.max, n)
			return symbol(tok), nil
		}
	}
	return symbol(tok), nil
}

// keyword returns the keyword as a Value, boxing each name once per read:
// the keys of data repeat in every record, and each boxing is an allocation.
// Only the first maxSharedKeywords names are kept: a wide map of distinct
// keyword keys grew the table to its own size, hashing each name twice
// and doubling the table as it went, which made it the slowest data to
// read for its read cost (a vector of 100,000 distinct keywords took ten
// times as long as one of strings).
func (r *reader) keyword(name string) Value {
	if v, ok := r.keywords[name]; ok {
		return v
	}
	v := Value(Keyword(name))
	if len(r.keywords) >= maxSharedKeywords {
		return v
	}
	if r.keywords == nil {
		r.keywords = make(map[string]Value)
	}
	r.keywords[name] = v
	return v
}

// maxSharedKeywords is how many keyword names one read boxes once and
// shares: far more than the keys of any record type.
const maxSharedKeywords = 1024

func (r *reader) number(tok string, line, col int) (Value, error) {
	// Only digits (after one sign) can be a decimal integer; trying
	// ParseInt on a float would build an error value for nothing. A leading
	// zero makes an octal literal, read below with the other radices.
	digits := tok
	if tok[0] == '+' || tok[0] == '-' {
		digits = tok[1:]
	}
	if !lexDigits(digits) || digits[0] == '0' && len(digits) > 1 {
		// not a plain decimal integer
	} else if r.discard > 0 && len(digits) < 19 {
		return Nil, nil // fits in 64 bits: nothing to check, nothing to keep
	} else if n, err := strconv.ParseInt(tok, 10, 64); err == nil {
		if r.discard > 0 {
			return Nil, nil // checked, not kept: no boxing
		}
		return Int(n), nil
	} else if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		// As Clojure's reader: an integer too large for a long is a BigInt.
		return r.bigInt(tok, line, col)
	}
	if lit, matched, problem := splitIntLiteral(tok); matched {
		return r.intLiteral(tok, lit, problem, line, col)
	}
	if body, ok := strings.CutSuffix(tok, "M"); ok && (lexFloatText(body) || lexDigits(strings.TrimLeft(body, "+-"))) {
		return r.bigDec(body, line, col)
	}
	if lexFloatText(tok) {
		if r.discard > 0 {
			return Nil, nil // ParseFloat accepts every text lexFloatText does
		}
		f, err := strconv.ParseFloat(tok, 64)
		if err == nil || err.(*strconv.NumError).Err == strconv.ErrRange {
			if r.discard > 0 {
				return Nil, nil
			}
			return Float(f), nil
		}
	}
	hint := "numbers are integers like 42, -7, 0x1F, 017 (octal) or 2r1010, and floats like 3.14 or 2.5e10"
	switch {
	case strings.Contains(tok, "/"):
		hint = "ratios are not supported; divide with (/ a b)"
	case strings.HasSuffix(tok, "M"):
		hint = "a decimal is digits with an optional point and exponent before the M, such as 19.99M or 1e3M"
	}
	return nil, r.errorf(line, col, "invalid number %s", tok).WithHint("%s", hint)
}

// intLiteral reads an integer literal splitIntLiteral matched: octal,
// hexadecimal, a radix, or one with an N. The conversion of a long one is
// charged as a decimal big integer's.
func (r *reader) intLiteral(tok string, lit intLiteral, problem string, line, col int) (Value, error) {
	if problem != "" {
		hint := problem
		if lit.radix == 0 && !strings.Contains(problem, "radix") {
			body := strings.TrimLeft(tok, "+-")
			hint = fmt.Sprintf("%s, as in Clojure; for the decimal number write %s%s", problem, tok[:len(tok)-len(body)], strings.TrimLeft(body, "0"))
		}
		return nil, r.errorf(line, col, "invalid number %s", tok).WithHint("%s", hint)
	}
	if r.th != nil && len(lit.digits) > 18 {
		if err := r.th.step(bigParseSteps(len(lit.digits))); err != nil {
			return nil, err
		}
	}
	v, err := lit.value()
	if err != nil {
		return nil, r.errorf(line, col, "invalid number %s: %v", tok, err).
			WithHint("a digit in radix %d is below %d (0-9, then a or A for 10 up to z or Z for 35), as in 2r1010 or 36rZZ", lit.radix, lit.radix)
	}
	if r.discard > 0 {
		return Nil, nil
	}
	return v, nil
}

// bigDec reads a decimal literal, 1.5M, without its M: as Java's
// BigDecimal reads the text, at most maxBigDigits digits and an exponent
// within Java's int scale.
func (r *reader) bigDec(text string, line, col int) (Value, error) {
	d, ok := parseDec(text)
	if !ok {
		return nil, r.errorf(line, col, "a decimal literal %sM of more than %d digits or an exponent beyond Java's int range", text, maxBigDigits).
			WithHint("write at most %d digits, and an exponent between -2147483648 and 2147483647", maxBigDigits)
	}
	if r.discard > 0 {
		return Nil, nil
	}
	return d, nil
}

// bigInt reads the digits of a big integer literal (123N, or an integer
// too large for 64 bits).
func (r *reader) bigInt(digits string, line, col int) (Value, error) {
	n, ok, err := parseBigDigitsCharged(r.th, digits)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, r.errorf(line, col, "a big integer literal of %d digits: at most %d are read", len(digits), maxBigDigits)
	}
	if r.discard > 0 {
		return Nil, nil
	}
	return newBig(n), nil
}

func lexDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// lexFloatText matches [+-]digits[.digits*][(e|E)[+-]digits] with a fraction
// or an exponent.
func lexFloatText(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return false
	}
	frac, exp := false, false
	if i < len(s) && s[i] == '.' {
		frac = true
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		exp = true
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			return false
		}
	}
	return i == len(s) && (frac || exp)
}

// lexSymbolText accepts a symbol's token: its characters (lexSymbolChars)
// and slashes where Clojure's reader takes them (slashesRead).
func lexSymbolText(s string) bool { return lexSymbolChars(s) && slashesRead(s) }

// lexSymbolChars accepts the symbol characters of spec 2.3 plus the few
// more Clojure allows (. $ & % ' #) after the first character.
func lexSymbolChars(s string) bool {
	for i, c := range s {
		switch {
		case unicode.IsLetter(c) || unicode.IsDigit(c):
		case strings.ContainsRune("*+!-_?<>=/.$&%", c):
		case i > 0 && (c == '\'' || c == '#'):
		default:
			return false
		}
	}
	return s != ""
}

// slashesRead reports whether s, a symbol's text, reads as Clojure reads
// a symbol with a namespace, ns/name: ns does not start with '/', and
// name is "/" (clojure.core//) or does not start with a digit, so /etc/passwd,
// a/ and a/1 are an invalid token there, as here.
func slashesRead(s string) bool {
	if s == "" || s == "/" {
		return true // no slashes to read; an empty name is refused by its characters
	}
	if s[0] == '/' {
		return false
	}
	i := strings.LastIndexByte(s, '/')
	switch {
	case i < 0:
		return true
	case i == len(s)-1: // ns//, the name /
		return len(s) >= 3 && s[i-1] == '/'
	}
	return s[i+1] < '0' || s[i+1] > '9'
}

// startsNumber reports whether tok, a token that is not empty, is read as
// a number: a digit, or a sign and a digit.
func startsNumber(tok string) bool {
	c := tok[0]
	return c >= '0' && c <= '9' || (c == '-' || c == '+') && len(tok) > 1 && tok[1] >= '0' && tok[1] <= '9'
}

// lexPlainSymbol is a symbol without a namespace.
func lexPlainSymbol(s string) bool {
	return lexSymbolText(s) && (s == "/" || !strings.Contains(s, "/"))
}
