package lisp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// The language tests itself: testdata/lang/*.lisp hold the behaviour of
// the builtins as PTC-Lisp, in the style of starlark-go's testdata/*.star.
// Each top-level form of a file runs as one program, after the file's
// earlier definitions and the assertions of testdata/lang/assert.lisp
// (assert.eq, which tells a list from a vector as = does not,
// assert.true, assert.fails); a form that fails is reported with its file
// and line. What the language cannot express (budgets, errors a program
// cannot catch, Go values) stays in Go tests.

const langDir = "testdata/lang"

func TestLang(t *testing.T) {
	prelude := langPrelude(t)
	files, err := filepath.Glob(filepath.Join(langDir, "*.lisp"))
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, path := range files {
		if filepath.Base(path) == "assert.lisp" {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ran++
		t.Run(filepath.Base(path), func(t *testing.T) {
			failures, asserts := langFailures(path, string(src), prelude)
			for _, f := range failures {
				t.Error(f)
			}
			if asserts == 0 {
				t.Errorf("%s: no assertions", path)
			}
		})
	}
	if ran == 0 {
		t.Fatalf("no test files in %s", langDir)
	}
}

// TestLangReportsFileAndLine: a failing assertion, and a form failing
// otherwise, are reported with the file and line of their form.
func TestLangReportsFileAndLine(t *testing.T) {
	src := "(def x 2)\n\n(assert.eq (+ x 1) 3)\n(assert.eq\n  (inc x) 4)\n(assert.fails #(+ 1 nil) \"is null\")\n(assert.fails #(inc x) \"nothing\")\n(first 1 2 3)\n(assert.eq (list 1 [2]) [1 [2]])\n(assert.eq [1 (list 2)] [1 [2]])\n(assert.eq {:a [1]} {:a [1]})\n"
	failures, asserts := langFailures("t.lisp", src, langPrelude(t))
	want := []string{
		"t.lisp:4: got 3, want 4",
		`t.lisp:7: got 3, want an error containing "nothing"`,
		"t.lisp:8: first called with 3 arguments",
		"t.lisp:9: got (1 [2]), want [1 [2]]",
		"t.lisp:10: got [1 (2)], want [1 [2]]",
	}
	if asserts != 7 || len(failures) != len(want) {
		t.Fatalf("got %d assertions and failures %q, want 7 and %q", asserts, failures, want)
	}
	for i, w := range want {
		if !strings.HasPrefix(failures[i], w) {
			t.Errorf("failure %d is %q, want it to start with %q", i, failures[i], w)
		}
	}
}

// langPrelude is the memory that defines the assertions.
func langPrelude(t *testing.T) *Memory {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(langDir, "assert.lisp"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Eval(context.Background(), string(src), Env{})
	if err != nil || res.Err != nil {
		t.Fatalf("assert.lisp: %v %v", err, res.Err)
	}
	return res.Memory
}

// langFailures runs each top-level form of src, the file at path, and
// returns a message for each that failed, "path:line: what", and how many
// forms were assertions.
func langFailures(path, src string, prelude *Memory) (failures []string, asserts int) {
	read, err := readProgram(src, 0, nil)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", path, err)}, 0
	}
	offsets := make([]int, len(read.starts)+1)
	for i, p := range read.starts {
		offsets[i] = byteOffset(src, p)
	}
	offsets[len(read.starts)] = len(src)
	mem := prelude
	for i, form := range read.forms {
		if l, ok := form.(*list); ok && len(l.Elems) > 0 {
			if s, ok := l.Elems[0].(symbol); ok && strings.HasPrefix(string(s), "assert.") {
				asserts++
			}
		}
		res, err := Eval(context.Background(), src[offsets[i]:offsets[i+1]], Env{Prelude: mem})
		switch {
		case err != nil:
			failures = append(failures, fmt.Sprintf("%s:%d: %v", path, read.starts[i].Line, err))
		case res.Err != nil:
			msg := res.Err.Message
			if res.Err.Hint != "" {
				msg += " (" + res.Err.Hint + ")"
			}
			failures = append(failures, fmt.Sprintf("%s:%d: %s", path, read.starts[i].Line, msg))
		default:
			mem = res.Memory
		}
	}
	return failures, asserts
}

// byteOffset is where in src the reader's position p (lines and columns
// counted from 1, columns in characters) is.
func byteOffset(src string, p Pos) int {
	off := 0
	for line := 1; line < p.Line; line++ {
		i := strings.IndexByte(src[off:], '\n')
		if i < 0 {
			return len(src)
		}
		off += i + 1
	}
	for col := 1; col < p.Col && off < len(src); col++ {
		_, n := utf8.DecodeRuneInString(src[off:])
		off += n
	}
	return off
}
