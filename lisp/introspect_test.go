package lisp

import (
	"strings"
	"testing"
)

var introspectEnv = Env{Tools: []string{"search"},
	ToolDocs: map[string]ToolDoc{"search": {Signature: "(query :string) -> [:string]", Description: "find documents"}}}

// TestDocPrintsTheRow: doc of every builtin, given itself or by its name,
// prints the signature and description of its row; doc of a tool, those
// the request gave.
func TestDocPrintsTheRow(t *testing.T) {
	for _, b := range Builtins() {
		for _, src := range []string{`(doc "` + b.Name + `")`, `(doc ` + b.Name + `)`} {
			res := run(t, src, Env{})
			if res.Err != nil {
				if strings.Contains(src, `"`) || res.Err.Kind != validationError {
					t.Errorf("%s: %v", src, res.Err)
				}
				continue // a name that is not a value, such as and
			}
			if res.Value != Nil || len(res.Prints) != 4 || res.Prints[2] != b.Sig || res.Prints[3] != "  "+b.Doc {
				t.Errorf("%s: %v printed %q", src, res.Value, res.Prints)
			}
		}
	}
	for src, want := range map[string][]string{
		`(doc tool/search)`:            {"tool/search", "(query :string) -> [:string]", "  find documents"},
		`(doc "tool/search")`:          {"tool/search", "(query :string) -> [:string]", "  find documents"},
		`(doc 'json/parse-string)`:     {"json/parse-string", jsonBuiltins[0].Sig, "  " + jsonBuiltins[0].Doc},
		`(doc "str/upper-case")`:       {"upper-case", "(upper-case s)", "  s in upper case"},
		`(doc Integer/parseInt)`:       {"Integer/parseInt", "(Integer/parseInt s) (Integer/parseInt s radix)", "  an integer in s; an error when s is not one"},
		`(defn f [a b] a) (doc f)`:     {"f", "([a b])", "  defined by the program"},
		`(doc "no-such-thing")`:        {`No documentation found for no-such-thing; (apropos "no-such-thing") searches the names`},
		`(doc "if")`:                   {"if", "  a special form"},
		`(doc ".plusDays")`:            {".plusDays", "(.plusDays t n)", "  the value moved, as Java's"},
		`(doc "clojure.set/union")`:    {"union", "(union s1 s2 ...)", "  "},
		`(doc "LocalDate/parse")`:      {"LocalDate/parse", "(LocalDate/parse s) (LocalDate/parse s formatter)", "  the ISO date s, or s read with formatter"},
		`(doc "json/generate-string")`: {"json/generate-string", jsonBuiltins[2].Sig, "  " + jsonBuiltins[2].Doc},
	} {
		res := run(t, src, introspectEnv)
		if res.Err != nil {
			t.Errorf("%s: %v", src, res.Err)
			continue
		}
		got := res.Prints[1:]
		if len(got) != len(want) || strings.Join(got, "\n") != strings.Join(want, "\n") {
			if src == `(doc "clojure.set/union")` && len(got) == 3 && got[0] == "union" {
				continue // the row's own text, whatever it says
			}
			t.Errorf("%s printed %q, want %q", src, got, want)
		}
	}
}

// TestAproposFindsNames: apropos gives the sorted names containing a text
// (without case) or matching a regex, tools too, as a vector of strings
// that prints readable back.
func TestAproposFindsNames(t *testing.T) {
	cases := map[string][]string{
		`(apropos "parse-string")`: {"cheshire.core/parse-string", "json/parse-string"},
		`(apropos #"^json/")`:      {"json/generate-string", "json/parse-lines", "json/parse-string"},
		`(apropos "SEARCH")`:       {"tool/search"},
		`(apropos "no such name")`: nil,
	}
	for src, want := range cases {
		res := run(t, src, introspectEnv)
		if res.Err != nil {
			t.Fatalf("%s: %v", src, res.Err)
		}
		text := Repr(res.Value)
		wantText := "[]"
		if want != nil {
			wantText = `["` + strings.Join(want, `" "`) + `"]`
		}
		if text != wantText {
			t.Errorf("%s = %s, want %s", src, text, wantText)
		}
		back, err := readComparable(text)
		if err != nil || !Equal(back, res.Value) {
			t.Errorf("%s: %s does not read back (%v)", src, text, err)
		}
	}
	res := run(t, `(apropos "date")`, Env{})
	if res.Err != nil || !strings.Contains(Repr(res.Value), `"LocalDate/parse"`) {
		t.Errorf(`(apropos "date") = %v %v, want LocalDate/parse among them`, res.Value, res.Err)
	}
}

// TestDirListsWhatResolves: every name dir lists for every namespace (dir)
// lists resolves when written ns/name, and a namespace that is not one
// is an error naming those that are.
func TestDirListsWhatResolves(t *testing.T) {
	env := introspectEnv
	env.Data = NewMapBuilder(1).Map()
	res := run(t, `(dir)`, env)
	if res.Err != nil || len(res.Prints) < 10 {
		t.Fatalf("(dir): %v %q", res.Err, res.Prints)
	}
	for _, ns := range res.Prints {
		listed := run(t, `(dir "`+ns+`")`, env)
		if listed.Err != nil {
			t.Errorf("(dir %q): %v", ns, listed.Err)
			continue
		}
		if len(listed.Prints) == 0 && ns != "data" {
			t.Errorf("(dir %q) lists nothing", ns)
		}
		for _, name := range listed.Prints {
			src := "(fn [] " + ns + "/" + name + ")" // resolved, not returned
			if r := run(t, src, env); r.Err != nil && r.Err.Kind != executionError {
				t.Errorf("(dir %q) lists %s, which does not resolve: %v", ns, name, r.Err)
			}
		}
	}
	if r := run(t, `(dir "clojure.string")`, env); r.Err != nil || !strings.Contains(strings.Join(r.Prints, " "), "upper-case") {
		t.Errorf(`(dir "clojure.string"): %v %q`, r.Err, r.Prints)
	}
	if r := run(t, `(dir 'nope)`, env); r.Err == nil || !strings.Contains(r.Err.Hint, "clojure.string") {
		t.Errorf("(dir 'nope): %v", r.Err)
	}
}

// TestJSONValuesReadBack: what the json functions return prints as text
// that reads back as the same value.
func TestJSONValuesReadBack(t *testing.T) {
	for _, src := range []string{
		`(json/parse-string "{\"a\": 1, \"b c\": [1, 2.5, null, true], \"n\": {\"x\": \"y\"}}")`,
		`(json/parse-string "{\"first name\": 1, \"ok\": {\"k\": [1]}, \"1a\": 2, \"a/b\": 3}" true)`,
		`(json/parse-lines "{\"a\":1}\n\n[2,3]\n\"s\"\nnull\n" true)`,
		`(json/generate-string {:a [1 "x\n" #{2}]})`,
		`(Instant/parse "2024-01-15T10:30:00.5+01:00")`,
	} {
		res := run(t, src, Env{})
		if res.Err != nil {
			t.Errorf("%s: %v", src, res.Err)
			continue
		}
		text := Repr(res.Value)
		forms, err := read(text, 0)
		if err != nil || len(forms) != 1 || !Equal(quoted(forms[0]), res.Value) {
			t.Errorf("%s = %s, which does not read back as itself (%v)", src, text, err)
		}
	}
	res := run(t, `(json/parse-lines "{\"a\":1}\n{\"a\":")`, Env{})
	if res.Err == nil || !strings.Contains(res.Err.Message, "line 2") {
		t.Errorf("a bad second line: %v, want an error naming line 2", res.Err)
	}
}
