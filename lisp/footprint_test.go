package lisp

import (
	"strings"
	"testing"
)

// TestReadValuesComeFrozen: what the reader and the JSON decoder build
// comes frozen with its nesting measured where it is plain data, so that
// freezing it walks nothing again; with a set inside, Freeze measures what
// holds it as before.
func TestReadValuesComeFrozen(t *testing.T) {
	for _, c := range []struct {
		text string
		json bool
	}{
		{`[[1] {:a [2 {:b "c"}]} () [] {} 1.5 nil :k]`, false},
		{"[" + strings.Repeat("[1]", 500) + "]", false},
		{`[[1], {"a": [2, {"b": "c"}]}, [], {}, 1.5, null]`, true},
		{`[#{1} [#{[2]}]]`, false},
	} {
		var v Value
		var err error
		if c.json {
			v, err = DecodeJSON(c.text, 0)
		} else {
			v, err = ParseEDN(c.text, 0)
		}
		if err != nil {
			t.Fatal(err)
		}
		measured, ok := nestsMeasured(v)
		if hasSet := strings.Contains(c.text, "#{"); ok == hasSet {
			t.Errorf("%.40s: measured %v", c.text, ok)
		}
		if allocs := testing.AllocsPerRun(3, func() { Freeze(v) }); ok && allocs > 0 {
			t.Errorf("%.40s: freezing it allocated %.0f times", c.text, allocs)
		}
		Freeze(v)
		again, _ := nestsMeasured(v)
		if ok && again != measured {
			t.Errorf("%.40s: read as %d levels, frozen as %d", c.text, measured, again)
		}
		if deep := nestsDeeper(v, again-1); !deep || nestsDeeper(v, again) {
			t.Errorf("%.40s: measured %d levels, nestsDeeper disagrees", c.text, again)
		}
	}
}

// TestFootprintUpTo: counting stops once it passes the limit, without
// walking the rest, and agrees with Footprint below it.
func TestFootprintUpTo(t *testing.T) {
	v, err := ParseEDN("["+strings.Repeat("[10 [20 30 40 50 60]]", 100_000)+"]", 0)
	if err != nil {
		t.Fatal(err)
	}
	whole := Footprint(v)
	if n, ok := FootprintUpTo(v, whole); !ok || n != whole {
		t.Errorf("up to %d: %d, %v", whole, n, ok)
	}
	if n, ok := FootprintUpTo(v, whole-1); ok || n <= whole-1 {
		t.Errorf("up to %d: %d, %v", whole-1, n, ok)
	}
	allocs := testing.AllocsPerRun(3, func() {
		if _, ok := FootprintUpTo(v, 64<<10); ok {
			t.Error("64 KiB: it fits")
		}
	})
	if allocs > 100 {
		t.Errorf("counting up to 64 KiB of %d bytes allocated %.0f times", whole, allocs)
	}
}

// TestFootprintCountsComparators: a sorted collection kept with its
// comparator keeps what the comparator captured, which the footprint of
// a kept value counts, once however many versions share it. Before, a
// comparator holding a 10,000-item vector added nothing.
func TestFootprintCountsComparators(t *testing.T) {
	plain := readOrMade(t, `(sorted-set-by (fn [a b] (compare a b)) 1 2 3)`)
	holding := readOrMade(t, `(let [big (vec (range 10000))] (sorted-set-by (fn [a b] (count big) (compare a b)) 1 2 3))`)
	bigVector := Footprint(readOrMade(t, `(vec (range 10000))`))
	got := Footprint(holding) - Footprint(plain)
	if got < bigVector {
		t.Errorf("the comparator's 10,000-item vector adds %d bytes to the footprint, want at least %d", got, bigVector)
	}
	t.Logf("the comparator's vector adds %d bytes (the vector alone: %d)", got, bigVector)
	res := run(t, `(let [big (vec (range 10000))
	                     s (sorted-set-by (fn [a b] (count big) (compare a b)) 1 2 3)]
	                 [s (conj s 4) (disj s 1)])`, Env{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	three := Footprint(res.Value)
	if one := Footprint(holding); three > 3*one-2*bigVector {
		t.Errorf("three versions sharing one comparator: %d bytes, one: %d; the comparator is counted more than once", three, one)
	}
}
