package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"
)

// A request can also arrive as JSON (the HTTP listener's Connect and
// gRPC-Web calls), and JSON is decoded as eagerly as protobuf: a body of
// eleven megabytes of empty turns, "{}," each, decodes into four million
// messages, about a gigabyte, before any handler could count them. So
// CheckJSON counts the lists of a JSON request as the codec counts those
// of a protobuf one (codec.go), by the same limits, before it is decoded.
//
// It walks the JSON with the request's schema, and stops where the JSON
// stops fitting it: a syntax error, a field the schema does not have, a
// value of the wrong kind. protojson, which decodes the JSON next, fails
// there too, having decoded only the part before it, which was counted;
// so the walk need not check what protojson checks. The walk recurses
// once per message nested in another, as deep as the schema, which holds
// no message inside itself (TestNoRequestMessageIsRecursive).

// jsonFields are the fields of each message of the requests' schemas, by
// the names protojson accepts: the JSON name and the proto name.
type jsonFields map[*wireSchema]map[string]*wireField

func newJSONFields(l *requestLimits) jsonFields {
	fields := jsonFields{}
	var add func(s *wireSchema)
	add = func(s *wireSchema) {
		if _, done := fields[s]; done {
			return
		}
		names := map[string]*wireField{}
		fields[s] = names
		for _, f := range s.fields {
			if f == nil {
				continue
			}
			names[f.desc.JSONName()] = f
			names[string(f.desc.Name())] = f
			if f.sub != nil {
				add(f.sub)
			}
		}
	}
	for _, s := range l.schemas {
		add(s)
	}
	return fields
}

// CheckJSON counts the lists of data, the JSON of a request message of
// this service of m's type, against the request's limits, and estimates
// what it decodes to against the JSON's size: INVALID_ARGUMENT naming the
// list when it holds more than they allow, as checkCounts answers a
// protobuf request (whose estimate is judged against its protobuf size,
// smaller than its JSON: a request the JSON's size allows can still be
// refused once decoded, never the other way); nil when it does not, or when data does not
// fit m's schema (decoding then fails where the count stopped). Messages
// of other services pass.
func (s *Service) CheckJSON(m proto.Message, data []byte) error {
	schema := s.limits.schemas[m.ProtoReflect().Descriptor().FullName()]
	if schema == nil {
		return nil
	}
	c := jsonCounter{data: data, fields: s.jsonFields, limits: s.limits, t: tally{maxCost: s.limits.maxCost(len(data))}}
	path, problem, _ := c.message(schema, 0)
	if problem == costProblem {
		problem = s.limits.overCost()
	}
	if problem != "" {
		return invalidf(path, "%s", problem)
	}
	return nil
}

// maxJSONNesting bounds the messages the walk opens inside one another:
// far more than the schema nests, a guard should it ever come to hold
// itself.
const maxJSONNesting = 32

// jsonCounter walks the JSON of one request.
type jsonCounter struct {
	data   []byte
	pos    int
	fields jsonFields
	limits *requestLimits
	t      tally // list elements and the estimate so far
}

// message walks an object of schema s, or null, from pos. It reports the
// first list over a limit (its path from this message, and what is wrong),
// and fits false where the JSON stops fitting the schema.
func (c *jsonCounter) message(s *wireSchema, depth int) (path, problem string, fits bool) {
	c.space()
	if c.literal("null") {
		return "", "", true
	}
	if depth == maxJSONNesting || !c.consume('{') {
		return "", "", false
	}
	var counts [maxLimitedLists]int
	if c.space(); c.consume('}') {
		return "", "", true
	}
	for {
		c.space()
		name, ok := c.key()
		if !ok {
			return "", "", false
		}
		if c.space(); !c.consume(':') {
			return "", "", false
		}
		f := c.fields[s][name]
		if f == nil {
			return "", "", false // protojson refuses an unknown field
		}
		switch {
		case f.isMap:
			path, problem, fits = c.mapObject(f, depth)
		case f.list:
			path, problem, fits = c.list(f, &counts, depth)
		case f.sub != nil:
			if c.space(); c.literal("null") {
				fits = true // protojson leaves the field unset
				break
			}
			if c.t.cost += f.cost; c.t.cost > c.t.maxCost {
				return string(f.desc.Name()), costProblem, false
			}
			path, problem, fits = c.message(f.sub, depth+1)
			if problem != "" {
				path = string(f.desc.Name()) + "." + path
			}
		default:
			if c.space(); f.cost > 0 && !bytes.HasPrefix(c.data[c.pos:], []byte("null")) {
				// A oneof's member or an optional, allocated when set.
				if c.t.cost += f.cost; c.t.cost > c.t.maxCost {
					return string(f.desc.Name()), costProblem, false
				}
			}
			fits = c.scalar()
		}
		if problem != "" || !fits {
			return path, problem, false
		}
		c.space()
		if c.consume('}') {
			return "", "", true
		}
		if !c.consume(',') {
			return "", "", false
		}
	}
}

// list walks the array (or null) of the list field f, counting its
// elements into c.total and counts, the counts of f's message.
func (c *jsonCounter) list(f *wireField, counts *[maxLimitedLists]int, depth int) (path, problem string, fits bool) {
	name := string(f.desc.Name())
	c.space()
	if c.literal("null") {
		return "", "", true
	}
	if !c.consume('[') {
		return "", "", false
	}
	if c.space(); c.consume(']') {
		return "", "", true
	}
	for i := 0; ; i++ {
		c.t.elements++
		if f.limit > 0 {
			counts[f.slot]++
			if counts[f.slot] > f.limit {
				return name, f.overLimit(), false
			}
		}
		if c.t.elements > c.limits.maxElements {
			return name, c.limits.overTotal(), false
		}
		c.t.cost += f.cost
		if f.text {
			// A text's length as written, never less than decoded.
			if c.space(); c.pos < len(c.data) && c.data[c.pos] == '"' {
				at := c.pos
				if raw, _, ok := c.str(); ok {
					c.t.cost += textSize(len(raw))
				}
				c.pos = at
			}
		}
		if c.t.cost > c.t.maxCost {
			return name, costProblem, false
		}
		if f.sub != nil {
			path, problem, fits = c.message(f.sub, depth+1)
			if problem != "" {
				return fmt.Sprintf("%s[%d].%s", name, i, path), problem, false
			}
		} else {
			fits = c.scalar()
		}
		if !fits {
			return "", "", false
		}
		c.space()
		if c.consume(']') {
			return "", "", true
		}
		if !c.consume(',') {
			return "", "", false
		}
	}
}

// mapObject walks the object (or null) of the map field f, adding each
// entry and each message it holds to the estimate.
func (c *jsonCounter) mapObject(f *wireField, depth int) (path, problem string, fits bool) {
	name := string(f.desc.Name())
	c.space()
	if c.literal("null") {
		return "", "", true
	}
	if !c.consume('{') {
		return "", "", false
	}
	if c.space(); c.consume('}') {
		return "", "", true
	}
	value := f.sub.fields[2].sub // a map entry's value is its field 2
	for {
		c.space()
		key, ok := c.key()
		if !ok {
			return "", "", false
		}
		if c.space(); !c.consume(':') {
			return "", "", false
		}
		if c.t.cost += f.cost; value != nil {
			c.t.cost += value.alloc
		}
		if c.t.cost > c.t.maxCost {
			return name, costProblem, false
		}
		if value != nil {
			path, problem, fits = c.message(value, depth+1)
			if problem != "" {
				return fmt.Sprintf("%s[%s].%s", name, key, path), problem, false
			}
		} else {
			fits = c.scalar()
		}
		if !fits {
			return "", "", false
		}
		c.space()
		if c.consume('}') {
			return "", "", true
		}
		if !c.consume(',') {
			return "", "", false
		}
	}
}

func (c *jsonCounter) space() {
	for c.pos < len(c.data) {
		switch c.data[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return
		}
	}
}

func (c *jsonCounter) consume(b byte) bool {
	if c.pos < len(c.data) && c.data[c.pos] == b {
		c.pos++
		return true
	}
	return false
}

func (c *jsonCounter) literal(word string) bool {
	if len(c.data)-c.pos >= len(word) && string(c.data[c.pos:c.pos+len(word)]) == word {
		c.pos += len(word)
		return true
	}
	return false
}

// str walks a string, and returns its text as written between the quotes
// and whether it holds escapes.
func (c *jsonCounter) str() (raw []byte, escaped, ok bool) {
	if !c.consume('"') {
		return nil, false, false
	}
	start := c.pos
	for {
		i := bytes.IndexAny(c.data[c.pos:], `"\`)
		if i < 0 {
			return nil, false, false
		}
		c.pos += i
		if c.data[c.pos] == '"' {
			c.pos++
			return c.data[start : c.pos-1], escaped, true
		}
		if c.pos+1 == len(c.data) {
			return nil, false, false
		}
		escaped = true
		c.pos += 2 // the backslash and the character it escapes; \uXXXX goes on as text
	}
}

// key walks an object's key and returns its name.
func (c *jsonCounter) key() (string, bool) {
	start := c.pos
	raw, escaped, ok := c.str()
	if !ok {
		return "", false
	}
	if !escaped {
		return string(raw), true
	}
	var name string
	if json.Unmarshal(c.data[start:c.pos], &name) != nil {
		return "", false
	}
	return name, true
}

// scalar walks a string, a number, true, false or null. Numbers are taken
// loosely: protojson checks them.
func (c *jsonCounter) scalar() bool {
	if c.space(); c.pos >= len(c.data) {
		return false
	}
	switch b := c.data[c.pos]; {
	case b == '"':
		_, _, ok := c.str()
		return ok
	case b == '-' || b >= '0' && b <= '9':
		for c.pos < len(c.data) && strings.IndexByte("+-.0123456789eE", c.data[c.pos]) >= 0 {
			c.pos++
		}
		return true
	}
	return c.literal("true") || c.literal("false") || c.literal("null")
}
