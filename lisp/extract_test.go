package lisp

import "testing"

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
