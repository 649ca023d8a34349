package lisp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
)

// JSON is accepted on the wire for data and tool results (SPEC section 2).
// Objects become maps whose keys are keywords when the key is a valid
// keyword name ({"name": 1} is {:name 1}) and strings otherwise; arrays
// become vectors; integers stay integers and numbers with a fraction or an
// exponent are floats. An integer beyond the 64-bit range becomes the
// nearest float rather than an error, as most JSON readers do, so that a
// large id still loads (with its low digits rounded).

// DefaultJSONDepth is the nesting limit DecodeJSON applies when given none.
const DefaultJSONDepth = 512

// DecodeJSON parses one JSON value. maxDepth bounds the nesting of arrays
// and objects (values below 1 mean DefaultJSONDepth), so hostile input
// cannot exhaust the stack.
func DecodeJSON(text string, maxDepth int) (Value, error) {
	if maxDepth < 1 {
		maxDepth = DefaultJSONDepth
	}
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
	e := Errorf(ParseError, format, args...)
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
	if ValidKeywordName(s) {
		return Keyword(s)
	}
	return String(s)
}

// ValidKeywordName reports whether :s reads back as the keyword s: a letter,
// '_' or one of + - * < > = ? ! first, then letters, digits and
// + - * < > = ? ! _ (spec 2.3, without namespaces, spec 2.4). A leading
// sign followed by a digit is excluded because it reads as a number.
func ValidKeywordName(s string) bool {
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

// EncodeJSON writes v as JSON: keywords as their names, maps in insertion
// order with keyword keys as names and other non-string keys as their EDN
// text, sets as arrays in printed order. Functions, regexes and non-finite
// floats have no JSON form and are errors.
func EncodeJSON(v Value) (string, error) {
	var b bytes.Buffer
	if err := encodeJSON(&b, v, 0); err != nil {
		return "", err
	}
	return b.String(), nil
}

func encodeJSON(b *bytes.Buffer, v Value, depth int) error {
	if depth > maxJSONEncodeDepth {
		return Errorf(ExecutionError, "value nested deeper than %d levels cannot be written as JSON", maxJSONEncodeDepth)
	}
	switch v := v.(type) {
	case NilType:
		b.WriteString("null")
	case Bool:
		b.WriteString(strconv.FormatBool(bool(v)))
	case Int:
		b.WriteString(strconv.FormatInt(int64(v), 10))
	case Float:
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return Errorf(TypeError, "%s has no JSON form", FormatFloat(f))
		}
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0" // stays a float when read back
		}
		b.WriteString(s)
	case String:
		writeJSONString(b, string(v))
	case Keyword:
		writeJSONString(b, string(v))
	case *Vector:
		return encodeJSONArray(b, v.elems, depth)
	case *Set:
		return encodeJSONArray(b, SortedByText(v.elems), depth)
	case *Map:
		b.WriteByte('{')
		for i, e := range v.entries {
			if i > 0 {
				b.WriteByte(',')
			}
			switch k := e.Key.(type) {
			case String:
				writeJSONString(b, string(k))
			case Keyword:
				writeJSONString(b, string(k))
			default:
				writeJSONString(b, Repr(k))
			}
			b.WriteByte(':')
			if err := encodeJSON(b, e.Val, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return Errorf(TypeError, "a %s has no JSON form", v.TypeName())
	}
	return nil
}

func encodeJSONArray(b *bytes.Buffer, elems []Value, depth int) error {
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := encodeJSON(b, e, depth+1); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	return nil
}

// writeJSONString quotes s without escaping <, > and & (the output is not
// embedded in HTML).
func writeJSONString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // a string always encodes
	b.Truncate(b.Len() - 1) // Encode ends with a newline
}
