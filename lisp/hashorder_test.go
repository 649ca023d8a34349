package lisp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

// TestHasheq checks hasheq against Clojure 1.11.1's (hash x), recorded
// with clojure -e '(hash x)' for each source below (a character literal is
// a one-character string here, so \a is recorded as "a").
func TestHasheq(t *testing.T) {
	cases := []struct {
		src  string
		want int32
	}{
		{"nil", 0},
		{"true", 1231},
		{"false", 1237},
		{"0", 0},
		{"1", 1392991556},
		{"-1", 1651860712},
		{"42", 1871679806},
		{"1000000", 1669527334},
		{"9223372036854775807", -2106506049},
		{"(- -9223372036854775807 1)", 1366273829},
		{"0.0", 0},
		{"-0.0", 0},
		{"1.0", 1072693248},
		{"2.0", 1073741824},
		{"1.5", 1073217536},
		{"-2.5", -1073479680},
		{"##NaN", 2146959360},
		{"##Inf", 2146435072},
		{"##-Inf", -1048576},
		{"1e300", -164130400},
		{"(float 0.1)", 1036831949},
		{"(float 1.5)", 1069547520},
		{"(float 1e10)", 1343554297},
		{"(float -0.0)", 0},
		{"(float 1.0)", 1065353216},
		{`""`, 0},
		{`"a"`, 1455541201},
		{`\a`, 1455541201},
		{`"hello"`, 1715862179},
		{`"héllo"`, 162369042},
		{`"日本"`, 1762503263},
		{`"😀"`, -1934073014},
		{":a", -2123407586},
		{":b", 1482224470},
		{":foo/bar", -1386151538},
		{":hello", -245025397},
		{"'a", -482876059},
		{"'foo/bar", 254379989},
		{"[]", -2017569654},
		{"[1 2]", 156247261},
		{"'(1 2)", 156247261},
		{"()", -2017569654},
		{"{}", -15128758},
		{"{:a 1}", 1772842048},
		{"#{}", -15128758},
		{"#{1 2}", 460223544},
		{"(first {:a 1})", -1809393901},
		{"[nil]", 965192274},
		{`{:a [1 2] "x" #{:y}}`, 992113667},
	}
	for _, c := range cases {
		res := run(t, c.src, Env{})
		if res.Err != nil {
			t.Fatalf("%s: %v", c.src, res.Err)
		}
		if got := int32(hasheq(res.Value)); got != c.want {
			t.Errorf("(hash %s) = %d, Clojure gives %d", c.src, got, c.want)
		}
	}
}

// TestHashOrderOracle runs programs that build maps and sets of 0-40 keys
// of every kind with the builders programs use, and programs in the style
// of data tasks whose answer depends on that order, and compares their
// answers with Clojure 1.11's, recorded by testdata/hashorder/oracle.py.
func TestHashOrderOracle(t *testing.T) {
	f, err := os.Open("testdata/hashorder/cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var c struct{ Src, Want string }
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		n++
		res := run(t, c.Src, Env{})
		if res.Err != nil {
			t.Errorf("%s: %v", c.Src, res.Err)
			continue
		}
		if got := WireText(res.Value); got != c.Want {
			t.Errorf("%s\n got %s\nwant %s (Clojure)", c.Src, got, c.Want)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 300 {
		t.Fatalf("%d cases, want at least 300", n)
	}
}

// TestConcurrentHashOrderOfSharedData has evaluations running at once
// iterate the same frozen hash map and set, whose order each computes and
// caches on first use: every one sees Clojure's order.
func TestConcurrentHashOrderOfSharedData(t *testing.T) {
	data := Freeze(mustEDN(`{:m {0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 8 8 9 9} :s #{:x :y :z}}`)).(*Map)
	src := `[(keys data/m) (vec data/s) (reduce-kv (fn [a k v] (conj a v)) [] data/m) (first data/m)]`
	const want = "[[0 7 1 4 6 3 2 9 5 8] [:y :z :x] [0 7 1 4 6 3 2 9 5 8] [0 0]]" // Clojure's
	const workers = 8
	got := make([]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := Eval(context.Background(), src, Env{Data: data})
			switch {
			case err != nil:
				got[w] = err.Error()
			case res.Err != nil:
				got[w] = res.Err.Error()
			default:
				got[w] = WireText(res.Value)
			}
		}()
	}
	wg.Wait()
	for w, g := range got {
		if g != want {
			t.Errorf("worker %d: got %s, want %s", w, g, want)
		}
	}
}

// TestHashOrderIsCharged checks that an evaluation that walks a hash
// set in order pays a step and the bytes of the order for each key, the
// same whether it computes the order or finds it kept by an earlier one:
// no caller's outcome depends on who asked first.
func TestHashOrderIsCharged(t *testing.T) {
	const n = 2000
	var items strings.Builder
	for i := range n {
		fmt.Fprintf(&items, "%d ", i)
	}
	data := Freeze(mustEDN("{:x #{" + items.String() + "}}")).(*Map)
	cost := func() (int64, int64) {
		res := run(t, "(count (vec data/x))", Env{Data: data})
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		return res.Steps, res.AllocBytes
	}
	firstSteps, firstBytes := cost()
	laterSteps, laterBytes := cost()
	if firstSteps != laterSteps || firstBytes != laterBytes || firstSteps < 2*n || firstBytes < n*(12+heapSlot) {
		t.Errorf("a set of %d: %d steps and %d bytes when its order is computed, %d and %d once kept",
			n, firstSteps, firstBytes, laterSteps, laterBytes)
	}
}
