package lisp

import (
	"os"
	"strings"
	"testing"
)

// TestFormatGrid replays testdata/formatgrid/grid.tsv, format's edge cases
// as Clojure 1.11.1 answers them (recorded by probe.clj; this test never
// runs Clojure): each probe must give Clojure's text, or fail with its
// exception class and message.
func TestFormatGrid(t *testing.T) {
	data, err := os.ReadFile("testdata/formatgrid/grid.tsv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) < 1000 {
		t.Fatalf("grid.tsv has %d probes; regenerate it (README.md)", len(lines))
	}
	for i, line := range lines {
		probe, want, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("grid.tsv:%d: no tab in %q", i+1, line)
		}
		src := `(try (pr-str ` + probe + `) (catch Throwable e (str "ERR " (.getName (class e)) " " (pr-str (ex-message e)))))`
		res := run(t, src, Env{})
		if res.Err != nil {
			t.Errorf("grid.tsv:%d: %s failed: %v", i+1, probe, res.Err)
			continue
		}
		if got, _ := res.Value.(String); string(got) != want {
			t.Errorf("grid.tsv:%d: %s\n  clojure: %s\n  got:     %s", i+1, probe, want, got)
		}
	}
}
