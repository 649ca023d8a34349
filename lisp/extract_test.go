package lisp

import "testing"

func TestExtractProgram(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"bare program", "  (+ 1 2)\n", "(+ 1 2)"},
		{"clojure fence", "Let me sum.\n```clojure\n(+ 1 2)\n```\nDone.", "(+ 1 2)"},
		{"lisp fence", "```lisp\n(def x 1)\n```", "(def x 1)"},
		{"unlabelled fence", "```\n(println 1)\n```", "(println 1)"},
		{"several blocks join in order", "```clojure\n(def x 1)\n```\nthen\n```clojure\n(inc x)\n```", "(def x 1)\n(inc x)"},
		{"other languages ignored", "```python\nprint(1)\n```\n```clojure\n(+ 1 2)\n```", "(+ 1 2)"},
		{"only another language: whole text", "```python\nprint(1)\n```", "```python\nprint(1)\n```"},
		{"crlf", "```clojure\r\n(+ 1 2)\r\n```", "(+ 1 2)"},
		{"unclosed fence", "```clojure\n(+ 1 2)\n", "(+ 1 2)"},
		{"indented fence", "  ```clojure\n  (+ 1 2)\n  ```", "(+ 1 2)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ExtractProgram(c.in); got != c.want {
				t.Errorf("ExtractProgram(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}
