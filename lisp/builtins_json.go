package lisp

import (
	"strconv"
	"strings"
	"time"
)

// jsonBuiltins are the JSON functions of PTC-Lisp's origin, with cheshire's
// names and arguments, which models write from Clojure habit:
// (json/parse-string s) reads JSON with string keys, (json/parse-string s
// true) with keyword keys, (json/parse-string s f) passes each key through
// f; (json/generate-string x) writes compact JSON; (json/parse-lines s)
// reads JSON Lines. They are reached as json/name and cheshire.core/name.
// A key that would not read back as a keyword stays a string under true,
// so that every value read prints readable.
var jsonBuiltins = []*Builtin{
	{Name: "json/parse-string", Sig: "(json/parse-string s) (json/parse-string s keywordize)", Doc: "the JSON value in s: objects are maps with string keys, or keyword keys when keywordize is true (or a function applied to each key); nil for nil",
		Category: "json", reach: qualified, aliases: []string{"cheshire.core/parse-string"},
		MinArgs: 1, MaxArgs: 2, Fn: builtinJSONParse,
		Cost: cost(scans(arg(0)), calls(arg(1)), chargedInBody("the value read, as reading data charges it (decodeJSON)"))},
	{Name: "json/parse-lines", Sig: "(json/parse-lines s) (json/parse-lines s keywordize)", Doc: "the JSON value of each non-blank line of s (JSON Lines), as a vector",
		Category: "json", reach: qualified,
		MinArgs: 1, MaxArgs: 2, Fn: builtinJSONParseLines,
		Cost: cost(scans(arg(0)), calls(arg(1)), chargedInBody("each value read, as reading data charges it (decodeJSON), and the vector of them"))},
	{Name: "json/generate-string", Sig: "(json/generate-string x)", Doc: "x as compact JSON text: keywords as their names, sets as arrays, nil as null",
		Category: "json", reach: qualified, aliases: []string{"cheshire.core/generate-string"},
		MinArgs: 1, MaxArgs: 2, Fn: builtinJSONGenerate,
		Cost: cost(visits(arg(0)), writes)},
	{Name: "Instant/parse", Sig: "(Instant/parse s)", Doc: "the ISO-8601 instant s, checked, in UTC with a Z", Category: "idiom",
		reach: javaStatic, aliases: []string{"java.time.Instant/parse"},
		MinArgs: 1, MaxArgs: 1, Fn: builtinInstantParse, Cost: cost(scans(arg(0)), builds)},
	instantField(".toEpochMilli", "the milliseconds since 1970-01-01T00:00:00Z", time.Time.UnixMilli),
	instantField(".getEpochSecond", "the seconds since 1970-01-01T00:00:00Z", time.Time.Unix),
}

// instantField is an Instant method giving a number: instants are the
// strings Instant/parse gives here.
func instantField(name, what string, field func(time.Time) int64) *Builtin {
	return &Builtin{Name: name, Sig: "(" + name + " instant)", Doc: what + " of an instant from Instant/parse", Category: "idiom", reach: javaForm,
		MinArgs: 1, MaxArgs: 1, Cost: cost(scans(arg(0))), Fn: func(th *Thread, args []Value) (Value, error) {
			t, err := parseInstant(name, args[0])
			if err != nil {
				return nil, err
			}
			return Int(field(t)), nil
		}}
}

func builtinJSONParse(th *Thread, args []Value) (Value, error) {
	if args[0] == Nil {
		return Nil, nil
	}
	s, ok := args[0].(String)
	if !ok {
		return nil, typeErrorf("json/parse-string", "a string of JSON", args[0])
	}
	return parseJSONText(th, "json/parse-string", string(s), args[1:])
}

func builtinJSONParseLines(th *Thread, args []Value) (Value, error) {
	s, ok := args[0].(String)
	if !ok {
		return nil, typeErrorf("json/parse-lines", "a string of JSON lines", args[0])
	}
	// The lines are read where they stand: split first, a text of short
	// lines held a slice as large again as its values for the whole call.
	var out []Value
	i := 0
	for line := range strings.Lines(string(s)) {
		i++
		if strings.TrimSpace(line) == "" {
			continue
		}
		v, err := parseJSONText(th, "json/parse-lines", strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"), args[1:])
		if err != nil {
			if e, ok := err.(*Error); ok && e.Kind == executionError {
				e.Message = "line " + strconv.Itoa(i) + ": " + e.Message
			}
			return nil, err
		}
		out = append(out, v)
	}
	return newVector(th, out)
}

// parseJSONText reads text as JSON, its keys as opts (json/parse-string's
// second argument) asks.
func parseJSONText(th *Thread, name, text string, opts []Value) (Value, error) {
	v, readCost, err := decodeJSONCharging(th.ctx, th, text, 0)
	if err != nil {
		if th.ctx != nil && th.ctx.Err() != nil {
			// The evaluation's clock, not the text: a timeout as
			// anywhere else, which no try catches.
			return nil, th.contextError(th.ctx.Err())
		}
		if e, ok := err.(*Error); ok && (e.Kind == memoryLimit || e.Kind == stepLimit) {
			return nil, err // the budget, charged as the value was read
		}
		msg := err.Error()
		if e, ok := err.(*Error); ok {
			msg = e.Message
		}
		return nil, javaErrorf(executionError, "IOException", "%s: %s", name, msg).
			WithHint("catch it with (try (%s s) (catch Exception e nil)) where the text may not be JSON", name)
	}
	if err := th.alloc(readCost); err != nil {
		return nil, err
	}
	var keyFn Value = Bool(false)
	if len(opts) > 0 {
		keyFn = opts[0]
	}
	switch keyFn {
	case Bool(true):
		return v, nil // the decoder makes a key a keyword where it reads back as one
	case Bool(false), Nil:
		return withJSONKeys(th, v, func(k Value) (Value, error) { return jsonKeyText(k), nil })
	}
	if _, ok := keyFn.(Callable); !ok {
		return nil, typeErrorf(name, "true, false or a function of each key", keyFn)
	}
	return withJSONKeys(th, v, func(k Value) (Value, error) { return th.call(keyFn, []Value{jsonKeyText(k)}) })
}

// jsonKeyText is an object key as the string it was in the JSON text.
func jsonKeyText(k Value) Value {
	if kw, ok := k.(Keyword); ok {
		return String(kw)
	}
	return k
}

// withJSONKeys is v, read from JSON, with each object key passed through
// key; the decoder's keyword keys are given as the strings they were.
func withJSONKeys(th *Thread, v Value, key func(Value) (Value, error)) (Value, error) {
	switch c := v.(type) {
	case *Map:
		b := NewMapBuilder(c.Len())
		for _, e := range c.Entries() {
			k, err := key(e.Key)
			if err != nil {
				return nil, err
			}
			val, err := withJSONKeys(th, e.Val, key)
			if err != nil {
				return nil, err
			}
			b.Set(k, val)
		}
		if err := th.allocMap(c.Len()); err != nil {
			return nil, err
		}
		return b.Map(), nil
	case *Vector:
		items := make([]Value, len(c.elems))
		changed := false
		for i, e := range c.elems {
			val, err := withJSONKeys(th, e, key)
			if err != nil {
				return nil, err
			}
			items[i] = val
			changed = changed || val != e
		}
		if !changed {
			return c, nil
		}
		return newVector(th, items)
	}
	return v, nil
}

func builtinJSONGenerate(th *Thread, args []Value) (Value, error) {
	if len(args) == 2 {
		if m, ok := args[1].(*Map); !ok || m.Len() > 0 {
			return nil, typeErrorf("json/generate-string", "no options", args[1]).
				WithHint("json/generate-string writes compact JSON and takes no options; print it with (println (json/generate-string x))")
		}
	}
	text, err := encodeJSON(th, args[0])
	if err != nil {
		msg := err.Error()
		if e, ok := err.(*Error); ok {
			if e.Kind != typeError {
				return nil, err // the budget ran out as the text was written
			}
			msg = e.Message
		}
		return nil, javaErrorf(executionError, "IOException", "json/generate-string: %s", msg).
			WithHint("JSON holds nil, booleans, numbers, strings, keywords, vectors, sets and maps with string or keyword keys")
	}
	return String(text), nil
}

// builtinInstantParse is java.time.Instant/parse: an ISO-8601 instant with
// a Z or an offset, given back as Java prints it: in UTC, the fraction
// in groups of three digits and only when not zero.
func builtinInstantParse(th *Thread, args []Value) (Value, error) {
	t, err := parseInstant("Instant/parse", args[0])
	if err != nil {
		return nil, err
	}
	return String(instantText(t)), nil
}

// parseInstant reads an ISO-8601 instant, in UTC.
func parseInstant(fn string, v Value) (time.Time, error) {
	s, ok := v.(String)
	if !ok {
		return time.Time{}, typeErrorf(fn, "an ISO-8601 instant string", v)
	}
	t, err := time.Parse(time.RFC3339Nano, string(s))
	if err != nil { // RFC 3339 requires the Z or offset an Instant has
		return time.Time{}, javaErrorf(executionError, "DateTimeParseException", "%s cannot read %s as an instant", fn, describe(s)).
			WithHint(`write it as ISO-8601 in UTC, e.g. "2026-01-08T14:30:00Z"`)
	}
	return t.UTC(), nil
}

// instantText is t as java.time.Instant's toString writes it.
func instantText(t time.Time) string {
	out := t.Format("2006-01-02T15:04:05")
	if ns := t.Nanosecond(); ns != 0 {
		frac := t.Format(".000000000")
		switch {
		case ns%1_000_000 == 0:
			frac = frac[:4]
		case ns%1_000 == 0:
			frac = frac[:7]
		}
		out += frac
	}
	return out + "Z"
}
