package lisp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The coverage table (testdata/coverage/table.txt) gives every public var
// of clojure.core, clojure.string, clojure.set and clojure.walk one row:
// exact, with examples; refused, with programs and the rewrites their
// hints ask for; or out of scope, likewise. testdata/coverage/oracle.py
// lists the vars from Clojure (vars.txt) and records Clojure's answer for
// every example and rewrite (oracle.jsonl). docs/CLOJURE_COVERAGE.md is
// generated from the table.

const coverageDir = "testdata/coverage"

// coverageDoc is the published table, relative to the package directory.
const coverageDoc = "../docs/CLOJURE_COVERAGE.md"

var coverageStatuses = map[string]string{
	"exact":        "exact",
	"refused":      "refused, with a hint that runs",
	"out-of-scope": "out of scope, with a hint naming a working form",
	// error: Clojure fails on the program too (a malformed form, a wrong
	// argument); the hint's rewrite runs and gives Clojure's answer to the
	// rewrite (hints.txt only).
	"error": "an error in Clojure too, with a hint whose rewrite Clojure runs",
}

type coverageRow struct {
	Var, Status string
	Line        int
	Examples    []coverageExample
}

type coverageExample struct {
	Src, Rewrite string
	// Differs is the documented reason a PTC-Lisp answer differs from
	// Clojure's; the test checks that it still does.
	Differs string
	Line    int
}

type oracleAnswer struct {
	Program      string `json:"program"`
	Clojure      string `json:"clojure"`
	ClojureError string `json:"clojure_error"`
}

func loadCoverage(t *testing.T) (vars []string, rows []coverageRow, oracle map[string]oracleAnswer) {
	t.Helper()
	for _, line := range readLines(t, filepath.Join(coverageDir, "vars.txt")) {
		if f := strings.Fields(line); len(f) > 0 {
			vars = append(vars, f[0])
		}
	}
	rows = parseCoverageTable(t, "table.txt")
	oracle = map[string]oracleAnswer{}
	for _, line := range readLines(t, filepath.Join(coverageDir, "oracle.jsonl")) {
		var a oracleAnswer
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatal(err)
		}
		oracle[a.Program] = a
	}
	return vars, rows, oracle
}

// parseCoverageTable reads a table in table.txt's format.
func parseCoverageTable(t *testing.T, name string) (rows []coverageRow) {
	t.Helper()
	for i, line := range readLines(t, filepath.Join(coverageDir, name)) {
		n := i + 1
		switch {
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "== "):
			f := strings.Fields(line[3:])
			if len(f) != 2 {
				t.Fatalf("%s:%d: want \"== ns/name status\", got %q", name, n, line)
			}
			rows = append(rows, coverageRow{Var: f[0], Status: f[1], Line: n})
		case len(rows) == 0:
			t.Fatalf("%s:%d: an example before any row", name, n)
		case strings.HasPrefix(line, "-> "), strings.HasPrefix(line, "!= "):
			r := &rows[len(rows)-1]
			if len(r.Examples) == 0 {
				t.Fatalf("%s:%d: %q follows no example", name, n, line)
			}
			e := &r.Examples[len(r.Examples)-1]
			if strings.HasPrefix(line, "-> ") {
				e.Rewrite = line[3:]
			} else {
				e.Differs = line[3:]
			}
		default:
			r := &rows[len(rows)-1]
			r.Examples = append(r.Examples, coverageExample{Src: line, Line: n})
		}
	}
	return rows
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// agreesWithClojure says whether PTC-Lisp's result for a program is
// Clojure's: both fail, or both give equal values (by the conformance
// rules); a Clojure function value, which prints as #object, is met by
// any function.
func agreesWithClojure(res *Result, a oracleAnswer) (bool, string) {
	if res.Err != nil {
		got := "<error> " + res.Err.Error()
		return a.ClojureError != "", got
	}
	got := Repr(res.Value)
	if a.ClojureError != "" {
		return false, got
	}
	if class, ok := strings.CutPrefix(a.Clojure, "#object["); ok && strings.Contains(class, "$") {
		return isFn(res.Value), got // a Clojure function's class is its namespace$name
	}
	want, err := readComparable(a.Clojure)
	if err != nil {
		return got == a.Clojure, got
	}
	have, err := readComparable(got)
	return err == nil && conformanceEqual(want, have), got
}

func (a oracleAnswer) String() string {
	if a.ClojureError != "" {
		return "<error> " + a.ClojureError
	}
	return a.Clojure
}

// TestCoverageTable: every var has exactly one row, every row's examples
// give Clojure's answer (or differ for their documented reason), every
// refused or out-of-scope program fails with a hint, and the rewrite the
// hint asks for runs and gives Clojure's answer to the program (refused)
// or to itself (out of scope).
func TestCoverageTable(t *testing.T) {
	vars, rows, oracle := loadCoverage(t)
	if len(vars) < 700 {
		t.Fatalf("vars.txt lists %d vars; clojure.core alone has over 650", len(vars))
	}
	known := map[string]bool{}
	for _, v := range vars {
		known[v] = true
	}
	seen := map[string]int{}
	for _, r := range rows {
		if !known[r.Var] {
			t.Errorf("table.txt:%d: %s is no public var of the four namespaces", r.Line, r.Var)
		}
		if prev, ok := seen[r.Var]; ok {
			t.Errorf("table.txt:%d: %s already has a row at line %d", r.Line, r.Var, prev)
		}
		seen[r.Var] = r.Line
		if coverageStatuses[r.Status] == "" {
			t.Errorf("table.txt:%d: unknown status %q", r.Line, r.Status)
		}
		if len(r.Examples) == 0 {
			t.Errorf("table.txt:%d: %s has no example", r.Line, r.Var)
		}
	}
	for _, v := range vars {
		if _, ok := seen[v]; !ok {
			t.Errorf("%s has no row in table.txt", v)
		}
	}
	checkCoverageRows(t, "table.txt", rows, oracle)
}

// TestInteropAndHints: the interop forms models write (Character,
// LocalDate and ChronoUnit, Math, .getMessage) give Clojure's answer, and
// the hints of the interpreter's other refusals (Java methods, headers,
// namespaces), followed literally, give Clojure's answer to the program
// (testdata/coverage/hints.txt, checked as table.txt is).
func TestInteropAndHints(t *testing.T) {
	_, _, oracle := loadCoverage(t)
	rows := parseCoverageTable(t, "hints.txt")
	if len(rows) == 0 {
		t.Fatal("hints.txt has no rows")
	}
	for _, r := range rows {
		if coverageStatuses[r.Status] == "" {
			t.Errorf("hints.txt:%d: unknown status %q", r.Line, r.Status)
		}
	}
	checkCoverageRows(t, "hints.txt", rows, oracle)
}

// checkCoverageRows runs every example of rows against the recorded
// Clojure answers.
func checkCoverageRows(t *testing.T, file string, rows []coverageRow, oracle map[string]oracleAnswer) {
	answer := func(src string, line int) (oracleAnswer, bool) {
		a, ok := oracle[src]
		if !ok {
			t.Errorf("%s:%d: no Clojure answer recorded for %s; run python3 lisp/testdata/coverage/oracle.py", file, line, src)
		}
		return a, ok
	}
	for _, r := range rows {
		for _, e := range r.Examples {
			a, ok := answer(e.Src, e.Line)
			if !ok {
				continue
			}
			res := run(t, e.Src, Env{})
			if r.Status == "exact" {
				if e.Rewrite != "" {
					t.Errorf("%s:%d: an exact row's example has a rewrite", file, e.Line)
				}
				agree, got := agreesWithClojure(res, a)
				switch {
				case agree && e.Differs != "":
					t.Errorf("%s:%d: %s now gives Clojure's %s; delete the note %q", file, e.Line, e.Src, a, e.Differs)
				case !agree && e.Differs == "":
					t.Errorf("%s:%d: %s\n  clojure: %s\n  got:     %s", file, e.Line, e.Src, a, got)
				}
				continue
			}
			if res.Err == nil {
				t.Errorf("%s:%d: %s is %s but gives %s", file, e.Line, e.Src, r.Status, Repr(res.Value))
				continue
			}
			if res.Err.Hint == "" || res.Err.Hint == genericHint {
				t.Errorf("%s:%d: %s is refused without a hint that names a form: %v", file, e.Line, e.Src, res.Err)
			}
			if e.Rewrite == "" {
				t.Errorf("%s:%d: %s has no rewrite", file, e.Line, e.Src)
				continue
			}
			if r.Status == "error" && a.ClojureError == "" {
				t.Errorf("%s:%d: %s is an error row, but Clojure gives %s", file, e.Line, e.Src, a)
			}
			want := a
			if r.Status == "out-of-scope" || r.Status == "error" {
				if want, ok = answer(e.Rewrite, e.Line); !ok {
					continue
				}
			}
			fixed := run(t, e.Rewrite, Env{})
			if fixed.Err != nil {
				t.Errorf("%s:%d: the rewrite %s fails: %v", file, e.Line, e.Rewrite, fixed.Err)
				continue
			}
			if want.ClojureError != "" && r.Status == "out-of-scope" {
				continue // Clojure cannot run the working form; running here is the check
			}
			if agree, got := agreesWithClojure(fixed, want); !agree {
				t.Errorf("%s:%d: the rewrite %s gives %s, Clojure %s", file, e.Line, e.Rewrite, got, want)
			}
		}
	}
}

// TestCoverageDoc: docs/CLOJURE_COVERAGE.md is the table as generated
// (go test ./lisp -run CoverageDoc -update rewrites it).
func TestCoverageDoc(t *testing.T) {
	_, rows, _ := loadCoverage(t)
	doc := coverageMarkdown(t, rows)
	if *update {
		if err := os.WriteFile(coverageDoc, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(coverageDoc)
	if err != nil {
		t.Fatal(err)
	}
	if string(have) != doc {
		t.Errorf("%s is stale; run go test ./lisp -run CoverageDoc -update", coverageDoc)
	}
}

func coverageMarkdown(t *testing.T, rows []coverageRow) string {
	var b strings.Builder
	counts := map[string]map[string]int{}
	nss := []string{"clojure.core", "clojure.string", "clojure.set", "clojure.walk"}
	for _, r := range rows {
		ns := r.Var[:strings.IndexByte(r.Var, '/')]
		if counts[ns] == nil {
			counts[ns] = map[string]int{}
		}
		counts[ns][r.Status]++
	}
	b.WriteString("# Clojure coverage\n\n")
	b.WriteString("Every public var of `clojure.core`, `clojure.string`, `clojure.set` and `clojure.walk` in\n")
	b.WriteString("Clojure 1.11, as `ns-publics` lists them, with what PTC-Lisp does with it. Generated from\n")
	b.WriteString("`lisp/testdata/coverage/table.txt` by `go test ./lisp -run CoverageDoc -update`; do not edit.\n")
	b.WriteString("`clojure.math` and `clojure.data/diff` are checked against Clojure by the `namespace/` rows of\n")
	b.WriteString("`lisp/testdata/coverage/hints.txt` (docs/LANGUAGE.md, Names).\n\n")
	b.WriteString("- **exact**: the examples give Clojure's answer (recorded from Clojure 1.11.1 by\n")
	b.WriteString("  `lisp/testdata/coverage/oracle.py`, compared by `TestCoverageTable`), except where a note\n")
	b.WriteString("  gives the documented difference.\n")
	b.WriteString("- **refused**: the program fails with the hint shown; the rewrite is that hint followed\n")
	b.WriteString("  literally, and it gives Clojure's answer to the program.\n")
	b.WriteString("- **out of scope** (I/O, concurrency, host access, namespaces and vars as objects): the\n")
	b.WriteString("  program fails with the hint shown, and the working form it names runs.\n\n")
	b.WriteString("| namespace | exact | refused | out of scope |\n|---|---|---|---|\n")
	for _, ns := range nss {
		c := counts[ns]
		fmt.Fprintf(&b, "| `%s` | %d | %d | %d |\n", ns, c["exact"], c["refused"], c["out-of-scope"])
	}
	for _, ns := range nss {
		fmt.Fprintf(&b, "\n## %s\n\n| var | status | example, or program → rewrite | hint |\n|---|---|---|---|\n", ns)
		for _, r := range rows {
			if !strings.HasPrefix(r.Var, ns+"/") {
				continue
			}
			name := r.Var[len(ns)+1:]
			var ex, hint string
			if len(r.Examples) > 0 {
				e := r.Examples[0]
				ex = "`" + e.Src + "`"
				if e.Rewrite != "" {
					ex += " → `" + e.Rewrite + "`"
					if res := run(t, e.Src, Env{}); res.Err != nil {
						hint = res.Err.Hint
					}
				}
			}
			var notes []string
			for _, e := range r.Examples {
				if e.Differs != "" {
					notes = append(notes, "`"+e.Src+"`: "+e.Differs)
				}
			}
			if len(notes) > 0 {
				hint = strings.Join(notes, "; ")
			}
			status := r.Status
			if status == "exact" {
				status = fmt.Sprintf("exact (%d examples)", len(r.Examples))
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", mdCell(name), status, mdCell(ex), mdCell(hint))
		}
	}
	return b.String()
}

func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}
