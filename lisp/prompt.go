package lisp

import (
	"maps"
	"slices"
	"strings"
	"sync"
)

// The built-in SYSTEM prompt comes in two variants, both generated from the
// builtin table and the special forms, both the same text on every call
// (prompt caches on the LLM side depend on it being byte-identical):
//
//   - lean (the default) tells an LLM that knows Clojure what it needs
//     beyond that: the answer format, the tool/ and data/ namespaces,
//     def/return/fail, the functions grouped by name, prose only for those
//     that are not Clojure's or behave differently, and the common mistakes;
//   - full is the whole reference, one line of prose per function.

// SystemPrompt returns the lean PTC-Lisp reference, the default SYSTEM
// message.
func SystemPrompt() string { return leanSystemPrompt() }

// FullSystemPrompt returns the whole PTC-Lisp reference: every function with
// its call shape and a line of prose.
func FullSystemPrompt() string { return fullSystemPrompt() }

var (
	leanSystemPrompt = sync.OnceValue(renderLeanSystemPrompt)
	fullSystemPrompt = sync.OnceValue(renderFullSystemPrompt)
)

// promptCategories orders the sections of the function reference.
var promptCategories = []struct{ key, title, short string }{
	{"io", "Output and ending the program", "output"},
	{"collection", "Collections: vectors, sets, maps (as [key value] entries), strings (as characters); nil counts as empty", "collections"},
	{"map", "Maps", "maps"},
	{"set", "Sets", "sets"},
	{"string", "Strings", "strings"},
	{"regex", "Regular expressions (Java syntax, built with re-pattern)", "regex"},
	{"math", "Arithmetic", "math"},
	{"compare", "Comparison", "comparison"},
	{"logic", "Logic", "logic"},
	{"predicate", "Predicates", "predicates"},
	{"function", "Functions", "functions"},
}

// promptRules are the rules both variants state before the functions.
const promptRules = `## How to answer
Reply with exactly one program in one fenced block:
` + "```clojure" + `
(your program)
` + "```" + `
Nothing outside the block runs. Put your reasoning in ;; comments inside it.

## Rules
- tool/NAME calls a tool with one map of arguments: (tool/search {:query "x" :limit 5}); several arguments arrive wrapped as {:args [...]}. data/NAME is a read-only input value: data/orders. The user message lists tools and data.
- (def name value) and (defn name "doc" [params] body) persist across turns, listed under user/. An undefined bare name falls back to tool/NAME or data/NAME.
- Only printed output (println x ...) is shown to you, in the next turn.
- return and fail stop the program at once: do not return while you still need to see what it prints.
- *1, *2 and *3 are the previous three programs' results.
- Keep programs short and build on your definitions; never copy printed data into code, def it.
- Special forms: %s; also #(... % ...).
- (where :field op value) builds a predicate, op one of = not= > < >= <= includes in.
- Sequence functions are eager and return vectors.
- Namespace prefixes work: str/join, clojure.string/trim, set/union.
- No I/O. Regular expressions are Java's: #"\d+" or (re-pattern "\\d+").
- (dir) and (doc f) show functions not listed here.
- Programs have step, memory, recursion and output limits: filter or take before building large results.
`

// promptMistakes pairs forms LLMs often write with what works here; each
// wrong form fails with an error whose hint gives the right one.
var promptMistakes = [][2]string{
	{"(max [1 2 3])", "(apply max [1 2 3])"},
	{"(sort-by :price coll >)", "(sort-by :price > coll)"},
	{"(-> coll (filter f))", "(->> coll (filter f))"},
	{"(includes? coll x)", "(some #{x} coll); includes? is for strings"},
	{"(apply max-by :price coll)", "(max-by :price coll)"},
}

const promptIntro = "You solve tasks by writing PTC-Lisp, a small sandboxed Clojure dialect.\n\n"

// specialFormNames lists the special forms in a fixed order: the table's
// names sorted, separated by spaces (a comma each would cost a token).
func specialFormNames() string {
	names := slices.Sorted(maps.Keys(specialForms))
	var out []string
	for _, n := range names {
		switch {
		case n == "quote", n == "var", n == "comment", n == "declare", n == "defn-":
			continue // rarely useful to an LLM; they still work
		case specialForms[n].idiom:
			continue // beyond the specification: costs no prompt tokens
		}
		out = append(out, n)
	}
	return strings.Join(out, " ")
}

// predicateRule stands in the lean prompt for the list of predicates: every
// one of them is a Clojure predicate (TestLeanPromptPredicateRule checks);
// the few of Clojure's that are not here (any?, uuid?, simple-keyword?)
// fail with a hint that writes what to use instead.
const predicateRule = "Clojure's type, number and collection predicates (nil? string? map? pos? distinct? ...)"

func rules() string { return strings.Replace(promptRules, "%s", specialFormNames(), 1) }

// promptFunctions returns every function the prompts document, the
// builtins reached by name and the evaluator's core functions, in table
// order.
func promptFunctions() []*Builtin {
	var out []*Builtin
	for _, b := range slices.Concat(append(builtinSections, CoreFunctions())...) {
		if b.reach == byName {
			out = append(out, b)
		}
	}
	return out
}

func renderLeanSystemPrompt() string {
	var b strings.Builder
	b.WriteString(promptIntro)
	b.WriteString(rules())
	b.WriteString("\n## Functions as in Clojure, by name\n")
	for _, cat := range promptCategories {
		var names []string
		for _, bi := range promptFunctions() {
			if bi.Category == cat.key && !bi.lean {
				names = append(names, bi.Name)
			}
		}
		switch {
		case cat.key == "predicate":
			// A model that knows Clojure knows these names; a rule says
			// they are all here in fewer tokens than the list.
			b.WriteString(cat.short + ": " + predicateRule + "\n")
		case len(names) > 0:
			b.WriteString(cat.short + ": " + strings.Join(names, " ") + "\n")
		}
	}
	b.WriteString("\n## Functions that differ from Clojure or are not in it\n")
	for _, bi := range promptFunctions() {
		if bi.lean {
			b.WriteString(bi.Sig + " ; " + bi.Doc + "\n")
		}
	}
	b.WriteString("\n## Common mistakes (wrong -> right)\n")
	for _, m := range promptMistakes {
		b.WriteString(m[0] + " -> " + m[1] + "\n")
	}
	return b.String()
}

func renderFullSystemPrompt() string {
	var b strings.Builder
	b.WriteString(promptIntro)
	b.WriteString(rules())
	b.WriteString("\n## Functions\n")
	// Within a category, builtins keep the order of their table, which
	// groups related functions (filter, remove, find) the way the language
	// reference does.
	for _, cat := range promptCategories {
		first := true
		for _, bi := range promptFunctions() {
			if bi.Category != cat.key {
				continue
			}
			if first {
				b.WriteString("\n### " + cat.title + "\n")
				first = false
			}
			b.WriteString(bi.Sig + " ; " + bi.Doc + "\n")
		}
	}
	return b.String()
}
