package lisp

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// analysisDepth bounds the recursion of the analysis pass, and so the
// nesting of the code it makes, for source read with the given nesting
// limit. A level of source nesting is at most two of analysis ((-> (-> x
// f) g) is (g (f x))); threading macros can nest their expansion one level
// per step, which the source's nesting does not see, and the analysis and
// the evaluation of the code recurse on the Go stack once per level (about
// 3 KB a level for the analysis): 40,000 steps of -> grew it by 60 MiB
// that no budget saw. So the analysis goes as deep as the deepest source
// it can be given needs, and no deeper.
func analysisDepth(nesting int) int {
	if nesting <= 0 {
		nesting = DefaultMaxNesting
	}
	return 2*min(nesting, MaxValueNesting) + analysisDepthSlack
}

// analysisDepthSlack is the analysis levels beyond two a level of source
// nesting: the forms a top-level form expands into around its body.
const analysisDepthSlack = 64

// names is what a bare symbol can resolve to besides locals and builtins.
type names struct {
	user map[string]bool // prelude bindings and every name the program defines
	// prelude are the names defined before the program: an earlier
	// turn's, which the program may use before it redefines them.
	prelude map[string]bool
	tools   map[string]bool
	data    *Map
	// dynamic compiles code loaded from memory: the names of the next
	// evaluation are not known yet, so unknown bare names resolve at run time.
	dynamic bool
	// asked are the answers a successful analysis relied on: the same
	// program, analyzed under names that answer alike, compiles to the same
	// nodes (Program keeps them).
	asked []resolution
}

// resolution is one question the analysis asked of names and its answer.
type resolution struct {
	kind  nameKind
	name  string
	found bool
}

type nameKind uint8

const (
	userName nameKind = iota
	toolName
	dataName
	preludeName
)

func (n *names) isUser(name string) bool    { return n.ask(userName, name) }
func (n *names) isTool(name string) bool    { return n.ask(toolName, name) }
func (n *names) isData(name string) bool    { return n.ask(dataName, name) }
func (n *names) isPrelude(name string) bool { return n.ask(preludeName, name) }

func (n *names) ask(kind nameKind, name string) bool {
	found := n.answer(kind, name)
	n.asked = append(n.asked, resolution{kind, name, found})
	return found
}

func (n *names) answer(kind nameKind, name string) bool {
	switch kind {
	case userName:
		return n.user[name]
	case toolName:
		return n.tools[name]
	case preludeName:
		return n.prelude[name]
	default:
		_, found := lookupFlexible(n.data, Keyword(name))
		return found
	}
}

// answersAlike reports whether n gives every answer in asked.
func (n *names) answersAlike(asked []resolution) bool {
	for _, r := range asked {
		if n.answer(r.kind, r.name) != r.found {
			return false
		}
	}
	return true
}

// compiler is the state of the analysis pass over one program.
type compiler struct {
	names  *names
	fn     *fnScope
	locals []*localVar // lexical scope, innermost last
	// byName holds, once more than smallScope locals are in scope, each
	// name's bindings innermost last: a lookup is then one map read,
	// however many locals a program binds; a small scope is scanned.
	byName map[string][]*localVar
	recur  *recurTarget
	pos    Pos // innermost list being analyzed, for error positions
	depth  int
	// maxDepth is the deepest the analysis may recurse (analysisDepth).
	maxDepth int
	gensym   int
	// aliases are the namespace aliases the program's require and ns
	// headers declared, to the Clojure namespace each stands for.
	aliases map[string]string
	// refers are the names a header referred (:refer [join]), to the
	// namespace each is resolved in.
	refers map[string]string
	// warnings are what the analysis forgave: headers, definitions of
	// PTC-Lisp's own names; at most maxWarnings, leftOut counts the rest
	// and the kind of the first of them.
	warnings []Warning
	leftOut  struct {
		n    int
		kind string
	}
	// pending are the names the program defines whose definition the
	// analysis has not reached: Clojure resolves a name where it is
	// compiled, so a use before the definition (or a declare) is refused.
	pending map[string]bool
	// th is charged a step per form analyzed, and so stops a huge or
	// hostile program at the step budget or the clock; nil charges
	// nothing.
	th *Thread
	// freeWalks is how many more forms letfn may walk for the names
	// they mention before each is charged a step (symbolsIn).
	freeWalks int
}

type fnScope struct {
	parent *fnScope
	nslots int
	// base is the analysis depth of the fn form, deepest the deepest its
	// body's analysis went: the difference is how deep evaluating the
	// body nests on the Go stack (lambda.extraDepth).
	base, deepest int
	captures      []capture
	freeVars      []*localVar
	freeIndex     map[*localVar]int
}

type localVar struct {
	name string
	slot int
	fn   *fnScope
	// primitive: Clojure types the local as a primitive number (a let or
	// loop binding of a number literal or of arithmetic on such), which
	// decides how an overloaded Java static is called with it
	// (reflectedCall).
	primitive bool
}

type recurTarget struct {
	n    int
	what string
}

func newCompiler(n *names, th *Thread, nesting int) *compiler {
	return &compiler{names: n, fn: &fnScope{freeIndex: map[*localVar]int{}}, th: th, maxDepth: analysisDepth(nesting)}
}

func (c *compiler) errorf(kind ErrorKind, format string, args ...any) *Error {
	e := Errorf(kind, format, args...)
	e.Pos = c.pos
	return e
}

func (c *compiler) newLocal(name string) int {
	slot := c.fn.nslots
	c.fn.nslots++
	lv := &localVar{name: name, slot: slot, fn: c.fn}
	c.locals = append(c.locals, lv)
	switch {
	case c.byName != nil:
		c.byName[name] = append(c.byName[name], lv)
	case len(c.locals) > smallScope:
		c.byName = map[string][]*localVar{}
		for _, l := range c.locals {
			c.byName[l.name] = append(c.byName[l.name], l)
		}
	}
	return slot
}

// smallScope is how many locals in scope are found by a scan.
const smallScope = 32

// dropLocals ends the scope of the locals bound since len(c.locals) was
// mark.
func (c *compiler) dropLocals(mark int) {
	for i := len(c.locals) - 1; i >= mark && c.byName != nil; i-- {
		name := c.locals[i].name
		if bound := c.byName[name]; len(bound) > 1 {
			c.byName[name] = bound[:len(bound)-1]
		} else {
			delete(c.byName, name)
		}
	}
	c.locals = c.locals[:mark]
}

func (c *compiler) findLocal(name string) *localVar {
	if c.byName == nil {
		for i := len(c.locals) - 1; i >= 0; i-- {
			if c.locals[i].name == name {
				return c.locals[i]
			}
		}
		return nil
	}
	if bound := c.byName[name]; len(bound) > 0 {
		return bound[len(bound)-1]
	}
	return nil
}

func (c *compiler) refTo(lv *localVar) (node, error) {
	if lv.fn == c.fn {
		if lv.slot < len(sharedLocalNodes) {
			return &sharedLocalNodes[lv.slot], nil
		}
		return &localNode{slot: lv.slot}, nil
	}
	i, err := c.capture(c.fn, lv)
	if err != nil {
		return nil, err
	}
	if i < len(sharedFreeNodes) {
		return &sharedFreeNodes[i], nil
	}
	return &freeNode{index: i}, nil
}

// Nodes are immutable once built, so the commonest ones are shared by all
// programs instead of allocated per reference: reads of the first local
// slots and captured values, and each function by name.
var (
	sharedLocalNodes = func() (ns [32]localNode) {
		for i := range ns {
			ns[i].slot = i
		}
		return ns
	}()
	sharedFreeNodes = func() (ns [16]freeNode) {
		for i := range ns {
			ns[i].index = i
		}
		return ns
	}()
	functionNodes = func() map[string]*constNode {
		m := make(map[string]*constNode, len(builtins.functions))
		for name, b := range builtins.functions {
			m[name] = &constNode{b}
		}
		return m
	}()
)

// capture returns the index of lv among the values fs captures, adding it
// (and, through the enclosing functions, the path to it) when new. Each
// capture added is charged its bytes: a local used under n
// nested functions is captured n times, so the captures of a program can
// be its nesting times its locals, far more than its forms.
func (c *compiler) capture(fs *fnScope, lv *localVar) (int, error) {
	if i, ok := fs.freeIndex[lv]; ok {
		return i, nil
	}
	if c.th != nil {
		if err := c.th.alloc(costCapture); err != nil {
			return 0, err
		}
	}
	cp := capture{index: lv.slot}
	if lv.fn != fs.parent {
		i, err := c.capture(fs.parent, lv)
		if err != nil {
			return 0, err
		}
		cp = capture{fromFree: true, index: i}
	}
	i := len(fs.captures)
	fs.freeIndex[lv] = i
	fs.captures = append(fs.captures, cp)
	fs.freeVars = append(fs.freeVars, lv)
	return i, nil
}

// costCapture is what the analysis keeps for one captured value: its
// entry in the function's captures, its free variables and their index.
const costCapture = 48

// nests refuses code that would nest levels deeper than the form being
// analyzed, past the deepest the analysis may go. A threading macro nests
// its expansion a level per step: it asks before it builds the expansion,
// which for 100,000 steps of some-> held 30 MiB past the budget before
// the analysis met its depth.
func (c *compiler) nests(levels int) error {
	if c.depth+levels > c.maxDepth {
		return c.errorf(depthLimit, "program is nested too deeply to analyze").
			WithHint("split long threading pipelines or deeply nested expressions")
	}
	return nil
}

// compile analyzes one form. tail says whether the form is in tail position
// of the innermost loop or fn, where recur is allowed.
func (c *compiler) compile(f Value, tail bool) (node, error) {
	c.depth++
	defer func() { c.depth-- }()
	if c.fn.deepest < c.depth {
		c.fn.deepest = c.depth
	}
	if err := c.nests(0); err != nil {
		return nil, err
	}
	if c.th != nil {
		if err := c.th.step(1); err != nil {
			return nil, err
		}
	}
	switch f := f.(type) {
	case symbol:
		return c.symbol(string(f))
	case *list:
		saved := c.pos
		c.pos = f.Pos
		n, err := c.list(f, tail)
		c.pos = saved
		return n, err
	case *Vector:
		elems, err := c.compileAll(f.Elems())
		if err != nil {
			return nil, err
		}
		if allConst(elems) {
			return &constNode{Freeze(NewVector(constValues(elems)))}, nil
		}
		return &vectorNode{elems: elems}, nil
	case *mapForm:
		saved := c.pos
		c.pos = f.Pos
		defer func() { c.pos = saved }()
		elems, err := c.compileAll(f.Elems)
		if err != nil {
			return nil, err
		}
		if allConst(elems) {
			b := NewMapBuilder(len(elems) / 2)
			vals := constValues(elems)
			for i := 0; i < len(vals); i += 2 {
				b.Set(vals[i], vals[i+1])
			}
			b.m.setClass(f.class)
			return &constNode{Freeze(b.Map())}, nil
		}
		return &mapNode{elems: elems, class: f.class}, nil
	case *metaForm:
		return c.compileMetaForm(f)
	case *setForm:
		elems, err := c.compileAll(f.Elems)
		if err != nil {
			return nil, err
		}
		if allConst(elems) {
			return &constNode{Freeze(newLiteralSet(constValues(elems)))}, nil
		}
		return &setNode{elems: elems}, nil
	}
	return &constNode{f}, nil
}

// regexLiteral compiles a regex literal (#"...", which reads as
// (re-pattern "...")) once, when the program is analyzed, as Clojure's
// reader does: compiled at each evaluation, a literal in a loop cost its
// compiling every time round. The compiling is charged to the analysis.
// A pattern that does not compile is left to fail when it is evaluated.
func (c *compiler) regexLiteral(l *list) (node, bool) {
	if len(l.Elems) != 2 || l.Elems[0] != symbol("re-pattern") || c.findLocal("re-pattern") != nil || c.names.isUser("re-pattern") {
		return nil, false
	}
	pattern, ok := l.Elems[1].(String)
	if !ok {
		return nil, false
	}
	re, err := compileRegex("re-pattern", string(pattern))
	if err != nil {
		return nil, false
	}
	if c.th != nil {
		if err := chargeRegex(c.th, re); err != nil {
			return nil, false // the evaluation meets the limit again, where it is reported
		}
	}
	return &constNode{re}, true
}

// Literal collections of constants are built once at analysis time and
// shared by every evaluation of the program, at once when the program is
// cached: they are frozen (Freeze), so that a conj or assoc on one copies
// instead of growing the shared backing array or index in place.
func allConst(ns []node) bool {
	for _, n := range ns {
		if _, ok := n.(*constNode); !ok {
			return false
		}
	}
	return true
}

func constValues(ns []node) []Value {
	out := make([]Value, len(ns))
	for i, n := range ns {
		out[i] = n.(*constNode).v
	}
	return out
}

func (c *compiler) compileAll(fs []Value) ([]node, error) {
	out := make([]node, len(fs))
	for i, f := range fs {
		n, err := c.compile(f, false)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// compileBody analyzes an implicit do; the last form inherits tail.
func (c *compiler) compileBody(fs []Value, tail bool) (node, error) {
	switch len(fs) {
	case 0:
		return &constNode{Nil}, nil
	case 1:
		return c.compile(fs[0], tail)
	}
	body := make([]node, len(fs))
	for i, f := range fs {
		n, err := c.compile(f, tail && i == len(fs)-1)
		if err != nil {
			return nil, err
		}
		body[i] = n
	}
	return &doNode{body: body}, nil
}

func (c *compiler) list(l *list, tail bool) (node, error) {
	if len(l.Elems) == 0 {
		return &constNode{emptyList}, nil
	}
	if re, ok := c.regexLiteral(l); ok {
		return re, nil
	}
	if l.Elems[0] == symbol("dir") && len(l.Elems) == 2 && c.findLocal("dir") == nil && !c.names.isUser("dir") {
		// (dir clojure.string) names the namespace unquoted, as Clojure's
		// dir macro takes it: the name is the argument.
		if ns, ok := l.Elems[1].(symbol); ok && c.findLocal(string(ns)) == nil {
			l = &list{Elems: []Value{l.Elems[0], String(ns)}, Pos: l.Pos}
		}
	}
	if l.Elems[0] == symbol(".") && c.findLocal(".") == nil {
		dotted, err := c.dotForm(l)
		if err != nil {
			return nil, err
		}
		return c.list(dotted, tail)
	}
	if ctor, ok := c.recordConstructorCall(l); ok {
		return c.list(ctor, tail)
	}
	if s, ok := l.Elems[0].(symbol); ok {
		name := string(s)
		sf, special := specialForms[name]
		if special && sf.core {
			return sf.compile(c, l, tail)
		}
		if c.findLocal(name) == nil {
			if special {
				return sf.compile(c, l, tail)
			}
			if strings.HasPrefix(name, "clojure.core/") || strings.HasPrefix(name, "core/") {
				_, short, _ := strings.Cut(name, "/")
				if sf, ok := specialForms[short]; ok && !sf.core {
					return sf.compile(c, l, tail)
				}
			}
			if b, ok := builtins.forms[name]; ok {
				l = &list{Elems: append([]Value{b}, l.Elems[1:]...), Pos: l.Pos}
			} else if field, ok := strings.CutPrefix(name, ".-"); ok && len(l.Elems) == 2 && lexPlainSymbol(field) && !strings.ContainsAny(field, "./") {
				return c.fieldAccess(l, Keyword(field))
			} else if len(name) > 1 && (strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".")) {
				e := c.errorf(validationError, "Java interop (%s) is not supported", name)
				if builtin, ok := interopCounterparts[name]; ok {
					return nil, e.WithHint("PTC-Lisp has no host access; write %s", builtin)
				}
				return nil, e.WithHint("PTC-Lisp has no host access; the methods that run here are %s, and the builtins do the work of others", strings.Join(javaMethodNames(), " "))
			}
		}
	}
	fn, err := c.compile(l.Elems[0], false)
	if err != nil {
		return nil, err
	}
	if k, ok := fn.(*constNode); ok {
		if _, callable := k.v.(Callable); !callable && len(l.Elems) == 1 && isJavaStatic(l.Elems[0]) {
			return k, nil // (Math/PI): Clojure reads a static field in parentheses as the field
		}
		if _, sym := k.v.(symbol); !sym && !isCallable(k.v) {
			if k.v == Nil {
				// Clojure's compiler refuses it too: "Can't call nil".
				return nil, c.errorf(typeError, "%s is not a function, so %s cannot be called", shown(k.v), formText(l)).
					WithHint("a list is a call; write data as a vector, e.g. [1 2 3]")
			}
			return &notCallableNode{v: k.v, form: formText(l), pos: l.Pos}, nil
		}
	}
	args, err := c.compileAll(l.Elems[1:])
	if err != nil {
		return nil, err
	}
	if k, ok := fn.(*constNode); ok && len(args) == 1 {
		if kw, ok := k.v.(Keyword); ok {
			return &keywordCallNode{key: kw, coll: args[0], pos: l.Pos}, nil
		}
	}
	if k, ok := fn.(*constNode); ok {
		if b, ok := k.v.(*Builtin); ok {
			if r := c.reflectedCall(l.Elems[0], b, l.Elems[1:]); r != b {
				return &callNode{fn: &constNode{r}, args: args, pos: l.Pos}, nil
			}
		}
		if b, ok := k.v.(*Builtin); ok && primitiveLongDivision(b, args) {
			return &primitiveDivNode{inner: &callNode{fn: fn, args: args, pos: l.Pos}}, nil
		}
		if b, ok := k.v.(*Builtin); ok && len(args) == 2 {
			if b.binary != nil {
				return &binaryNode{fn: b, op: b.binary, steps: builtins.pairSteps[b], a: args[0], b: args[1], pos: l.Pos}, nil
			}
		}
		if b, ok := k.v.(*Builtin); ok && b.borrows {
			return &callNode{fn: fn, args: args, pos: l.Pos, borrow: true}, nil
		}
	}
	return &callNode{fn: fn, args: args, pos: l.Pos}, nil
}

// symbol resolves a symbol in value position: a local, *1..*3, a namespaced
// name, a builtin, a user definition, then the tool/ or data/ fallback.
func (c *compiler) symbol(name string) (node, error) {
	if lv := c.findLocal(name); lv != nil {
		return c.refTo(lv)
	}
	switch name {
	case "*1", "*2", "*3":
		return &previousNode{index: int(name[1] - '1')}, nil
	case "*print-meta*", "clojure.core/*print-meta*", "*print-namespace-maps*", "clojure.core/*print-namespace-maps*":
		return printVarReadNode{v: printVars[symbol(name)]}, nil
	case "&":
		return nil, c.errorf(validationError, "& can only appear in a parameter or binding vector")
	}
	if i := strings.IndexByte(name, '/'); i > 0 && i < len(name)-1 {
		return c.namespaced(name[:i], name[i+1:])
	}
	if ns, ok := c.refers[name]; ok && !c.names.isUser(name) {
		return c.namespaceVar(ns, name)
	}
	if n, ok := functionNodes[name]; ok {
		if shadowable(name) {
			// A program may define a name of PTC-Lisp's own that
			// Clojure lacks, as a Clojure program may: (defn round ...).
			if c.names.dynamic {
				return &shadowableNode{name: name, builtin: n.v}, nil
			}
			if c.names.isUser(name) {
				if err := c.forwardReference(name); err != nil {
					return nil, err
				}
				return &globalNode{name: name, pos: c.pos}, nil
			}
		}
		return n, nil
	}
	if sf, ok := specialForms[name]; ok && sf.core {
		return nil, c.errorf(validationError, "%s is a special form, not a value", name).
			WithHint("call it as (%s ...)", name)
	}
	if _, ok := specialForms[name]; ok && !headerForms[name] {
		return nil, c.errorf(validationError, "%s is a special form, not a value", name).
			WithHint("call it as (%s ...), or wrap it in a function: #(%s ...)", name, name)
	}
	if n, ok := c.recordClassOf(name); ok {
		return n, nil
	}
	if class, hint, ok := classNamed(name, c.names.dynamic); ok {
		if hint != "" {
			return nil, c.errorf(undefinedSymbol, "the class %s cannot be told apart here", name).WithHint("%s", hint)
		}
		return &constNode{class}, nil
	}
	if c.names.dynamic || c.names.isUser(name) {
		if err := c.forwardReference(name); err != nil {
			return nil, err
		}
		return &globalNode{name: name, pos: c.pos}, nil
	}
	return c.fallback(name)
}

// forwardReference refuses a use of a name the program defines in a later
// form, as Clojure does ("Unable to resolve symbol"): a function calling
// one defined below it needs (declare name) above it. A name an earlier
// turn defined resolves to that definition until the program redefines it.
func (c *compiler) forwardReference(name string) *Error {
	if !c.pending[name] || c.names.isPrelude(name) {
		return nil
	}
	return c.errorf(undefinedSymbol, "%s is used before its definition", name).
		WithHint("add (declare %s) before the first form that uses it, or move its definition above that form", name)
}

// fallback resolves a bare name that is neither local nor defined: to
// tool/name or data/name, an error when both exist (NS-004..NS-007).
func (c *compiler) fallback(name string) (node, error) {
	isTool := c.names.isTool(name)
	isData := c.names.isData(name)
	switch {
	case isTool && isData:
		return nil, c.errorf(ambiguousReference, "%s is both a tool and a data key", name).
			WithHint("write tool/%s to call the tool or data/%s to read the data", name, name)
	case isTool:
		return &constNode{&toolFunc{Name: name}}, nil
	case isData:
		return &dataNode{key: name}, nil
	}
	return nil, c.undefined(name)
}

// interopCounterparts name the builtins that do what the Java methods
// the sandbox does not run do (those it runs are builtins.forms).
var interopCounterparts = withJavaStreams(withJavaCollections(map[string]string{
	"..": "(-> x (clojure.string/upper-case) (subs 1)) for (.. x (toUpperCase) (substring 1)), threading the value through the builtin of each method",
	// A StringBuilder collects text: str does it in one call, and an atom
	// of text is the builder a loop fills.
	"StringBuilder.":           stringBuilderHint,
	"java.lang.StringBuilder.": stringBuilderHint,
	".append":                  stringBuilderHint,
	// A MathContext is the digits and rounding with-precision binds.
	"MathContext.":           mathContextNewHint,
	"java.math.MathContext.": mathContextNewHint,
}))

const mathContextNewHint = "(with-precision 10 (/ a b)) for (.divide a b (MathContext. 10)), and (with-precision 10 :rounding HALF_EVEN (/ a b)) for (MathContext. 10 RoundingMode/HALF_EVEN): with-precision binds Clojure's MathContext"

const stringBuilderHint = `(str "a" 1) for the text that (.append sb "a") (.append sb 1) build, (apply str parts) for a sequence of parts, ` +
	`or an atom of text for a builder filled in a loop: (atom "") for (StringBuilder.), (swap! sb str x) for (.append sb x), ` +
	`@sb for (.toString sb) or (str sb), (count @sb) for .length and (clojure.string/reverse @sb) for .reverse`

// withJavaCollections adds to counterparts the hints for Java's mutable
// collections, which models build and fill in place: the value that does
// the same work, and the builtins for their commonest methods, keyed by
// the constructor with and without its package.
func withJavaCollections(counterparts map[string]string) map[string]string {
	list := "(vec xs) or [] for the list, (conj v x) for .add, (sort v) for Collections/sort, (get v i) for .get and (count v) for .size; each gives a new value to bind (let, reduce or loop) rather than changing one in place"
	kinds := map[string]string{
		"ArrayList": list, "LinkedList": list, "ArrayDeque": list,
		"HashMap":       "(into {} pairs) or {} for the map, (assoc m k v) for .put, (get m k) for .get, (contains? m k) for .containsKey and (count m) for .size; each gives a new value to bind (let, reduce or loop) rather than changing one in place",
		"LinkedHashMap": "(into {} pairs) or {} for the map, (assoc m k v) for .put, (get m k) for .get, (contains? m k) for .containsKey and (count m) for .size; each gives a new value to bind (let, reduce or loop) rather than changing one in place",
		"TreeMap":       "(into (sorted-map) pairs) for the map, (assoc m k v) for .put, (get m k) for .get and (first m) for .firstEntry; each gives a new value to bind (let, reduce or loop) rather than changing one in place",
		"HashSet":       "(set xs) or #{} for the set, (conj s x) for .add, (contains? s x) for .contains and (count s) for .size; each gives a new value to bind (let, reduce or loop) rather than changing one in place",
		"LinkedHashSet": "(set xs) or #{} for the set, (conj s x) for .add, (contains? s x) for .contains and (count s) for .size; each gives a new value to bind (let, reduce or loop) rather than changing one in place",
		"TreeSet":       "(into (sorted-set) xs) for the set, (conj s x) for .add, (contains? s x) for .contains and (first s) for .first; each gives a new value to bind (let, reduce or loop) rather than changing one in place",
	}
	for class, hint := range kinds {
		counterparts[class+"."] = hint
		counterparts["java.util."+class+"."] = hint
	}
	return counterparts
}

// javaMethodNames are the Java methods a program may call, (.toUpperCase
// s) and the like, in order.
func javaMethodNames() []string {
	var names []string
	for name := range builtins.forms {
		if len(name) > 1 && strings.HasPrefix(name, ".") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// dotForm is Clojure's (. x method args...), or (. x (method args...)),
// as the method form (.method x args...) that runs the same, and
// (. Math abs x) as (Math/abs x).
func (c *compiler) dotForm(l *list) (*list, error) {
	var method symbol
	var args []Value
	if len(l.Elems) >= 3 {
		switch m := l.Elems[2].(type) {
		case symbol:
			method, args = m, l.Elems[3:]
		case *list:
			if name, ok := firstElem(m).(symbol); ok && len(l.Elems) == 3 {
				method, args = name, m.Elems[1:]
			}
		}
	}
	if method == "" || strings.ContainsAny(string(method), "./") {
		return nil, c.errorf(validationError, "(. x method args) needs a target and a method name, got %s", formText(l)).
			WithHint("write the method call as (.method x args), e.g. (.toUpperCase s)")
	}
	if class, ok := l.Elems[1].(symbol); ok && c.findLocal(string(class)) == nil {
		if r, _ := utf8.DecodeRuneInString(string(class)); unicode.IsUpper(r) || strings.Contains(string(class), ".") {
			return &list{Elems: append([]Value{symbol(string(class) + "/" + string(method))}, args...), Pos: l.Pos}, nil
		}
	}
	return &list{Elems: append([]Value{symbol("." + string(method)), l.Elems[1]}, args...), Pos: l.Pos}, nil
}

// unsupportedHints explain Clojure features PTC-Lisp leaves out (spec 13),
// so that an LLM reaching for them learns what to write instead.
var unsupportedHints = func() map[string]string {
	hints := map[string]string{}
	for names, hint := range map[string]string{
		"ref dosync alter":                           "use an atom: (let [a (atom 0)] (swap! a inc) @a), or accumulate with (reduce (fn [acc x] ...) init xs)",
		"slurp spit load-file in-ns":                 "there is no I/O, eval or namespace loading: use tool/ functions for external data",
		"eval load-string":                           "there is no eval: write the form itself, (+ 1 2) for (eval '(+ 1 2))",
		"future promise deliver agent send":          "there is no concurrency; use pmap or pcalls for parallel tool calls",
		"rand rand-int rand-nth shuffle random-uuid": "programs are deterministic: pass random values in as data, or pick by position, e.g. (nth coll (mod i (count coll)))",
	} {
		for _, n := range strings.Fields(names) {
			hints[n] = hint
		}
	}
	return hints
}()

func (c *compiler) undefined(name string) *Error {
	e := c.errorf(undefinedSymbol, "%s is not defined", name)
	if hint, ok := familyHints()[name]; ok {
		e.Message = name + " is not available in PTC-Lisp"
		return e.WithHint("%s", hint)
	}
	if hint, ok := unsupportedHints[name]; ok {
		e.Message = name + " is not available in PTC-Lisp"
		return e.WithHint("%s", hint)
	}
	switch name {
	case "data", "memory", "ctx":
		var keys []string
		if c.names.data != nil {
			for _, en := range c.names.data.Entries() {
				keys = append(keys, "data/"+strings.TrimPrefix(Str(en.Key), ":"))
			}
		}
		if len(keys) == 0 {
			return e.WithHint("data/ is a namespace, not a value: read one input with data/name; this program has no data")
		}
		return e.WithHint("data/ is a namespace, not a value: read one input with data/name (%s)", strings.Join(keys, ", "))
	case "tool", "tools":
		return e.WithHint("tool/ is a namespace, not a value: call a tool with (tool/name {...})")
	}
	if hint, ok := unimplementedHint(name); ok {
		e.Message = name + " is not available in PTC-Lisp"
		return e.WithHint("%s", hint)
	}
	if sugg := c.suggest(name); len(sugg) > 0 {
		return e.WithHint("did you mean %s?", strings.Join(sugg, ", "))
	}
	return e.WithHint("define it with (def %s ...) first, or use data/... and tool/... for inputs and tools", name)
}

// isJavaStatic reports whether v names a member of a Java class, such as
// Math/PI or java.lang.Integer/MAX_VALUE: a class's name is capitalized.
func isJavaStatic(v Value) bool {
	sym, ok := v.(symbol)
	if !ok {
		return false
	}
	ns, _, found := strings.Cut(string(sym), "/")
	ns = ns[strings.LastIndexByte(ns, '.')+1:]
	return found && ns != "" && ns[0] >= 'A' && ns[0] <= 'Z'
}

func (c *compiler) namespaced(ns, name string) (node, error) {
	// java.lang's classes are imported in Clojure: java.lang.Math/abs is Math/abs.
	ns = strings.TrimPrefix(ns, "java.lang.")
	switch ns {
	case "data":
		if c.aliases["data"] == "clojure.data" && namespacePublics()["clojure.data"][name] {
			// (require '[clojure.data :as data]) makes data/diff the
			// function; the program's other data/ names stay inputs.
			return c.namespaceVar("clojure.data", name)
		}
		return &dataNode{key: name}, nil
	case "tool":
		if c.names.dynamic || c.names.isTool(name) {
			return &constNode{&toolFunc{Name: name}}, nil
		}
		return nil, c.unknownTool(name)
	case "user":
		if c.names.dynamic || c.names.isUser(name) {
			if err := c.forwardReference(name); err != nil {
				return nil, err
			}
			return &globalNode{name: name, pos: c.pos}, nil
		}
		return nil, c.undefined(name)
	case "Double":
		switch name {
		case "POSITIVE_INFINITY":
			return &constNode{Float(math.Inf(1))}, nil
		case "NEGATIVE_INFINITY":
			return &constNode{Float(math.Inf(-1))}, nil
		case "NaN":
			return &constNode{Float(math.NaN())}, nil
		case "MAX_VALUE":
			return &constNode{Float(math.MaxFloat64)}, nil
		}
	case "Long":
		switch name {
		case "MAX_VALUE":
			return &constNode{Int(math.MaxInt64)}, nil
		case "MIN_VALUE":
			return &constNode{Int(math.MinInt64)}, nil
		}
	case "Integer": // Java's int bounds, whatever the width of integers here
		switch name {
		case "MAX_VALUE":
			return &constNode{Int(math.MaxInt32)}, nil
		case "MIN_VALUE":
			return &constNode{Int(math.MinInt32)}, nil
		}
	}
	if b, ok := builtins.statics[ns+"/"+name]; ok {
		return &constNode{b}, nil
	}
	if v, ok := javaConstants()[ns+"/"+name]; ok {
		return &constNode{v}, nil
	}
	if ns == "Math" {
		if b, ok := lookupFunction(strings.ToLower(name)); ok {
			return &constNode{b}, nil
		}
		return nil, c.unavailable(name, "math")
	}
	if clj, ok := c.namespaceOf(ns); ok {
		return c.namespaceVar(clj, name)
	}
	return nil, c.unknownNamespace(ns, name)
}

// unavailable reports a Math function that is not a builtin, listing
// the math builtins.
func (c *compiler) unavailable(name, category string) *Error {
	var names []string
	for _, b := range Builtins() {
		if b.Category == category {
			names = append(names, b.Name)
		}
	}
	return c.errorf(undefinedSymbol, "%s is not available", name).
		WithHint("Math functions: %s", strings.Join(names, ", "))
}

func (c *compiler) unknownTool(name string) *Error {
	e := c.errorf(undefinedSymbol, "tool/%s is not a declared tool", name)
	if len(c.names.tools) == 0 {
		return e.WithHint("no tools are available in this program")
	}
	var list []string
	for t := range c.names.tools {
		list = append(list, "tool/"+t)
	}
	slices.Sort(list)
	return e.WithHint("declared tools: %s", strings.Join(list, ", "))
}

// definedNames collects every name a program binds with def, defn or
// defonce, at any depth, so that references to it resolve to the user
// definition even before the def runs.
func definedNames(forms []Value, into map[string]bool) {
	for _, f := range forms {
		switch f := f.(type) {
		case *list:
			if len(f.Elems) >= 2 {
				if head, ok := f.Elems[0].(symbol); ok && (head == "def" || head == "defn" || head == "defn-" || head == "defonce" || head == "declare") {
					names := f.Elems[1:2]
					if head == "declare" {
						names = f.Elems[1:]
					}
					for _, n := range names {
						n, _ = nameAndMeta(n)
						if s, ok := n.(symbol); ok && lexPlainSymbol(string(s)) {
							into[string(s)] = true
						}
					}
				}
				if s, ok := f.Elems[1].(symbol); ok && f.Elems[0] == symbol("defrecord") {
					into["->"+string(s)], into["map->"+string(s)] = true, true // compileDefrecord's
				}
			}
			definedNames(f.Elems, into)
		case *Vector:
			definedNames(f.Elems(), into)
		case *mapForm:
			definedNames(f.Elems, into)
		case *setForm:
			definedNames(f.Elems, into)
		case *metaForm:
			definedNames([]Value{f.Form}, into)
		}
	}
}
