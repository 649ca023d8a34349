package lisp

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// Long sequences (past longSeq forms) are counted ahead and read into a
// slice of their final length; these tests hold that to reading what the
// text says, and to its purpose: no second copy of a long sequence, and no
// text counted ahead twice.

// longValues are texts of values with long sequences in every place one
// can be: nested in each other, before and after the point where the one
// around them grows long, in maps, sets and lists, with #_ and comments
// that are not forms, and long sequences of long strings.
func longValues() map[string]string {
	n := longSeq
	seq := func(open, close, item string, count int) string {
		return open + strings.Repeat(item+" ", count) + close
	}
	ints := func(count int) string {
		var b strings.Builder
		for i := range count {
			fmt.Fprintf(&b, "%d ", i)
		}
		return b.String()
	}
	return map[string]string{
		"exactly long":               seq("[", "]", "1", n),
		"one more":                   seq("[", "]", "1", n+1),
		"long list":                  seq("(", ")", `"a\nb"`, 2*n+3),
		"long set":                   "#{" + ints(3*n) + "}",
		"long map":                   "{" + ints(4*n) + "}",
		"long inside, early":         "[" + seq("[", "]", "[]", 2*n) + strings.Repeat(" {}", 2*n) + "]",
		"long inside, late":          "[" + strings.Repeat("{} ", 2*n) + seq("[", "]", "[]", 2*n) + "]",
		"long in long in long, late": "[" + strings.Repeat("1 ", n+5) + "[" + strings.Repeat("2 ", n+5) + seq("[", "]", "3", n+5) + "]]",
		"discards and comments":      "[" + strings.Repeat("1 #_ 2 ;; 3\n", 3*n) + "#_[" + strings.Repeat("4 ", 2*n) + "]]",
		"long in a map":              "{:a " + seq("[", "]", ":k", 2*n) + " :b " + seq("#{", "}", "", 0) + "}",
		"long past a sample's end":   "[1 2 3 4 " + seq("[", "]", "5", n) + "]",
		"long strings":               seq("[", "]", `"`+strings.Repeat("x", 100)+`"`, 2*n),
	}
}

func TestLongSequencesRead(t *testing.T) {
	for name, text := range longValues() {
		v, err := ParseEDN(text, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// What the text holds, read back from the value's own text: the
		// printer does not depend on how the reader sized anything.
		again, err := ParseEDN(Repr(v), 0)
		if err != nil || !Equal(v, again) {
			t.Errorf("%s: read back as %.80s (%v)", name, Repr(again), err)
		}
		// Every sequence the reader built holds no room it will not use.
		w := newWalk(nil, v, MaxValueNesting)
		for ev, at := w.next(); ev != walkDone; ev, at = w.next() {
			if x, ok := at.(*Vector); ok && ev != walkLeave && cap(x.elems) != len(x.elems) {
				t.Errorf("%s: a vector of %d elements has room for %d", name, len(x.elems), cap(x.elems))
			}
		}
		// A sample keeps the first elements and the lengths.
		sample, err := ParseEDNSample(text, 0, 3)
		if err != nil {
			t.Fatalf("%s sampled: %v", name, err)
		}
		if x, ok := v.(*Vector); ok && sample.(*Vector).Len() != x.Len() {
			t.Errorf("%s sampled: %d elements, want %d", name, sample.(*Vector).Len(), x.Len())
		}
	}
	if _, err := ParseEDN("[1 2 [3 "+strings.Repeat("4 ", 2*longSeq)+"}]", 0); err == nil || !strings.Contains(err.Error(), `found '}' but "[" opened`) {
		t.Errorf("a long sequence closed by the wrong bracket: %v", err)
	}
}

// TestLongSequencesInPrograms: a program's long literals and a #() whose
// highest argument comes after the body has grown long.
func TestLongSequencesInPrograms(t *testing.T) {
	n := 2*longSeq + 1
	src := "[(count [" + strings.Repeat("1 ", n) + "]) (count #{" + func() string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%d ", i)
		}
		return b.String()
	}() + "}) (#(+ " + strings.Repeat("0 ", n) + "%2) 1 2)]"
	res := run(t, src, Env{})
	if res.Err != nil || Repr(res.Value) != fmt.Sprintf("[%d %d 2]", n, n) {
		t.Fatalf("got %v, %v", res.Value, res.Err)
	}
}

// TestLongSequenceAllocatesOnce: reading a long vector allocates its
// elements once, not on the stack of forms and again in a copy.
func TestLongSequenceAllocatesOnce(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector's allocations")
	}
	const n = 1_000_000
	for _, c := range []struct {
		name string
		read func(string) (Value, error)
		text string
	}{
		{"EDN", func(s string) (Value, error) { return ParseEDN(s, 0) }, "[" + strings.Repeat("[]", n) + "]"},
		{"JSON", func(s string) (Value, error) { return DecodeJSON(s, 0) }, "[" + strings.Repeat("[],", n) + "[]]"},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		v, err := c.read(c.text)
		runtime.ReadMemStats(&after)
		if err != nil || v.(*Vector).Len() < n {
			t.Fatalf("%s: %v", c.name, err)
		}
		// 16 bytes an element, and what the reader needs besides.
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16*n*11/10 {
			t.Errorf("%s: reading %d empty vectors allocated %d bytes, %.1f per element", c.name, n, alloc, float64(alloc)/n)
		}
	}
}

// TestLongSequencesCountedAheadOnce: long sequences nested in long
// sequences, each growing long before the next begins, are counted ahead
// once: the text inside is read at most twice, not once per level around
// it. Counted in allocations: each string with an escape allocates as it
// is read, counted ahead or not.
func TestLongSequencesCountedAheadOnce(t *testing.T) {
	const levels = 20
	level := strings.Repeat(`"\n" `, longSeq)
	text := strings.Repeat("["+level, levels) + strings.Repeat("]", levels)
	allocs := testing.AllocsPerRun(1, func() {
		if _, err := ParseEDN(text, 0); err != nil {
			t.Fatal(err)
		}
	})
	// Read: the string and its boxing; counted ahead: the string.
	if perString := allocs / (levels * longSeq); perString > 3.2 {
		t.Errorf("%.0f allocations, %.1f per string: text counted ahead more than once", allocs, perString)
	}
}

// TestJSONCountedAheadOnce: counting a long array ahead counts the long
// arrays and objects inside it too, so that none of them is counted again.
func TestJSONCountedAheadOnce(t *testing.T) {
	const levels = 20
	level := strings.Repeat(`"x,[]{}",`, longSeq)
	text := strings.Repeat("["+level, levels) + "{" + strings.Repeat(`"a":1,`, longSeq) + `"b":[]}` + strings.Repeat("]", levels)
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	d := jsonDecoder{dec: dec, text: text, maxDepth: MaxValueNesting}
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	open := int(dec.InputOffset())
	for range longSeq {
		if _, err := d.value(1); err != nil {
			t.Fatal(err)
		}
	}
	if n := d.countAhead(open, 0); n != longSeq+1 {
		t.Errorf("counted %d elements, want %d", n, longSeq+1)
	}
	if len(d.counted) != levels+1 {
		t.Errorf("counted %d long arrays and objects, want %d: %v", len(d.counted), levels+1, d.counted)
	}
	for at, n := range d.counted {
		if n != longSeq+1 {
			t.Errorf("the one opening at %d: %d, want %d", at, n, longSeq+1)
		}
	}
	if v, err := DecodeJSON(text, 0); err != nil || v.(*Vector).Len() != longSeq+1 {
		t.Errorf("decoded %v", err)
	}
}
