package strategies

import (
	"fmt"
	"strings"
	"testing"
)

// TestWriteCallLines: a run of three or more calls of one tool that differ
// in one argument without white space is one line, the argument's values
// in call order; anything else is a line per call.
func TestWriteCallLines(t *testing.T) {
	get := func(id string) string {
		return `evidence.get({"evidence_id" "` + id + `" "incident_id" "x-1"})`
	}
	for _, c := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"a run of one argument", []string{`evidence.search({"incident_id" "x-1"})`, get("log-1"), get("log-22"), get("chat-3")},
			`evidence.search({"incident_id" "x-1"})` + "\n" + `evidence.get({"evidence_id" _ "incident_id" "x-1"}) for _ in "log-1" "log-22" "chat-3"`},
		{"positional", []string{`search("Mouse")`, `search("Desk")`, `search("Lamp")`, `price(3)`},
			`search(_) for _ in "Mouse" "Desk" "Lamp"` + "\n" + `price(3)`},
		{"numbers", []string{`page(1)`, `page(2)`, `page(10)`}, `page(_) for _ in 1 2 10`},
		{"two calls", []string{get("a-1"), get("b-2")}, get("a-1") + "\n" + get("b-2")},
		{"the same call", []string{get("a-1"), get("a-1"), get("a-1")}, strings.Repeat(get("a-1")+"\n", 2) + get("a-1")},
		{"two arguments change", []string{`f({:a 1 :b 2})`, `f({:a 3 :b 4})`, `f({:a 5 :b 6})`},
			"f({:a 1 :b 2})\nf({:a 3 :b 4})\nf({:a 5 :b 6})"},
		{"a value with a space", []string{`f("a b")`, `f("c")`, `f("d")`}, "f(\"a b\")\nf(\"c\")\nf(\"d\")"},
		{"a string that shares its start", []string{`search("red shoe")`, `search("red hat")`, `search("red cap")`},
			"search(\"red shoe\")\nsearch(\"red hat\")\nsearch(\"red cap\")"},
		{"strings that share their start", []string{`f("ab-1")`, `f("ab-2")`, `f("ab-33")`}, `f(_) for _ in "ab-1" "ab-2" "ab-33"`},
		{"an escaped quote", []string{`f("a\"b" 1)`, `f("a\"b" 2)`, `f("a\"b" 3)`}, `f("a\"b" _) for _ in 1 2 3`},
		{"vectors", []string{`f([1])`, `f([2])`, `f(3)`}, `f(_) for _ in [1] [2] 3`},
		{"an empty value", []string{`f([])`, `f([1])`, `f([2])`}, "f([])\nf([1])\nf([2])"},
		{"other tools between", []string{get("a-1"), `g()`, get("b-2"), get("c-3")}, get("a-1") + "\ng()\n" + get("b-2") + "\n" + get("c-3")},
	} {
		var b strings.Builder
		writeCallLines(&b, c.lines)
		want := "\n;   " + strings.ReplaceAll(c.want, "\n", "\n;   ")
		if b.String() != want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, b.String(), want)
		}
	}
}

// TestWriteCallLinesMany: ten thousand calls of one tool, the most
// tool_call_limit allows, whether they group or not, are written whole.
func TestWriteCallLinesMany(t *testing.T) {
	var grouped, apart []string
	for i := range 10000 {
		grouped = append(grouped, fmt.Sprintf(`get({"id" "r-%d" "kind" "log"})`, i))
		apart = append(apart, fmt.Sprintf(`get({"id" "r-%d" "kind" "log-%d"})`, i, i))
	}
	var b strings.Builder
	writeCallLines(&b, grouped)
	if n := strings.Count(b.String(), "\n;   "); n != 1 || !strings.HasSuffix(b.String(), ` "r-9999"`) {
		t.Errorf("grouped: %d lines, ends %q", n, b.String()[b.Len()-20:])
	}
	b.Reset()
	writeCallLines(&b, apart)
	if n := strings.Count(b.String(), "\n;   "); n != len(apart) {
		t.Errorf("apart: %d lines, want %d", n, len(apart))
	}
}
