package lisp

import (
	"context"
	"math"
	"slices"
	"strconv"
	"sync"
)

// What a turn emits (its result, the memory it leaves, the arguments of
// its tool calls, its prints) travels back to the caller as EDN text, and
// the memory comes back in the next request. Values share structure, so a
// program that fits the allocation budget can still build a value that
// prints as many megabytes ((vec (repeat 60 s)) of a 1 MB s prints 60 MB);
// Limits.MaxEmitBytes keeps every turn small enough to be sent and sent
// back.

// printedSize is the length of v's text on the wire (sourceText), shared
// structure counted as printed, or some number above limit once it is
// known to pass limit: it is the printer counting, so it reads every part
// of v it counts and its work is bounded by limit, not by v. weightOf, a
// lower bound on the printed size known without a walk, refuses a huge
// value at once.
//
// The walk also stops, reporting deep, at a value nested more than
// maxNesting levels.
func printedSize(v Value, limit int64, maxNesting int) (size int64, deep bool) {
	if weightOf(v) > limit {
		return weightOf(v), false
	}
	t := textWriter{counting: true, limit: limit + 1}
	p := printer{out: &t, mode: modeSource, limit: maxNesting}
	if err := p.print(v); err == errTooDeep {
		return t.size(), true
	}
	return t.size(), false
}

// A collection that is a set element or a map key is hashed whole when the
// set or map is built: its text, once for each set or map it is inside. A
// set nested in a set a thousand levels deep is hashed a thousand times,
// work and keys growing with the square of its text, so reading such a
// value took minutes and gigabytes for a few hundred kilobytes. The reader
// refuses an EDN value whose collections in those places add up to more
// than keyTextPerByte times its text, and a turn may not emit one, so
// that what a turn emits is always read back.
const keyTextPerByte = 2

// keyTextLimit is the most text of collections hashed whole that a value
// of size bytes of text may hold.
func keyTextLimit(size int64) int64 { return keyTextPerByte * size }

const keyTextHint = "nest sets in sets, or collections as map keys, a few levels at most; use vectors, or keywords and strings as keys, for deeper data"

// hashedWhole reports whether at, reached at index of parent, is a
// collection that building parent hashes whole: a set's element or a
// map's key.
func hashedWhole(parent Value, index int, at Value) bool {
	switch at.(type) {
	case *Vector, *Map, *Set:
	default:
		return false
	}
	switch parent.(type) {
	case *Set:
		return true
	case *Map:
		return index%2 == 0
	}
	return false
}

// readsBack refuses v, whose wire text (see wireText) the reader would
// refuse: its collections hashed whole pass keyTextLimit, or what it
// costs once read passes ReadCostLimit. what names v in the error.
func readsBack(v Value, maxNesting int, what string) *Error {
	if _, _, isLevel := parts(v); !isLevel {
		return nil
	}
	t := textWriter{counting: true}
	p := printer{out: &t, mode: modeRepr, limit: maxNesting, detect: true, checkNumbers: true}
	err := p.print(v)
	if err == nil && p.sawSource {
		// Sent as source, it is read back by running it, within a budget
		// of its own: only its hashing is the reader's.
		t = textWriter{counting: true}
		p = printer{out: &t, mode: modeSource, limit: maxNesting, checkNumbers: true}
		err = p.print(v)
		p.readCost = 0
	}
	switch {
	case err != nil: // too deep, refused as such
	case p.longNumber != nil:
		return longNumberError(what, p.longNumber)
	case p.keyText > keyTextLimit(t.size()):
		return keyTextError(what)
	case p.readCost > ReadCostLimit(t.size()):
		return readCostError(what, p.readCost, t.size())
	}
	return nil
}

// ReadsBack reports why v, a value read from the wire in some other
// notation (JSON), would not read back from the wire text the sidecar
// writes for it, nil when it would; what names v in the error.
func ReadsBack(v Value, maxNesting int, what string) error {
	if err := readsBack(v, maxNesting, what); err != nil {
		return err
	}
	return nil
}

// keyTextError is the failure of a turn that would emit a value whose
// sets and map keys nest too deeply to be read back.
func keyTextError(what string) *Error {
	return Errorf(depthLimit, "%s holds sets or map keys nested too deeply in one another to be read back: each collection that is a set element or a map key is hashed whole, once for every set or map it is inside", what).
		WithHint(keyTextHint)
}

// longNumberError is the refusal of a value holding n, a number whose
// text has more digits than the reader reads back.
func longNumberError(what string, n Value) *Error {
	return Errorf(validationError, "%s holds %s of more than %d digits, or a decimal exponent past Java's int, which would not read back", what, withArticle(n.TypeName()), maxBigDigits).
		WithHint("send a number of at most %d digits, or its text: (str n)", maxBigDigits)
}

// emitError is the failure of a turn whose emitted text would pass the
// limit; what names the part that did.
func emitError(what string, size, limit int64) *Error {
	return Errorf(emitLimit, "%s would print as %s, more than the limit of %s on what a turn sends back",
		what, byteCount(size), byteCount(limit)).
		WithHint("return or def a summary instead (count, take, select-keys, first); keep large intermediate values in a let inside the program")
}

// byteCount writes n bytes for a person.
func byteCount(n int64) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// emitted is what emitText found of a value.
type emitted struct {
	text string
	size int64 // of text, or some number above room when it did not fit
	// ok says text is the value's wire text, within room; deep that the
	// value nests deeper than allowed; bad why its text would not read
	// back.
	ok, deep bool
	bad      *Error
	// readCost is what the value costs once read back (its collections'
	// readNodeCost), as the EDN print counted it.
	readCost int64
	// json is the value's JSON (EncodeJSON), when asked for and it has
	// one (hasJSON).
	json    string
	hasJSON bool
	// noText is, with withJSON, the first part of the value that has no
	// wire text (unstorable), nil when none.
	noText Value
}

// emitText is the one way a value goes out: it prints v once as the wire
// writes it (wireText: EDN, or the source of what EDN cannot spell, which
// is printed a second time only for such a value) and checks, in the
// same pass, everything that must hold for the text to be sent and read
// back: at most room bytes (ok false past them, size then some number
// above room), nesting at most nesting levels as a value (deep) and as
// text (a constructed keyword, a symbol or a regex is written as a call,
// one level more than its place in the value), its sets and map keys
// (keyTextLimit) and what it costs once read (ReadCostLimit). With
// withJSON, for a turn's result, the same walk writes its JSON and finds
// its first part without a wire text (noText); without, the EDN print
// stops where the value turns out to need source. what names v in the
// errors.
//
// th, when not nil, is charged for writing big numbers in decimal
// (bigTextSteps), the same as a program's printing of them: their
// conversion is superlinear in their size, the rest of the print is
// bounded by room. Past its budget e.bad is the thread's error.
func emitText(th *Thread, v Value, room int64, nesting int, known *RecordTexts, what string, withJSON bool) (e emitted) {
	if w := weightOf(v); w > room {
		e.size = w
		return e
	}
	es := emitStates.Get().(*emitState)
	defer es.release()
	if es.stack == nil {
		es.stack = make([]walkLevel, 0, 8)
	}
	t := &es.t
	*t = textWriter{buf: t.buf[:0], scratch: t.scratch[:0], limit: room + 1, numbers: th}
	p := printer{out: t, mode: modeRepr, limit: nesting, detect: true, checkNumbers: true, textOrder: true, known: known,
		untilSource: !withJSON, stack: es.stack}
	if withJSON {
		p.findBad = unstorable
		// The JSON is bounded by the same room as the text: JSON escapes
		// a control character in six bytes where the text writes it in
		// one, and a 1.9 MB text of them wrote 11.7 MB of JSON the turn
		// then could not send.
		es.js = jsonText{out: textWriter{buf: es.js.out.buf[:0], scratch: es.js.out.scratch[:0], numbers: th, limit: room + 1}, opened: es.js.opened[:0], names: es.js.names[:0]}
		p.json = &es.js
	}
	err := p.print(v)
	if err == nil && t.err == nil && withJSON {
		err = es.js.out.err
	}
	if err == nil {
		err = t.err
	}
	if withJSON && err == nil && !t.full && !es.js.out.full {
		// Printed whole as EDN: the JSON is whole too. (A value whose
		// source text fits where its EDN did not holds functions, which
		// have no JSON.) A JSON longer than the room is none.
		e.json, e.hasJSON = es.js.text()
	}
	e.noText = p.bad
	source := err == nil && p.sawSource
	if source {
		*t = textWriter{buf: t.buf[:0], scratch: t.scratch[:0], limit: room + 1, numbers: th}
		p = printer{out: t, mode: modeSource, limit: nesting, checkNumbers: true, textOrder: true, known: known, stack: p.stack}
		if err = p.print(v); err == nil {
			err = t.err
		}
	}
	es.stack = p.stack
	e.size, e.readCost = t.size(), p.readCost
	if t.full {
		// A number too long for the room is not written at all.
		e.size = max(e.size, room+1)
	}
	switch {
	case err == errTooDeep:
		e.deep = true
	case err != nil:
		e.bad = asError(err)
	case t.full:
	case p.longNumber != nil:
		e.bad = longNumberError(what, p.longNumber)
	case p.keyText > keyTextLimit(e.size):
		e.bad = keyTextError(what)
	case !source && p.readCost > ReadCostLimit(e.size):
		// Sent as source, it is read back by running it, within a
		// budget of its own: only its hashing is the reader's.
		e.bad = readCostError(what, p.readCost, e.size)
	case source && textNesting(t.buf) > nestingOrDefault(nesting):
		e.bad = Errorf(depthLimit, "%s would be written nested more than %d levels deep: a keyword that does not read as :name, a symbol or a regex is written as the call that makes it, one level deeper than it sits in the value", what, nestingOrDefault(nesting)).
			WithHint("values leaving the program must nest at most %d levels, counting those calls; flatten the data, or use plain keywords or strings", nestingOrDefault(nesting))
	default:
		text := string(t.buf)
		if source {
			if e.bad = sourceReadsBack(th, text, nesting, what); e.bad != nil {
				break
			}
		}
		if e.bad = leastReadBudgetError(text, e.readCost, source, what); e.bad != nil {
			break
		}
		e.text, e.ok = text, true
		return e
	}
	e.json, e.hasJSON = "", false
	return e
}

// sourceCheckedBytes is the longest source text emitted without being
// loaded back first: up to it the budget of loading it (sourceLimits)
// grows with the text, 256 bytes and 4 steps a byte, far more than what
// the printer writes takes to load (20,000 of (comp (map inc) (filter
// odd?)) pass 4 MiB: about 7 bytes a byte of their text); past it the
// budget stops at 4 MiB, which such a text can pass. A turn that defines
// a function (a few hundred bytes of text) does not pay for loading it
// twice. TestEmittedValuesReadBackInEveryField (server) sends small values
// of every kind back.
const sourceCheckedBytes = (4<<20 - 4<<10) / 256

// sourceReadsBack refuses text, the source a value EDN cannot spell is
// written as, when the reader would refuse it: it is read here by
// ReadWire itself, under the same nesting setting, so that what a value
// of source may take to load (sourceLimits, and what the EDN it holds
// costs) has one model, the reader's, not a second one in the emit
// check. Before, a map of 20,000 memoized functions was emitted and then
// refused by every field it was sent back in (memory_limit). Loading it
// costs what reading it back costs, once, and only for a value of source
// of more than sourceCheckedBytes; it runs under th's context, so the
// turn's clock still bounds it.
func sourceReadsBack(th *Thread, text string, nesting int, what string) *Error {
	if len(text) <= sourceCheckedBytes {
		return nil
	}
	// Past what a request of the text alone may hold or take to read
	// (ReadBounds), every field would refuse it before loading it.
	why := sourceOverBounds(text)
	if why == "" {
		ctx := context.Background()
		if th != nil {
			ctx = th.context()
		}
		_, _, err := ReadWire(text, WireRead{Ctx: ctx, MaxNesting: nesting})
		switch {
		case err == nil:
			return nil
		case th != nil && ctx.Err() != nil:
			return th.contextError(ctx.Err())
		}
		why = err.Error()
		if e, ok := err.(*Error); ok {
			why = string(e.Kind) + ": " + e.Message
		}
	}
	return Errorf(emitLimit, "%s would be sent as the source that builds it (it holds functions, regexes, symbols or keywords EDN cannot spell), which would not read back: %s", what, why).
		WithHint("a value of source is read back within %s of memory and a few steps a byte; return or def the data, and keep the functions that make it in the program", byteCount(decodeLimits.MaxAllocBytes))
}

// emitState is what emitText works in: its writers, the JSON's, and the
// walk's stack, kept from one call to the next (emitStates) with their
// room and nothing else.
type emitState struct {
	t     textWriter
	js    jsonText
	stack []walkLevel
}

// emitStates hold the emitStates not in use.
var emitStates = sync.Pool{New: func() any { return new(emitState) }}

// release returns es to emitStates, holding no value: only its buffers'
// room, and only when they are small.
func (es *emitState) release() {
	clear(es.stack[:cap(es.stack)])
	clear(es.js.opened[:cap(es.js.opened)])
	clear(es.js.names[:cap(es.js.names)])
	es.t.th, es.t.numbers, es.t.err, es.js.err, es.js.out.numbers, es.js.out.err = nil, nil, nil, nil, nil, nil
	if cap(es.t.buf) > maxPooledText || cap(es.t.scratch) > maxPooledText ||
		cap(es.js.out.buf) > maxPooledText || cap(es.js.out.scratch) > maxPooledText || cap(es.stack) > maxPooledLevels {
		return
	}
	emitStates.Put(es)
}

// maxPooledLevels bounds the walk stacks kept for reuse (88 KB at most):
// hashing a key as deep reuses one rather than growing its own each time.
const maxPooledLevels = 1024

// walkStacks hold the stacks of walks that end where they start (the
// walk at def, the print of a function's code in its text), which a
// turn makes several of.
var walkStacks = sync.Pool{New: func() any {
	s := make([]walkLevel, 0, 8)
	return &s
}}

// takeWalkStack returns an empty walk stack.
func takeWalkStack() *[]walkLevel {
	sp := walkStacks.Get().(*[]walkLevel)
	*sp = (*sp)[:0]
	return sp
}

// putWalkStack returns sp to walkStacks as the stack a walk grew it to,
// used, cleared of the values it held.
func putWalkStack(sp *[]walkLevel, used []walkLevel) {
	if cap(used) > maxPooledLevels {
		return
	}
	clear(used[:cap(used)])
	*sp = used[:0]
	walkStacks.Put(sp)
}

// textNesting is how deep text, as the printer writes it, nests: the
// most brackets of any kind open at once outside string literals, as the
// reader counts them.
func textNesting(text []byte) int {
	depth, most := 0, 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '"':
			for i++; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' {
					i++
				}
			}
		case '\\':
			i++ // a character literal in a function's code
		case '(', '[', '{':
			if depth++; depth > most {
				most = depth
			}
		case ')', ']', '}':
			depth--
		}
	}
	return most
}

// checkEmitted refuses a finished turn whose prints, warnings, tool-call
// arguments, result and memory together would print as more than the
// limit (spent in that order; the result's JSON last, left out when it
// does not fit: fitJSON), or
// whose result or new memory would not read back (emitText); what names
// the result in that error ("the result", "the fail reason"). The
// result's text and JSON are kept for the host to send, with its first
// part that has no wire text (checkResultParts). Bindings kept unchanged
// from the prelude count the text they came with; a new one keeps the
// text printed here, which Encode sends.
func (p *progState) checkEmitted(th *Thread, what string, result Value, mem *Memory) *Error {
	limit := emitRoom(th.limits)
	nesting := p.env.valueNesting()
	total := p.emitUsed()
	e, err := p.emitPart(th, what, "the result", result, limit, &total, true)
	if err != nil {
		return err
	}
	// The result's JSON is spent last, from what the memory leaves: it
	// repeats the EDN, which is lossless, so a turn without room for it
	// goes back without it rather than refused.
	defer func() { p.emittedJSON = fitJSON(e.json, limit-total) }()
	p.emittedText, p.emittedJSON, p.resultNoText, p.resultPrinted = e.text, e.json, e.noText, true
	if mem == nil {
		return nil
	}
	for _, b := range mem.bindings {
		text := b.source
		if text == "" {
			what := "the value of " + b.Name
			value, err := definedToEmit(th, b.Value, what, nesting)
			if err != nil {
				return asError(err)
			}
			e := emitText(th, value, limit-total, nesting, p.env.DataTexts, what, false)
			switch {
			case e.deep:
				return tooDeepError(what, nesting)
			case e.bad != nil:
				return e.bad
			case !e.ok:
				return emitError("the memory (at "+b.Name+")", total+e.size, limit)
			}
			text = e.text
			if mem != p.env.Prelude {
				b.source = text
			}
		}
		if total += int64(len(text) + len(b.Name) + len(b.Docstring)); total > limit {
			return emitError("the memory (at "+b.Name+")", total, limit)
		}
	}
	p.emitChecked = true
	return nil
}

// emitRoom is the most a turn may send back under l: MaxEmitBytes, or
// as much as a charge counts when it is Unlimited. A turn is printed and
// checked either way: an embedder that lifts the size limit still gets
// only values that read back.
func emitRoom(l Limits) int64 {
	if l.MaxEmitBytes < 0 {
		return maxCharge
	}
	return l.MaxEmitBytes
}

// emitPart checks v, a part of what the turn sends back (emitText, with
// its JSON when withJSON), and adds its size to total; what names it in
// the errors, sizeName in the one of size.
func (p *progState) emitPart(th *Thread, what, sizeName string, v Value, limit int64, total *int64, withJSON bool) (emitted, *Error) {
	nesting := p.env.valueNesting()
	e := emitText(th, v, limit-*total, nesting, p.env.DataTexts, what, withJSON)
	switch {
	case e.deep:
		return e, tooDeepError(what, nesting)
	case e.bad != nil:
		return e, e.bad
	case !e.ok:
		return e, emitError(sizeName, *total+e.size, limit)
	}
	*total += e.size
	return e, nil
}

// fitJSON is json when it fits room, else "": the value goes back as its
// EDN alone, as a value with no JSON form does.
func fitJSON(json string, room int64) string {
	if int64(len(json)) > room {
		return ""
	}
	return json
}

// emitUsed is what the turn sends back before its result: its prints,
// its tool calls' arguments (EDN and JSON) and its warnings.
func (p *progState) emitUsed() int64 {
	return int64(p.outBytes) + p.emittedArgs + p.warnBytes
}

// checkEmitArgs counts the arguments of a tool call towards what the turn
// sends back, and returns their wire text and JSON, printed as they were
// counted, and their first part without a wire text (noText).
func (p *progState) checkEmitArgs(th *Thread, name string, args Value) (text, json string, noText Value, _ *Error) {
	limit := emitRoom(th.limits)
	what := "the arguments of tool/" + name
	total := p.emitUsed()
	e, err := p.emitPart(th, what, what, args, limit, &total, true)
	if err != nil {
		return "", "", nil, err
	}
	// The arguments' JSON follows their EDN, when it fits.
	json = fitJSON(e.json, limit-total)
	p.emittedArgs += e.size + int64(len(json))
	return e.text, json, e.noText, nil
}

// RecordTexts are the texts of the records (maps of only strings,
// numbers, keywords that read back, booleans and nils) of one value read
// from the wire, printed once when it was read. A program that keeps part
// of its data, say the paid orders, has those maps printed back in its
// memory on every turn; with their texts known, emitting them copies
// bytes. The value is frozen and the texts are made with it, never
// after, so that every reader sees them the same.
type RecordTexts struct {
	// records are in the order they print in the value, and at finds
	// one by its map. A program keeps records in their data's order
	// (filter, group-by, remove), so that the next record emitted is
	// most often a few places after the last: look-ups look there first.
	records []knownRecord
	at      map[*Map]int32
	size    int64 // bytes of text, and of the table, for the memo's count
}

// knownRecord is a record, its text and what it costs once read
// (readNodeCost).
type knownRecord struct {
	m    *Map
	text string
	cost int64
}

// nearRecords is how many records after the last one found a look-up
// compares before it hashes.
const nearRecords = 8

// NewRecordTexts prints the records of v, a frozen value, once. It
// returns nil when v holds none.
func NewRecordTexts(v Value) *RecordTexts {
	if _, _, isLevel := parts(v); !isLevel {
		return nil
	}
	t := textWriter{}
	p := printer{out: &t, mode: modeRepr, limit: MaxValueNesting, detect: true, spans: map[*Map][2]int{}}
	if err := p.print(v); err != nil || len(p.spans) == 0 || len(p.spans) > math.MaxInt32 {
		return nil
	}
	type found struct {
		m    *Map
		span [2]int
	}
	all := make([]found, 0, len(p.spans))
	for m, span := range p.spans {
		all = append(all, found{m, span})
	}
	slices.SortFunc(all, func(a, b found) int { return a.span[0] - b.span[0] })
	text := string(t.buf)
	rt := &RecordTexts{records: make([]knownRecord, len(all)), at: make(map[*Map]int32, len(all))}
	for i, f := range all {
		rt.records[i] = knownRecord{m: f.m, text: text[f.span[0]:f.span[1]], cost: readNodeCost(f.m)}
		rt.at[f.m] = int32(i)
	}
	const entryBytes = 64 // a record, its text's header and the table's share
	rt.size = int64(len(text)) + entryBytes*int64(len(rt.records))
	return rt
}

// Size is what the texts take in memory.
func (rt *RecordTexts) Size() int64 {
	if rt == nil {
		return 0
	}
	return rt.size
}

// record returns m's record, nil when m is not one of them. *near is
// where the look-up before it ended (0 for a first), and is moved past m.
func (rt *RecordTexts) record(m *Map, near *int) *knownRecord {
	if rt == nil {
		return nil
	}
	for i := *near; i < len(rt.records) && i < *near+nearRecords; i++ {
		if rt.records[i].m == m {
			*near = i + 1
			return &rt.records[i]
		}
	}
	i, ok := rt.at[m]
	if !ok {
		return nil
	}
	*near = int(i) + 1
	return &rt.records[i]
}

// len is how many records have texts.
func (rt *RecordTexts) len() int {
	if rt == nil {
		return 0
	}
	return len(rt.records)
}
