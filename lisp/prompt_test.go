package lisp

import (
	"flag"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/internal/bpe"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func TestSystemPromptGolden(t *testing.T) {
	for _, c := range []struct {
		path         string
		got, another string
	}{
		{"testdata/system_prompt.golden", SystemPrompt(), renderLeanSystemPrompt()},
		{"testdata/system_prompt_full.golden", FullSystemPrompt(), renderFullSystemPrompt()},
	} {
		if *update {
			if err := os.WriteFile(c.path, []byte(c.got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if c.got != string(want) {
			t.Errorf("the prompt differs from %s; run go test ./lisp -run SystemPrompt -update and review the diff", c.path)
		}
		if c.another != c.got {
			t.Errorf("%s: the prompt is not the same across renderings", c.path)
		}
	}
}

// TestLeanSystemPromptTokens keeps the default prompt within 1,450 o200k
// tokens: it is sent on every call of every strategy, and it measures 1,392
// with every difference from Clojure still described.
func TestLeanSystemPromptTokens(t *testing.T) {
	e, err := bpe.Get("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	if n := e.Count(SystemPrompt()); n > 1450 {
		t.Errorf("the lean system prompt has %d o200k_base tokens, more than 1,450", n)
	}
	if lean, full := e.Count(SystemPrompt()), e.Count(FullSystemPrompt()); lean*2 > full {
		t.Errorf("the lean prompt (%d tokens) is more than half the full one (%d)", lean, full)
	}
}

func TestFullSystemPromptDocumentsEveryFunction(t *testing.T) {
	p := FullSystemPrompt()
	for _, b := range promptFunctions() {
		if b.Category == "idiom" {
			continue // beyond the specification: costs no prompt tokens
		}
		if !strings.Contains(p, "\n"+b.Sig+" ; "+b.Doc+"\n") {
			t.Errorf("the full system prompt does not document %s", b.Name)
		}
	}
}

// promptSection returns the lines of the lean prompt's section whose
// heading starts with title.
func promptSection(t *testing.T, title string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(SystemPrompt(), "\n## "+title)
	if !ok {
		t.Fatalf("the lean prompt has no section %q", title)
	}
	body, _, _ := strings.Cut(rest, "\n## ")
	lines := strings.Split(strings.TrimSpace(body), "\n")
	return lines[1:] // the rest of the heading line
}

// TestLeanSystemPromptNamesExist reads the lean prompt and checks that
// every function it names is one, that each is named exactly once, that the
// special forms are the interpreter's, and that the forms its rules and
// mistakes table write call functions and forms that exist.
func TestLeanSystemPromptNamesExist(t *testing.T) {
	named := map[string]int{}
	for _, line := range promptSection(t, "Functions as in Clojure") {
		label, names, ok := strings.Cut(line, ": ")
		if !ok {
			t.Fatalf("function line without a label: %q", line)
		}
		if label == "predicates" {
			continue // a rule, not a list: TestLeanPromptPredicateRule
		}
		for _, n := range strings.Fields(names) {
			if _, ok := lookupFunction(n); !ok {
				t.Errorf("the lean prompt lists %s, which is not a function", n)
			}
			named[n]++
		}
	}
	for _, line := range promptSection(t, "Functions that differ") {
		name, _, _ := strings.Cut(strings.TrimPrefix(line, "("), " ")
		b, ok := lookupFunction(name)
		if !ok {
			t.Errorf("the lean prompt describes %s, which is not a function", name)
			continue
		}
		if line != b.Sig+" ; "+b.Doc {
			t.Errorf("the lean prompt's line for %s is not its table entry: %q", name, line)
		}
		named[name]++
	}
	for _, b := range promptFunctions() {
		if b.Category == "idiom" {
			if named[b.Name] != 0 {
				t.Errorf("the lean prompt names %s, which is beyond the specification", b.Name)
			}
			continue
		}
		if b.Category == "predicate" && !b.lean {
			continue // stated by the predicates rule
		}
		if named[b.Name] != 1 {
			t.Errorf("the lean prompt names %s %d times, want once", b.Name, named[b.Name])
		}
	}

	p := SystemPrompt()
	_, forms, _ := strings.Cut(p, "- Special forms: ")
	forms, _, _ = strings.Cut(forms, "; also #(... % ...).\n")
	for _, f := range strings.Fields(forms) {
		if _, special := specialForms[f]; !special {
			t.Errorf("the lean prompt lists %q as a special form", f)
		}
	}

	// Every call the rules and the right-hand side of the mistakes table
	// write names a special form, a function (through a namespace alias
	// too), or a tool.
	rules, _, _ := strings.Cut(p, "\n## Functions")
	text := rules
	for _, line := range promptSection(t, "Common mistakes") {
		_, right, ok := strings.Cut(line, " -> ")
		if !ok {
			t.Fatalf("mistake line without ->: %q", line)
		}
		text += "\n" + right
	}
	heads := regexp.MustCompile(`\((\S+?)[\s)]`).FindAllStringSubmatch(text, -1)
	if len(heads) < 15 {
		t.Fatalf("found only %d calls in the prompt's rules", len(heads))
	}
	for _, h := range heads {
		name := h[1]
		if name == "your" || name == "..." || strings.HasPrefix(name, "tool/") {
			continue // "(your program)", an elided body, a tool
		}
		if i := strings.LastIndexByte(name, '/'); i > 0 && name != "/" {
			name = name[i+1:]
		}
		_, special := specialForms[name]
		if _, fn := lookupFunction(name); !special && !fn {
			t.Errorf("the lean prompt calls (%s ...), which does not exist", h[1])
		}
	}
}

// TestLeanSystemPromptRules runs what the rules state: each where operator,
// the predicate combinators, the namespace prefixes and *1.
func TestLeanSystemPromptRules(t *testing.T) {
	_, ops, _ := strings.Cut(SystemPrompt(), "op one of ")
	ops, _, _ = strings.Cut(ops, ".\n")
	want := []string{"=", "not=", ">", "<", ">=", "<=", "includes", "in"}
	if got := strings.Fields(ops); !slices.Equal(got, want) {
		t.Fatalf("where operators in the prompt: %q, want %q", got, want)
	}
	for _, op := range want {
		value := "1"
		switch op {
		case "includes":
			value = `"b"`
		case "in":
			value = "[1 2]"
		}
		src := `(count (filter (all-of (where :a ` + op + ` ` + value + `) (any-of (where :a not= nil)) (none-of (where :a = 7))) [{:a 1} {:a "abc"}]))`
		if res := run(t, src, Env{}); res.Err != nil {
			t.Errorf("%s: %v", src, res.Err)
		}
	}
	for _, src := range []string{`(re-find #"\d+" "a12")`, `(re-find (re-pattern "\\d+") "a12")`, `(str/join ", " ["a" "b"])`, `(clojure.string/trim " a ")`, `(set/union #{1} #{2})`} {
		if res := run(t, src, Env{}); res.Err != nil {
			t.Errorf("%s: %v", src, res.Err)
		}
	}
}

// TestCommonMistakesHaveHints: each wrong form of the prompt's mistakes
// table fails with an error whose hint writes the right form, and the right
// form works.
func TestCommonMistakesHaveHints(t *testing.T) {
	const coll = `(def coll [{:price 3} {:price 1}]) `
	cases := []struct{ wrong, hint, right string }{
		{`(max [1 2 3])`, "(apply max coll)", `(apply max [1 2 3])`},
		{coll + `(sort-by :price coll >)`, "(sort-by keyfn > coll)", coll + `(sort-by :price > coll)`},
		{coll + `(-> coll (filter :price))`, "use ->>, not ->", coll + `(->> coll (filter :price))`},
		{`(includes? [1 2] 1)`, "(some #{x} coll)", `(some #{1} [1 2])`},
		{coll + `(apply max-by :price [{:price 1}])`, "(max-by :price coll)", coll + `(max-by :price coll)`},
	}
	if len(cases) != len(promptMistakes) {
		t.Fatalf("%d cases for %d mistakes in the prompt", len(cases), len(promptMistakes))
	}
	for i, c := range cases {
		res := run(t, c.wrong, Env{})
		if res.Err == nil {
			t.Errorf("%s: succeeded, want an error", c.wrong)
		} else if !strings.Contains(res.Err.Hint, c.hint) {
			t.Errorf("%s: hint %q does not say %q", c.wrong, res.Err.Hint, c.hint)
		}
		if res := run(t, c.right, Env{}); res.Err != nil {
			t.Errorf("%s: %v", c.right, res.Err)
		}
		if head := strings.Fields(promptMistakes[i][1])[0]; !strings.Contains(c.right, head) {
			t.Errorf("case %d runs %s, the prompt's right form is %s", i, c.right, promptMistakes[i][1])
		}
	}
	// Restrictions the prompt states in its rules rather than its table:
	// each fails with a hint that names what to write instead.
	for _, c := range []struct{ wrong, hint string }{
		{`(includes "abc" "b")`, "includes?"},
	} {
		res := run(t, c.wrong, Env{})
		if res.Err == nil || !strings.Contains(res.Err.Hint, c.hint) {
			t.Errorf("%s: error %v, want a hint with %q", c.wrong, res.Err, c.hint)
		}
	}
}

// TestPromptDiscoveryFormsRun: the discovery forms the system prompt
// names run as written and print what they found, and dir takes a
// namespace unquoted, as Clojure's REPL does.
func TestPromptDiscoveryFormsRun(t *testing.T) {
	for _, form := range []string{"(dir)", "(doc f)"} {
		if !strings.Contains(SystemPrompt(), form) {
			t.Errorf("the system prompt no longer names %s", form)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"(dir)", "json"},
		{"(defn f [x] x) (doc f)", "[x]"},
		{"(dir json)", "parse-string"},
		{"(dir 'json)", "parse-string"},
		{"(dir clojure.string)", "upper-case"},
		{`(println (apropos "date"))`, "LocalDate/parse"},
	} {
		res := run(t, c.src, Env{})
		if res.Err != nil {
			t.Errorf("%s: %v", c.src, res.Err)
		} else if printed := strings.Join(res.Prints, "\n"); !strings.Contains(printed, c.want) {
			t.Errorf("%s printed %q, want it to name %s", c.src, printed, c.want)
		}
	}
}

// clojureVarNames returns the names of Clojure's public vars (core, string,
// set, walk) that the coverage table lists.
func clojureVarNames(t *testing.T) map[string]bool {
	t.Helper()
	vars, _, _ := loadCoverage(t)
	names := map[string]bool{}
	for _, v := range vars {
		names[v[strings.LastIndexByte(v, '/')+1:]] = true
	}
	if len(names) < 650 {
		t.Fatalf("only %d Clojure names read", len(names))
	}
	// clojure.math (Clojure 1.11), which the table does not list: the
	// functions the prompt reaches by their bare names.
	for _, n := range strings.Fields("sqrt pow exp log log10 floor ceil round") {
		names[n] = true
	}
	return names
}

// TestLeanPromptPredicateRule: the lean prompt states the predicates as a
// rule ("Clojure's type, number and collection predicates"), so each one
// must be a Clojure predicate that behaves as Clojure's, and each example
// the rule names must be one of them.
func TestLeanPromptPredicateRule(t *testing.T) {
	clojure := clojureVarNames(t)
	preds := map[string]bool{}
	for _, b := range promptFunctions() {
		if b.Category != "predicate" {
			continue
		}
		preds[b.Name] = true
		if !strings.HasSuffix(b.Name, "?") || !clojure[b.Name] || b.lean {
			t.Errorf("%s is under predicates, which the lean prompt states as Clojure's own", b.Name)
		}
	}
	line := "predicates: " + predicateRule
	if !slices.Contains(promptSection(t, "Functions as in Clojure"), line) {
		t.Fatalf("the lean prompt does not state the predicates rule %q", line)
	}
	_, examples, _ := strings.Cut(predicateRule, "(")
	examples, _, _ = strings.Cut(examples, " ...)")
	for _, n := range strings.Fields(examples) {
		if !preds[n] {
			t.Errorf("the predicates rule names %s, which is not a predicate of the prompt", n)
		}
	}
}

// TestLeanPromptDescribesEveryDifference: a function that is not
// Clojure's, or that behaves differently here (the table's lean mark), is
// described in the lean prompt by its call shape and a line of prose; only
// Clojure's own names are listed by name alone.
func TestLeanPromptDescribesEveryDifference(t *testing.T) {
	clojure := clojureVarNames(t)
	differ := promptSection(t, "Functions that differ")
	for _, b := range promptFunctions() {
		if b.Category == "idiom" {
			continue
		}
		if !clojure[b.Name] && !b.lean {
			t.Errorf("%s is not Clojure's, yet the lean prompt lists it by name only", b.Name)
		}
		if b.lean && !slices.Contains(differ, b.Sig+" ; "+b.Doc) {
			t.Errorf("the lean prompt does not describe %s, which differs from Clojure", b.Name)
		}
	}
	for _, line := range promptSection(t, "Functions as in Clojure") {
		label, names, _ := strings.Cut(line, ": ")
		if label == "predicates" {
			continue
		}
		for _, n := range strings.Fields(names) {
			if !clojure[n] {
				t.Errorf("the lean prompt lists %s as Clojure's; Clojure has no such function", n)
			}
		}
	}
}
