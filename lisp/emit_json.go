package lisp

import (
	"errors"
	"slices"
)

// The emit pass writes a turn's result as JSON (EncodeJSON's mapping) in
// the same walk that prints its wire text and checks it: the printer
// hands each part it reaches to a jsonText, which writes it beside the
// EDN. The printer takes runs of scalars and whole records without a
// walk event for each part; it hands those to the jsonText part by part
// as well, so the JSON never needs a walk of its own.

// jsonText is the JSON of a value being printed, or why it has none.
type jsonText struct {
	out    textWriter // no thread: its bytes up to its limit (pastRoom), and its numbers charged (out.numbers, out.err)
	err    error      // the first reason the value has no JSON form
	opened []jsonLevel
	names  []string // the key names of the maps being written, outermost first
}

// jsonLevel is a collection whose parts are being written.
type jsonLevel struct {
	kind byte // '[' a vector or list, '#' a set, '{' a map
	// A map's key names are names[from:], and in set too once they are
	// more than a few.
	from   int
	set    map[string]struct{}
	starts []int // where each element of a set begins
}

// addName adds name to the key names of top, the map being written, and
// reports whether it is new.
func (j *jsonText) addName(top *jsonLevel, name string) bool {
	if top.set == nil {
		if slices.Contains(j.names[top.from:], name) {
			return false
		}
		if len(j.names)-top.from < smallMap {
			j.names = append(j.names, name)
			return true
		}
		top.set = make(map[string]struct{}, 2*smallMap)
		for _, s := range j.names[top.from:] {
			top.set[s] = struct{}{}
		}
	}
	if _, dup := top.set[name]; dup {
		return false
	}
	top.set[name] = struct{}{}
	return true
}

// part writes x, reached at index of the collection being written (-1
// for the value itself): the separator before it and x, or for a
// collection what opens it. A map key is written as its name.
func (j *jsonText) part(index int, x Value) {
	if j.err != nil {
		return
	}
	out := &j.out
	if index >= 0 {
		top := &j.opened[len(j.opened)-1]
		switch top.kind {
		case '[':
			if index > 0 {
				out.buf = append(out.buf, ',')
			}
		case '#':
			if index > 0 {
				out.buf = append(out.buf, ',')
			}
			top.starts = append(top.starts, len(out.buf))
		case '{':
			if index%2 == 1 {
				out.buf = append(out.buf, ':')
				break
			}
			name, ok := jsonKeyName(x)
			switch {
			case !ok:
				j.err = noJSONForm("the map key %s is neither a string nor a keyword", shown(x))
				return
			case !j.addName(top, name):
				j.err = noJSONForm("two keys of a map are both %q in JSON (a keyword and a string)", name)
				return
			}
			if index > 0 {
				out.buf = append(out.buf, ',')
			}
			if j.pastRoom(jsonStringLen(name)) {
				return
			}
			out.buf, j.err = appendJSONString(out.buf, name)
			return
		}
	}
	switch x := x.(type) {
	case *Vector:
		out.buf = append(out.buf, '[')
		j.opened = append(j.opened, jsonLevel{kind: '['})
	case *Set:
		out.buf = append(out.buf, '[')
		j.opened = append(j.opened, jsonLevel{kind: '#'})
	case *Map:
		out.buf = append(out.buf, '{')
		j.opened = append(j.opened, jsonLevel{kind: '{', from: len(j.names)})
	default:
		if err := chargeNumberText(out.numbers, x); err != nil {
			out.err, j.err = err, err
			return
		}
		if s, ok := jsonKeyName(x); ok && j.pastRoom(jsonStringLen(s)) { // a string or keyword: its text
			return
		}
		out.buf, j.err = appendJSONScalar(out.buf, x)
		j.pastRoom(0)
	}
}

// errJSONPastRoom is why a value whose JSON would pass the room it has
// (out.limit) has none.
var errJSONPastRoom = errors.New("its JSON is longer than the room left for it")

// pastRoom reports whether n more bytes of JSON would pass the writer's
// limit, and then leaves the JSON out: a string is measured before it is
// written, since its JSON can be six times its text (a control character
// is \u0001), and a 1.9 MB text wrote 11.4 MB only to be dropped.
func (j *jsonText) pastRoom(n int64) bool {
	out := &j.out
	if out.limit <= 0 || int64(len(out.buf))+n <= out.limit {
		return false
	}
	out.full, j.err = true, errJSONPastRoom
	out.buf = out.buf[:0]
	return true
}

// jsonStringLen is the length of appendJSONString's text of s, quotes
// included.
func jsonStringLen(s string) int64 {
	n := int64(len(s)) + 2
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"', c == '\\', c == '\n', c == '\r', c == '\t':
			n++
		case c < 0x20:
			n += 5
		}
	}
	return n
}

// close writes what ends the collection written last. A set's elements,
// written in the set's own order, are put in order (the permutation the
// EDN text was sorted by, nil to keep them as they are) and checked to
// be distinct in JSON.
func (j *jsonText) close(order []int) {
	if j.err != nil {
		return
	}
	top := &j.opened[len(j.opened)-1]
	j.opened = j.opened[:len(j.opened)-1]
	switch top.kind {
	case '[':
		j.out.buf = append(j.out.buf, ']')
	case '{':
		j.names = j.names[:top.from]
		j.out.buf = append(j.out.buf, '}')
	case '#':
		if j.setElements(top.starts, order) {
			j.out.buf = append(j.out.buf, ']')
		}
	}
}

// setElements checks and orders the elements of a set, which begin at
// starts, one comma between each, and run to the end of the text.
func (j *jsonText) setElements(starts []int, order []int) bool {
	if len(starts) < 2 {
		return true
	}
	buf := j.out.buf
	first := starts[0]
	spans := make([][2]int, len(starts))
	for i, at := range starts {
		end := len(buf)
		if i+1 < len(starts) {
			end = starts[i+1] - 1 // the comma before the next
		}
		spans[i] = [2]int{at - first, end - first}
	}
	if order != nil {
		ordered := make([][2]int, len(order))
		for i, k := range order {
			ordered[i] = spans[k]
		}
		spans = ordered
	}
	var names jsonNames
	for _, s := range spans {
		if text := buf[first+s[0] : first+s[1]]; !names.add(string(text)) {
			j.err = noJSONForm("two elements of a set are both %s in JSON", text)
			return false
		}
	}
	if order != nil {
		j.out.rearrange(first, spans, ',')
	}
	return true
}

// entries writes the parts of a record the printer took whole (record,
// knownRecords): elems, or entries as keys and values.
func (j *jsonText) entries(elems []Value, entries []MapEntry) {
	for i, e := range elems {
		j.part(i, e)
	}
	for i, e := range entries {
		j.part(2*i, e.Key)
		j.part(2*i+1, e.Val)
	}
}

// record writes at, a record the printer took whole, reached at index.
func (j *jsonText) record(index int, at Value) {
	if j.err != nil {
		return
	}
	j.part(index, at)
	switch x := at.(type) {
	case *Vector:
		j.entries(x.elems, nil)
	case *Map:
		j.entries(nil, x.entries)
	}
	j.close(nil)
}

// text is the JSON written, and whether the value has one.
func (j *jsonText) text() (string, bool) {
	if j.err != nil {
		return "", false
	}
	return string(j.out.buf), true
}
