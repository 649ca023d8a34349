package lisp

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Repr returns v as EDN, the way Clojure's pr-str prints it. Strings are
// quoted, maps keep insertion order, sets print their elements in order of
// their text so that the output is deterministic, and a sorted set in its
// own order, as Clojure's.
func Repr(v Value) string { return printText(v, modeRepr) }

// Str is Clojure's str of one value: strings unquoted, nil empty, everything
// else as Repr.
func Str(v Value) string {
	switch v := v.(type) {
	case String:
		return string(v)
	case NilType:
		return ""
	case javaClass:
		return "class " + string(v)
	}
	return Repr(v)
}

// WriteRepr appends the EDN text of v to b.
func WriteRepr(b *strings.Builder, v Value) { b.WriteString(Repr(v)) }

// sourceText is v as PTC-Lisp source that evaluates back to an equal value:
// EDN for data, fn forms (with a let for captured values) for closures,
// the calls that make what EDN cannot spell. Data EDN can spell is
// written as EDN whole, a list as (1 2); once the text must be source, a
// list is the call (list 1 2) that makes it.
func sourceText(v Value) string {
	text, _ := wireText(v, 0, 0)
	return text
}

// wireText is sourceText of v, refused (ok false) when it would pass
// limit bytes (0: no limit) or nest deeper than nesting levels (0:
// MaxValueNesting). It prints v as EDN, and again as source only when the
// first print met something EDN cannot spell.
func wireText(v Value, limit int64, nesting int) (text string, ok bool) {
	bp := textBuffers.Get().(*[]byte)
	t := textWriter{buf: (*bp)[:0], limit: limit}
	p := printer{out: &t, mode: modeRepr, limit: nesting, detect: true, textOrder: true}
	err := p.print(v)
	if err == nil && p.sawSource {
		t = textWriter{buf: t.buf[:0], limit: limit}
		p = printer{out: &t, mode: modeSource, limit: nesting, textOrder: true}
		err = p.print(v)
	}
	if ok = err == nil && !t.full; ok {
		text = string(t.buf)
	} else if limit == 0 {
		text = string(t.buf) + "..." // deeper than any value lets out
	}
	if cap(t.buf) <= maxPooledText {
		*bp = t.buf
		textBuffers.Put(bp)
	}
	return text, ok
}

// textBuffers hold the buffers printed texts are built in; the text is
// then copied out once, at its final size.
var textBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledText bounds the buffers kept for reuse.
const maxPooledText = 256 << 10

// printText prints v for the host (uncharged, without a limit of its own):
// what the sidecar sends and logs. A value nesting deeper than
// MaxValueNesting, which no evaluation lets out, prints as far as that and
// ends with "...".
func printText(v Value, mode printMode) string {
	switch v := v.(type) { // the commonest texts, without a buffer
	case String:
		var small [64]byte
		return string(appendQuoted(small[:0], string(v)))
	case Keyword:
		if mode == modeRepr {
			return ":" + string(v)
		}
	case Int:
		return strconv.FormatInt(int64(v), 10)
	case Float:
		return formatFloat(float64(v))
	case Float32:
		return formatFloat32(v)
	}
	bp := textBuffers.Get().(*[]byte)
	t := textWriter{buf: (*bp)[:0]}
	p := printer{out: &t, mode: mode}
	if err := p.print(v); err != nil {
		t.buf = append(t.buf, "..."...)
	}
	text := string(t.buf)
	if cap(t.buf) <= maxPooledText {
		*bp = t.buf
		textBuffers.Put(bp)
	}
	return text
}

// printMode says which text a printer writes.
type printMode uint8

const (
	modeRepr   printMode = iota // EDN, as pr-str writes it
	modeSource                  // source that evaluates back to the value (the wire)
)

// printer writes values as text, visiting them with the walk (walk.go).
type printer struct {
	out  *textWriter
	mode printMode
	th   *Thread // charged a step per value; nil for the host's printing
	// limit is the deepest the value may nest; 0 means MaxValueNesting.
	limit int
	// orders are the elements of sets in printed order, as far as found:
	// a set prints its elements in order of their EDN text, which in
	// source mode is not the text written, so it is found once per set
	// (setOrder) and reused by the sets nested in it.
	orders map[*Set][]Value
	// sourceFrom is, while repr mode prints what a holder holds, the
	// holder's depth: what it holds prints as source (see inSource).
	sourceFrom int
	// sawSource records, when detect is set, that repr mode printed
	// something whose source text differs (wireText then prints the
	// value as source).
	detect, sawSource bool
	// keyText is the text of the collections printed as set elements and
	// map keys, which reading the value back hashes (see keyTextLimit);
	// keyStarts are where those being printed began.
	keyText   int64
	keyStarts []keyStart
	// readCost is what the collections printed cost once read back
	// (readNodeCost).
	readCost int64
	// checkNumbers, set where a turn's values are written to be sent
	// back, records in longNumber the first number printed whose text
	// the reader does not read back (numberTextReads).
	checkNumbers bool
	longNumber   Value
	// meta prints each collection's metadata before it, ^{:k 1} [1], as
	// Clojure's printer does with *print-meta* bound to true (metaprint.go).
	meta bool
	// clojureOrder prints hash maps and sets in the order Clojure's
	// iterate them (hashorder.go), as a program's own text of a value
	// (str, pr-str, println, format) is Clojure's; results, memory and
	// the wire keep the specification's order (sets by their text).
	clojureOrder bool
	// textOrder prints a sorted set in order of its elements' text, as
	// every other set, rather than in its own order: on the wire, where a
	// sorted set arrives back as a plain set, whose text must be the same.
	textOrder bool
	// known are texts of records printed before (RecordTexts), copied
	// rather than printed again; spans, when set, collects where each
	// record printed by record begins and ends, for NewRecordTexts.
	known      *RecordTexts
	nearRecord int // where the last look-up in known ended
	spans      map[*Map][2]int
	// stack, when not nil, is room for the walk's stack, and after the
	// print the stack it grew to (for a caller that prints again).
	stack []walkLevel
	// untilSource stops the print at the first part whose source text
	// differs (sawSource), for a caller that then prints it as source.
	untilSource bool
	// json, when set, is given every part printed, to write the value's
	// JSON in the same walk (emit_json.go); when findBad is set, bad is
	// the first part it refused (the emit pass gives it unstorable).
	json    *jsonText
	findBad func(Value) bool
	bad     Value
	// bare writes a string as its characters at any depth, as Clojure's
	// print and println do ((println ["a"]) writes [a]); the text is for
	// people, not read back.
	bare bool
	// namespaceMaps prints a map whose keys are all keywords or symbols
	// of one namespace as #:ns{:k v}, as Clojure run through clojure.main
	// (*print-namespace-maps* true) prints a program's own text of it;
	// lifted are the depths of the maps being printed so.
	namespaceMaps bool
	lifted        []int
}

// keyStart is where a collection printed as a set element or map key
// began, and at what depth.
type keyStart struct {
	depth int
	at    int64
}

// inSource reports whether a value at the given depth prints as source.
func (p *printer) inSource(depth int) bool {
	return p.mode == modeSource || p.sourceFrom >= 0 && depth > p.sourceFrom
}

// holder is a function that holds values and prints with them: a closure
// with what it captured (as its fn form in a let), a function built by a
// combinator with its arguments (as the call that makes it). Walks over
// values treat one as a level of nesting, like a collection: a program can
// chain them as deep as it can nest vectors.
//
// Each kind writes the text that comes before held value i, or for i ==
// len(heldValues()) the text after the last (the whole text when it holds
// none), in a writeText method that holderText calls by kind: called
// through the interface, the printer (and the text it writes into) would
// have to live on the heap, and every append to the text would pay a
// write barrier while the collector runs.
type holder interface {
	Value
	heldValues() []Value
}

// holderText writes h's text around its held value i (see holder).
func (p *printer) holderText(h holder, i int) {
	switch h := h.(type) {
	case *closure:
		h.writeText(p, i)
	case *combined:
		h.writeText(p, i)
	case *predicateCombinator:
		h.writeText(p, i)
	case *wherePredicate:
		h.writeText(p, i)
	case *infiniteSeq:
		h.writeText(p, i)
	default:
		p.out.writeString("#<function>")
	}
}

// sortedSet is a set being printed whose elements are printed in their
// own order and then put in order of their text.
type sortedSet struct {
	set    *Set
	depth  int   // the walk depth of the set
	starts []int // where each element's text starts in the writer
}

// print writes v. The error is the walk's: a value nesting deeper than
// the limit (errTooDeep) or the thread's budget; the writer's own limit
// only stops the text (out.stopped).
func (p *printer) print(v Value) error {
	if _, _, isLevel := parts(v); !isLevel {
		p.sawSource = p.sawSource || p.detect && scalarNeedsSource(v)
		p.noteBad(v)
		if p.json != nil {
			p.json.part(-1, v)
		}
		if h, ok := v.(holder); ok {
			p.holderText(h, 0)
		} else {
			p.scalar(v, p.mode == modeSource)
		}
		return nil
	}
	limit := p.limit
	if limit <= 0 {
		limit = MaxValueNesting
	}
	w := newWalk(p.th, v, limit)
	if p.stack != nil {
		w.stack = p.stack[:0]
		defer func() { p.stack = w.stack }()
	}
	p.sourceFrom = -1
	var sorting []sortedSet
	out := p.out
	for ev, at := w.next(); ev != walkDone && !out.stopped() && !(p.untilSource && p.sawSource); ev, at = w.next() {
		if ev == walkLeave {
			p.leave(&w, at, &sorting)
			if n := len(p.keyStarts); n > 0 && p.keyStarts[n-1].depth == w.depth {
				p.keyText += out.size() - p.keyStarts[n-1].at
				p.keyStarts = p.keyStarts[:n-1]
			}
			if p.sourceFrom == w.depth {
				p.sourceFrom = -1
			}
			continue
		}
		source := p.inSource(w.depth)
		p.separate(&w, sorting)
		if w.entered() && hashedWhole(w.parent(), w.index, at) {
			p.keyStarts = append(p.keyStarts, keyStart{depth: w.depth, at: out.size()})
		}
		if isPlainScalar(at) && !p.bare {
			p.scalarRun(&w, at, source, sorting)
			continue
		}
		p.readCost += readNodeCost(at)
		if p.meta {
			if err := p.metaPrefix(at); err != nil {
				return err
			}
		}
		if p.record(&w, at) {
			continue
		}
		if p.json != nil {
			p.json.part(w.index, at)
		}
		switch x := at.(type) {
		case String, Int, Keyword, Float, Bool, NilType: // the commonest first
			if p.liftedKey(&w) {
				at = stripNamespace(x)
			}
			p.scalar(at, source)
		case *Vector:
			switch {
			case !x.IsList():
				out.writeByte('[')
			case source:
				out.writeString("(list") // in code a list is the call that makes it
			default:
				out.writeByte('(')
			}
		case *Map:
			if x.class() != nil {
				out.writeString(x.class().opening())
			} else if ns := p.liftedNamespace(x, source); ns != "" {
				out.writeString("#:" + ns + "{")
				p.lifted = append(p.lifted, w.depth)
			} else {
				out.writeByte('{')
			}
			if p.clojureOrder && !source && w.entered() && x.isHashMap() && scalarKeys(x) {
				entries, err := x.seqEntries(p.th)
				if err != nil {
					return err
				}
				w.enterEntries(entries)
			}
		case *Set:
			out.writeString("#{")
			if x.Len() < 2 || out.counting || !source && !p.textOrder && orderOf(x) != nil {
				break
			}
			if p.clojureOrder && !source && orderOf(x) == nil && scalarElems(x.elems) {
				if w.entered() {
					elems, err := x.seqElems(p.th)
					if err != nil {
						return err
					}
					w.enterWith(elems)
				}
				break
			}
			if source {
				order, err := p.setOrder(x)
				if err != nil {
					return err
				}
				w.enterWith(order)
				break
			}
			sorting = append(sorting, sortedSet{set: x, depth: w.depth})
		case *list:
			out.writeByte('(')
		case *mapForm:
			if x.class != nil {
				out.writeString(x.class.opening())
			} else {
				out.writeByte('{')
			}
		case *setForm:
			out.writeString("#{")
		case *metaForm:
			out.writeByte('^')
		case holder:
			p.sawSource = true
			if !w.entered() {
				p.holderText(x, 0)
			} else if p.sourceFrom < 0 {
				p.sourceFrom = w.depth
			}
		default:
			p.sawSource = p.sawSource || p.detect && scalarNeedsSource(x)
			p.noteBad(x)
			if p.liftedKey(&w) {
				x = stripNamespace(x)
			}
			p.scalar(x, source)
		}
	}
	return w.err
}

// liftedNamespace is the namespace m prints under, #:ns{...}, when the
// printer prints namespace maps: that of its keys when every key is a
// keyword or symbol with that one namespace, as Clojure's lift-ns; ""
// otherwise (an empty map, a record, a key with none or another).
func (p *printer) liftedNamespace(m *Map, source bool) string {
	if !p.namespaceMaps || source || m.Len() == 0 {
		return ""
	}
	shared := ""
	for _, e := range m.entries {
		var name string
		switch k := e.Key.(type) {
		case Keyword:
			name = string(k)
		case symbol:
			name = string(k)
		default:
			return ""
		}
		ns, _, qualified := cutNamespace(name)
		if !qualified || ns == "" || shared != "" && ns != shared {
			return ""
		}
		shared = ns
	}
	return shared
}

// liftedKey reports whether the value the walk just reached is a key of
// a map printed as #:ns{...}, which prints without its namespace.
func (p *printer) liftedKey(w *walk) bool {
	n := len(p.lifted)
	return n > 0 && p.lifted[n-1] == w.depth-1 && w.index%2 == 0
}

// stripNamespace is the keyword or symbol k without its namespace.
func stripNamespace(k Value) Value {
	switch k := k.(type) {
	case Keyword:
		_, name, _ := cutNamespace(string(k))
		return Keyword(name)
	case symbol:
		_, name, _ := cutNamespace(string(k))
		return symbol(name)
	}
	return k
}

// noteBad records v as the printer's bad part when it looks for one, v
// is the first, and findBad refuses it.
func (p *printer) noteBad(v Value) {
	if p.findBad != nil && p.bad == nil && p.findBad(v) {
		p.bad = v
	}
}

// record writes at whole when it is a record: a vector or map of only
// strings, numbers, keywords, booleans and nils, most of what values hold,
// for a writer that keeps its bytes and charges no thread, when at may be
// entered and its text is not hashed whole. Its parts are then not
// visited: the walk, its events and the separators of each part cost more
// than writing the record's bytes.
func (p *printer) record(w *walk, at Value) bool {
	out := p.out
	if p.bare || p.namespaceMaps || out.th != nil || out.counting || out.stopped() || !w.entered() || len(w.stack) >= w.limit {
		return false // (a namespace map's keys print apart)
	}
	var elems []Value
	var entries []MapEntry
	switch x := at.(type) {
	case *Vector:
		if x.IsList() {
			return false
		}
		if p.known != nil && len(w.stack)+1 < w.limit && p.knownRecords(w, x) {
			return true
		}
		elems = x.elems
	case *Map:
		if rec := p.known.record(x, &p.nearRecord); rec != nil && (w.index < 0 || !hashedWhole(w.parent(), w.index, at)) {
			if p.json != nil {
				p.json.record(w.index, x)
			}
			p.copyRecord(w, rec.text)
			return true
		}
		entries = x.entries
	default:
		return false
	}
	if out.limit > 0 && int64(len(elems)+len(entries)) > out.room() {
		return false // it cannot fit: the walk stops at the limit, this scan would not
	}
	for _, e := range elems {
		if !isPlainScalar(e) {
			return false
		}
	}
	for _, e := range entries {
		if !isPlainScalar(e.Key) || !isPlainScalar(e.Val) {
			return false
		}
	}
	if w.index >= 0 && hashedWhole(w.parent(), w.index, at) {
		return false
	}
	source := p.inSource(w.depth + 1)
	before := len(out.buf)
	saw := p.sawSource
	p.sawSource = false // of this record, for spans
	// Past the writer's limit the record stops (a record of one large
	// string many times).
	room := out.room()
	buf := out.buf
	if _, isMap := at.(*Map); !isMap {
		buf = append(buf, '[')
		for i, e := range elems {
			if int64(len(buf)-before) > room {
				break
			}
			if i > 0 {
				buf = append(buf, ' ')
			}
			buf = p.appendPart(buf, cutScalar(e, room), source)
		}
		buf = append(buf, ']')
	} else {
		if c := at.(*Map).class(); c != nil {
			buf = append(buf, c.opening()...)
		} else {
			buf = append(buf, '{')
		}
		for i, e := range entries {
			if int64(len(buf)-before) > room {
				break
			}
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = append(p.appendPart(buf, cutScalar(e.Key, room), source), ' ')
			buf = p.appendPart(buf, cutScalar(e.Val, room), source)
		}
		buf = append(buf, '}')
	}
	if m, ok := at.(*Map); ok && p.spans != nil && p.detect && !p.sawSource {
		p.spans[m] = [2]int{before, len(buf)}
	}
	p.sawSource = saw || p.sawSource
	if p.json != nil {
		p.json.record(w.index, at)
	}
	p.took(w, buf, before)
	return true
}

// knownRecords writes v, a vector reached last whose elements are all
// records with known texts (RecordTexts), by copying those texts, and
// reports whether it did: a program's filtered data is mostly that. The
// records count as the walk would have counted them.
func (p *printer) knownRecords(w *walk, v *Vector) bool {
	if len(v.elems) == 0 || w.index >= 0 && hashedWhole(w.parent(), w.index, v) {
		return false
	}
	out := p.out
	room, before := out.room(), len(out.buf)
	buf := append(out.buf, '[')
	var cost int64
	for i, e := range v.elems {
		m, ok := e.(*Map)
		if !ok {
			return false // out.buf is as it was: buf's bytes past it are dropped
		}
		rec := p.known.record(m, &p.nearRecord)
		if rec == nil {
			return false
		}
		if int64(len(buf)-before) > room {
			continue // past the limit: only checking that every element is known
		}
		if i > 0 {
			buf = append(buf, ' ')
		}
		buf = append(buf, rec.text...)
		cost += rec.cost
	}
	buf = append(buf, ']')
	p.readCost += cost
	if j := p.json; j != nil {
		j.part(w.index, v)
		for i, e := range v.elems {
			j.part(i, e)
			j.entries(nil, e.(*Map).entries)
			j.close(nil)
		}
		j.close(nil)
	}
	p.took(w, buf, before)
	w.height = 2
	return true
}

// copyRecord writes text, a record's known text (RecordTexts), in place
// of printing the record reached last.
func (p *printer) copyRecord(w *walk, text string) {
	before := len(p.out.buf)
	if room := p.out.room(); int64(len(text)) > room {
		text = text[:room+1]
	}
	p.took(w, append(p.out.buf, text...), before)
}

// took makes buf, which the writer's bytes from before on were extended
// to, the writer's bytes (cut at its limit), and leaves the record reached
// last unentered, one level high.
func (p *printer) took(w *walk, buf []byte, before int) {
	out := p.out
	out.buf = buf
	if out.limit > 0 {
		out.n += int64(len(buf) - before)
		if over := out.n - out.limit; over > 0 {
			out.buf, out.n, out.full = buf[:int64(len(buf))-over], out.limit, true
		}
	}
	w.skip()
	w.height = 1
}

// cutScalar is v, or for a string longer than room bytes its first
// room+1 bytes: appended straight to a writer's bytes, a large string
// would be copied whole before the writer's limit cut it.
func cutScalar(v Value, room int64) Value {
	if s, ok := v.(String); ok && int64(len(s)) > room {
		return s[:room+1]
	}
	return v
}

// appendPart appends a record's part (see record), noting a keyword whose
// source differs from its EDN when the printer detects those.
func (p *printer) appendPart(buf []byte, v Value, source bool) []byte {
	if k, ok := v.(Keyword); ok && p.detect && !keywordReads(string(k)) {
		p.sawSource = true
	}
	return appendScalar(buf, v, source)
}

// isPlainScalar reports whether v is one of the commonest scalars.
func isPlainScalar(v Value) bool {
	switch v.(type) {
	case String, Int, Keyword, Float, Bool, NilType:
		return true
	}
	return false
}

// scalarRun writes at, a string, number, keyword, boolean or nil, and
// the ones that follow it in its level (nextScalar), most of what values
// hold: for the host's printing (no limit, no thread) straight into the
// writer's bytes.
func (p *printer) scalarRun(w *walk, at Value, source bool, sorting []sortedSet) {
	out := p.out
	parent := w.parent()
	var kind byte // of the parent: 'm' a map, 'h' anything but a vector, set or list
	switch parent.(type) {
	case *Map, *mapForm:
		kind = 'm'
	case *Vector, *Set, *list, *setForm:
	default:
		kind = 'h'
	}
	if out.th != nil || out.counting || kind == 'h' || len(p.lifted) > 0 {
		for at != nil {
			p.sawSource = p.sawSource || p.detect && scalarNeedsSource(at)
			if p.json != nil {
				p.json.part(w.index, at)
			}
			if p.liftedKey(w) {
				at = stripNamespace(at)
			}
			writeScalar(out, at, source)
			if at, _ = w.nextScalar(); at != nil {
				p.separate(w, sorting)
			}
		}
		return
	}
	var sorted *sortedSet // the set being sorted that at is in, if any
	if n := len(sorting); n > 0 && sorting[n-1].depth == w.depth-1 {
		sorted = &sorting[n-1]
	}
	room, before := out.room(), len(out.buf)
	if isBigNumber(at) && !out.chargeNumber(at) {
		return
	}
	buf := appendScalar(out.buf, cutScalar(at, room), source)
	p.sawSource = p.sawSource || p.detect && scalarNeedsSource(at)
	if p.json != nil {
		p.json.part(w.index, at)
	}
	// Each part takes a byte at least: a text with a limit takes no more
	// parts than its room, however long the run.
	elems, entries, from, to := w.takeScalars(int(min(room, math.MaxInt32)))
	for i := from; i < to; i++ {
		var x Value
		if elems != nil {
			x = elems[i]
		} else if e := entries[i/2]; i%2 == 0 {
			x = e.Key
		} else {
			x = e.Val
		}
		switch {
		case kind != 'm', i%2 == 1:
			buf = append(buf, ' ')
		default:
			buf = append(buf, ", "...)
		}
		if sorted != nil {
			sorted.starts = append(sorted.starts, len(buf))
		}
		if k, ok := x.(Keyword); ok && p.detect && !keywordReads(string(k)) {
			p.sawSource = true
		}
		if int64(len(buf)-before) > room {
			break // a shared string printed many times: stop at the limit
		}
		if isBigNumber(x) && !out.chargeNumberIn(x, room-int64(len(buf)-before)) {
			break
		}
		buf = appendScalar(buf, cutScalar(x, room), source)
		if p.json != nil {
			p.json.part(i, x)
		}
	}
	if out.limit > 0 {
		// Past the limit the writer is full, its text cut at the limit,
		// as writeString leaves it.
		out.n += int64(len(buf) - len(out.buf))
		if over := out.n - out.limit; over > 0 {
			buf, out.n, out.full = buf[:int64(len(buf))-over], out.limit, true
		}
		if out.full {
			out.n = out.limit // a number too long for the room was not written
		}
	}
	out.buf = buf
}

// appendScalar appends what writeScalar writes for a string, number,
// keyword, boolean or nil.
func appendScalar(buf []byte, v Value, source bool) []byte {
	switch v := v.(type) {
	case String:
		return appendQuoted(buf, string(v))
	case Int:
		return strconv.AppendInt(buf, int64(v), 10)
	case *BigInt:
		return appendBigScalar(buf, v, source)
	case *BigDec:
		return appendDecText(buf, v, true)
	case Float:
		return append(buf, formatFloat(float64(v))...)
	case Float32:
		return append(buf, formatFloat32(v)...)
	case Keyword:
		if source && !keywordReads(string(v)) {
			return append(appendQuoted(append(buf, "(keyword "...), string(v)), ')')
		}
		return append(append(buf, ':'), v...)
	case Bool:
		return strconv.AppendBool(buf, bool(v))
	}
	return append(buf, "nil"...)
}

// separate writes what comes before a part of a collection or holder: a
// space, a map's comma, a holder's text; for a set being sorted it notes
// where the element starts.
func (p *printer) separate(w *walk, sorting []sortedSet) {
	if w.index < 0 {
		return
	}
	switch parent := w.parent().(type) {
	case *Map, *mapForm:
		switch {
		case w.index%2 == 1:
			p.out.writeByte(' ')
		case w.index > 0:
			p.out.writeString(", ")
		}
	case *Vector:
		if w.index > 0 || parent.IsList() && p.inSource(w.depth-1) {
			p.out.writeByte(' ')
		}
	case *Set, *list, *setForm:
		if w.index > 0 {
			p.out.writeByte(' ')
		}
	case holder:
		p.holderText(parent, w.index)
	default:
		if w.index > 0 {
			p.out.writeByte(' ')
		}
	}
	if n := len(sorting); n > 0 && sorting[n-1].depth == w.depth-1 {
		sorting[n-1].starts = append(sorting[n-1].starts, len(p.out.buf))
	}
}

// leave writes what closes the value whose parts were all printed; a set
// being sorted is put in order first.
func (p *printer) leave(w *walk, at Value, sorting *[]sortedSet) {
	switch x := at.(type) {
	case *Vector:
		if x.IsList() {
			p.out.writeByte(')')
		} else {
			p.out.writeByte(']')
		}
		if p.json != nil {
			p.json.close(nil)
		}
	case *Map:
		p.out.writeByte('}')
		if n := len(p.lifted); n > 0 && p.lifted[n-1] == w.depth {
			p.lifted = p.lifted[:n-1]
		}
		if p.json != nil {
			p.json.close(nil)
		}
	case *mapForm:
		p.out.writeByte('}')
	case *Set:
		var order []int
		if n := len(*sorting); n > 0 && (*sorting)[n-1].depth == w.depth {
			order = p.sortSet((*sorting)[n-1])
			*sorting = (*sorting)[:n-1]
		}
		if p.json != nil {
			p.json.close(order)
		}
		p.out.writeByte('}')
	case *setForm:
		p.out.writeByte('}')
	case *list:
		p.out.writeByte(')')
	case holder:
		p.holderText(x, len(x.heldValues()))
	}
}

// scalarElems reports whether no element of elems is a collection: a set
// of those prints in Clojure's order, found by hashing each element once.
// A set of collections keeps the order of its text, as the hash of a
// collection walks all it holds, and sets nested in sets would be walked
// once a level.
func scalarElems(elems []Value) bool {
	for _, e := range elems {
		if _, _, isLevel := parts(e); isLevel {
			return false
		}
	}
	return true
}

// scalarKeys is scalarElems for the keys of m.
func scalarKeys(m *Map) bool {
	for _, e := range m.entries {
		if _, _, isLevel := parts(e.Key); isLevel {
			return false
		}
	}
	return true
}

// sortSet puts the elements of s, each printed once, in order of their
// text, remembers the order (setOrder) and returns it, as the positions
// the elements were printed in (nil when the text stopped).
func (p *printer) sortSet(s sortedSet) []int {
	if p.out.stopped() || len(s.starts) != s.set.Len() {
		return nil
	}
	buf := p.out.buf
	start := s.starts[0]
	spans := make([][2]int, len(s.starts))
	for i, at := range s.starts {
		end := len(buf)
		if i+1 < len(s.starts) {
			end = s.starts[i+1] - 1 // the space before the next
		}
		spans[i] = [2]int{at - start, end - start}
	}
	idx := make([]int, len(spans))
	for i := range idx {
		idx[i] = i
	}
	text := func(i int) []byte { return buf[start+spans[i][0] : start+spans[i][1]] }
	slices.SortStableFunc(idx, func(a, b int) int { return bytes.Compare(text(a), text(b)) })
	ordered := make([][2]int, len(idx))
	for i, j := range idx {
		ordered[i] = spans[j]
	}
	if p.orders != nil {
		elems := make([]Value, len(idx))
		for i, j := range idx {
			elems[i] = s.set.elems[j]
		}
		p.orders[s.set] = elems
	}
	p.out.rearrange(start, ordered, ' ')
	return idx
}

// shownOrderFactor bounds the text a bounded, uncharged print (shownIn)
// writes to find the order of a set: this many times its own bound.
const shownOrderFactor = 4

// setOrder returns the elements of s in the order of their EDN text, the
// order in which every text of a set lists them, found by printing s as
// EDN once (which finds the order of every set inside it too).
func (p *printer) setOrder(s *Set) ([]Value, error) {
	if order, ok := p.orders[s]; ok {
		return order, nil
	}
	if p.orders == nil {
		p.orders = map[*Set][]Value{}
	}
	t := textWriter{th: p.out.th}
	if t.th == nil && p.out.limit > 0 {
		// A bounded text no thread pays for (an error message's value):
		// the order would cost the set's whole text, so a set whose text
		// passes a multiple of the bound shows in its own order.
		t.limit = shownOrderFactor * p.out.limit
	}
	keys := printer{out: &t, mode: modeRepr, th: p.th, limit: p.limit, orders: p.orders, textOrder: true}
	if err := keys.print(s); err != nil {
		return nil, err
	}
	if t.full {
		return s.elems, nil
	}
	if err := t.finish(); err != nil {
		return nil, err
	}
	return p.orders[s], nil
}

// scalar writes a value that holds no other.
func (p *printer) scalar(v Value, source bool) {
	if s, ok := v.(String); ok && p.bare {
		p.out.writeString(string(s))
		return
	}
	writeScalar(p.out, v, source)
	if p.checkNumbers && p.longNumber == nil && p.out.err == nil {
		switch v.(type) {
		case *BigInt, *BigDec:
			if reads, err := numberTextReads(p.out.numberThread(), v); err != nil {
				p.out.err = err
			} else if !reads {
				p.longNumber = v
			}
		}
	}
}

// scalarNeedsSource reports whether v, a value that holds no other, is
// written differently as source than as EDN.
func scalarNeedsSource(v Value) bool {
	switch v := v.(type) {
	case NilType, Bool, Int, Float, Float32, String, *BigDec:
		return false
	case *BigInt:
		return v.integer // (biginteger n) as source
	case Keyword:
		return !keywordReads(string(v))
	}
	return true // symbols, regexes, functions, vars
}

// writeScalar writes a value that holds no other, as EDN or as source.
func writeScalar(out *textWriter, v Value, source bool) {
	var small [32]byte
	switch v := v.(type) {
	case NilType:
		out.writeString("nil")
	case Bool:
		out.write(strconv.AppendBool(small[:0], bool(v)))
	case Int:
		out.write(strconv.AppendInt(small[:0], int64(v), 10))
	case *BigInt:
		if out.chargeNumber(v) {
			out.write(appendBigScalar(small[:0], v, source))
		}
	case *BigDec:
		if out.chargeNumber(v) {
			out.write(appendDecText(small[:0], v, true))
		}
	case Float:
		out.writeString(formatFloat(float64(v)))
	case Float32:
		out.writeString(formatFloat32(v))
	case String:
		out.writeByte('"')
		writeEscaped(out, string(v))
		out.writeByte('"')
	case Keyword:
		if source && !keywordReads(string(v)) {
			out.writeString("(keyword ")
			writeScalar(out, String(v), false)
			out.writeByte(')')
			return
		}
		out.writeByte(':')
		out.writeString(string(v))
	case symbol:
		if source && !slashesRead(string(v)) {
			out.writeString("(symbol ")
			writeScalar(out, String(v), false)
			out.writeByte(')')
			return
		}
		if source {
			out.writeString("(quote ")
			out.writeString(string(v))
			out.writeByte(')')
			return
		}
		out.writeString(string(v))
	case *varRef:
		if source {
			// EDN has no #' (Clojure's EDN reader: "No dispatch macro"),
			// so a value's wire text spells a var as the form that makes it.
			out.writeString("(var ")
			out.writeString(v.qualifiedName())
			out.writeByte(')')
			return
		}
		out.writeString("#'")
		out.writeString(v.qualifiedName())
	case javaClass:
		out.writeString(string(v)) // as source, the class name resolves to it
	case *regex:
		if source {
			// Its pattern as a string literal reads back exactly, where
			// #"..." cannot hold a pattern ending in a backslash before
			// a quote.
			out.writeString("(re-pattern ")
			writeScalar(out, String(v.source), false)
			out.writeByte(')')
			return
		}
		out.writeString(`#"`)
		out.writeString(regexLiteralBody(v.source))
		out.writeByte('"')
	case *Builtin:
		if source {
			out.writeString(v.Name)
			return
		}
		out.writeString("#fn[")
		out.writeString(v.Name)
		out.writeByte(']')
	case *toolFunc:
		out.writeString("tool/")
		out.writeString(v.Name)
	default:
		out.writeString("#<")
		out.writeString(v.TypeName())
		out.writeByte('>')
	}
}

// writeEscaped writes s with the escapes of a string literal. Only as
// much of s is looked at as the writer has room for: a message that shows
// 40 characters of a megabyte string scans those, not the megabyte.
func writeEscaped(out *textWriter, s string) {
	s = escapedWithin(s, out.room())
	for start := 0; ; {
		i, esc, n := nextEscape(s, start)
		out.writeString(s[start:i])
		if n == 0 {
			return
		}
		out.writeString(esc)
		start = i + n
	}
}

// form writes a code form (a function's source) as EDN, through the same
// writer: a form nests no deeper than the reader allows.
func (p *printer) form(f Value) {
	sp := takeWalkStack()
	fp := printer{out: p.out, mode: modeRepr, th: p.th, stack: *sp}
	if err := fp.print(f); err != nil {
		p.out.writeString("...")
	}
	putWalkStack(sp, fp.stack)
}

func appendQuoted(buf []byte, s string) []byte {
	return append(appendEscaped(append(buf, '"'), s), '"')
}

// WriteEscaped appends s with the escapes of a PTC-Lisp string literal
// (\", \\, \n, \t, \r) and without the quotes, so that renderers that
// shorten a string first escape it by the same rule. A byte that is not
// valid UTF-8 is written as U+FFFD, so the output is always valid UTF-8
// (it ends up in proto strings).
func WriteEscaped(b *strings.Builder, s string) {
	for start := 0; ; {
		i, esc, n := nextEscape(s, start)
		b.WriteString(s[start:i])
		if n == 0 {
			return
		}
		b.WriteString(esc)
		start = i + n
	}
}

// appendEscaped is WriteEscaped appending to buf.
func appendEscaped(buf []byte, s string) []byte {
	for start := 0; ; {
		i, esc, n := nextEscape(s, start)
		buf = append(buf, s[start:i]...)
		if n == 0 {
			return buf
		}
		buf = append(buf, esc...)
		start = i + n
	}
}

// escapedWithin is the part of s whose escaped text fills room bytes and
// passes it: every byte escapes to one byte or more, so room+1 bytes do,
// carried to the end of a character cut there (at most utf8.UTFMax-1 bytes
// more), so that what fits in room is what all of s writes there.
func escapedWithin(s string, room int64) string {
	if int64(len(s)) <= room {
		return s
	}
	cut := int(room) + 1
	for end := cut + utf8.UTFMax - 1; cut < len(s) && cut < end && !utf8.RuneStart(s[cut]); {
		cut++
	}
	return s[:cut]
}

// nextEscape finds the first byte at or after i that a string literal
// escapes: its position, its escape and the number of bytes it replaces
// (len(s), "", 0 when there is none).
func nextEscape(s string, i int) (at int, esc string, n int) {
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return i, string(utf8.RuneError), 1
			}
			i += size - 1
		case c == '"':
			return i, `\"`, 1
		case c == '\\':
			return i, `\\`, 1
		case c == '\n':
			return i, `\n`, 1
		case c == '\t':
			return i, `\t`, 1
		case c == '\r':
			return i, `\r`, 1
		}
	}
	return len(s), "", 0
}

// formatFloat prints a double as Clojure does (Java's Double.toString):
// the shortest digits that read back to the same value, plain between 1e-3
// and 1e7 ("3.3000000000000003", "1.0"), else scientific ("1.0E7", "1.5E-4").
func formatFloat(f float64) string {
	return javaFloatText(f, 64)
}

// formatFloat32 prints a 32-bit float as Clojure does (Java's
// Float.toString): the shortest digits that read back to the same 32-bit
// value, (float 1/3) is 0.33333334, in the layout of formatFloat.
func formatFloat32(f Float32) string {
	return javaFloatText(float64(f), 32)
}

// javaFloatText is f's text in Java's layout, with the shortest digits
// that identify it among floats of bits bits.
func javaFloatText(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "##NaN"
	case math.IsInf(f, 1):
		return "##Inf"
	case math.IsInf(f, -1):
		return "##-Inf"
	}
	abs := math.Abs(f)
	if abs == 0 || (abs >= 1e-3 && abs < 1e7) {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, bits) // e.g. "1.5e-04", "1e+07"
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// regexLiteralBody is a pattern as the body of a #"..." literal: a quote
// the pattern already escapes (\", as a literal holds it) is kept, and one
// it does not is escaped, which matches the same quote. Clojure prints the
// pattern as it is, which for a bare quote does not read back.
func regexLiteralBody(pattern string) string {
	var b strings.Builder
	escaped := false // the previous character is an escaping backslash
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		if c == '"' && !escaped {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
		escaped = c == '\\' && !escaped
	}
	return b.String()
}
