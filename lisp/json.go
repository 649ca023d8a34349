package lisp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSON is accepted on the wire for data and tool results (docs/VALUES.md).
// Objects become maps whose keys are keywords when the key is a valid
// keyword name ({"name": 1} is {:name 1}) and strings otherwise; arrays
// become vectors; integers stay integers and numbers with a fraction or an
// exponent are floats. An integer beyond the 64-bit range becomes the
// nearest float rather than an error, as most JSON readers do, so that a
// large id still loads (with its low digits rounded).

// defaultJSONDepth is the nesting limit DecodeJSON applies when given none.
const defaultJSONDepth = 512

// DecodeJSON parses one JSON value. maxDepth bounds the nesting of arrays
// and objects (values below 1 mean defaultJSONDepth), so hostile input
// cannot exhaust the stack.
func DecodeJSON(text string, maxDepth int) (Value, error) {
	v, _, err := decodeJSON(context.Background(), text, maxDepth)
	return v, err
}

// decodeJSON is DecodeJSON that also returns what the value costs once
// read (readNodeCost), counted as it was built.
func decodeJSON(ctx context.Context, text string, maxDepth int) (Value, int64, error) {
	return decodeJSONCharging(ctx, nil, text, maxDepth)
}

// decodeJSONCharging is decodeJSON charging th, when not nil, for each
// value as it is read (json/parse-string): text whose value passes the
// allocation budget stops there instead of being built whole first, which
// for a 9 MB text took 4 s and 110 MiB. The read cost returned is what is
// left to charge once the value is read.
func decodeJSONCharging(ctx context.Context, th *Thread, text string, maxDepth int) (Value, int64, error) {
	if maxDepth < 1 {
		maxDepth = defaultJSONDepth
	}
	maxDepth = min(maxDepth, MaxValueNesting)
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	d := jsonDecoder{ctx: ctx, dec: dec, text: text, maxDepth: maxDepth, costLimit: ReadCostLimit(int64(len(text))), th: th}
	if th != nil {
		if err := th.step(jsonDecoderSteps + int64(len(text))/jsonBytesPerStep); err != nil {
			return nil, 0, err
		}
	}
	v, err := d.value(0)
	if err != nil {
		return nil, 0, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, 0, jsonError(dec, "unexpected data after the JSON value")
	}
	return v, max(d.cost-d.charged, 0), nil
}

type jsonDecoder struct {
	dec      *json.Decoder
	text     string
	maxDepth int
	counted  map[int]int // elements of the long arrays and pairs of the long objects counted ahead, by the offset past their bracket
	// cost is what the arrays and objects built so far cost, at most
	// costLimit (see readNodeCost).
	cost, costLimit int64
	// ctx, when set, is the caller's, looked at every ctxCheckForms
	// values.
	ctx     context.Context
	values  int64
	checked int64 // the input offset of the last look at ctx
	// th, when set, is charged for each value as it is read, charged
	// bytes in all.
	th      *Thread
	charged int64
}

// charge counts what v, an array or object just built, cost, and refuses
// the value past its limit.
func (d *jsonDecoder) charge(v Value) (Value, error) {
	if d.cost += readNodeCost(v); d.cost > d.costLimit {
		err := jsonError(d.dec, "%s", overReadCost(d.cost, int64(len(d.text)), "arrays or objects"))
		return nil, err.(*Error).WithHint(readCostHint)
	}
	return v, nil
}

func jsonError(dec *json.Decoder, format string, args ...any) error {
	e := Errorf(parseError, format, args...)
	e.Message = "invalid JSON at byte " + strconv.FormatInt(dec.InputOffset(), 10) + ": " + e.Message
	return e
}

func (d *jsonDecoder) value(depth int) (Value, error) {
	if d.values++; d.ctx != nil && (d.values%ctxCheckForms == 0 || d.dec.InputOffset()-d.checked >= ctxCheckBytes) {
		d.checked = d.dec.InputOffset()
		if err := d.ctx.Err(); err != nil {
			return nil, err
		}
	}
	tok, err := d.dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, jsonError(d.dec, "unexpected end of input")
		}
		return nil, jsonError(d.dec, "%v", err)
	}
	if err := d.chargeToken(tok); err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return Nil, nil
	case bool:
		return Bool(t), nil
	case string:
		return String(t), nil
	case json.Number:
		return jsonNumber(d.dec, string(t))
	case json.Delim:
		if depth >= d.maxDepth {
			return nil, jsonError(d.dec, "nested deeper than %d levels", d.maxDepth)
		}
		// Values are kept sized exactly and without a lineage to
		// extend, as the reader keeps EDN (newReadVector); a long array
		// or object makes room for all its elements at once, as the
		// reader does (seqForms), rather than by growing.
		open := int(d.dec.InputOffset())
		if t == '[' {
			var elems []Value
			for d.dec.More() {
				v, err := d.value(depth + 1)
				if err != nil {
					return nil, err
				}
				elems = append(elems, v)
				if len(elems) == longSeq {
					elems = append(make([]Value, 0, d.room(d.countAhead(open, depth))), elems...)
				}
			}
			if _, err := d.dec.Token(); err != nil {
				return nil, jsonError(d.dec, "%v", err)
			}
			if len(elems) < cap(elems) {
				elems = slices.Clone(elems)
			}
			return d.charge(newReadVector(elems))
		}
		var pairs []MapEntry
		for d.dec.More() {
			kt, err := d.dec.Token()
			if err != nil {
				return nil, jsonError(d.dec, "%v", err)
			}
			if err := d.chargeToken(kt); err != nil {
				return nil, err
			}
			key, _ := kt.(string)
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			pairs = append(pairs, MapEntry{jsonKey(key), v})
			if len(pairs) == longSeq {
				pairs = append(make([]MapEntry, 0, d.room(d.countAhead(open, depth))), pairs...)
			}
		}
		if _, err := d.dec.Token(); err != nil {
			return nil, jsonError(d.dec, "%v", err)
		}
		if len(pairs) == 0 {
			return emptyMap, nil
		}
		b := MapBuilder{m: &Map{entries: make([]MapEntry, 0, len(pairs)), weight: 1}}
		for _, p := range pairs {
			b.Set(p.Key, p.Val)
		}
		return d.charge(measureReadMap(b.Map()))
	}
	return nil, jsonError(d.dec, "unexpected token %v", tok)
}

// chargeToken charges the thread, when there is one, for a token read:
// an element and a string's bytes.
func (d *jsonDecoder) chargeToken(tok json.Token) error {
	if d.th == nil {
		return nil
	}
	n := int64(heapSlot)
	if s, ok := tok.(string); ok {
		n += int64(len(s))
	}
	d.charged += n
	if err := d.th.step(jsonTokenSteps); err != nil {
		return err
	}
	return d.th.alloc(n)
}

// What encoding/json's decoder costs a thread beyond the values it
// builds, in steps of 64-100 ns (extendedPrecision charges 64; the
// calibration allows up to 120 ns a step): its set-up (a decoder, a
// reader and a buffer, 1.5 µs: json/parse-lines makes one a line), each
// token (250-300 ns, mostly the token boxed and the tokenizer's garbage)
// and its scan of the text (4-7 ns a byte, beyond the step per 64 bytes
// every scan is charged). Charged by the values' bytes alone,
// json/parse-lines of 1.5 M one-byte lines took 1.1 s of CPU to the
// memory limit and json/parse-string of an array of 3 M numbers 0.18 s.
const (
	jsonDecoderSteps = 20
	jsonTokenSteps   = 3
	jsonBytesPerStep = 16
)

// room is the room made at once for a long array or object of n elements
// counted ahead: all of them, but no more than the thread charged for
// them has budget left for (the elements are charged as they are read).
func (d *jsonDecoder) room(n int) int {
	if d.th != nil && d.th.limits.MaxAllocBytes > 0 {
		n = min(n, int(max(d.th.limits.MaxAllocBytes-d.th.allocated, 0)/heapSlot))
	}
	return max(n, longSeq)
}

// countAhead returns how many elements (or pairs) the array (or object)
// whose bracket ends at offset open has, counted ahead from where the
// decoder is, inside it after longSeq of them: its commas at its own level,
// one before each element still to come. The long arrays and objects
// inside the rest are counted on the way (d.counted), so that no text is
// counted twice. The count only sizes what is built: on text that is not
// JSON, where the decoder will fail, it may be wrong, and 0 means none.
func (d *jsonDecoder) countAhead(open, depth int) int {
	if n, ok := d.counted[open]; ok {
		return n
	}
	if d.counted == nil {
		d.counted = map[int]int{}
	}
	// levels[0] is the array or object being read; the others are those
	// inside it that are open where the scan is.
	type level struct{ open, n int }
	levels := []level{{open: open, n: longSeq}}
	text := d.text
	for i := int(d.dec.InputOffset()); i < len(text); i++ {
		switch c := text[i]; c {
		case '"':
			for i++; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' {
					i++
				}
			}
		case ',':
			levels[len(levels)-1].n++
		case '[', '{':
			if depth+len(levels) >= d.maxDepth {
				return 0 // the decoder refuses it
			}
			levels = append(levels, level{open: i + 1})
			if j := skipJSONSpace(text, i+1); j < len(text) && text[j] != ']' && text[j] != '}' {
				levels[len(levels)-1].n = 1
			}
		case ']', '}':
			in := levels[len(levels)-1]
			if in.n >= longSeq {
				d.counted[in.open] = in.n
			}
			if levels = levels[:len(levels)-1]; len(levels) == 0 {
				return in.n
			}
		}
	}
	return 0
}

// skipJSONSpace returns the offset of the first byte at or after i that is
// not JSON whitespace.
func skipJSONSpace(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r') {
		i++
	}
	return i
}

func jsonNumber(dec *json.Decoder, s string) (Value, error) {
	if !strings.ContainsAny(s, ".eE") {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return Int(n), nil
		}
		// An integer past a long is a BigInt, digit for digit: the JSON
		// form the sidecar writes of a BigInt reads back as itself.
		if n, ok := parseBigDigits(s); ok {
			return newBig(n), nil
		}
		return nil, jsonError(dec, "an integer of %d digits: at most %d are read", len(strings.TrimLeft(s, "-")), maxBigDigits)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, jsonError(dec, "number %s is out of the float range", s)
	}
	return Float(f), nil
}

// jsonKey turns an object key into a keyword when it reads as one.
func jsonKey(s string) Value {
	if validKeywordName(s) {
		return Keyword(s)
	}
	return String(s)
}

// validKeywordName reports whether :s reads back as the keyword s: a letter,
// '_' or one of + - * < > = ? ! first, then letters, digits and
// + - * < > = ? ! _ (spec 2.3, without namespaces, spec 2.4). A leading
// sign followed by a digit is excluded because it reads as a number.
func validKeywordName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', strings.IndexByte("+-*<>=?!", c) >= 0:
		case c >= '0' && c <= '9':
			if i == 0 || (i == 1 && (s[0] == '+' || s[0] == '-')) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// jsonLevelBytes is what Go allocates for each level of nesting the JSON
// encoder reaches (its walk's frame, and the keys seen of an open map or
// set, in stacks that grow by doubling): about 530 bytes measured.
const jsonLevelBytes = 512

// chargeJSONLevel charges th, when not nil, for a level of nesting deeper
// than any the encoding reached before. Charged a step per value, a value
// nested 400 deep allocated 1.2 KB per step charged.
func chargeJSONLevel(th *Thread) error {
	if th == nil {
		return nil
	}
	return th.alloc(jsonLevelBytes)
}

// maxJSONEncodeDepth is the deepest a value EncodeJSON writes may nest.
const maxJSONEncodeDepth = MaxValueNesting

// EncodeJSON writes v in the JSON mapping of docs/VALUES.md, the JSON form
// the sidecar emits next to EDN: nil, booleans, strings and vectors as
// themselves; every integer exactly, as a JSON integer, also beyond 2^53;
// floats always with a fraction or an exponent; keywords as their names;
// sets as arrays in printed order; maps as objects in insertion order.
//
// The mapping identifies a keyword with the string of its name and a set
// with an array, and nothing else: a value for which JSON would lose more
// has no JSON form, and EncodeJSON says why. That is NaN and the
// infinities, functions, regexes and other non-data values, strings that
// are not valid UTF-8, map keys that are neither strings nor keywords,
// and two map keys (or two set elements) that become the same JSON text,
// such as :a and "a".
func EncodeJSON(v Value) (string, error) { return encodeJSON(nil, v) }

// encodeJSON is EncodeJSON charging th, when not nil, for the text as it
// is written (json/generate-string), so that a value whose JSON passes the
// budget stops there rather than being written whole first.
func encodeJSON(th *Thread, v Value) (string, error) {
	bp := textBuffers.Get().(*[]byte)
	t := textWriter{buf: (*bp)[:0], th: th}
	defer func() {
		if cap(t.buf) <= maxPooledText {
			*bp = t.buf[:0]
			textBuffers.Put(bp)
		}
	}()
	p := printer{out: &t, textOrder: true} // orders sets as they print, as the wire's EDN does
	w := newWalk(nil, v, maxJSONEncodeDepth)
	// For each map or set being written, the names of its keys or the
	// texts of its elements so far, and where the element being written
	// starts.
	type open struct {
		names jsonNames
		start int
	}
	var opened []open
	deepest := 0 // the levels charged (chargeJSONLevel)
	// A key or scalar is written to scalar first, then through t, which
	// charges the thread for it.
	var scalar []byte
	endElement := func() error { // the element before the one reached, or the last, of a set
		o := &opened[len(opened)-1]
		if text := t.buf[o.start:]; !o.names.add(string(text)) {
			return noJSONForm("two elements of a set are both %s in JSON", text)
		}
		return nil
	}
	for ev, at := w.next(); ev != walkDone; ev, at = w.next() {
		if t.err != nil {
			return "", t.err
		}
		parent := w.parent()
		if ev == walkLeave {
			switch at.(type) {
			case *Vector:
				t.writeByte(']')
			case *Set:
				if at.(*Set).Len() > 0 {
					if err := endElement(); err != nil {
						return "", err
					}
				}
				opened = opened[:len(opened)-1]
				t.writeByte(']')
			case *Map:
				opened = opened[:len(opened)-1]
				t.writeByte('}')
			}
			continue
		}
		switch parent.(type) {
		case *Vector:
			if w.index > 0 {
				t.writeByte(',')
			}
		case *Set:
			if w.index > 0 {
				if err := endElement(); err != nil {
					return "", err
				}
				t.writeByte(',')
			}
			opened[len(opened)-1].start = len(t.buf)
		case *Map:
			if w.index%2 == 1 {
				t.writeByte(':')
				break
			}
			// A key: its name, once per map.
			w.skip()
			name, ok := jsonKeyName(at)
			if !ok {
				return "", noJSONForm("the map key %s is neither a string nor a keyword", shown(at))
			}
			if !opened[len(opened)-1].names.add(name) {
				return "", noJSONForm("two keys of a map are both %q in JSON (a keyword and a string)", name)
			}
			if w.index > 0 {
				t.writeByte(',')
			}
			var err error
			if scalar, err = appendJSONString(scalar[:0], name); err != nil {
				return "", err
			}
			t.write(scalar)
			continue
		}
		switch at.(type) {
		case *Vector, *Set, *Map:
			if w.depth >= deepest {
				deepest = w.depth + 1
				if err := chargeJSONLevel(th); err != nil {
					return "", err
				}
			}
		}
		switch x := at.(type) {
		case *Vector:
			t.writeByte('[')
		case *Set:
			t.writeByte('[')
			opened = append(opened, open{start: len(t.buf)})
			if x.Len() >= 2 {
				order, err := p.setOrder(x)
				if err != nil {
					return "", err
				}
				w.enterWith(order)
			}
		case *Map:
			t.writeByte('{')
			opened = append(opened, open{})
		default:
			if err := chargeNumberText(th, x); err != nil {
				return "", err
			}
			var err error
			if scalar, err = appendJSONScalar(scalar[:0], x); err != nil {
				return "", err
			}
			t.write(scalar)
		}
	}
	if w.err != nil {
		return "", noJSONForm("nested deeper than %d levels", maxJSONEncodeDepth)
	}
	if err := t.finish(); err != nil {
		return "", err
	}
	return string(t.buf), nil
}

func noJSONForm(format string, args ...any) error {
	return javaErrorf(typeError, "IOException", "no JSON form: "+format, args...)
}

// jsonKeyName is the object key a map key becomes: a string's text or a
// keyword's name; other keys have none.
func jsonKeyName(k Value) (string, bool) {
	switch k := k.(type) {
	case String:
		return string(k), true
	case Keyword:
		return string(k), true
	}
	return "", false
}

// jsonNames finds repeats among the names of one object or the elements
// of one set: by scanning while they are few, by hashing beyond.
type jsonNames struct {
	small [smallMap]string // the first names, compared one by one (no allocation)
	n     int
	set   map[string]struct{} // all of them, past smallMap
}

func (n *jsonNames) add(name string) bool {
	if n.set != nil {
		if _, dup := n.set[name]; dup {
			return false
		}
		n.set[name] = struct{}{}
		return true
	}
	if slices.Contains(n.small[:n.n], name) {
		return false
	}
	if n.n < len(n.small) {
		n.small[n.n] = name
		n.n++
		return true
	}
	n.set = make(map[string]struct{}, 2*len(n.small))
	for _, s := range n.small {
		n.set[s] = struct{}{}
	}
	n.set[name] = struct{}{}
	return true
}

// writeJSONString quotes s, escaping only what JSON requires (quote,
// backslash, control characters). JSON text is Unicode: a string that is
// not valid UTF-8 would have its bad bytes replaced, so it has no JSON form.
// appendJSONScalar appends the JSON of v, a value that holds no other:
// nil, a boolean, a number, a string or a keyword (as its name); any
// other value has no JSON form.
func appendJSONScalar(buf []byte, v Value) ([]byte, error) {
	switch x := v.(type) {
	case NilType:
		return append(buf, "null"...), nil
	case Bool:
		return strconv.AppendBool(buf, bool(x)), nil
	case Int:
		return strconv.AppendInt(buf, int64(x), 10), nil
	case *BigInt:
		// A JSON number of all its digits, as Clojure's JSON libraries
		// write a BigInt: JSON numbers have no size limit.
		return appendBigText(buf, x, false), nil
	case *BigDec:
		// Its exact text, which is a JSON number (1.50, 1E+3), as
		// Clojure's JSON libraries write a BigDecimal.
		return appendDecText(buf, x, false), nil
	case Float, Float32:
		f, bits := float64(0), 64
		if f32, ok := x.(Float32); ok {
			f, bits = float64(f32), 32 // the digits Clojure prints for it
		} else {
			f = float64(x.(Float))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return buf, noJSONForm("%s is not a JSON number", formatFloat(f))
		}
		at := len(buf)
		buf = strconv.AppendFloat(buf, f, 'g', -1, bits)
		if !bytes.ContainsAny(buf[at:], ".eE") {
			buf = append(buf, ".0"...) // stays a float when read back
		}
		return buf, nil
	case String:
		return appendJSONString(buf, string(x))
	case Keyword:
		return appendJSONString(buf, string(x))
	}
	return buf, noJSONForm("a %s is not data", v.TypeName())
}

// appendJSONString appends s as a JSON string; one that is not valid
// UTF-8 has no JSON form.
func appendJSONString(buf []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return buf, noJSONForm("the string %s is not valid UTF-8", shown(String(s)))
	}
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		buf = append(buf, s[start:i]...)
		switch c {
		case '"', '\\':
			buf = append(buf, '\\', c)
		case '\n':
			buf = append(buf, `\n`...)
		case '\r':
			buf = append(buf, `\r`...)
		case '\t':
			buf = append(buf, `\t`...)
		default:
			buf = append(buf, `\u00`...)
			buf = append(buf, hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	return append(append(buf, s[start:]...), '"'), nil
}
