package lisp

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
)

// oracleRow is a form and what Clojure 1.11.1 gave for it: the printed
// value, or THROWS and the exception's class and message; differs, when
// set, is why PTC-Lisp deliberately gives something else.
type oracleRow struct {
	form, clojure, differs string
}

func loadOracleRows(t *testing.T, path string) []oracleRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []oracleRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.SplitN(line, "\t", 3)
		if len(cols) < 2 {
			t.Fatalf("%s: row without an answer: %q", path, line)
		}
		r := oracleRow{form: cols[0], clojure: cols[1]}
		if len(cols) == 3 {
			r.differs = cols[2]
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// checkOracleRow runs a row's form and reports how it differs from
// Clojure's answer, "" when it does not: a value Clojure printed must be
// the same value (a number the same text, so that 3.3333333 is not
// 3.3333333333333335), an exception must be an error, with Clojure's
// exception class when the error names one.
func checkOracleRow(t *testing.T, r oracleRow) string {
	res := run(t, r.form, Env{})
	if thrown, ok := strings.CutPrefix(r.clojure, "THROWS "); ok {
		if res.Err == nil {
			return "gives " + Repr(res.Value) + " where Clojure throws " + thrown
		}
		class, _, _ := strings.Cut(thrown, ":")
		class = class[strings.LastIndex(class, ".")+1:]
		if res.Err.class != "" && res.Err.class != class {
			return "throws " + res.Err.class + " where Clojure throws " + class
		}
		return ""
	}
	if res.Err != nil {
		return "fails: " + res.Err.Error()
	}
	got := Repr(res.Value)
	if !strings.ContainsAny(r.clojure, "([{") {
		if got != r.clojure {
			return "gives " + got
		}
		return ""
	}
	want, err := readComparable(r.clojure)
	if err != nil {
		t.Fatalf("%s: Clojure's answer %q does not read: %v", r.form, r.clojure, err)
	}
	have, err := readComparable(got)
	if err != nil || !conformanceEqual(want, have) {
		return "gives " + got
	}
	return ""
}

// TestFloatsAndCountsAsClojure holds (float x), the numeric coercions and
// the counts and indexes given as floats to the answers Clojure 1.11.1
// gave (testdata/numtrans/oracle.tsv).
func TestFloatsAndCountsAsClojure(t *testing.T) {
	checkOracleFile(t, "testdata/numtrans/oracle.tsv", 200)
}

// checkOracleFile checks every row of the file at path, which must hold
// at least least rows: a row without a difference must give Clojure's
// answer, and one with a difference must still differ.
func checkOracleFile(t *testing.T, path string, least int) {
	rows := loadOracleRows(t, path)
	if len(rows) < least {
		t.Fatalf("%s: only %d rows", path, len(rows))
	}
	for _, r := range rows {
		diff := checkOracleRow(t, r)
		switch {
		case r.differs == "" && diff != "":
			t.Errorf("%s %s; Clojure: %s", r.form, diff, r.clojure)
		case r.differs != "" && diff == "":
			t.Errorf("%s now gives Clojure's answer: remove its difference (%s)", r.form, r.differs)
		}
	}
}

// TestFloat32InAResult: a turn's result writes a 32-bit float with its
// own digits, as Clojure's pr does, in EDN and JSON alike; read back, the
// text is a double.
func TestFloat32InAResult(t *testing.T) {
	res := run(t, `{:avg (float (/ 10 3)) :xs [(float 0.1) 2.5]}`, Env{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if want := "{:avg 3.3333333, :xs [0.1 2.5]}"; res.ValueText != want {
		t.Errorf("EDN %q, want %q", res.ValueText, want)
	}
	if want := `{"avg":3.3333333,"xs":[0.1,2.5]}`; res.ValueJSON != want {
		t.Errorf("JSON %q, want %q", res.ValueJSON, want)
	}
	back, err := ReadValue(context.Background(), res.ValueText, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if avg, _ := back.(*Map).Get(Keyword("avg")); avg != Float(3.3333333) {
		t.Errorf("read back as %#v, want the double 3.3333333", avg)
	}
}

// TestTransientsAsClojure holds transients to the answers Clojure 1.11.1
// gave (testdata/numtrans/transients.tsv): bashed in place, a vector and
// a set keep every item, a map made small keeps eight entries, and a use
// after persistent! throws.
func TestTransientsAsClojure(t *testing.T) {
	checkOracleFile(t, "testdata/numtrans/transients.tsv", 80)
}

// TestTransientsStayInTheirEvaluation: a transient is neither a result,
// nor inside one, nor kept by def, and each refusal names persistent!.
func TestTransientsStayInTheirEvaluation(t *testing.T) {
	for _, src := range []string{
		`(transient [1 2])`,
		`{:acc (transient [])}`,
		`[(let [t (transient #{})] (conj! t 1))]`,
		`(def acc (transient {}))`,
		`(def add! (let [t (transient [])] (fn [x] (conj! t x))))`,
	} {
		res := run(t, src, Env{})
		if res.Err == nil {
			t.Errorf("%s gives %s, want a refusal", src, Repr(res.Value))
			continue
		}
		if !strings.Contains(res.Err.Error(), "persistent!") {
			t.Errorf("%s: the refusal %q does not name persistent!", src, res.Err.Error())
		}
	}
	res := run(t, `(def acc (let [t (transient [])] (doseq [x (range 3)] (conj! t x)) (persistent! t))) acc`, Env{})
	if res.Err != nil || Repr(res.Value) != "[0 1 2]" {
		t.Errorf("def of what persistent! returned: %v %v", res.Value, res.Err)
	}
}

// TestTransientChangesAreCharged: conj! and assoc! are charged as conj and
// assoc are, so building with a transient costs what building without one
// does, and grows with the work.
func TestTransientChangesAreCharged(t *testing.T) {
	steps := func(src string, n int) (int64, int64) {
		t.Helper()
		res := run(t, strings.ReplaceAll(src, "N", strconv.Itoa(n)), Env{})
		if res.Err != nil {
			t.Fatalf("%s: %v", src, res.Err)
		}
		return res.Steps, res.AllocBytes
	}
	for _, pair := range [][2]string{
		{`(let [t (transient [])] (dotimes [i N] (conj! t i)) (count (persistent! t)))`,
			`(let [a (atom [])] (dotimes [i N] (swap! a conj i)) (count @a))`},
		{`(let [t (transient {})] (dotimes [i N] (assoc! t (str "k" (mod i 8)) i)) (count (persistent! t)))`,
			`(let [a (atom {})] (dotimes [i N] (swap! a assoc (str "k" (mod i 8)) i)) (count @a))`},
		{`(let [t (transient #{})] (dotimes [i N] (conj! t i)) (count (persistent! t)))`,
			`(let [a (atom #{})] (dotimes [i N] (swap! a conj i)) (count @a))`},
	} {
		s1, a1 := steps(pair[0], 500)
		s2, a2 := steps(pair[0], 4000)
		if s2 < 4*s1 || a2 < 4*a1 {
			t.Errorf("%s: from 500 to 4000 changes the charge grew from %d to %d steps, %d to %d bytes", pair[0], s1, s2, a1, a2)
		}
		p2, _ := steps(pair[1], 4000)
		if s2 < p2/3 {
			t.Errorf("%s: %d steps for 4000 changes, where the persistent build takes %d", pair[0], s2, p2)
		}
	}
}
