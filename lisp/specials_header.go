package lisp

import (
	"strings"
)

// Namespace headers: (ns ...), (require ...), (use ...) and (import ...)
// of what the sandbox has are skipped with a warning, and the aliases and
// referred names they declare resolve in the forms after them; a header
// naming a namespace or class the sandbox lacks is refused with the hint
// to delete it. Models write them from habit at the top of a program.

// headerForms name the header special forms; as values they are the
// program's names, a data key or a definition (data/ns), as before they
// were forms.
var headerForms = map[string]bool{"ns": true, "require": true, "use": true, "import": true}

// compileRequire is (require '[clojure.string :as str] ...), and (use
// 'clojure.string ...), which refers every var.
func compileRequire(c *compiler, l *list, tail bool) (node, error) {
	what := formName(l)
	for _, f := range l.Elems[1:] {
		if err := c.libspec(what, unquote(f), what == "use"); err != nil {
			return nil, deleteHint(err, l, "("+what+" ...) form", f)
		}
	}
	c.headerWarning(l)
	return &constNode{Nil}, nil
}

// compileImport is (import '(java.time LocalDate) 'java.util.Date).
func compileImport(c *compiler, l *list, tail bool) (node, error) {
	for _, f := range l.Elems[1:] {
		if err := c.importSpec(unquote(f)); err != nil {
			return nil, deleteHint(err, l, "(import ...) form", f)
		}
	}
	c.headerWarning(l)
	return &constNode{Nil}, nil
}

// compileNs is (ns name doc? attrs? (:require ...) (:use ...) (:import
// ...) (:refer-clojure ...) (:gen-class)).
func compileNs(c *compiler, l *list, tail bool) (node, error) {
	if _, ok := firstElem(&list{Elems: l.Elems[1:]}).(symbol); !ok {
		return nil, c.errorf(validationError, "ns needs a name").WithHint("delete the (ns ...) form: a program here needs none")
	}
	for _, f := range l.Elems[2:] {
		clause, ok := f.(*list)
		if !ok || len(clause.Elems) == 0 {
			continue // a docstring or an attribute map
		}
		switch clause.Elems[0] {
		case Keyword("require"), Keyword("use"):
			for _, spec := range clause.Elems[1:] {
				if err := c.libspec("ns", spec, clause.Elems[0] == Keyword("use")); err != nil {
					return nil, deleteHint(err, clause, "("+formText(clause.Elems[0])+" ...) clause of the ns form", spec)
				}
			}
		case Keyword("import"):
			for _, spec := range clause.Elems[1:] {
				if err := c.importSpec(spec); err != nil {
					return nil, deleteHint(err, clause, "(:import ...) clause of the ns form", spec)
				}
			}
		}
		// :refer-clojure, :gen-class, :load: nothing to do here.
	}
	c.headerWarning(l)
	return &constNode{Nil}, nil
}

// unquote is f without a quote: '[clojure.string :as str] reads as
// (quote [...]).
func unquote(f Value) Value {
	if q, ok := f.(*list); ok && len(q.Elems) == 2 && q.Elems[0] == symbol("quote") {
		return q.Elems[1]
	}
	return f
}

// libspec declares what one spec of a require names: a namespace the
// sandbox has, with :as alias and :refer [names] or :refer :all (all
// when referAll, for use).
func (c *compiler) libspec(what string, spec Value, referAll bool) error {
	var ns string
	var opts []Value
	switch s := spec.(type) {
	case symbol:
		ns = string(s)
	case *Vector:
		if len(s.Elems()) > 0 {
			if n, ok := s.Elems()[0].(symbol); ok {
				ns, opts = string(n), s.Elems()[1:]
			}
		}
	case Keyword:
		return nil // :reload, :verbose
	}
	if ns == "" {
		return c.errorf(validationError, "%s cannot read the spec %s", what, formText(spec)).
			WithHint("clojure.string is str/, clojure.set is set/, clojure.walk is walk/ without it")
	}
	if ns == "cheshire.core" {
		// Its parse-string and generate-string are json/ and cheshire.core/
		// without a require (builtins_json.go); another alias is refused
		// rather than ignored.
		for i := 0; i+1 < len(opts); i += 2 {
			if opts[i] == Keyword("as") && opts[i+1] != symbol("json") {
				return c.errorf(validationError, "%s: cheshire.core is available as json/ only", what).
					WithHint("then call its functions as json/: (json/parse-string s true), (json/generate-string x)")
			}
		}
		return nil
	}
	if _, ok := namespacePublics()[ns]; !ok {
		e := c.errorf(validationError, "namespace %s is not available in PTC-Lisp (in the %s form)", ns, what)
		if hint, ok := missingNamespaceHints[ns]; ok {
			return e.WithHint("%s", hint)
		}
		return e.WithHint("%s", availableNamespaces)
	}
	if referAll {
		c.referAll(ns)
	}
	for i := 0; i+1 < len(opts); i += 2 {
		switch opts[i] {
		case Keyword("as"), Keyword("as-alias"):
			alias, ok := opts[i+1].(symbol)
			if !ok {
				return c.errorf(validationError, "%s: :as takes a name, got %s", what, formText(opts[i+1]))
			}
			if c.aliases == nil {
				c.aliases = map[string]string{}
			}
			c.aliases[string(alias)] = ns
		case Keyword("refer"):
			if opts[i+1] == Keyword("all") {
				c.referAll(ns)
				continue
			}
			names, ok := opts[i+1].(*Vector)
			if !ok {
				return c.errorf(validationError, "%s: :refer takes a vector of names or :all, got %s", what, formText(opts[i+1]))
			}
			for _, n := range names.Elems() {
				s, ok := n.(symbol)
				if !ok || !namespacePublics()[ns][string(s)] {
					return c.notInNamespace(ns, formText(n))
				}
				c.refer(ns, string(s))
			}
		}
	}
	return nil
}

func (c *compiler) referAll(ns string) {
	for n := range namespacePublics()[ns] {
		c.refer(ns, n)
	}
}

func (c *compiler) refer(ns, name string) {
	if ns == "clojure.core" {
		return // the bare names are clojure.core's already
	}
	if c.refers == nil {
		c.refers = map[string]string{}
	}
	c.refers[name] = ns
}

// importSpec checks the classes an import names against those the
// sandbox has a form for: java.util.Date, (java.time LocalDate).
func (c *compiler) importSpec(spec Value) error {
	var classes []string
	switch s := spec.(type) {
	default:
		return c.errorf(validationError, "import cannot read the spec %s", formText(spec)).
			WithHint("an import names classes: java.util.Date or (java.time LocalDate)")
	case symbol:
		classes = []string{string(s)}
	case *list, *Vector:
		var elems []Value
		if l, ok := s.(*list); ok {
			elems = l.Elems
		} else {
			elems = s.(*Vector).Elems()
		}
		if len(elems) > 0 {
			pkg := formText(elems[0])
			for _, e := range elems[1:] {
				classes = append(classes, pkg+"."+formText(e))
			}
		}
	}
	for _, class := range classes {
		if !importable(class) {
			return c.errorf(validationError, "the class %s is not available in PTC-Lisp (in the import form)", class).
				WithHint("there is no host access; the builtins do the work of String, Math, Integer/parseInt, LocalDate/parse and java.util.Date.")
		}
	}
	return nil
}

// importable reports whether the sandbox has a form for the class: one of
// its static methods (LocalDate/parse), its constructor
// (java.util.Date.), or its name as a class value (java.util.Map).
func importable(class string) bool {
	if _, ok := classNames[class]; ok {
		return true
	}
	short := class[strings.LastIndexByte(class, '.')+1:]
	if _, ok := builtins.forms[class+"."]; ok {
		return true
	}
	for name := range builtins.statics {
		if strings.HasPrefix(name, short+"/") {
			return true
		}
	}
	for name := range javaConstants() { // RoundingMode's constants
		if strings.HasPrefix(name, short+"/") {
			return true
		}
	}
	return false
}

// deleteHint puts first in a header refusal's hint what to delete: the
// spec, or the whole form (or ns clause) when the spec is all it holds,
// since (require) and (:import) alone are errors in Clojure.
func deleteHint(err error, form *list, what string, spec Value) error {
	e, ok := err.(*Error)
	if !ok || e.Kind != validationError {
		return err // a misspelt :refer is fixed, not deleted
	}
	if _, ok := missingNamespaceHints[libspecNamespace(spec)]; ok {
		return err // its hint says what replaces the calls as well
	}
	text := formText(spec)
	if q := unquote(spec); q != spec {
		text = "'" + formText(q)
	}
	del := "delete " + text + " from the " + what
	if len(form.Elems) == 2 {
		del = "delete the " + what
	}
	if e.Hint == "" {
		e.Hint, e.site = del, callerPC()
	} else {
		e.Hint = del + "; " + e.Hint
	}
	return e
}

// libspecNamespace is the namespace a require spec names: clojure.data
// in 'clojure.data and '[clojure.data :as d]; "" for another spec.
func libspecNamespace(spec Value) string {
	switch s := unquote(spec).(type) {
	case symbol:
		return string(s)
	case *Vector:
		if len(s.Elems()) > 0 {
			if n, ok := s.Elems()[0].(symbol); ok {
				return string(n)
			}
		}
	}
	return ""
}

// missingNamespaceHints say, for the Clojure namespaces models require
// that the sandbox lacks, what to write for their calls: deleting the
// require alone leaves calls to names nothing defines.
var missingNamespaceHints = map[string]string{
	"clojure.pprint":  "delete its require and write (prn x) for (pprint x) and (pp): prn prints what pprint does for a value that fits on one line of 72 columns; print-table has no counterpart, print rows with (doseq [r rows] (println (clojure.string/join \" | \" (map r ks))))",
	"clojure.zip":     "there are no zippers here: delete its require and walk the tree with (tree-seq coll? seq tree), or navigate by a path of indexes with get-in, assoc-in and update-in",
	"clojure.java.io": "there is no file or stream access here: data comes as data/name inputs and tool/name results; delete its require and read those",
	"clojure.test":    "there is no test runner here: delete its require and write each check as a value, (= expected actual), or (assert (= expected actual))",
	// MathContext's constants, which decimal division takes: with-precision
	// binds the same digits and rounding.
	"MathContext":           mathContextHint,
	"java.math.MathContext": mathContextHint,
}

const mathContextHint = "use with-precision, which binds Clojure's MathContext: (with-precision 16 :rounding HALF_EVEN (/ a b)) for (.divide a b MathContext/DECIMAL64); DECIMAL32 is 7 digits, DECIMAL128 34, and UNLIMITED is (/ a b) itself"

// headerWarning records that a header was skipped.
func (c *compiler) headerWarning(l *list) {
	c.warn(WarningNamespaceHeader, "(%s ...) was skipped: clojure.core, clojure.string, clojure.set, clojure.walk, clojure.math, clojure.data and clojure.edn are built in, and the aliases it declares resolve; a program needs no header", formName(l))
}

// withoutAliases is the source form l with each name written under an
// alias a header declared written under its namespace instead: a function
// kept in memory is read back in turns that have no header.
func (c *compiler) withoutAliases(l *list) *list {
	if len(c.aliases) == 0 {
		return l
	}
	var rewrite func(Value) Value
	all := func(fs []Value) []Value {
		out := make([]Value, len(fs))
		for i, e := range fs {
			out[i] = rewrite(e)
		}
		return out
	}
	rewrite = func(f Value) Value {
		switch f := f.(type) {
		case symbol:
			if alias, name, ok := strings.Cut(string(f), "/"); ok && name != "" {
				if ns, ok := c.aliases[alias]; ok {
					return symbol(ns + "/" + name)
				}
			}
		case *list:
			return &list{Elems: all(f.Elems), Pos: f.Pos}
		case *Vector:
			return NewVector(all(f.Elems()))
		case *mapForm:
			out := *f
			out.Elems = all(f.Elems)
			return &out
		case *setForm:
			out := *f
			out.Elems = all(f.Elems)
			return &out
		}
		return f
	}
	return rewrite(l).(*list)
}
