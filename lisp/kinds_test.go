package lisp

import (
	"fmt"
	"strings"
	"testing"
)

// TestOneHeapShapeServesEverySize: the allocation charged for a value a
// builtin builds, what it costs once read and its footprint when kept
// count each collection alike, from the one table (heap.go). Before, a
// set element was 16 bytes to the first, 56 to the second, 64 to the
// third.
func TestOneHeapShapeServesEverySize(t *testing.T) {
	for _, src := range []string{
		`#{[1] [2] [3]}`, `#{1 2 3}`, `#{1 2 3 4 5 6 7 8 9 10}`,
		`{:a 1 :b 2}`, `{[1] 1}`, `[1 2 3]`, `{:a 1 :b 2 :c 3 :d 4 :e 5 :f 6 :g 7 :h 8 :i 9}`,
	} {
		v := mustParse(t, src)
		shape := heapShapeOf(v)
		if got := builtSize(v); got != shape {
			t.Errorf("%s: allocation charge %d, heap shape %d", src, got, shape)
		}
		if got := readNodeCost(v); got != shape {
			t.Errorf("%s: read cost %d, heap shape %d", src, got, shape)
		}
		var parts int64
		elems, entries, _ := kindOf(v).walkParts()
		for _, e := range elems {
			parts += Footprint(e)
		}
		for _, e := range entries {
			parts += Footprint(e.Key) + Footprint(e.Val)
		}
		if got := Footprint(v); got != shape+parts {
			t.Errorf("%s: footprint %d, heap shape %d and its parts %d", src, got, shape, parts)
		}
	}
}

// TestValueKindsPrintAsThePrinterDoes: each kind's own text (writeText)
// is the printer's: the whole text of a value without parts, the opening
// and closing of one with parts, as EDN and as source.
func TestValueKindsPrintAsThePrinterDoes(t *testing.T) {
	res := run(t, `[nil true 1 2.5 1N 99999999999999999999 (biginteger 7) 1.50M 1E+3M -0.001M "s\n" :k (keyword "a b") 'sym #"a+" inc tool/get [1] '(1 2) () {:a 1} #{1} (fn [x] x)
		(comp inc inc) (every-pred odd?) (where :a = 1) (drop 1 (range)) (map inc)]`, Env{Tools: []string{"get"}})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	values := append([]Value{}, res.Value.(*Vector).Elems()...)
	values = append(values, &varRef{Name: "x"}, javaClass("String"), emptyVector, emptyMap, emptySet,
		&list{Elems: []Value{symbol("f"), Int(1)}}, &mapForm{Elems: []Value{Keyword("a"), Int(1)}}, &setForm{Elems: []Value{Int(1)}})
	seen := map[string]bool{}
	for _, v := range values {
		k := kindOf(v)
		seen[strings.TrimPrefix(strings.TrimPrefix(fmt.Sprintf("%T", v), "*"), "lisp.")] = true
		for _, mode := range []printMode{modeRepr, modeSource} {
			want := printText(v, mode)
			own := func(i int) string {
				var out textWriter
				k.writeText(&printer{out: &out, mode: mode}, i)
				return string(out.buf)
			}
			elems, entries, _ := k.walkParts()
			n := len(elems) + 2*len(entries)
			if _, ok := v.(holder); n == 0 && !ok {
				if got := own(0); got != want {
					t.Errorf("%s (mode %d): its own text %q, the printer's %q", want, mode, got, want)
				}
				continue
			}
			if open, close := own(0), own(n); !strings.HasPrefix(want, open) || !strings.HasSuffix(want, close) {
				t.Errorf("%s (mode %d): its own text opens %q and closes %q", want, mode, open, close)
			}
		}
	}
	if len(seen) < 22 {
		t.Errorf("only %d kinds printed: %v", len(seen), seen)
	}
}
