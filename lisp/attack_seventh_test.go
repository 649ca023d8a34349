package lisp

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestFormatIsChargedWhatItBuilds: a conversion of format pads and cuts
// its text apart from the writer; the padding and the copies it makes
// are charged before they are built, so that wide widths repeated end at
// the budget with what Go allocated near what was charged. Before, 100,000
// %1$10000d allocated 3 to 4 times the budget before it ended.
func TestFormatIsChargedWhatItBuilds(t *testing.T) {
	checkAttacks(t, []attack{
		{name: "100,000 %1$10000d", src: `(count (format (apply str (repeat 100000 "%1$10000d")) 1))`, want: memoryLimit, maxAlloc: 24 << 20},
		{name: "100,000 %1$-10000s", src: `(count (format (apply str (repeat 100000 "%1$-10000s")) "a"))`, want: memoryLimit, maxAlloc: 24 << 20},
		{name: "100,000 %1$010000d", src: `(count (format (apply str (repeat 100000 "%1$010000d")) -1))`, want: memoryLimit, maxAlloc: 24 << 20},
		{name: "100,000 %1$10000.5f", src: `(count (format (apply str (repeat 100000 "%1$10000.5f")) 1.5))`, want: memoryLimit, maxAlloc: 24 << 20},
		{name: "100,000 %1$.10000f", src: `(count (format (apply str (repeat 100000 "%1$.10000f")) 1.5))`, want: memoryLimit, maxAlloc: 24 << 20},
		{name: "%S of 3 MB three times", src: `(let [s (apply str (repeat 3000 (apply str (repeat 1000 "a"))))] (count (format "%S%S%S" s s s)))`, want: memoryLimit, maxAlloc: 40 << 20},
	}, Env{})
	// Narrow widths and the plain %s cost what they did.
	for src, want := range map[string]Value{
		`(count (format (apply str (repeat 1000 "%1$5d|")) 42))`:                                    Int(6000),
		`(let [s (apply str (repeat 3000 (apply str (repeat 1000 "a"))))] (count (format "%s" s)))`: Int(3_000_000),
		`(format "%-6s|%06d|%S|%.2s" "ab" -42 "xy" "abc")`:                                          String("ab    |-00042|XY|ab"),
	} {
		if res := run(t, src, Env{}); res.Err != nil || !Equal(res.Value, want) {
			t.Errorf("%s: %v, %v; want %v", src, res.Value, res.Err, want)
		}
	}
}

// TestFlatKeysReadAsTheirCanonicalText: a collection of scalars is hashed
// as a key without a walk or a table of hashes, to the same text the
// walk writes, whatever its kind, order and parts.
func TestFlatKeysReadAsTheirCanonicalText(t *testing.T) {
	scalars := []Value{Nil, Bool(true), Int(-7), Int(1 << 40), Float(0.5), Float(math.NaN()), Float(math.Copysign(0, -1)), String("a b"), String(""),
		Keyword("k"), Keyword("ns/k"), symbol("s"), newBig(big.NewInt(12)), mustRead(t, "12N"), Float32(1.5), mustRead(t, "1.50M"), mustRead(t, `#"a+"`), mustRead(t, `\c`)}
	rng := rand.New(rand.NewPCG(7, 33))
	for range 2000 {
		n := rng.IntN(6)
		var parts []Value
		for range n {
			parts = append(parts, scalars[rng.IntN(len(scalars))])
		}
		b := NewMapBuilder(n)
		for i := 0; i+1 < len(parts); i += 2 {
			b.Set(parts[i], parts[i+1])
		}
		for _, v := range []Value{NewVector(parts), newList(parts), NewSet(parts), b.Map()} {
			flat, ok := flatCanonicalText(v)
			if want := canonicalText(v, nil); !ok || string(flat) != string(want) {
				t.Fatalf("%s: flat key %q (%v), want %q", Repr(v), flat, ok, want)
			}
		}
	}
	if _, ok := flatCanonicalText(NewVector([]Value{Int(1), NewVector(nil)})); ok {
		t.Errorf("a vector holding a vector read as flat")
	}
}

func mustRead(t *testing.T, src string) Value {
	t.Helper()
	res := run(t, src, Env{})
	if res.Err != nil {
		t.Fatalf("%s: %v", src, res.Err)
	}
	return res.Value
}

// TestFlatHashIsTheStructuralHash: the structural hash of a collection of
// scalars found without a walk is the one the walk finds, so that a
// collection's parts sort alike whichever found their hashes.
func TestFlatHashIsTheStructuralHash(t *testing.T) {
	for _, src := range []string{`[]`, `#{}`, `{}`, `[1 "a" :k nil]`, `#{1 2.5 "x" :y}`, `{:a 1 "b" [2] 3 #{4}}`, `(list 1 2)`, `#user.R{:a 1 :b 2}`} {
		v := mustRead(t, src)
		for _, c := range append([]Value{v}, walkParts(v)...) {
			h, ok := flatHash(c)
			want, isColl := walkHashes(c, true).get(c)
			if flat := isColl && flatColl(c); ok != flat || ok && h != want {
				t.Errorf("%s: flat hash %x (%v), the walk's %x (flat: %v)", Repr(c), h, ok, want, flat)
			}
		}
	}
}

func walkParts(v Value) []Value {
	elems, entries, _ := parts(v)
	out := append([]Value(nil), elems...)
	for _, e := range entries {
		out = append(out, e.Key, e.Val)
	}
	return out
}

// TestDefmethodsJoinTheirMultimethodByIndex: a program of thousands of
// defmethods joins each to its multimethod by the text of its dispatch
// value, found in an index rather than by comparing it with every method
// before it (quadratic, and done while the program is read: 20,000 took 8
// s of CPU past a 1 s timeout); a later one of the same value replaces the
// earlier, and the :default value names the fallback.
func TestDefmethodsJoinTheirMultimethodByIndex(t *testing.T) {
	m := &multimethod{defaultWhen: Keyword("default")}
	const n = 20_000
	for round := range 2 {
		for i := range n {
			m.add(Int(i), Int(round))
		}
	}
	m.add(Keyword("default"), String("fallback"))
	if len(m.methods) != n || len(m.methodAt) != n || m.methods[n-1].value != Int(n-1) || m.methods[7].fn != Int(1) || m.fallback != String("fallback") {
		t.Fatalf("%d methods, %d indexed, the 8th's fn %v, fallback %v; want %d, each replaced once", len(m.methods), len(m.methodAt), m.methods[7].fn, m.fallback, n)
	}
	var src strings.Builder
	src.WriteString("(defmulti f identity)\n")
	for i := range 2000 {
		fmt.Fprintf(&src, "(defmethod f %d [x] %d)\n", i, i)
	}
	src.WriteString("(defmethod f 5 [x] :five)\n(defmethod f :default [x] :none)\n[(f 5) (f 1999) (f -1) (count (methods f))]")
	if res := run(t, src.String(), Env{}); res.Err != nil || Repr(res.Value) != "[:five 1999 :none 2001]" {
		t.Errorf("2,000 defmethods: %v, %v; want [:five 1999 :none 2001]", res.Value, res.Err)
	}
}
