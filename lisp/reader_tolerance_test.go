package lisp

import (
	"strings"
	"testing"
)

// TestTrailingClosersForgiven: closing brackets after the last complete
// form are dropped with a warning, and the program runs as if they were
// not there; a stray bracket with anything after it is still an error.
func TestTrailingClosersForgiven(t *testing.T) {
	for _, c := range []struct {
		src, want, closers string
	}{
		{"(+ 1 2))", "3", `")"`},
		{"(def x 2)\n(* x 21)\n)\n", "42", `")"`},
		{"(let [a [1 2]]\n  (count a)))) ; done\n", "2", `"))"`},
		{"{:a 1}]}", "{:a 1}", `"]}"`},
		{"(+ 1 2)) ;; trailing comment\n", "3", `")"`},
	} {
		res := run(t, c.src, Env{})
		if res.Err != nil {
			t.Errorf("%q: %v", c.src, res.Err)
			continue
		}
		if got := Repr(res.Value); got != c.want {
			t.Errorf("%q = %s, want %s", c.src, got, c.want)
		}
		if len(res.Warnings) != 1 || res.Warnings[0].Type != WarningUnmatchedClose || !strings.Contains(res.Warnings[0].Message, c.closers) {
			t.Errorf("%q: warnings %+v, want one naming %s", c.src, res.Warnings, c.closers)
		}
	}
	for _, src := range []string{"(+ 1 2)) (+ 3 4)", ")", "(+ 1 2) ] x", "(+ 1 (* 2 3)"} {
		res := run(t, src, Env{})
		if res.Err == nil || res.Err.Kind != parseError {
			t.Errorf("%q: got %v, want a parse error", src, res.Err)
		}
	}
	if res := run(t, "(+ 1 2)", Env{}); len(res.Warnings) != 0 {
		t.Errorf("a balanced program has warnings %+v", res.Warnings)
	}
	// A program read once (as the server keeps it) carries the same warning.
	p, err := ReadProgram("(inc 1))", 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := EvalProgram(t.Context(), p, Env{})
	if err != nil || res.Err != nil || len(res.Warnings) != 1 {
		t.Errorf("EvalProgram: %v %v %+v", err, res.Err, res.Warnings)
	}
}

func TestExtractProgramWarnsOnJoinedBlocks(t *testing.T) {
	prog, ok, ws := ExtractProgramWarnings("Step one:\n```clojure\n(def x 1)\n```\nthen\n```clojure\n(inc x)\n```\n")
	if !ok || prog != "(def x 1)\n(inc x)" {
		t.Fatalf("program %q, %v", prog, ok)
	}
	if len(ws) != 1 || ws[0].Type != WarningJoinedBlocks {
		t.Errorf("warnings %+v", ws)
	}
	if _, _, ws := ExtractProgramWarnings("```clojure\n(inc 1)\n```"); len(ws) != 0 {
		t.Errorf("one block warned: %+v", ws)
	}
}
