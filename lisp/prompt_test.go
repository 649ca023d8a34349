package lisp

import (
	"flag"
	"os"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func TestSystemPromptGolden(t *testing.T) {
	got := SystemPrompt()
	const path = "testdata/system_prompt.golden"
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("SystemPrompt() differs from %s; run go test ./lisp -run SystemPrompt -update and review the diff", path)
	}
	if renderSystemPrompt() != got {
		t.Error("SystemPrompt is not the same across renderings")
	}
}

func TestSystemPromptListsEveryBuiltin(t *testing.T) {
	p := SystemPrompt()
	for _, b := range append(slices.Clone(Builtins()), CoreFunctions()...) {
		if !strings.Contains(p, "\n"+b.Sig+" ; "+b.Doc+"\n") {
			t.Errorf("system prompt does not document %s", b.Name)
		}
	}
	if !strings.Contains(p, "```clojure") {
		t.Error("system prompt does not state the output format")
	}
}
