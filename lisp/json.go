package lisp

import (
	"bytes"
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
	if maxDepth < 1 {
		maxDepth = defaultJSONDepth
	}
	maxDepth = min(maxDepth, MaxValueNesting)
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	d := jsonDecoder{dec: dec, maxDepth: maxDepth}
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, jsonError(dec, "unexpected data after the JSON value")
	}
	return v, nil
}

type jsonDecoder struct {
	dec      *json.Decoder
	maxDepth int
}

func jsonError(dec *json.Decoder, format string, args ...any) error {
	e := Errorf(parseError, format, args...)
	e.Message = "invalid JSON at byte " + strconv.FormatInt(dec.InputOffset(), 10) + ": " + e.Message
	return e
}

func (d *jsonDecoder) value(depth int) (Value, error) {
	tok, err := d.dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, jsonError(d.dec, "unexpected end of input")
		}
		return nil, jsonError(d.dec, "%v", err)
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
		if t == '[' {
			var elems []Value
			for d.dec.More() {
				v, err := d.value(depth + 1)
				if err != nil {
					return nil, err
				}
				elems = append(elems, v)
			}
			if _, err := d.dec.Token(); err != nil {
				return nil, jsonError(d.dec, "%v", err)
			}
			return NewVector(elems), nil
		}
		b := NewMapBuilder(0)
		for d.dec.More() {
			kt, err := d.dec.Token()
			if err != nil {
				return nil, jsonError(d.dec, "%v", err)
			}
			key, _ := kt.(string)
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			b.Set(jsonKey(key), v)
		}
		if _, err := d.dec.Token(); err != nil {
			return nil, jsonError(d.dec, "%v", err)
		}
		return b.Map(), nil
	}
	return nil, jsonError(d.dec, "unexpected token %v", tok)
}

func jsonNumber(dec *json.Decoder, s string) (Value, error) {
	if !strings.ContainsAny(s, ".eE") {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return Int(n), nil
		}
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

// maxJSONEncodeDepth bounds EncodeJSON's recursion.
const maxJSONEncodeDepth = 10_000

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
func EncodeJSON(v Value) (string, error) {
	var b bytes.Buffer
	if err := encodeJSON(&b, v, 0); err != nil {
		return "", err
	}
	return b.String(), nil
}

func noJSONForm(format string, args ...any) error {
	return Errorf(typeError, "no JSON form: "+format, args...)
}

func encodeJSON(b *bytes.Buffer, v Value, depth int) error {
	if depth > maxJSONEncodeDepth {
		return noJSONForm("nested deeper than %d levels", maxJSONEncodeDepth)
	}
	switch v := v.(type) {
	case NilType:
		b.WriteString("null")
	case Bool:
		b.WriteString(strconv.FormatBool(bool(v)))
	case Int:
		b.Write(strconv.AppendInt(b.AvailableBuffer(), int64(v), 10))
	case Float:
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return noJSONForm("%s is not a JSON number", formatFloat(f))
		}
		s := strconv.AppendFloat(b.AvailableBuffer(), f, 'g', -1, 64)
		if !bytes.ContainsAny(s, ".eE") {
			s = append(s, ".0"...) // stays a float when read back
		}
		b.Write(s)
	case String:
		return writeJSONString(b, string(v))
	case Keyword:
		return writeJSONString(b, string(v))
	case *Vector:
		return encodeJSONArray(b, v.elems, depth, false)
	case *Set:
		return encodeJSONArray(b, sortedByText(v.elems), depth, true)
	case *Map:
		return encodeJSONObject(b, v, depth)
	default:
		return noJSONForm("a %s is not data", v.TypeName())
	}
	return nil
}

// encodeJSONArray writes elems as an array. For a set, two elements that
// the mapping makes equal (:a and "a") would leave duplicates in it.
func encodeJSONArray(b *bytes.Buffer, elems []Value, depth int, set bool) error {
	var seen jsonNames
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		at := b.Len()
		if err := encodeJSON(b, e, depth+1); err != nil {
			return err
		}
		if set && !seen.add(string(b.Bytes()[at:])) {
			return noJSONForm("two elements of a set are both %s in JSON", b.Bytes()[at:])
		}
	}
	b.WriteByte(']')
	return nil
}

func encodeJSONObject(b *bytes.Buffer, m *Map, depth int) error {
	var seen jsonNames // for maps past smallMap; smaller ones rescan their keys
	b.WriteByte('{')
	for i, e := range m.entries {
		if i > 0 {
			b.WriteByte(',')
		}
		name, ok := jsonKeyName(e.Key)
		if !ok {
			return noJSONForm("the map key %s is neither a string nor a keyword", Repr(e.Key))
		}
		dup := false
		if len(m.entries) <= smallMap {
			for _, earlier := range m.entries[:i] {
				if n, _ := jsonKeyName(earlier.Key); n == name {
					dup = true
				}
			}
		} else {
			dup = !seen.add(name)
		}
		if dup {
			return noJSONForm("two keys of a map are both %q in JSON (a keyword and a string)", name)
		}
		if err := writeJSONString(b, name); err != nil {
			return err
		}
		b.WriteByte(':')
		if err := encodeJSON(b, e.Val, depth+1); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
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
	list []string
	set  map[string]struct{}
}

func (n *jsonNames) add(name string) bool {
	if n.set != nil {
		if _, dup := n.set[name]; dup {
			return false
		}
		n.set[name] = struct{}{}
		return true
	}
	if slices.Contains(n.list, name) {
		return false
	}
	n.list = append(n.list, name)
	if len(n.list) > smallMap {
		n.set = make(map[string]struct{}, 2*len(n.list))
		for _, s := range n.list {
			n.set[s] = struct{}{}
		}
		n.list = nil
	}
	return true
}

// writeJSONString quotes s, escaping only what JSON requires (quote,
// backslash, control characters). JSON text is Unicode: a string that is
// not valid UTF-8 would have its bad bytes replaced, so it has no JSON form.
func writeJSONString(b *bytes.Buffer, s string) error {
	if !utf8.ValidString(s) {
		return noJSONForm("the string %s is not valid UTF-8", Repr(String(s)))
	}
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b.WriteString(s[start:i])
		switch c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteString(`\u00`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		}
		start = i + 1
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
	return nil
}
