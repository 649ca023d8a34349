package strategies

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
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
		writeCallLines(&b, c.lines, nil)
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
	writeCallLines(&b, grouped, nil)
	if n := strings.Count(b.String(), "\n;   "); n != 1 || !strings.HasSuffix(b.String(), ` "r-9999"`) {
		t.Errorf("grouped: %d lines, ends %q", n, b.String()[b.Len()-20:])
	}
	b.Reset()
	writeCallLines(&b, apart, nil)
	if n := strings.Count(b.String(), "\n;   "); n != len(apart) {
		t.Errorf("apart: %d lines, want %d", n, len(apart))
	}
}

// TestWriteCallLinesKept: a run whose every value is kept elsewhere in the
// prompt is counted, not listed; one value not kept lists them all.
func TestWriteCallLinesKept(t *testing.T) {
	lines := []string{`get("log-1")`, `get("log-22")`, `get("chat-3")`}
	kept := func(in ...string) func(string) bool {
		return func(v string) bool { return slices.Contains(in, v) }
	}
	var b strings.Builder
	writeCallLines(&b, lines, kept("log-1", "log-22", "chat-3"))
	if want := "\n;   get(_) for _ in 3 values, each in the output of this or an earlier turn"; b.String() != want {
		t.Errorf("all kept: got %q, want %q", b.String(), want)
	}
	b.Reset()
	writeCallLines(&b, lines, kept("log-1", "chat-3"))
	if want := "\n;   get(_) for _ in \"log-1\" \"log-22\" \"chat-3\""; b.String() != want {
		t.Errorf("one not kept: got %q, want %q", b.String(), want)
	}
	b.Reset()
	writeCallLines(&b, []string{`page(1)`, `page(2)`, `page(3)`}, func(string) bool { return true })
	if want := "\n;   page(_) for _ in 1 2 3"; b.String() != want {
		t.Errorf("short values: got %q, want %q", b.String(), want)
	}
}

// TestCacheStableCallValuesKept: an entry counts the values of a run of
// calls that its own output printed, or that an earlier entry and the
// summary's list of values both hold, and lists them otherwise.
func TestCacheStableCallValuesKept(t *testing.T) {
	opts, err := Normalize(RawOptions{SystemPrompt: "s"})
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{"rec-00000001", "rec-00000002", "rec-00000003"}
	fetch := func(ids ...string) []ToolCall {
		var calls []ToolCall
		for i, id := range ids {
			calls = append(calls, ToolCall{Index: i, Name: "get", Args: lisp.NewVector([]lisp.Value{lisp.String(id)}), Result: lisp.Nil})
		}
		return calls
	}
	listing := "ids: " + strings.Join(ids, " ")
	counted := "get(_) for _ in 3 values, each in the output of this or an earlier turn"
	listed := `get(_) for _ in "rec-00000001" "rec-00000002" "rec-00000003"`
	for _, c := range []struct {
		name  string
		turns []Turn
		want  string
	}{
		{"printed by the turn", []Turn{{Number: 1, Success: true, ToolCalls: fetch(ids...), Prints: []string{listing}}}, counted},
		{"printed by an earlier turn", []Turn{{Number: 1, Success: true, Prints: []string{listing}}, {Number: 2, Success: true, ToolCalls: fetch(ids...)}}, counted},
		{"not printed", []Turn{{Number: 1, Success: true, Prints: []string{"ids: rec-00000001"}}, {Number: 2, Success: true, ToolCalls: fetch(ids...)}}, listed},
		{"only in a label", []Turn{{Number: 1, Success: true, ToolCalls: fetch("Output", "utpu", "Outp"), Prints: []string{"done"}}}, `get(_) for _ in "Output" "utpu" "Outp"`},
	} {
		// The summary lists values under every pricing (summaryIndexBound).
		for _, pricing := range []string{"anthropic", "openai", "none"} {
			o := opts
			o.Pricing, _ = resolvePricing(pricing, nil, nil)
			resp, err := cacheStable{}.Render(&Request{Options: o, Turns: c.turns})
			if err != nil {
				t.Fatal(err)
			}
			want := c.want
			if !strings.Contains(resp.Messages[1].Content, ";   "+want+"\n") && !strings.HasSuffix(resp.Messages[1].Content, ";   "+want) {
				t.Errorf("%s, %s: no line %q in\n%s", c.name, pricing, want, resp.Messages[1].Content)
			}
		}
	}
}
