package lisp

import (
	"sync"
	"testing"
)

// A frozen value is shared by goroutines that each build on it; every one
// must see its own result and the shared value must not change. Run with
// -race to check that no goroutine writes what another reads.
func TestFreezeSharedGrowth(t *testing.T) {
	// Vectors, maps past the small-map size (they carry an index) and sets,
	// each the longest version of its lineage: without Freeze, conj and
	// assoc would extend them in place.
	v, err := ParseEDN(`{:v [1 2 3] :m {:a 1 :b 2 :c 3 :d 4 :e 5 :f 6 :g 7 :h 8 :i 9} :s #{1 2 3} :nested [[1] {:x [2]}]}`, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := Repr(v)
	Freeze(v)
	top := v.(*Map)
	get := func(k string) Value { x, _ := top.Get(Keyword(k)); return x }

	const workers = 8
	results := make([]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := Int(100 + w)
			vec := get("v").(*Vector).conj(n)
			m := get("m").(*Map).assoc(Keyword("z"), n)
			s := get("s").(*Set).conj(n)
			inner := get("nested").(*Vector).index(0).(*Vector).conj(n)
			results[w] = Repr(NewVector([]Value{vec, m, s, inner}))
		}()
	}
	wg.Wait()

	if got := Repr(v); got != want {
		t.Errorf("shared value changed:\n got %s\nwant %s", got, want)
	}
	for w, got := range results {
		n := 100 + w
		exp := Repr(NewVector([]Value{
			mustParse(t, `[1 2 3 `+itoa(n)+`]`),
			mustParse(t, `{:a 1 :b 2 :c 3 :d 4 :e 5 :f 6 :g 7 :h 8 :i 9 :z `+itoa(n)+`}`),
			mustParse(t, `#{1 2 3 `+itoa(n)+`}`),
			mustParse(t, `[1 `+itoa(n)+`]`),
		}))
		if got != exp {
			t.Errorf("worker %d:\n got %s\nwant %s", w, got, exp)
		}
	}
}

// Freezing ends in-place growth only for the frozen value: a copy made from
// it grows in place again, so building on shared data stays linear.
func TestFreezeCopyGrowsInPlace(t *testing.T) {
	v := Freeze(NewVector([]Value{Int(1), Int(2)})).(*Vector)
	a := v.conj(Int(3))
	b := a.conj(Int(4))
	if &a.elems[0] != &b.elems[0] {
		t.Error("a copy of a frozen vector should extend in place")
	}
	if &v.elems[0] == &a.elems[0] {
		t.Error("conj on a frozen vector should copy")
	}
}

func mustParse(t *testing.T, s string) Value {
	t.Helper()
	v, err := ParseEDN(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A frozen value prints the same from any number of goroutines at once
// (printing writes nothing into it), and a map made from a frozen one
// prints its own content.
func TestFrozenValuesPrintAlike(t *testing.T) {
	const text = `[{:id 1, :tags #{:b :a}, :who {:name "x"}} {:id 2, :f 1.5} {}]`
	v := Freeze(mustParse(t, text))
	want := sourceText(v)
	const workers = 8
	got := make([]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				got[w] = sourceText(v)
			}
		}()
	}
	wg.Wait()
	for w, g := range got {
		if g != want {
			t.Errorf("worker %d printed\n%s\nwant\n%s", w, g, want)
		}
	}
	first := v.(*Vector).index(0).(*Map)
	changed := first.assoc(Keyword("id"), Int(7)).assoc(Keyword("new"), Int(8))
	if s := sourceText(changed); s != `{:id 7, :tags #{:a :b}, :who {:name "x"}, :new 8}` {
		t.Errorf("a map made from a frozen one prints %s", s)
	}
}
