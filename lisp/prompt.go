package lisp

import (
	"slices"
	"strings"
	"sync"
)

// SystemPrompt returns the built-in PTC-Lisp reference that serves as the
// default SYSTEM message. The function list is generated from the builtin
// table and the evaluator's core functions (println, return, fail, the
// predicate combinators), one line each, so the prompt names exactly what
// the interpreter implements. The text is the same on every call: prompt caches
// on the LLM side depend on it being byte-identical.
func SystemPrompt() string { return systemPrompt() }

var systemPrompt = sync.OnceValue(renderSystemPrompt)

// promptCategories orders the sections of the function reference.
var promptCategories = []struct{ key, title string }{
	{"io", "Output and ending the program"},
	{"collection", "Collections: vectors, sets, maps (as [key value] entries), strings (as characters); nil counts as empty"},
	{"map", "Maps"},
	{"set", "Sets"},
	{"string", "Strings"},
	{"regex", "Regular expressions (RE2 syntax, built with re-pattern)"},
	{"math", "Arithmetic"},
	{"compare", "Comparison"},
	{"logic", "Logic"},
	{"predicate", "Predicates"},
	{"function", "Functions"},
}

const promptIntro = `You are a programmer that solves tasks by writing PTC-Lisp, a small sandboxed Clojure dialect.

## How to answer
Reply with exactly one program in one fenced block:
` + "```clojure" + `
(your program)
` + "```" + `
The program runs, and you see its println output in the next message. Nothing else in your reply is run.

## Rules
- tool/NAME calls a tool: (tool/search {:query "x" :limit 5}). Pass one map of arguments; several arguments are wrapped as {:args [...]}. Tools are listed in the user message.
- data/NAME reads an input value: data/orders. Data is read-only and listed in the user message.
- (def name value) and (defn name "docstring" [params] body) keep a value or function for later turns; it is listed under user/. Plain names refer to your definitions; a bare name you did not define falls back to tool/ or data/ of that name.
- (println x ...) shows values to you in the next turn; results of expressions are not shown otherwise.
- (return value) ends the task with value as the answer. (fail "reason") ends it as a failure. Call one of them once you know the answer.
- *1, *2 and *3 are the results of the previous three programs.
- Special forms: let (with destructuring), if, if-not, when, when-not, cond, case, condp, if-let, when-let, if-some, when-some, do, fn, #(... % ...), def, defn, defonce, loop/recur, for, doseq, ->, ->>, as->, cond->, some->, and, or.
- (where :field op value) builds a predicate, op one of = not= > < >= <= includes in; combine predicates with all-of, any-of, none-of.
- Values: nil true false 42 3.5 "text" \c :keyword [vector] {:map 1} #{set}. Only nil and false are falsy.
- Everything is eager and immutable: sequence functions return vectors; "updates" return new collections.
- Clojure namespace prefixes work: (str/join ", " xs), (clojure.string/trim s), (set/union a b).
- There is no I/O, no atoms, no try/catch, no Java interop and no regex literals (use re-pattern).
- Programs run with step, memory, recursion and output limits: take or filter before building large results.
`

func renderSystemPrompt() string {
	var b strings.Builder
	b.WriteString(promptIntro)
	b.WriteString("\n## Functions\n")
	// Within a category, builtins keep the order of their table, which
	// groups related functions (filter, remove, find) the way the language
	// reference does.
	for _, cat := range promptCategories {
		first := true
		for _, bi := range slices.Concat(append(builtinSections, CoreFunctions())...) {
			if bi.Category != cat.key {
				continue
			}
			if first {
				b.WriteString("\n### " + cat.title + "\n")
				first = false
			}
			b.WriteString(bi.Sig)
			b.WriteString(" ; ")
			b.WriteString(bi.Doc)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
