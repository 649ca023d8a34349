package lisp

import (
	"slices"
	"strings"
	"sync"
)

// introspectBuiltins let a program discover what it can call instead of
// reading every signature in the prompt, as Clojure's REPL does: (doc f)
// prints the signature and description of a builtin (from its row) or of
// a tool (from the request's tools), (apropos "date") gives the names that
// contain a text or match a regex, and (dir "clojure.string") prints the
// names of a namespace. Their arguments are values, so a namespace or a
// name is given as a string or a quoted symbol: (dir 'json), (doc "map");
// a function may be given itself: (doc map), (doc tool/search).
var introspectBuiltins = []*Builtin{
	{Name: "doc", Sig: "(doc f) (doc \"name\")", Doc: "print the signature and description of a function or tool; returns nil", Category: "idiom",
		MinArgs: 1, MaxArgs: 1,
		Cost: cost(writes, chargedInBody("the lines printed, within the output budget"))},
	{Name: "apropos", Sig: "(apropos \"text\") (apropos #\"regex\")", Doc: "the sorted names of the functions, tools and forms that contain text or match regex", Category: "idiom",
		MinArgs: 1, MaxArgs: 1,
		Cost: cost(chargedInBody("a step per name searched, and the vector of the names found"))},
	{Name: "dir", Sig: "(dir \"namespace\") (dir)", Doc: "print the names of a namespace (clojure.core, clojure.string, clojure.set, clojure.walk, json, tool, data, a Java class), or with no argument the namespaces; returns nil", Category: "idiom",
		MinArgs: 0, MaxArgs: 1,
		Cost: cost(writes, chargedInBody("a step per name listed, and the lines printed, within the output budget"))},
}

// The functions read the registry built from the rows, so they are set
// once the registry exists; a Go initializer cannot refer to it.
func init() {
	rowNamed(introspectBuiltins, "doc").Fn = builtinDoc
	rowNamed(introspectBuiltins, "apropos").Fn = builtinApropos
	rowNamed(introspectBuiltins, "dir").Fn = builtinDir
}

// introspectNamespaces are what dir lists with no argument: the Clojure
// namespaces, data, tool, and the namespaces and Java classes of the
// rows reached as ns/name.
// introspectNamespaces is worked out once from the registry: listing it
// on every call scanned every static, microseconds for one step.
var introspectNamespaces = sync.OnceValue(func() []string {
	names := []string{"clojure.core", "clojure.data", "clojure.edn", "clojure.math", "clojure.set", "clojure.string", "clojure.walk", "data", "tool"}
	for n, b := range builtins.statics {
		if ns, _, ok := strings.Cut(n, "/"); ok && n == b.Name && !strings.Contains(ns, ".") {
			names = append(names, ns)
		}
	}
	for n := range javaConstants() {
		if ns, _, _ := strings.Cut(n, "/"); !strings.Contains(ns, ".") {
			names = append(names, ns)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
})

// javaMathMethods are the methods of java.lang.Math that Math/name reaches
// through the builtin of the same name in lower case (analysis).
var javaMathMethods = strings.Fields("abs acos asin atan atan2 ceil cos exp floor log log10 max min pow round sin sqrt tan")

// ToolDoc is what a request says of a tool, for doc.
type ToolDoc struct {
	Signature   string // in signature syntax: (query :string) -> [:string]
	Description string
}

// nameArg is the name a doc or dir argument gives: a string, symbol or
// keyword.
func nameArg(fn string, v Value) (string, error) {
	switch a := v.(type) {
	case String:
		return string(a), nil
	case symbol:
		return string(a), nil
	case Keyword:
		return string(a), nil
	}
	return "", typeErrorf(fn, "a name, as a string or quoted symbol", v)
}

func printLines(th *Thread, lines []string) error {
	for _, l := range lines {
		if err := printLine(th, []Value{String(l)}, asPrint, true); err != nil {
			return err
		}
	}
	return nil
}

func builtinDoc(th *Thread, args []Value) (Value, error) {
	var lines []string
	switch f := args[0].(type) {
	case *Builtin:
		lines = builtinDocLines(f)
	case *toolFunc:
		lines = toolDocLines(th, f.Name)
	case *closure:
		name := f.name
		if name == "" {
			name = "fn"
		}
		lines = []string{name, "([" + strings.Join(f.ParamNames(), " ") + "])", "  defined by the program"}
	default:
		name, err := nameArg("doc", args[0])
		if err != nil {
			return nil, err
		}
		lines = docOfName(th, name)
	}
	return Nil, printLines(th, append([]string{"-------------------------"}, lines...))
}

func builtinDocLines(b *Builtin) []string {
	return []string{b.Name, b.Sig, "  " + b.Doc}
}

func toolDocLines(th *Thread, name string) []string {
	lines := []string{"tool/" + name}
	if th.prog != nil {
		if d, ok := th.prog.env.ToolDocs[name]; ok {
			sig := d.Signature
			if sig == "" {
				sig = "takes any arguments and returns any value"
			}
			lines = append(lines, sig)
			if d.Description != "" {
				lines = append(lines, "  "+d.Description)
			}
			return lines
		}
	}
	return append(lines, "  a tool: call it with (tool/"+name+" {...})")
}

// docOfName is doc of a name given as text.
func docOfName(th *Thread, name string) []string {
	if tool, ok := strings.CutPrefix(name, "tool/"); ok && th.prog != nil && th.prog.tools[tool] {
		return toolDocLines(th, tool)
	}
	short := name
	if ns, n, ok := strings.Cut(name, "/"); ok && clojureNamespaceOf[ns] != "" {
		if b, ok := builtins.inNS[clojureNamespaceOf[ns]+"/"+n]; ok {
			return builtinDocLines(b)
		}
		short = n
	}
	for _, m := range []map[string]*Builtin{builtins.functions, builtins.statics, builtins.forms} {
		if b, ok := m[short]; ok {
			return builtinDocLines(b)
		}
		if b, ok := m[name]; ok {
			return builtinDocLines(b)
		}
	}
	if _, ok := specialForms[short]; ok {
		return []string{short, "  a special form"}
	}
	return []string{"No documentation found for " + name + "; (apropos \"" + short + "\") searches the names"}
}

// everyName is each name a program can call, as it calls it: builtins,
// Java forms, special forms and the request's tools.
func everyName(th *Thread) []string {
	var names []string
	for _, m := range []map[string]*Builtin{builtins.functions, builtins.statics, builtins.forms} {
		for n := range m {
			names = append(names, n)
		}
	}
	for n := range specialForms {
		names = append(names, n)
	}
	if th.prog != nil {
		for t := range th.prog.tools {
			names = append(names, "tool/"+t)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func builtinApropos(th *Thread, args []Value) (Value, error) {
	var match func(string) bool
	var matchErr error // a backtracking regex's charge, which ends the search
	switch q := args[0].(type) {
	case String:
		// Without case, unlike Clojure's, so that "date" finds LocalDate/parse.
		text := strings.ToLower(string(q))
		match = func(n string) bool { return strings.Contains(strings.ToLower(n), text) }
	case *regex:
		match = func(n string) bool {
			loc, err := q.find(th, n)
			if err != nil {
				matchErr = err
			}
			return loc != nil
		}
	default:
		name, err := nameArg("apropos", args[0])
		if err != nil {
			return nil, typeErrorf("apropos", "a string or regex", args[0])
		}
		match = func(n string) bool { return strings.Contains(n, name) }
	}
	// The request's tools are listed as names built for the call, each
	// of any length: charged before they are built, and each match by the
	// bytes it reads, as a regex builtin charges its match.
	if th.prog != nil {
		built := 0
		for t := range th.prog.tools {
			built += len("tool/") + len(t)
		}
		if err := th.allocString(built); err != nil {
			return nil, err
		}
	}
	names := everyName(th)
	if err := sortCost(th, len(names)); err != nil { // listed sorted on each call
		return nil, err
	}
	var found []Value
	re, byRegex := args[0].(*regex)
	for _, n := range names {
		var err error
		if byRegex {
			err = chargeMatch(th, re.insts, len(n))
		} else {
			err = th.step(int64(len(n)) / 64)
		}
		if err != nil {
			return nil, err
		}
		matched := match(n)
		if matchErr != nil {
			return nil, matchErr
		}
		if matched {
			if err := th.allocString(len(n)); err != nil {
				return nil, err
			}
			found = append(found, String(n))
		}
	}
	return newVector(th, found)
}

func builtinDir(th *Thread, args []Value) (Value, error) {
	if len(args) == 0 {
		return Nil, printLines(th, introspectNamespaces())
	}
	ns, err := nameArg("dir", args[0])
	if err != nil {
		return nil, err
	}
	names, ok := namespaceNames(th, ns)
	if !ok {
		return nil, Errorf(executionError, "dir: there is no namespace %s", ns).
			WithHint("(dir) lists the namespaces: %s", strings.Join(introspectNamespaces(), ", ")).
			asJava("Exception", "No namespace: "+ns+" found")
	}
	if err := sortCost(th, len(names)); err != nil { // listed sorted on each call
		return nil, err
	}
	return Nil, printLines(th, names)
}

// namespaceNames are the names dir lists for ns, sorted: a Clojure
// namespace's vars that work here, json's functions, the tools, the
// data keys, or a Java class's statics.
func namespaceNames(th *Thread, ns string) ([]string, bool) {
	var names []string
	if clj, ok := clojureNamespaceOf[ns]; ok {
		if clj == "clojure.math" {
			return clojureMathHere(), true
		}
		for n := range namespacePublics()[clj] {
			if _, ok := builtins.inNS[clj+"/"+n]; ok {
				names = append(names, n)
			} else if _, ok := functionNodes[n]; ok {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		return names, true
	}
	switch ns {
	case "tool":
		if th.prog != nil {
			for t := range th.prog.tools {
				names = append(names, t)
			}
		}
		slices.Sort(names)
		return names, true
	case "data":
		if th.prog != nil && th.prog.data != nil {
			for _, e := range th.prog.data.Entries() {
				names = append(names, strings.TrimPrefix(Str(e.Key), ":"))
			}
		}
		slices.Sort(names)
		return names, true
	}
	for n, b := range builtins.statics {
		if rest, ok := strings.CutPrefix(n, ns+"/"); ok && n == b.Name {
			names = append(names, rest)
		}
	}
	for n := range javaConstants() {
		if rest, ok := strings.CutPrefix(n, ns+"/"); ok {
			names = append(names, rest)
		}
	}
	if ns == "Math" {
		for _, m := range javaMathMethods {
			if _, ok := lookupFunction(m); ok {
				names = append(names, m)
			}
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	return names, len(names) > 0
}
