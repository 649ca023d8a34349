package lisp

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestEmitPassWritesWhatSeparatePassesWrote: the one emit pass writes,
// for any value a turn can make, the wire text WireText writes, the JSON
// EncodeJSON writes (or none when it has none), and finds the part
// without a wire text the definition walk finds, with and without the
// texts of the data's records, at every nesting setting; without the
// JSON (a binding's value) it writes and refuses the same.
func TestEmitPassWritesWhatSeparatePassesWrote(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 1))
	data, texts := emitTestData(t)
	leaves := emitTestLeaves(t, data)
	runs := 3000
	if testing.Short() {
		runs = 800
	}
	withJSON, withSource, withNoText := 0, 0, 0
	for i := range runs {
		v := randomEmitValue(r, leaves, data, 4)
		if r.IntN(3) == 0 {
			v = sortedOf(t, r, v, data)
		}
		if i%2 == 1 {
			v = Freeze(v)
		}
		for _, nesting := range []int{0, 3} {
			e := emitText(nil, v, 1<<20, nesting, nil, "the result", true)
			known := emitText(nil, v, 1<<20, nesting, texts, "the result", true)
			if known.text != e.text || known.ok != e.ok || known.json != e.json || known.hasJSON != e.hasJSON || known.noText != e.noText || e.ok && known.readCost != e.readCost {
				t.Fatalf("%s: with record texts %q %v %q, without %q %v %q", Repr(v), known.text, known.ok, known.json, e.text, e.ok, e.json)
			}
			plain := emitText(nil, v, 1<<20, nesting, texts, "the result", false)
			if plain.text != e.text || plain.ok != e.ok || plain.deep != e.deep || (plain.bad == nil) != (e.bad == nil) || e.ok && plain.size != e.size {
				t.Fatalf("%s: without JSON %q %v %v %v, with %q %v %v %v", Repr(v), plain.text, plain.ok, plain.deep, plain.bad, e.text, e.ok, e.deep, e.bad)
			}
			if !e.ok {
				if !e.deep && e.bad == nil {
					t.Fatalf("%s at nesting %d: refused without a reason", Repr(v), nesting)
				}
				continue
			}
			if want, ok := wireText(v, 0, nesting); !ok || want != e.text {
				t.Fatalf("%s at nesting %d: emitted %s, WireText %s", Repr(v), nesting, e.text, want)
			}
			want, err := EncodeJSON(v)
			if (err == nil) != e.hasJSON || want != e.json {
				t.Fatalf("%s: emitted JSON %q (%v), EncodeJSON %q (%v)", e.text, e.json, e.hasJSON, want, err)
			}
			bad, _, _, _ := definable(nil, v, nestingOrDefault(nesting))
			if bad != e.noText {
				t.Fatalf("%s: emitted found %v without text, the definition walk %v", e.text, e.noText, bad)
			}
			withJSON += boolCount(e.hasJSON)
			withSource += boolCount(e.text != Repr(v))
			withNoText += boolCount(e.noText != nil)
		}
	}
	t.Logf("%d values: %d with JSON, %d written as source, %d with a part without text", runs, withJSON, withSource, withNoText)
	if withJSON < runs/4 || withSource < runs/10 || withNoText < runs/50 {
		t.Errorf("too few values of a kind: %d with JSON, %d as source, %d without text", withJSON, withSource, withNoText)
	}
}

func boolCount(b bool) int {
	if b {
		return 1
	}
	return 0
}

// emitTestData is data of records, frozen, and their texts as a request's
// data has them.
func emitTestData(t *testing.T) (*Map, *RecordTexts) {
	data, err := ParseEDN(`{:orders [{:id 1, :tag :a, :s "x \"y\"\n"} {:id 2, :tag :b, :f 1.5, :n nil} {:id 3, "tag" "a", :k :x}
	 {:id 4, :tag :a-b, "a" [1]} {:id 5, "s" true, :s false} {:id 6, :big 12345678901234}]}`, 0)
	if err != nil {
		t.Fatal(err)
	}
	frozen := Freeze(data).(*Map)
	return frozen, NewRecordTexts(frozen)
}

// emitTestLeaves are values programs make that holds no others to build
// random values of: dates, functions, atoms, sorted collections, regexes.
func emitTestLeaves(t *testing.T, data *Map) []Value {
	var out []Value
	for _, src := range []string{
		`(java.util.Date. 1700000000000)`, `(LocalDate/parse "2024-02-29")`, `(Instant/parse "2024-01-02T03:04:05Z")`,
		`(fn [x] x)`, `inc`, `(partial + 1)`, `(comp inc inc)`, `(let [k (keyword "a b")] (fn [m] (get m k)))`,
		`(sorted-set "b" "a" "c")`, `(sorted-map "b" 1 "a" 2)`, `(sorted-map 2 :x 1 :y)`,
		`#"\d+"`, `(re-pattern "a\"b")`, `(symbol "ok")`, `'a.b/c`, `(list)`, `(list 1 (list 2))`,
		`(first data/orders)`, `data/orders`, `(filterv :tag data/orders)`, `(group-by :tag data/orders)`,
	} {
		res, err := Eval(context.Background(), src, Env{Data: data})
		if err != nil || res.Err != nil {
			t.Fatalf("%s: %v %v", src, err, res.Err)
		}
		out = append(out, res.Value)
	}
	// What only lives while a program runs, which no result holds.
	return append(out, &Builtin{Name: "made-up"}, &atom{value: Int(1)}, &reducedValue{v: Int(2)})
}

// randomEmitValue builds a value at most depth levels deep of scalars of
// every kind (constructed keywords, symbols, floats JSON has no number
// for, strings that are not UTF-8), leaves, records and collections.
func randomEmitValue(r *rand.Rand, leaves []Value, data *Map, depth int) Value {
	names := []string{"a", "", "a b", ":y", "é字", "x/y", "1", `q"`, "ok", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	if depth <= 1 || r.IntN(3) == 0 {
		switch r.IntN(12) {
		case 0:
			return Int(r.Int64() - r.Int64())
		case 1:
			return Float([]float64{1.5, math.Copysign(0, -1), 1e300, 1e-5, 3, math.NaN(), math.Inf(1)}[r.IntN(7)])
		case 2:
			return String([]string{"a", "a b", "\"\\\n\t\r\x01", "é", "\xff", ""}[r.IntN(6)])
		case 3, 4:
			return Keyword(names[r.IntN(len(names))])
		case 5:
			return symbol(names[r.IntN(len(names))])
		case 6:
			return []Value{Nil, Bool(true), Bool(false)}[r.IntN(3)]
		case 7, 8:
			return leaves[r.IntN(len(leaves))]
		}
		return Int(r.IntN(10))
	}
	n := r.IntN(4)
	if r.IntN(8) == 0 {
		n = 6 + r.IntN(12) // past the few keys and elements compared one by one
	}
	kids := make([]Value, n)
	for i := range kids {
		kids[i] = randomEmitValue(r, leaves, data, depth-1)
	}
	switch r.IntN(5) {
	case 0:
		return NewVector(kids)
	case 1:
		return newList(kids)
	case 2:
		return NewSet(kids)
	case 3:
		b := NewMapBuilder(n)
		for _, k := range kids {
			var key Value = Keyword(names[r.IntN(len(names))])
			switch r.IntN(4) {
			case 0:
				key = String(names[r.IntN(len(names))])
			case 1:
				key = randomEmitValue(r, leaves, data, depth-1)
			}
			b.Set(key, k)
		}
		return b.Map()
	}
	// Records of the data among other values, as a program's filtered data.
	got, _ := data.Get(Keyword("orders"))
	orders := got.(*Vector).elems
	for i := range kids {
		if r.IntN(2) == 0 {
			kids[i] = orders[r.IntN(len(orders))]
		}
	}
	return NewVector(kids)
}

// sortedOf is v in a sorted map under string keys, or in a sorted set
// with strings, as a program sorts values.
func sortedOf(t *testing.T, r *rand.Rand, v Value, data *Map) Value {
	src := `(sorted-map "k" data/v "a" [data/v])`
	if r.IntN(2) == 0 {
		src = `(conj (sorted-set-by (fn [a b] (compare (str a) (str b))) "z" "b") data/v)`
	}
	m := NewMapBuilder(2)
	m.Set(Keyword("v"), v)
	res, err := Eval(context.Background(), src, Env{Data: Freeze(m.Map()).(*Map)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil {
		return v // a value the program could not make (a comparison that fails)
	}
	return res.Value
}

// TestEmitPassJSONOfNamedCases: cases the random values reach seldom,
// against EncodeJSON: repeats past the keys and elements compared one by
// one, sets whose elements sort differently as EDN and as JSON.
func TestEmitPassJSONOfNamedCases(t *testing.T) {
	for _, src := range []string{
		`{:a 1 :b 2 :c 3 :d 4 :e 5 :f 6 :g 7 :h 8 :i 9 :j 10 "j" 11}`,
		`{:a 1 :b 2 :c 3 :d 4 :e 5 :f 6 :g 7 :h 8 :i 9 :j 10 "k" 11}`,
		`{:a 1 :b 2 :c 3 :d 4 :e 5 :f 6 :g 7 :h 8 "a" 9}`,
		`#{:a :b :c :d :e :f :g :h :i :j "j"}`,
		`#{:a :b :c :d :e :f :g :h :i :j "k"}`,
		`#{"b" :a "c" [1 2] {:x #{3 1 2}} 1.5 nil}`,
		`[{:a {:a {:a 1}} "a" 2} #{#{1 2} #{"1" "2"}}]`,
	} {
		v, err := ParseEDN(src, 0)
		if err != nil {
			t.Fatal(err)
		}
		e := emitText(nil, v, 1<<20, 0, nil, "the result", true)
		want, err := EncodeJSON(v)
		if !e.ok || e.hasJSON != (err == nil) || e.json != want {
			t.Errorf("%s: emitted JSON %q (%v), EncodeJSON %q (%v)", src, e.json, e.hasJSON, want, err)
		}
	}
}

// TestEmitPassConcurrent: emit passes running at once, each in writers
// and stacks taken from the pools, write what one pass alone writes.
func TestEmitPassConcurrent(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 2))
	data, texts := emitTestData(t)
	leaves := emitTestLeaves(t, data)
	values := make([]Value, 200)
	want := make([]emitted, len(values))
	for i := range values {
		values[i] = Freeze(randomEmitValue(r, leaves, data, 4))
		want[i] = emitText(nil, values[i], 1<<20, 0, texts, "the result", i%2 == 0)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Go(func() {
			for k := range values {
				i := (k + 25*g) % len(values)
				got := emitText(nil, values[i], 1<<20, 0, texts, "the result", i%2 == 0)
				if got.text != want[i].text || got.json != want[i].json || got.ok != want[i].ok || got.noText != want[i].noText {
					errs <- Repr(values[i])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for v := range errs {
		t.Errorf("%s: emitted otherwise alongside other passes", v)
	}
}
