package lisp

import (
	"strings"
	"testing"
)

func TestExtractProgram(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"bare program: no block", "  (+ 1 2)\n", ""},
		{"prose: no block", "The answer is 42.", ""},
		{"empty block", "```clojure\n\n```", ""},
		{"clojure fence", "Let me sum.\n```clojure\n(+ 1 2)\n```\nDone.", "(+ 1 2)"},
		{"lisp fence", "```lisp\n(def x 1)\n```", "(def x 1)"},
		{"unlabelled fence", "```\n(println 1)\n```", "(println 1)"},
		{"several blocks join in order", "```clojure\n(def x 1)\n```\nthen\n```clojure\n(inc x)\n```", "(def x 1)\n(inc x)"},
		{"other languages ignored", "```python\nprint(1)\n```\n```clojure\n(+ 1 2)\n```", "(+ 1 2)"},
		{"only another language: no block", "```python\nprint(1)\n```", ""},
		{"crlf", "```clojure\r\n(+ 1 2)\r\n```", "(+ 1 2)"},
		{"unclosed fence", "```clojure\n(+ 1 2)\n", "(+ 1 2)"},
		{"indented fence", "  ```clojure\n  (+ 1 2)\n  ```", "(+ 1 2)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := ExtractProgram(c.in)
			if got != c.want || ok != (c.want != "") {
				t.Errorf("ExtractProgram(%q) = %q, %v, want %q", c.in, got, ok, c.want)
			}
		})
	}
}

// TestExtractWork: what extracting a reply costs grows with its fences,
// not with its lines, and is counted from the text alone.
func TestExtractWork(t *testing.T) {
	block := "```clojure\n1\n```\n"
	if many := ExtractWork(strings.Repeat(block, 1000)); many != 2000*ExtractFenceWork+int64(1000*len(block)/8) {
		t.Errorf("1,000 blocks cost %d; want 2,000 fences and an eighth of their bytes", many)
	}
	if lines := ExtractWork(strings.Repeat("\n", 8_000_000)); lines != 1_000_000 {
		t.Errorf("8 million newlines cost %d, want their bytes' eighth", lines)
	}
}
