package lisp

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// repeatIn is n copies of item, separated by a space, in a vector.
func repeatIn(item string, n int) string {
	return "[" + strings.TrimSpace(strings.Repeat(item+" ", n)) + "]"
}

// TestReadCostRefusesDenseValues: values of collections of almost nothing
// are refused by the reader and the JSON decoder once they would cost
// more than their multiple of their text; data as agents send it reads.
func TestReadCostRefusesDenseValues(t *testing.T) {
	for name, text := range map[string]string{
		"one-element vectors":      repeatIn("[1]", 100_000),
		"one-element vectors deep": repeatIn(strings.Repeat("[", 50)+"1"+strings.Repeat("]", 50), 2_000),
		"sets of a collection":     repeatIn("#{[]}", 50_000),
		"small maps keyed by sets": repeatIn("{#{} 1}", 50_000),
		"pairs of one digit":       repeatIn("[1 2]", 100_000),
	} {
		_, err := ParseEDN(text, 0)
		if e, ok := err.(*Error); !ok || e.Hint != readCostHint || e.Kind != parseError {
			t.Errorf("%s: %v, want a parse_error with the read cost hint", name, err)
		}
		// Not taken for source either: built by a program, it costs the same.
		if _, err := ReadValue(context.Background(), text, 0, 0); err == nil {
			t.Errorf("%s: ReadValue read it", name)
		}
	}
	_, err := DecodeJSON("["+strings.Repeat("[1],", 100_000)+"[1]]", 0)
	if e, ok := err.(*Error); !ok || e.Hint != readCostHint {
		t.Errorf("JSON one-element arrays: %v, want the read cost hint", err)
	}

	for name, text := range map[string]string{
		"records":                   repeatIn(`{:id 1 :name "a" :tags [:x]}`, 20_000),
		"pairs of numbers":          repeatIn("[17 24]", 100_000),
		"pairs of one digit, a few": repeatIn("[1 2]", 2_000),
		"numbers":                   repeatIn("1", 500_000),
		"empty strings":             repeatIn(`""`, 300_000),
		"a grid keyed by pairs":     "{" + strings.Repeat("[1 2] :wall, ", 1) + gridEntries(150) + "}",
		"a few sets of pairs":       repeatIn("#{[1 2] [3 4]}", 100),
		"a lone set of a vector":    "#{[]}",
		"records with small lists":  repeatIn(`{:order 17 :items [3 4]}`, 20_000),
	} {
		v, err := ParseEDN(text, 0)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if n, ok := ReadCost(v, ReadCostLimit(int64(len(text)))); !ok {
			t.Errorf("%s: ReadCost %d, over the limit the reader kept to", name, n)
		}
	}
	if _, err := DecodeJSON(`[`+strings.Repeat(`{"id": 1, "tags": ["x"]}, `, 20_000)+`{}]`, 0); err != nil {
		t.Errorf("JSON records: %v", err)
	}
}

// gridEntries is the entries of a map keyed by n*n coordinate pairs.
func gridEntries(n int) string {
	var b strings.Builder
	for x := range n {
		for y := range n {
			b.WriteString("[" + strconv.Itoa(x) + " " + strconv.Itoa(y) + "] :floor, ")
		}
	}
	return b.String()
}

// TestReadCostEmittedReadsBack: a value a turn may emit is one the reader
// reads, and one the reader refuses is one a turn may not emit, over
// random values of small collections, dense and not.
func TestReadCostEmittedReadsBack(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var gen func(depth int) Value
	gen = func(depth int) Value {
		if depth == 0 || r.IntN(3) == 0 {
			return []Value{Int(r.IntN(10)), Int(r.IntN(100_000)), String(""), Keyword("k"), Float(0.5), Nil}[r.IntN(6)]
		}
		parts := make([]Value, r.IntN(4))
		for i := range parts {
			parts[i] = gen(depth - 1)
		}
		switch r.IntN(4) {
		case 0:
			return NewSet(parts)
		case 1:
			b := NewMapBuilder(len(parts))
			for _, p := range parts {
				b.Set(p, gen(depth-1))
			}
			return b.Map()
		case 2:
			return newList(parts)
		}
		return NewVector(parts)
	}
	refused, read := 0, 0
	rounds := sampled(300, 60)
	for range rounds {
		item := gen(1 + r.IntN(3))
		elems := make([]Value, 1+r.IntN(20_000))
		for i := range elems {
			if r.IntN(4) == 0 {
				elems[i] = gen(2)
			} else {
				elems[i] = item
			}
		}
		v := NewVector(elems)
		emitErr := readsBack(v, DefaultMaxNesting, "the result")
		text := WireText(v)
		back, readErr := ParseEDN(text, 0)
		switch {
		case (emitErr != nil) != (readErr != nil):
			t.Fatalf("%.80s (%d bytes): emitting it: %v; reading it: %v", text, len(text), emitErr, readErr)
		case readErr != nil:
			refused++
			if e, ok := readErr.(*Error); !ok || e.Hint != readCostHint {
				t.Fatalf("%.80s: %v, want the read cost hint", text, readErr)
			}
		default:
			read++
			if !Equal(back, v) {
				t.Fatalf("%.80s: read back as %.80s", text, WireText(back))
			}
		}
	}
	if refused == 0 || read == 0 {
		t.Errorf("refused %d, read %d: the values do not cover both sides of the limit", refused, read)
	}
}

// TestReadCostTurn: a turn that would return, or define, a value the
// reader refuses fails with the read cost hint, and its memory is what
// it was.
func TestReadCostTurn(t *testing.T) {
	for _, src := range []string{
		`(vec (repeat 100000 [1]))`,
		`(def pairs (set (map (fn [i] #{i}) (range 30000)))) (count pairs)`,
	} {
		res := run(t, src, Env{})
		if res.Err == nil || res.Err.Hint != readCostHint {
			t.Errorf("%s: %v, want the read cost hint", src, res.Err)
		}
		if res.Memory != nil && res.Memory.len() != 0 {
			t.Errorf("%s: memory holds %d bindings after the failed turn", src, res.Memory.len())
		}
	}
	if res := run(t, `(vec (repeat 100000 [17 24]))`, Env{}); res.Err != nil {
		t.Errorf("pairs: %v", res.Err)
	}
}

// TestReadCostToolAnswer: a tool's answer the reader would refuse in its
// wire text (it came denser than its text, or as a value built by the
// host) fails the call as a tool error the program sees, and the turn's
// record of the call holds the error, not the answer.
func TestReadCostToolAnswer(t *testing.T) {
	dense := make([]Value, 100_000)
	for i := range dense {
		dense[i] = NewVector([]Value{Int(1)})
	}
	host := hostFunc(func(ctx context.Context, name string, args Value) (Value, error) {
		return NewVector(dense), nil
	})
	res := run(t, `(count (tool/pairs))`, Env{Tools: []string{"pairs"}, Host: host})
	if res.Err == nil || res.Err.Kind != toolError || !strings.Contains(res.Err.Hint, readCostHint) {
		t.Fatalf("got %v, want a tool_error with the read cost hint", res.Err)
	}
	if len(res.ToolCalls) != 1 || res.ToolCalls[0].Err == "" || res.ToolCalls[0].Result != nil {
		t.Errorf("the record of the call: %+v", res.ToolCalls)
	}
	// The program may catch it and go on.
	res = run(t, `(try (count (tool/pairs)) (catch Exception e :too-dense))`, Env{Tools: []string{"pairs"}, Host: host})
	if res.Err != nil || res.Value != Keyword("too-dense") {
		t.Errorf("caught: %v, %v", Repr(res.Value), res.Err)
	}
}
