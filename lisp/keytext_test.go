package lisp

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// Collections that are set elements or map keys are hashed whole when the
// set or map is built, once for every set or map around them: the reader
// refuses values where that adds up to more than keyTextPerByte times
// their text, and no turn emits one.

// setChain is a set holding a set, depth levels deep.
func setChain(depth int) string {
	return strings.Repeat("#{", depth) + strings.Repeat("}", depth)
}

func TestKeyTextRefusedOnRead(t *testing.T) {
	for name, text := range map[string]string{
		"sets in sets":          "[" + strings.Repeat(setChain(998), 20) + "]",
		"maps keyed by maps":    "[" + strings.Repeat(strings.Repeat("{", 499)+strings.Repeat("} 1", 499), 20) + "]",
		"vectors in set chains": "[" + strings.Repeat(strings.Repeat("#{[", 300)+strings.Repeat("]}", 300), 20) + "]",
	} {
		// Before the limit, reading the first of them took seconds and
		// gigabytes; now it stops once the limit is passed.
		var err error
		allocs := testing.AllocsPerRun(1, func() { _, err = ReadValue(context.Background(), text, 0, 0) })
		if err == nil || !strings.Contains(err.Error(), "nest too deeply in one another") {
			t.Errorf("%s: %v", name, err)
		}
		if e, ok := err.(*Error); !ok || e.Kind != parseError {
			t.Errorf("%s: %#v, want a parse_error", name, err)
		}
		if perByte := allocs / float64(len(text)); perByte > 30 && !raceDetector {
			t.Errorf("%s: %.0f allocations, %.1f a byte", name, allocs, perByte)
		}
	}
}

// TestKeyTextWithinReads: data that nests sets and keyed collections a few
// levels reads as before.
func TestKeyTextWithinReads(t *testing.T) {
	for _, text := range []string{
		`#{{:id 1 :tags #{:a :b}} {:id 2 :tags #{}}}`,
		`{[1 2] :x, [3 4] :y, {:k 1} #{[1] [2]}}`,
		`#{#{{:a 1}} #{{:b 2}}}`,
		setChain(4),
		`[` + strings.Repeat(`{[:a :b] 1 #{1 2} 2}`, 100) + `]`,
	} {
		if _, err := ParseEDN(text, 0); err != nil {
			t.Errorf("%.60s: %v", text, err)
		}
	}
}

// TestKeyTextEmitted: a turn whose result, definitions or tool arguments
// would be refused on the way back fails with depth_limit, memory as it
// was; every turn that succeeds is read back as an equal value. The sets
// nest one level more each time; with a list, a string and a function
// inside, so that the text is source or needs escapes.
func TestKeyTextEmitted(t *testing.T) {
	host := hostFunc(func(context.Context, string, Value) (Value, error) { return Nil, nil })
	for _, inner := range []string{`1`, `(list 1 "a\"b")`, `[:k (keyword "a b") (quote x)]`} {
		refused := 0
		for depth := 1; depth <= 12; depth++ {
			chain := fmt.Sprintf(`(loop [s %s i 0] (if (< i %d) (recur #{s [i]} (inc i)) s))`, inner, depth)
			for _, src := range []string{chain, "(def d " + chain + ") 1", "(tool/t {:s " + chain + "})"} {
				res := run(t, src, Env{Tools: []string{"t"}, Host: host})
				if res.Err != nil {
					if res.Err.Kind != depthLimit || !strings.Contains(res.Err.Message, "nested too deeply in one another") {
						t.Fatalf("%s: %v", src, res.Err)
					}
					if res.Memory != nil && len(res.Memory.bindings) > 0 {
						t.Errorf("%s: memory changed by a failed turn", src)
					}
					refused++
					continue
				}
				var emitted Value
				switch {
				case strings.HasPrefix(src, "(def"):
					emitted = res.Memory.bindings[0].Value
				case strings.HasPrefix(src, "(tool"):
					continue // answered nil; the arguments were checked when the call was made
				default:
					emitted = res.Value
				}
				back, err := ReadValue(context.Background(), WireText(emitted), 0, 0)
				if err != nil || !Equal(back, emitted) {
					t.Fatalf("%s: emitted %.100s, read back %v", src, WireText(emitted), err)
				}
			}
		}
		if refused == 0 {
			t.Errorf("inside %s: no depth refused", inner)
		}
	}
}
