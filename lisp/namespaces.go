package lisp

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// A namespaced name resolves only within its namespace: clojure.set/join
// is the relational join or an error, never clojure.string/join, and
// clojure.core/sum-by is an error, as in Clojure, because sum-by is
// PTC-Lisp's own. The namespaces the sandbox provides are these four, by
// their names and by the aliases models give them without a require.

// clojureNamespaceOf maps a namespace name or a habitual alias to the
// Clojure namespace it stands for.
var clojureNamespaceOf = map[string]string{
	"clojure.core": "clojure.core", "core": "clojure.core",
	"clojure.string": "clojure.string", "str": "clojure.string", "string": "clojure.string",
	"clojure.set": "clojure.set", "set": "clojure.set",
	"clojure.walk": "clojure.walk", "walk": "clojure.walk",
	"clojure.math": "clojure.math", "math": "clojure.math",
	"clojure.data": "clojure.data", // data/ is the inputs: its alias comes only from a require
	"clojure.edn":  "clojure.edn", "edn": "clojure.edn",
}

// namespacePublics are the public vars of clojure.string, clojure.set and
// clojure.walk in Clojure 1.11, from
//
//	clojure -e "(require 'clojure.set 'clojure.walk 'clojure.string) (sort (keys (ns-publics 'clojure.set)))"
//
// and so on; clojure.core's are clojureNames (suggest.go). Built on first
// use, as clojureNames.
var namespacePublics = sync.OnceValue(func() map[string]map[string]bool {
	return map[string]map[string]bool{
		"clojure.string": wordSet(`blank? capitalize ends-with? escape includes? index-of join last-index-of
			lower-case re-quote-replacement replace replace-first reverse split split-lines starts-with? trim
			trim-newline triml trimr upper-case`),
		"clojure.set": wordSet(`difference index intersection join map-invert project rename rename-keys select
			subset? superset? union`),
		"clojure.walk": wordSet(`keywordize-keys macroexpand-all postwalk postwalk-demo postwalk-replace prewalk
			prewalk-demo prewalk-replace stringify-keys walk`),
		// Clojure 1.11's clojure.math: each var is the java.lang.Math
		// method of its camel-cased name (clojureMathVar).
		"clojure.math": wordSet(`E IEEE-remainder PI acos add-exact asin atan atan2 cbrt ceil copy-sign cos cosh
			decrement-exact exp expm1 floor floor-div floor-mod get-exponent hypot increment-exact log log10
			log1p multiply-exact negate-exact next-after next-down next-up pow random rint round scalb signum
			sin sinh sqrt subtract-exact tan tanh to-degrees to-radians ulp`),
		"clojure.data": wordSet(`Diff EqualityPartition diff diff-similar equality-partition`),
		"clojure.edn":  wordSet(`read read-string`),
		"clojure.core": clojureNames(),
	}
})

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// namespaceCounterparts say what to write for a var of the four
// namespaces that the sandbox does not have.
var namespaceCounterparts = map[string]string{
	"clojure.data/diff-similar":       "write (clojure.data/diff a b), which compares a and b of the same kind",
	"clojure.data/equality-partition": "test the kind itself: (map? x), (set? x), (sequential? x)",
	"clojure.data/Diff":               "there are no protocols here: write (clojure.data/diff a b)",
	"clojure.data/EqualityPartition":  "there are no protocols here: test the kind with (map? x), (set? x), (sequential? x)",
	"clojure.edn/read":                "there is no stream to read: write (clojure.edn/read-string s) for the text s",
	"clojure.walk/macroexpand-all":    "there are no macros to expand: write the quoted form itself, '(f x)",
	"clojure.walk/postwalk-demo":      "write (clojure.walk/postwalk (fn [x] (println \"Walked:\" (pr-str x)) x) form)",
	"clojure.walk/prewalk-demo":       "write (clojure.walk/prewalk (fn [x] (println \"Walked:\" (pr-str x)) x) form)",
}

// namespaceVar resolves name within the Clojure namespace ns (canonical):
// the builtin that does what Clojure's var does, or an error whose hint
// names what works.
func (c *compiler) namespaceVar(ns, name string) (node, error) {
	if !namespacePublics()[ns][name] {
		return nil, c.notInNamespace(ns, name)
	}
	if ns == "clojure.math" {
		return c.clojureMathVar(name)
	}
	if b, ok := builtins.inNS[ns+"/"+name]; ok {
		return &constNode{b}, nil
	}
	// Otherwise the bare name is the var: clojure.string/join is join.
	if n, ok := functionNodes[name]; ok {
		return n, nil
	}
	e := c.errorf(undefinedSymbol, "%s/%s is not available in PTC-Lisp", ns, name)
	if hint, ok := namespaceCounterparts[ns+"/"+name]; ok {
		return nil, e.WithHint("%s", hint)
	}
	if ns == "clojure.core" {
		if hint, ok := unimplementedHint(name); ok {
			return nil, e.WithHint("%s", hint)
		}
	}
	return nil, e.WithHint("%s", genericHint)
}

// notInNamespace reports ns/name where Clojure's ns has no such var,
// naming where the name does live, when anywhere.
func (c *compiler) notInNamespace(ns, name string) *Error {
	e := c.errorf(undefinedSymbol, "%s has no %s (in %s/%s)", ns, name, ns, name)
	for _, other := range []string{"clojure.core", "clojure.string", "clojure.set", "clojure.walk", "clojure.math", "clojure.data", "clojure.edn"} {
		if other != ns && namespacePublics()[other][name] {
			if other == "clojure.core" {
				return e.WithHint("%s is clojure.core's: write (%s ...)", name, name)
			}
			return e.WithHint("%s is %s's: write (%s/%s ...)", name, other, other, name)
		}
	}
	if b, ok := builtins.byName[name]; ok {
		return e.WithHint("%s is PTC-Lisp's own, in no namespace: write (%s ...), as in %s", name, name, b.Sig)
	}
	if f, ok := foreignNames[name]; ok {
		return e.WithHint("did you mean %s?", f)
	}
	if near := nearestIn(namespacePublics()[ns], name); near != "" {
		return e.WithHint("did you mean %s/%s?", ns, near)
	}
	if ns != "clojure.core" {
		var have []string
		for n := range namespacePublics()[ns] {
			if _, err := c.namespaceVar(ns, n); err == nil {
				have = append(have, n)
			}
		}
		slices.Sort(have)
		return e.WithHint("%s has: %s", ns, strings.Join(have, ", "))
	}
	return e.WithHint("define it yourself with (defn %s [args] body) and call it as (%s ...)", name, name)
}

// availableNamespaces is the hint for a name no namespace here has.
const availableNamespaces = "the namespaces here are clojure.core, clojure.string (str/), clojure.set (set/), clojure.walk (walk/), clojure.math (math/), clojure.data (its diff) and clojure.edn (its read-string); tools are tool/name and inputs data/name"

// clojureMathLongArgs are the clojure.math vars that pass their arguments
// to Math as longs; every other one converts them to double first, so
// (clojure.math/round 2) is 2 where (Math/round 2) finds no method.
var clojureMathLongArgs = wordSet(`add-exact subtract-exact multiply-exact negate-exact increment-exact
	decrement-exact floor-div floor-mod`)

// javaMathName is the java.lang.Math member a clojure.math var wraps:
// floor-div is floorDiv, IEEE-remainder IEEEremainder.
func javaMathName(name string) string {
	if name == "IEEE-remainder" {
		return "IEEEremainder"
	}
	var b strings.Builder
	up := false
	for _, r := range name {
		switch {
		case r == '-':
			up = true
		case up:
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// clojureMathVar resolves a public var of clojure.math to the Math/
// static of the same semantics, or refuses it naming those that run.
func (c *compiler) clojureMathVar(name string) (node, error) {
	n, err := c.namespaced("Math", javaMathName(name))
	if err != nil {
		return nil, c.errorf(undefinedSymbol, "clojure.math/%s is not available in PTC-Lisp", name).
			WithHint("the clojure.math vars here are %s", strings.Join(clojureMathHere(), " "))
	}
	cn, ok := n.(*constNode)
	if !ok {
		return n, nil
	}
	b, ok := cn.v.(*Builtin)
	if !ok || clojureMathLongArgs[name] {
		return n, nil
	}
	return &constNode{doubleArgs(b, "clojure.math/"+name)}, nil
}

// clojureMathHere are the clojure.math vars whose Math/ member runs
// here (as namespaced resolves Math/), sorted.
func clojureMathHere() []string {
	var have []string
	for v := range namespacePublics()["clojure.math"] {
		java := javaMathName(v)
		_, static := builtins.statics["Math/"+java]
		_, constant := javaConstants()["Math/"+java]
		_, fn := lookupFunction(strings.ToLower(java))
		if static || constant || fn {
			have = append(have, v)
		}
	}
	slices.Sort(have)
	return have
}

// doubleArgs is b under name with its integer arguments converted to
// double first, as clojure.math's functions do.
func doubleArgs(b *Builtin, name string) *Builtin {
	out := *b
	out.Name = name
	out.Sig = "(" + name + strings.TrimPrefix(b.Sig, "("+b.Name)
	fn := b.Fn
	out.Fn = func(th *Thread, args []Value) (Value, error) {
		conv := make([]Value, len(args))
		for i, a := range args {
			if n, ok := a.(Int); ok {
				a = Float(n)
			}
			conv[i] = a
		}
		return fn(th, conv)
	}
	return &out
}

// nearestIn is the name of names nearest to name, within two edits, the
// first in order among equals; "" when none is that near.
func nearestIn(names map[string]bool, name string) string {
	best, bestD := "", 3
	for n := range names {
		if d := editDistance(name, n); d < bestD || d == bestD && n < best {
			best, bestD = n, d
		}
	}
	return best
}

// namespaceOf is the Clojure namespace ns names: an alias a header
// declared, a namespace's own name or a habitual alias.
func (c *compiler) namespaceOf(ns string) (string, bool) {
	if clj, ok := c.aliases[ns]; ok {
		return clj, true
	}
	clj, ok := clojureNamespaceOf[ns]
	return clj, ok
}

// unknownNamespace reports ns/name for a namespace the sandbox does not
// have.
func (c *compiler) unknownNamespace(ns, name string) *Error {
	if name == "now" {
		// LocalDate/now, Instant/now, LocalDateTime/now: the current time,
		// refused as (java.util.Date.) is.
		e := nowError(ns + "/now")
		e.Pos = c.pos
		return e
	}
	if ns == "clojure.lang.PersistentQueue" {
		// Models reach for it in breadth-first searches, where a vector
		// does the same work.
		return c.errorf(undefinedSymbol, "namespace %s is not available (in %s/%s)", ns, ns, name).
			WithHint("there is no queue here; a vector is one: [] for %s/EMPTY, conj or into to add at the end, first for peek and (subvec q 1) for pop", ns)
	}
	if e := c.unknownJavaTime(ns, name); e != nil {
		return e
	}
	e := c.errorf(undefinedSymbol, "namespace %s is not available (in %s/%s)", ns, ns, name)
	if hint, ok := missingNamespaceHints[ns]; ok {
		return e.WithHint("%s", hint)
	}
	class := ns[strings.LastIndexByte(ns, '.')+1:]
	if statics := javaStaticsOf(class); len(statics) > 0 {
		e.Message = fmt.Sprintf("%s/%s is not available", class, name)
		return e.WithHint("the %s statics that run here are %s, and the builtins do the work of others", class, strings.Join(statics, " "))
	}
	return e.WithHint("%s", availableNamespaces)
}

// javaStaticsOf are the static methods and fields of the Java class
// named class (short) that a program may use, in order.
func javaStaticsOf(class string) []string {
	var names []string
	for name := range builtins.statics {
		if strings.HasPrefix(name, class+"/") {
			names = append(names, name)
		}
	}
	for name := range javaConstants() {
		if strings.HasPrefix(name, class+"/") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// shadowable reports whether a program may define name although it is a
// builtin: a name of PTC-Lisp's own, which Clojure's core does not have.
func shadowable(name string) bool { return ownNames[name] }

// ownNames are the names of builtins that Clojure's core does not have:
// some fifty, where clojureNames, which the analysis of every program
// would otherwise build to tell them, holds all of Clojure's core.
var ownNames = func() map[string]bool {
	clojure := clojureCoreSet()
	own := map[string]bool{}
	for name := range builtins.byName {
		if !clojure[name] {
			own[name] = true
		}
	}
	return own
}()

// maxWarnings bounds the warnings one analysis records. Each goes back
// in the turn, and each new one was compared with all before it: a
// program of 40,000 definitions of atoms wrote 40,000 (7 MB, past what a
// default gRPC client receives) and spent its analysis comparing them.
// The ones past it are counted in a last warning (leftOut). A warning
// quotes the program's names, which may be as long as the program: its
// message is cut to maxWarningBytes.
const (
	maxWarnings     = 100
	maxWarningBytes = 1024
)

// warn records something the analysis forgave.
func (c *compiler) warn(kind, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if len(msg) > maxWarningBytes {
		msg = strings.ToValidUTF8(msg[:maxWarningBytes], "") + "..."
	}
	for _, w := range c.warnings {
		if w.Type == kind && w.Message == msg {
			return
		}
	}
	if len(c.warnings) == maxWarnings {
		if c.leftOut.n++; c.leftOut.n == 1 {
			c.leftOut.kind = kind
		}
		return
	}
	c.warnings = append(c.warnings, Warning{Type: kind, Message: msg})
}

// allWarnings is the analysis's warnings, with one that counts those
// past maxWarnings.
func (c *compiler) allWarnings() []Warning {
	if c.leftOut.n == 0 {
		return c.warnings
	}
	return append(c.warnings, Warning{Type: c.leftOut.kind,
		Message: fmt.Sprintf("%d more warnings (repeats among them) were left out after the first %d", c.leftOut.n, maxWarnings)})
}

// shadowableNode is a shadowable builtin named in code loaded from
// memory, whose names are known only when it runs: the program's
// definition when it has one, else the builtin.
type shadowableNode struct {
	name    string
	builtin Value
}

func (n *shadowableNode) eval(th *Thread, _ *frame) (Value, error) {
	if th.prog != nil {
		if g, ok := th.prog.cell(n.name); ok && g.bound {
			return g.binding.Value, nil
		}
	}
	return n.builtin, nil
}
