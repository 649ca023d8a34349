package lisp

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// textWriter is where the printers write. A writer for an evaluation
// charges the thread for text as it is written (its bytes as allocation,
// and a step per 64 of them), so a program pays for the text it builds
// while it builds it, and a text that cannot fit in the budget stops at
// the budget rather than after it was built. A writer may also stop at a
// limit of its own (the output and emit limits, the few hundred bytes an
// error message shows of a value), or only count the bytes it is given
// (the emit check measures what a turn would print).
type textWriter struct {
	buf      []byte
	scratch  []byte // rearrange's copy, reused
	n        int64  // bytes written, kept or not (a writer without limit, thread or count keeps no n)
	limit    int64  // the most bytes it takes; 0: no limit
	counting bool   // keep no bytes, only count them
	full     bool   // a write passed the limit; the text stops there
	th       *Thread
	// numbers, for a writer that charges th nothing (the turn's own
	// emitted text), is charged for writing big numbers in decimal
	// (bigTextSteps), the one conversion whose work outgrows its bytes.
	numbers *Thread
	charged int64 // of n, what the thread has been charged
	// grown is the capacity a buffer grown from empty as reserve grows
	// it has at the bytes written: a writer that charges a thread
	// grows its buffer so, and is charged each capacity it grows through,
	// whether or not its buffer came from a pool with room, so that the
	// same program is charged the same every run.
	grown int64
	err   error // the thread's budget ran out
}

// textChargeChunk is how many bytes a writer gathers before it charges
// them: often enough that no text outgrows the budget by much, seldom
// enough to cost nothing next to the writing.
const textChargeChunk = 1024

// firstTextBuffer is the capacity a writer that charges a thread first
// grows its buffer to.
const firstTextBuffer = 64

// reserve makes room in the buffer of a writer that charges a thread for
// extra more bytes, and reports whether it could. The buffers a long text
// outgrows are allocation as much as the text is: growing to at least
// twice the last, they come to at most four times the text, and each is
// charged before it is allocated, so a text whose buffers pass the budget
// stops there. A write past twice the last grows the buffer to a quarter
// more than it needs, so that a long string with a few bytes around it
// takes one buffer. (Go's append grows a long slice by a quarter,
// allocating about five times the text.)
func (t *textWriter) reserve(extra int) bool {
	need := int64(len(t.buf)) + int64(extra)
	if need > t.grown {
		t.grown = max(2*t.grown, need+need/4, firstTextBuffer)
		if err := t.th.alloc(t.grown); err != nil {
			t.err = err
			return false
		}
	}
	if int64(cap(t.buf)) < need {
		buf := make([]byte, len(t.buf), t.grown)
		copy(buf, t.buf)
		t.buf = buf
	}
	return true
}

// room is how many bytes the writer takes before its limit (the most an
// int64 holds without one).
func (t *textWriter) room() int64 {
	if t.limit <= 0 {
		return math.MaxInt64
	}
	return t.limit - t.n
}

// stopped reports whether the writer takes no more text.
func (t *textWriter) stopped() bool { return t.full || t.err != nil }

// writeString appends s.
func (t *textWriter) writeString(s string) {
	if t.th == nil && t.limit == 0 && !t.counting { // the host's printing: nothing to check
		t.buf = append(t.buf, s...)
		return
	}
	if t.stopped() {
		return
	}
	if t.limit > 0 && t.n+int64(len(s)) > t.limit {
		s = s[:t.limit-t.n]
		t.full = true
	}
	if t.th != nil && t.n+int64(len(s))-t.charged >= textChargeChunk {
		t.n += int64(len(s))
		t.charge()
		if t.err != nil {
			return // refused before the bytes are copied
		}
	} else {
		t.n += int64(len(s))
	}
	if t.counting || t.th != nil && !t.reserve(len(s)) {
		return
	}
	t.buf = append(t.buf, s...)
}

// chargeNumber charges the writer's thread (or numbers) for writing v, a
// big integer or decimal, in decimal (chargeNumberText), and reports
// whether the text is to be written. A number whose text would pass the
// writer's limit is not converted at all: the writer is full.
func (t *textWriter) chargeNumber(v Value) bool {
	if !t.chargeNumberIn(v, t.room()) {
		if t.full {
			t.n = t.limit
		}
		return false
	}
	return true
}

// chargeNumberIn is chargeNumber where room bytes are left before the
// limit; it leaves n as it is.
func (t *textWriter) chargeNumberIn(v Value, room int64) bool {
	if t.stopped() {
		return false
	}
	if t.limit > 0 && numberTextAtLeast(v) > room {
		t.full = true
		return false
	}
	if err := chargeNumberText(t.numberThread(), v); err != nil {
		t.err = err
		return false
	}
	return true
}

// numberThread is the thread charged for writing big numbers: th, or
// numbers for a writer that charges th nothing.
func (t *textWriter) numberThread() *Thread {
	if t.th != nil {
		return t.th
	}
	return t.numbers
}

// write appends b.
func (t *textWriter) write(b []byte) {
	if t.th == nil && t.limit == 0 && !t.counting {
		t.buf = append(t.buf, b...)
		return
	}
	if t.stopped() {
		return
	}
	if t.limit > 0 && t.n+int64(len(b)) > t.limit {
		b = b[:t.limit-t.n]
		t.full = true
	}
	if t.th != nil && t.n+int64(len(b))-t.charged >= textChargeChunk {
		t.n += int64(len(b))
		t.charge()
		if t.err != nil {
			return
		}
	} else {
		t.n += int64(len(b))
	}
	if t.counting || t.th != nil && !t.reserve(len(b)) {
		return
	}
	t.buf = append(t.buf, b...)
}

// writeByte appends c.
func (t *textWriter) writeByte(c byte) {
	if t.th == nil && t.limit == 0 && !t.counting {
		t.buf = append(t.buf, c)
		return
	}
	if t.stopped() {
		return
	}
	if t.limit > 0 && t.n+1 > t.limit {
		t.full = true
		return
	}
	t.n++
	if !t.counting {
		if t.th != nil && !t.reserve(1) {
			return
		}
		t.buf = append(t.buf, c)
	}
	if t.th != nil && t.n-t.charged >= textChargeChunk {
		t.charge()
	}
}

// charge charges the thread for the bytes written since the last charge.
func (t *textWriter) charge() {
	if t.th == nil || t.err != nil {
		return
	}
	n := t.n - t.charged
	t.charged = t.n
	if err := t.th.alloc(n); err != nil {
		t.err = err
		return
	}
	if err := t.th.step(n / 64); err != nil {
		t.err = err
	}
}

// finish charges what is left and returns the thread's error, if any.
func (t *textWriter) finish() error {
	t.charge()
	return t.err
}

// size is the number of bytes written.
func (t *textWriter) size() int64 {
	if t.counting {
		return t.n
	}
	return int64(len(t.buf))
}

// rearrange puts the spans of the text from start on (offsets from
// start, in the order given) where that text was, one sep between each:
// the printers order the elements of a set this way, each printed once,
// having written them in their own order with one sep between each, so
// the text keeps its length. Moving the bytes costs a step per 64.
func (t *textWriter) rearrange(start int, spans [][2]int, sep byte) {
	if t.counting || t.stopped() {
		return
	}
	if need := len(t.buf) - start; t.th != nil && cap(t.scratch) < need {
		// The copy is allocation the thread pays for, as the buffer is.
		if err := t.th.alloc(int64(need)); err != nil {
			t.err = err
			return
		}
		t.scratch = make([]byte, 0, need)
	}
	t.scratch = append(t.scratch[:0], t.buf[start:]...)
	region := t.scratch
	at := start
	for i, s := range spans {
		if i > 0 {
			t.buf[at] = sep
			at++
		}
		at += copy(t.buf[at:], region[s[0]:s[1]])
	}
	if t.th != nil {
		if err := t.th.step(int64(len(region)) / 64); err != nil {
			t.err = err
		}
	}
}

// maxShownValue is the most bytes of a value that an error message shows.
const maxShownValue = 200

// shown is v as EDN for an error message, cut to at most maxShownValue
// bytes and "...": it is printed by a writer that stops at that limit, so
// the work is bounded whatever v is.
func shown(v Value) string { return shownIn(v, maxShownValue) }

// shownStr is v as str writes it (a string's characters), for the
// message a Clojure program would read, cut as shown is.
func shownStr(v Value) string {
	if s, ok := v.(String); ok {
		return cutText(string(s), maxShownValue)
	}
	if _, ok := v.(NilType); ok {
		return ""
	}
	return shown(v)
}

// shownIn is shown cut to at most limit bytes.
func shownIn(v Value, limit int64) string {
	switch v := v.(type) {
	case *BigInt:
		if numberTextAtLeast(v) > limit {
			return shownDigits(v.n)
		}
	case *BigDec:
		if numberTextAtLeast(v) > limit {
			return shownDec(v)
		}
	}
	t := textWriter{limit: limit}
	p := printer{out: &t, mode: modeRepr}
	err := p.print(v)
	if !t.full && err == nil {
		return string(t.buf)
	}
	b := t.buf
	for len(b) > 0 && !utf8.Valid(b) { // not in the middle of a character
		b = b[:len(b)-1]
	}
	return string(b) + "..."
}

// textStyle says how writeValue shows a value.
type textStyle uint8

const (
	asEDN   textStyle = iota // as pr-str and prn do
	asStr                    // as str does: a string's characters, nothing for nil, else EDN
	asPrint                  // as println does: a string's characters, else EDN
)

// writeValue writes v to t for a thread, in the given style. The walk of a
// collection is charged to the thread as the text is.
func writeValue(t *textWriter, th *Thread, v Value, style textStyle) error {
	switch v := v.(type) {
	case String:
		if style != asEDN {
			t.writeString(string(v))
			return t.err
		}
	case NilType:
		if style == asStr {
			return nil
		}
	case *BigInt:
		// str is Java's toString, without the N that pr writes.
		if err := chargeBigText(th, v.n); err != nil {
			return err
		}
		var small [32]byte
		t.write(appendBigText(small[:0], v, style != asStr))
		return t.err
	case *BigDec:
		if err := chargeBigText(th, v.unscaled); err != nil {
			return err
		}
		var small [32]byte
		t.write(appendDecText(small[:0], v, style != asStr)) // str without the M
		return t.err
	case Float, Float32:
		// str is Java's toString: Infinity, -Infinity, NaN; printing
		// and pr-str write ##Inf, as Clojure's print-method does.
		if f, _ := floatValue(v); style == asStr && (math.IsInf(f, 0) || math.IsNaN(f)) {
			t.writeString(javaNonFinite(f))
			return t.err
		}
	case *thrown:
		if style == asStr {
			text, data := javaToString(v)
			t.writeString(text)
			if data == nil {
				return t.err
			}
			return writeValue(t, th, data, asEDN)
		}
	case javaClass:
		if style == asStr {
			t.writeString("class ") // Java's toString of a class
		}
	case *Map:
		if style == asStr && v.class() != nil {
			// A record's toString is Object's.
			text, ok := recordText(v)
			if !ok {
				// It holds a value Java hashes by identity: Clojure's
				// text differs from run to run, and no rewrite gives it.
				return javaErrorf(typeError, noJavaClass, "the text of a record (%s) is its class and Java hashCode in Clojure, which for the values it holds differs from run to run", v.class().name)
			}
			t.writeString(text)
			return t.err
		}
	}
	if _, _, isLevel := parts(v); !isLevel {
		if _, isHolder := v.(holder); !isHolder {
			writeScalar(t, v, false) // most of what text is made of, without a printer
			return t.err
		}
	}
	p := printer{out: t, mode: modeRepr, th: th, bare: style == asPrint, clojureOrder: true, namespaceMaps: th == nil || !th.plainMaps}
	// print and println print no metadata: Clojure's asks for
	// *print-readably* too.
	p.meta = th != nil && th.printMeta && style != asPrint
	if err := p.print(v); err != nil {
		if err == errTooDeep {
			return walkTooDeepError()
		}
		return err
	}
	return t.err
}

// text returns what t holds as a string value, once its last bytes and
// the string's header are charged.
func (t *textWriter) text() (Value, error) {
	if err := t.finish(); err != nil {
		return nil, err
	}
	if t.th != nil {
		if err := t.th.alloc(heapString); err != nil {
			return nil, err
		}
	}
	return String(t.buf), nil
}

// plainText is the text str shows for vs joined by sep, built at its exact
// length and charged as a textWriter charges it, when every one of them
// is a string, number, keyword, boolean or nil: most texts programs build
// are, and they then cost one allocation. ok is false otherwise.
func plainText(th *Thread, vs []Value, sep string) (text Value, ok bool, err error) {
	n := len(sep) * max(len(vs)-1, 0)
	for _, v := range vs {
		l, ok := plainLen(v)
		if !ok {
			return nil, false, nil
		}
		n += l
		if err := chargeNumberText(th, v); err != nil {
			return nil, true, err
		}
	}
	if err := th.alloc(heapString + int64(n)); err != nil {
		return nil, true, err
	}
	if err := th.step(int64(n) / 64); err != nil {
		return nil, true, err
	}
	var b strings.Builder
	b.Grow(n)
	var small [32]byte
	for i, v := range vs {
		if i > 0 {
			b.WriteString(sep)
		}
		switch v := v.(type) {
		case String:
			b.WriteString(string(v))
		case NilType:
		default:
			b.Write(appendScalar(small[:0], v, false))
		}
	}
	return String(b.String()), true, nil
}

// plainLen is the length of str of v, for plainText's values.
func plainLen(v Value) (int, bool) {
	var small [32]byte
	switch v := v.(type) {
	case String:
		return len(v), true
	case NilType:
		return 0, true
	case Int:
		return len(strconv.AppendInt(small[:0], int64(v), 10)), true
	case *BigInt, *BigDec:
		return 0, false // writeValue writes it without its N or M
	case Float:
		if f := float64(v); math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, false // writeValue writes Java's Infinity and NaN
		}
		return len(formatFloat(float64(v))), true
	case Float32:
		if math.IsNaN(float64(v)) {
			return 0, false
		}
		return len(formatFloat32(v)), true
	case Keyword:
		return 1 + len(v), true
	case Bool:
		if v {
			return 4, true
		}
		return 5, true
	}
	return 0, false
}

// javaNonFinite is Java's toString of a double that is not finite.
func javaNonFinite(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case f > 0:
		return "Infinity"
	}
	return "-Infinity"
}
