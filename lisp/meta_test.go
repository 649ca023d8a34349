package lisp

import (
	"strings"
	"sync"
	"testing"
)

// What metadata a value keeps through each operation is held to Clojure
// by the coverage table's meta rows (testdata/coverage/table.txt); these
// tests hold what the table cannot see: what the walks, the wire and
// memory do with it.

// Metadata is a part of its value to Freeze: a value shared between
// evaluations has its metadata frozen with it, so building on the
// metadata in two goroutines copies instead of growing one array.
func TestFreezeReachesMetadata(t *testing.T) {
	meta := NewVector([]Value{Int(1), Int(2)}).conj(Int(3)) // the longest of its lineage
	metaMap := NewMapBuilder(1)
	metaMap.Set(Keyword("tags"), meta)
	v, ok := withMeta(NewVector([]Value{Int(9)}), metaMap.Map())
	if !ok {
		t.Fatal("a vector cannot carry metadata")
	}
	Freeze(v)
	if meta.tail != nil {
		t.Fatal("Freeze left the lineage of a vector inside the metadata open")
	}
	const workers = 8
	results := make([]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tags, _ := metaOf(v).Get(Keyword("tags"))
			results[w] = Repr(tags.(*Vector).conj(Int(100 + w)))
		}()
	}
	wg.Wait()
	for w, got := range results {
		if want := "[1 2 3 " + itoa(100+w) + "]"; got != want {
			t.Errorf("worker %d: %s, want %s", w, got, want)
		}
	}
}

// A value with metadata is not measured as plain data, so that its
// parent is walked into by a later Freeze, which must reach the metadata.
func TestMetadataKeepsParentsUnmeasured(t *testing.T) {
	inner, _ := withMeta(mustParse(t, "[1]"), mustParse(t, "{:k [2]}").(*Map))
	outer := Freeze(NewVector([]Value{inner}))
	if _, measured := nestsMeasured(outer); measured {
		t.Error("a vector holding a value with metadata was measured as plain data")
	}
	if _, measured := nestsMeasured(inner); measured {
		t.Error("a vector with metadata was measured as plain data")
	}
}

// The footprint of a kept value counts its metadata.
func TestFootprintCountsMetadata(t *testing.T) {
	plain := mustParse(t, "[1 2]")
	big := mustParse(t, `{:note "a note" :rows [[1 2 3] [4 5 6] [7 8 9]]}`).(*Map)
	with, _ := withMeta(plain, big)
	if a, b := Footprint(plain), Footprint(with); b < a+Footprint(big) {
		t.Errorf("footprint with metadata %d, without %d, of the metadata %d", b, a, Footprint(big))
	}
}

// Metadata does not travel on the wire: the value's text is Clojure's
// default print, and it reads back = to what was sent.
func TestMetadataIsNotEmitted(t *testing.T) {
	res := run(t, `(with-meta {:a [1 2]} {:source :api})`, Env{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if got := Repr(res.Value); got != "{:a [1 2]}" {
		t.Errorf("printed %s", got)
	}
	if res.ValueText != "" && res.ValueText != "{:a [1 2]}" {
		t.Errorf("wire text %s", res.ValueText)
	}
	back, _, err := ReadWire(Repr(res.Value), WireRead{})
	if err != nil {
		t.Fatal(err)
	}
	if !Equal(back, res.Value) || metaOf(back) != nil {
		t.Errorf("read back as %s with metadata %v", Repr(back), metaOf(back))
	}
}

// alter-meta! changes an atom or var of its own evaluation only: two
// evaluations of one program (as a cached program runs at once) each see
// their own.
func TestAlterMetaStaysInItsEvaluation(t *testing.T) {
	const src = `(def ^{:n 0} x 1) (alter-meta! #'x update :n inc) (let [a (atom 0 :meta {:n 0})] (alter-meta! a update :n inc) [(:n (meta #'x)) (:n (meta a))])`
	var wg sync.WaitGroup
	results := make([]string, 6)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := run(t, src, Env{})
			if res.Err != nil {
				results[i] = res.Err.Error()
				return
			}
			results[i] = Repr(res.Value)
		}()
	}
	wg.Wait()
	for i, got := range results {
		if got != "[1 1]" {
			t.Errorf("evaluation %d: %s, want [1 1]", i, got)
		}
	}
}

// A literal with constant metadata is built once and shared by every
// evaluation; with metadata that evaluates, each gets its own.
func TestReaderMetadataOnLiterals(t *testing.T) {
	cases := []srcWant{
		{`(meta ^:private ^:dynamic [1])`, "{:dynamic true, :private true}"},
		{`(let [n 2] (meta ^{:n (* n 2)} #{n}))`, "{:n 4}"},
		{`(meta '^{:a (+ 1 2)} {:b 1})`, "{:a (+ 1 2)}"},
		{`(defn f [] ^:k [1]) [(f) (meta (f)) (pr-str f)]`, `[[1] {:k true} "(fn [] ^{:k true} [1])"]`},
		{`(defn ^long g ^String [^long x] x) (g 1)`, "1"},
		{`(defn f [^java.util.Map {:keys [a]} ^{:k 1} [b c] & ^:x {:keys [d]}] [a b c d]) (let [^:x [p q] [1 2]] (f {:a p} [q 3] :d 4))`, "[1 2 3 4]"},
		{`(defn f (^long [x] x) (^String [x y] y)) [(f 1) (f 1 2) (:arglists (meta #'f))]`, "[1 2 ([x] [x y])]"},
		{`(defn ^{:doc "D" :k 1} h "first" [] 1) [(:doc (meta #'h)) (:k (meta #'h))]`, `["first" 1]`},
	}
	checkValuesAndErrors(t, cases, nil)
}

// Clojure's vars of its own functions have a docstring and :arglists a
// builtin here has not: (meta #'inc) is refused rather than nil.
func TestBuiltinVarMetaRefused(t *testing.T) {
	res := run(t, `(:doc (meta #'inc))`, Env{})
	if res.Err == nil || !strings.Contains(res.Err.Message, "no var metadata") {
		t.Errorf("(meta #'inc): %v, %s", res.Err, Repr(res.Value))
	}
	res = run(t, `(defn round [x] x) (:name (meta #'round))`, Env{})
	if res.Err != nil || Repr(res.Value) != "round" {
		t.Errorf("a program's own round: %v, %s", res.Err, Repr(res.Value))
	}
}

// A binding of *print-meta* ends with its body, also when the body
// throws, and never reaches what the evaluation emits: the result is read
// by a caller's EDN reader, which metadata would change.
func TestPrintMetaBindingEnds(t *testing.T) {
	for _, c := range []struct{ program, want string }{
		{`(try (binding [*print-meta* true] (throw (ex-info "x" {}))) (catch Exception e nil)) (pr-str (with-meta [1] {:k 1}))`, `"[1]"`},
		{`(binding [*print-meta* true] (with-meta [1] {:k 1}))`, `[1]`},
		{`(def f (binding [*print-meta* true] (fn [x] (pr-str x)))) (f (with-meta [1] {:k 1}))`, `"[1]"`},
		{`(binding [*print-meta* true] (map pr-str [(with-meta [1] {:k 1}) ^:a {}]))`, `["^{:k 1} [1]" "^{:a true} {}"]`},
	} {
		res := run(t, c.program, Env{})
		if res.Err != nil || Repr(res.Value) != c.want {
			t.Errorf("%s = %v %v, want %s", c.program, res.Value, res.Err, c.want)
		}
	}
}
