package lisp

import (
	"os"
	"strings"
	"testing"
)

// TestRegexGrid replays testdata/regexgrid/grid.tsv: patterns only the
// backtracking matcher runs (lookaround, backreferences, possessive
// quantifiers, atomic groups, class intersection), each crossed with
// inputs and with every regex function, as Clojure 1.11.1 answers them
// (recorded by probe.clj; this test never runs Clojure). A probe must give
// Clojure's value, or fail with its exception class.
func TestRegexGrid(t *testing.T) {
	data, err := os.ReadFile("testdata/regexgrid/grid.tsv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) < 5000 {
		t.Fatalf("grid.tsv has %d probes; regenerate it (README.md)", len(lines))
	}
	failed := 0
	for i, line := range lines {
		probe, want, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("grid.tsv:%d: no tab in %q", i+1, line)
		}
		src := `(try (pr-str ` + probe + `) (catch Throwable e (str "ERR " (.getName (class e)))))`
		res := run(t, src, Env{})
		got := ""
		if res.Err != nil {
			got = "error: " + res.Err.Error()
		} else {
			s, _ := res.Value.(String)
			got = string(s)
		}
		if strings.HasPrefix(probe, "(re-seq ") && strings.HasPrefix(want, "(") {
			// re-seq gives a vector here (docs/LANGUAGE.md), which prints
			// with brackets
			want = "[" + strings.TrimSuffix(strings.TrimPrefix(want, "("), ")") + "]"
		}
		if got != want {
			if failed++; failed <= 40 {
				t.Errorf("grid.tsv:%d: %s\n  clojure: %s\n  got:     %s", i+1, probe, want, got)
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d probes differ from Clojure", failed, len(lines))
	}
}
