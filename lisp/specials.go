package lisp

import (
	"strconv"
	"strings"
)

type specialForm func(c *compiler, l *list, tail bool) (node, error)

// specialFormRow is a special form: how it compiles, and where it may
// be used and is documented.
type specialFormRow struct {
	compile specialForm
	// core forms cannot be shadowed by locals (as in Clojure, where they
	// are true special forms); the others can, as Clojure's macros can:
	// (let [if inc] (if true 1 2)) is 1, (let [when inc] (when 1)) is 2.
	core bool
	// idiom forms are Clojure the specification leaves out
	// (specials_idiom.go, docs/LANGUAGE.md); the prompt does not list
	// them.
	idiom bool
}

// specialForms is every special form. It is built once, in init, because
// the compile functions refer back to it (through compiler.list).
var specialForms map[string]specialFormRow

func init() {
	specialForms = map[string]specialFormRow{
		"if":       {compile: compileIf, core: true},
		"do":       {compile: func(c *compiler, l *list, tail bool) (node, error) { return c.compileBody(l.Elems[1:], tail) }, core: true},
		"def":      {compile: compileDef, core: true},
		"recur":    {compile: compileRecur, core: true},
		"quote":    {compile: compileQuote, core: true},
		"var":      {compile: compileVar, core: true},
		"let":      {compile: compileLet},
		"loop":     {compile: compileLoop},
		"fn":       {compile: compileFn},
		"defn":     {compile: compileDefn},
		"defn-":    {compile: compileDefn},
		"declare":  {compile: compileDeclare},
		"defonce":  {compile: compileDefonce},
		"when":     {compile: compileWhen},
		"when-not": {compile: compileWhenNot},
		"if-not":   {compile: compileIfNot},
		"cond":     {compile: compileCond},
		"if-let":   {compile: compileIfLet},
		"when-let": {compile: compileWhenLet},
		"if-some":  {compile: compileIfSome},
		"when-some": {compile: func(c *compiler, l *list, tail bool) (node, error) {
			return compileConditionalBinding(c, l, tail, "when-some", true, true)
		}},
		"and":          {compile: compileAnd},
		"or":           {compile: compileOr},
		"->":           {compile: func(c *compiler, l *list, tail bool) (node, error) { return compileThread(c, l, tail, false) }},
		"->>":          {compile: func(c *compiler, l *list, tail bool) (node, error) { return compileThread(c, l, tail, true) }},
		"some->":       {compile: func(c *compiler, l *list, tail bool) (node, error) { return compileSomeThread(c, l, tail, false) }},
		"some->>":      {compile: func(c *compiler, l *list, tail bool) (node, error) { return compileSomeThread(c, l, tail, true) }},
		"cond->":       {compile: func(c *compiler, l *list, tail bool) (node, error) { return compileCondThread(c, l, tail, false) }},
		"cond->>":      {compile: func(c *compiler, l *list, tail bool) (node, error) { return compileCondThread(c, l, tail, true) }},
		"as->":         {compile: compileAsThread},
		"where":        {compile: compileWhere},
		"case":         {compile: compileCase},
		"condp":        {compile: compileCondp},
		"for":          {compile: func(c *compiler, l *list, tail bool) (node, error) { return compileFor(c, l, true) }},
		"doseq":        {compile: func(c *compiler, l *list, tail bool) (node, error) { return compileFor(c, l, false) }},
		"dotimes":      {compile: compileDotimes},
		"while":        {compile: compileWhile, idiom: true},
		"comment":      {compile: func(*compiler, *list, bool) (node, error) { return &constNode{Nil}, nil }},
		"letfn":        {compile: compileLetfn, idiom: true},
		"when-first":   {compile: compileWhenFirst, idiom: true},
		"doto":         {compile: compileDoto, idiom: true},
		"time":         {compile: func(c *compiler, l *list, tail bool) (node, error) { return c.compileBody(l.Elems[1:], tail) }, idiom: true},
		"assert":       {compile: compileAssert, idiom: true},
		"try":          {compile: compileTry, idiom: true},
		"throw":        {compile: compileThrow, idiom: true},
		"with-out-str": {compile: compileWithOutStr, idiom: true},
		"ns":           {compile: compileNs, idiom: true},
		"require":      {compile: compileRequire, idiom: true},
		"use":          {compile: compileRequire, idiom: true},
		"import":       {compile: compileImport, idiom: true},
		"defrecord":    {compile: compileDefrecord, idiom: true},
		"delay":        {compile: compileDelay, idiom: true},
		"lazy-seq":     {compile: compileLazySeq, idiom: true},
		"lazy-cat":     {compile: compileLazyCat, idiom: true},
	}
	specialForms["with-precision"] = specialFormRow{compile: compileWithPrecision, idiom: true}
	specialForms["binding"] = specialFormRow{compile: compilePrintMetaBinding, idiom: true}
}

func formName(l *list) string { return string(l.Elems[0].(symbol)) }

func compileIf(c *compiler, l *list, tail bool) (node, error) {
	if len(l.Elems) < 3 || len(l.Elems) > 4 {
		return nil, c.errorf(validationError, "if takes 2 or 3 forms, got %d", len(l.Elems)-1).
			WithHint("write (if condition then else); use cond for several branches")
	}
	return c.ifNode(l.Elems[1], l.Elems[2], optional(l.Elems, 3), tail)
}

func optional(fs []Value, i int) Value {
	if i < len(fs) {
		return fs[i]
	}
	return Nil
}

func (c *compiler) ifNode(cond, then, els Value, tail bool) (node, error) {
	cn, err := c.compile(cond, false)
	if err != nil {
		return nil, err
	}
	tn, err := c.compile(then, tail)
	if err != nil {
		return nil, err
	}
	en, err := c.compile(els, tail)
	if err != nil {
		return nil, err
	}
	return &ifNode{cond: cn, then: tn, els: en}, nil
}

func compileIfNot(c *compiler, l *list, tail bool) (node, error) {
	if len(l.Elems) < 3 || len(l.Elems) > 4 {
		return nil, c.errorf(validationError, "if-not takes 2 or 3 forms, got %d", len(l.Elems)-1).
			WithHint("write (if-not condition then else)")
	}
	return c.ifNode(l.Elems[1], optional(l.Elems, 3), l.Elems[2], tail)
}

func compileWhen(c *compiler, l *list, tail bool) (node, error) {
	return compileWhenLike(c, l, tail, false)
}

func compileWhenNot(c *compiler, l *list, tail bool) (node, error) {
	return compileWhenLike(c, l, tail, true)
}

func compileWhenLike(c *compiler, l *list, tail, negate bool) (node, error) {
	if len(l.Elems) < 2 {
		return nil, c.errorf(validationError, "%s needs a condition", formName(l)).
			WithHint("write (%s condition body...)", formName(l))
	}
	cn, err := c.compile(l.Elems[1], false)
	if err != nil {
		return nil, err
	}
	body, err := c.compileBody(l.Elems[2:], tail)
	if err != nil {
		return nil, err
	}
	if negate {
		return &ifNode{cond: cn, then: &constNode{Nil}, els: body}, nil
	}
	return &ifNode{cond: cn, then: body, els: &constNode{Nil}}, nil
}

func compileCond(c *compiler, l *list, tail bool) (node, error) {
	clauses := l.Elems[1:]
	if len(clauses)%2 != 0 {
		return nil, c.errorf(validationError, "cond needs test/result pairs, got %d forms", len(clauses)).
			WithHint("end with :else default, e.g. (cond (> x 1) \"big\" :else \"small\")")
	}
	var result node = &constNode{Nil}
	for i := len(clauses) - 2; i >= 0; i -= 2 {
		cn, err := c.compile(clauses[i], false)
		if err != nil {
			return nil, err
		}
		rn, err := c.compile(clauses[i+1], tail)
		if err != nil {
			return nil, err
		}
		result = &ifNode{cond: cn, then: rn, els: result}
	}
	return result, nil
}

func compileAnd(c *compiler, l *list, tail bool) (node, error) {
	args, err := c.compileTailLast(l.Elems[1:], tail)
	if err != nil {
		return nil, err
	}
	return &andNode{args: args}, nil
}

func compileOr(c *compiler, l *list, tail bool) (node, error) {
	args, err := c.compileTailLast(l.Elems[1:], tail)
	if err != nil {
		return nil, err
	}
	return &orNode{args: args}, nil
}

func (c *compiler) compileTailLast(fs []Value, tail bool) ([]node, error) {
	out := make([]node, len(fs))
	for i, f := range fs {
		n, err := c.compile(f, tail && i == len(fs)-1)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// bindingVector checks a let/loop binding vector.
func (c *compiler) bindingVector(l *list, what string) ([]Value, error) {
	if len(l.Elems) < 2 {
		return nil, c.errorf(validationError, "%s needs a binding vector", what).
			WithHint("write (%s [name value ...] body...)", what)
	}
	v, ok := l.Elems[1].(*Vector)
	if !ok {
		return nil, c.errorf(validationError, "%s needs a binding vector, got %s", what, formText(l.Elems[1])).
			WithHint("write (%s [name value ...] body...)", what)
	}
	if v.Len()%2 != 0 {
		return nil, c.errorf(validationError, "%s requires an even number of binding forms", what).
			WithHint("each name needs a value: (%s [x 1 y 2] ...)", what)
	}
	return v.Elems(), nil
}

func (c *compiler) bindings(forms []Value) ([]binding, error) {
	var out []binding
	for i := 0; i < len(forms); i += 2 {
		init, err := c.compile(forms[i+1], false)
		if err != nil {
			return nil, err
		}
		_, plain := forms[i].(symbol)
		primitive := plain && c.primitiveForm(forms[i+1], 0)
		pat, err := c.pattern(forms[i])
		if err != nil {
			return nil, err
		}
		if primitive {
			c.locals[len(c.locals)-1].primitive = true
		}
		out = append(out, binding{pat: pat, init: init})
	}
	return out, nil
}

func compileLet(c *compiler, l *list, tail bool) (node, error) {
	forms, err := c.bindingVector(l, "let")
	if err != nil {
		return nil, err
	}
	mark := len(c.locals)
	defer func() { c.dropLocals(mark) }()
	binds, err := c.bindings(forms)
	if err != nil {
		return nil, err
	}
	body, err := c.compileBody(l.Elems[2:], tail)
	if err != nil {
		return nil, err
	}
	if len(binds) == 0 {
		return body, nil
	}
	return &letNode{binds: binds, body: body}, nil
}

func compileLoop(c *compiler, l *list, tail bool) (node, error) {
	forms, err := c.bindingVector(l, "loop")
	if err != nil {
		return nil, err
	}
	mark := len(c.locals)
	savedRecur := c.recur
	defer func() { c.dropLocals(mark); c.recur = savedRecur }()
	binds, err := c.bindings(forms)
	if err != nil {
		return nil, err
	}
	c.recur = &recurTarget{n: len(binds), what: "loop"}
	body, err := c.compileBody(l.Elems[2:], true)
	if err != nil {
		return nil, err
	}
	return &loopNode{binds: binds, body: body, pos: l.Pos}, nil
}

func compileRecur(c *compiler, l *list, tail bool) (node, error) {
	if c.recur == nil {
		return nil, c.errorf(validationError, "recur is only allowed inside loop or fn").
			WithHint("use (loop [i 0] (if (< i 10) (recur (inc i)) i))")
	}
	if !tail {
		return nil, c.errorf(validationError, "recur must be in tail position (the last thing its %s does)", c.recur.what).
			WithHint("make recur the result of the loop body, e.g. the else branch of an if")
	}
	if got := len(l.Elems) - 1; got != c.recur.n {
		return nil, c.errorf(arityErrorKind, "recur called with %d argument%s, but its %s binds %d", got, plural(got), c.recur.what, c.recur.n).
			WithHint("pass one value per %s binding", c.recur.what)
	}
	args, err := c.compileAll(l.Elems[1:])
	if err != nil {
		return nil, err
	}
	return &recurNode{args: args}, nil
}

func compileQuote(c *compiler, l *list, tail bool) (node, error) {
	if len(l.Elems) != 2 {
		return nil, c.errorf(validationError, "quote takes one form")
	}
	return &constNode{Freeze(quoted(l.Elems[1]))}, nil // shared, as literals are
}

func compileVar(c *compiler, l *list, tail bool) (node, error) {
	if len(l.Elems) != 2 {
		return nil, c.errorf(validationError, "var takes one name")
	}
	s, ok := l.Elems[1].(symbol)
	if !ok {
		return nil, c.errorf(validationError, "var takes a name, got %s", formText(l.Elems[1]))
	}
	return &constNode{varNamed(string(s))}, nil
}

// defName checks the name a def binds.
func (c *compiler) defName(what string, f Value) (string, error) {
	f, _ = nameAndMeta(f)
	s, ok := f.(symbol)
	if !ok {
		return "", c.errorf(validationError, "%s needs a name, got %s", what, formText(f)).
			WithHint("write (%s name ...)", what)
	}
	name := string(s)
	switch {
	case !lexPlainSymbol(name) || name == "/":
		return "", c.errorf(validationError, "%s cannot define the namespaced name %s", what, name).
			WithHint("definitions live in the user namespace; write (%s %s ...)", what, name[strings.LastIndexByte(name, '/')+1:])
	case name == "&" || strings.HasPrefix(name, "*") && len(name) == 2:
		return "", c.errorf(validationError, "%s cannot define %s", what, name)
	}
	if _, ok := lookupFunction(name); ok {
		if !shadowable(name) {
			return "", c.errorf(validationError, "cannot shadow builtin '%s'", name).
				WithHint("choose another name, e.g. my-%s", name)
		}
		c.warn(WarningShadowedBuiltin, "%s redefines PTC-Lisp's builtin %s, which is not Clojure's: the program's definition is used", what, name)
	}
	if _, special := specialForms[name]; special {
		return "", c.errorf(validationError, "cannot redefine the special form '%s'", name).
			WithHint("choose another name, e.g. my-%s", name)
	}
	// The name resolves from here on, in its own value too: Clojure
	// interns the var before it analyzes the value.
	delete(c.pending, name)
	return name, nil
}

func compileDef(c *compiler, l *list, tail bool) (node, error) {
	return compileDefLike(c, l, false)
}

func compileDefonce(c *compiler, l *list, tail bool) (node, error) {
	return compileDefLike(c, l, true)
}

func compileDefLike(c *compiler, l *list, once bool) (node, error) {
	what := formName(l)
	if len(l.Elems) < 3 || len(l.Elems) > 4 {
		return nil, c.errorf(validationError, "%s takes a name and a value, got %d form%s", what, len(l.Elems)-1, plural(len(l.Elems)-1)).
			WithHint("write (%s name value) or (%s name \"docstring\" value); use defn for functions", what, what)
	}
	name, err := c.defName(what, l.Elems[1])
	if err != nil {
		return nil, err
	}
	var doc string
	valueForm := l.Elems[2]
	if len(l.Elems) == 4 {
		d, ok := l.Elems[2].(String)
		if !ok {
			return nil, c.errorf(validationError, "%s takes a name and a value, got %d forms", what, len(l.Elems)-1).
				WithHint("the optional middle form is a docstring; use defn for functions: (defn %s [args] body)", name)
		}
		doc, valueForm = string(d), l.Elems[3]
	}
	init, err := c.compile(valueForm, false)
	if err != nil {
		return nil, err
	}
	attrs, err := c.defAttrs(l.Elems[1], nil, false)
	if err != nil {
		return nil, err
	}
	holdsAtom := false
	if f, ok := valueForm.(*list); ok && len(f.Elems) > 0 && (f.Elems[0] == symbol("atom") || f.Elems[0] == symbol("clojure.core/atom")) {
		// Models keep a program's state in a def'd atom that its defns
		// swap!: it runs, and memory does not keep the atom.
		holdsAtom = true
		c.warn(WarningEvaluationOnly, "%s holds an atom, which lives only while the program runs: it is defined for this program and not kept between turns (def its value, @%s, to keep it)", name, name)
	}
	return &defNode{name: name, doc: doc, init: init, once: once, holdsAtom: holdsAtom, attrs: attrs, pos: l.Pos}, nil
}

// compileDefn desugars (defn name doc? attrs? [params] body...) into a def of
// (fn [params] body...); the fn form is what memory stores as source.
func compileDefn(c *compiler, l *list, tail bool) (node, error) {
	if len(l.Elems) < 2 {
		return nil, c.errorf(validationError, "defn needs a name, parameters and a body").
			WithHint("write (defn name [args] body)")
	}
	name, err := c.defName("defn", l.Elems[1])
	if err != nil {
		return nil, err
	}
	rest := l.Elems[2:]
	var doc string
	if len(rest) > 0 {
		if d, ok := rest[0].(String); ok && len(rest) > 1 {
			doc, rest = string(d), rest[1:]
		}
	}
	var attrMap *mapForm
	if len(rest) > 0 {
		if m, ok := rest[0].(*mapForm); ok && len(rest) > 1 {
			attrMap, rest = m, rest[1:] // the var's metadata
		}
	}
	attrs, err := c.defAttrs(l.Elems[1], attrMap, formName(l) == "defn-")
	if err != nil {
		return nil, err
	}
	if len(rest) == 0 {
		return nil, c.errorf(validationError, "defn %s has no parameter vector", name).
			WithHint("write (defn %s [args] body)", name)
	}
	switch p := rest[0].(type) {
	case *Vector, *metaForm:
	case *list:
		if !isVectorForm(firstElem(p)) {
			return nil, c.errorf(validationError, "defn %s needs a parameter vector [...], got %s", name, formText(p)).
				WithHint("write (defn %s [args] body)", name)
		}
	default:
		return nil, c.errorf(validationError, "defn %s needs a parameter vector [...], got %s", name, formText(p)).
			WithHint("write (defn %s [args] body)", name)
	}
	fnForm := &list{Elems: append([]Value{symbol("fn")}, rest...), Pos: l.Pos}
	init, err := c.compile(fnForm, false)
	if err != nil {
		return nil, err
	}
	return &defNode{name: name, doc: doc, init: init, attrs: attrs, pos: l.Pos}, nil
}

// compileDeclare accepts (declare f g) for mutual recursion: the names
// resolve from here on (defName), and at run time by name.
func compileDeclare(c *compiler, l *list, tail bool) (node, error) {
	for _, f := range l.Elems[1:] {
		if _, err := c.defName("declare", f); err != nil {
			return nil, err
		}
	}
	return &constNode{Nil}, nil
}

func firstElem(l *list) Value {
	if len(l.Elems) == 0 {
		return Nil
	}
	return l.Elems[0]
}

// compileFn analyzes (fn name? [params] body...) and the multi-arity form
// (fn name? ([params] body...) ...).
func compileFn(c *compiler, l *list, tail bool) (node, error) {
	rest := l.Elems[1:]
	lam := &lambda{form: c.withoutAliases(l)}
	if len(rest) > 0 {
		if s, ok := rest[0].(symbol); ok {
			lam.selfName = string(s)
			rest = rest[1:]
		}
	}
	var arities [][]Value
	switch {
	case len(rest) == 0:
		return nil, c.errorf(validationError, "fn needs a parameter vector").WithHint("write (fn [x] body)")
	case isVectorForm(rest[0]):
		arities = [][]Value{withParamVector(rest)}
	default:
		for _, a := range rest {
			al, ok := a.(*list)
			if !ok || len(al.Elems) == 0 || !isVectorForm(al.Elems[0]) {
				return nil, c.errorf(validationError, "fn needs a parameter vector, got %s", formText(a)).
					WithHint("write (fn [x] body)")
			}
			arities = append(arities, withParamVector(al.Elems))
		}
	}
	scope := &fnScope{parent: c.fn, freeIndex: map[*localVar]int{}, base: c.depth}
	savedFn, savedRecur, mark := c.fn, c.recur, len(c.locals)
	c.fn = scope
	defer func() { c.fn, c.recur, c.locals = savedFn, savedRecur, c.locals[:mark] }()
	var allocBefore int64
	if c.th != nil {
		allocBefore = c.th.allocatedBytes()
	}
	for _, a := range arities {
		ar, err := c.arity(lam.selfName, a[0].(*Vector), a[1:])
		if err != nil {
			return nil, err
		}
		lam.arities = append(lam.arities, ar)
		c.dropLocals(mark)
	}
	if c.th != nil {
		lam.analysisBytes = c.th.allocatedBytes() - allocBefore
	}
	lam.nslots = scope.nslots
	lam.captures = scope.captures
	lam.extraDepth = max(scope.deepest-scope.base, 0) / bodyLevelsPerCall
	for _, lv := range scope.freeVars {
		lam.freeNames = append(lam.freeNames, lv.name)
	}
	var err error
	if lam.textSize, err = lam.measureText(c.th); err != nil {
		return nil, err
	}
	return &fnNode{lam: lam}, nil
}

// isVectorForm reports whether v is a vector form, with metadata or
// without: a parameter vector's (defn f ^String [x] ...) is a return
// type hint, which means nothing here (withParamVector).
func isVectorForm(v Value) bool {
	if m, ok := v.(*metaForm); ok {
		v = m.Form
	}
	_, ok := v.(*Vector)
	return ok
}

// withParamVector is an arity's forms with the metadata of its parameter
// vector dropped.
func withParamVector(arity []Value) []Value {
	m, ok := arity[0].(*metaForm)
	if !ok {
		return arity
	}
	out := append([]Value{m.Form}, arity[1:]...)
	return out
}

func (c *compiler) arity(self string, params *Vector, body []Value) (*arity, error) {
	ar := &arity{selfSlot: -1, paramForm: params}
	if self != "" {
		ar.selfSlot = c.newLocal(self)
	}
	ps := params.Elems()
	for i := 0; i < len(ps); i++ {
		if ps[i] == symbol("&") {
			if i != len(ps)-2 {
				return nil, c.errorf(validationError, "& must be followed by exactly one parameter in %s", formText(params)).
					WithHint("write [a b & more]")
			}
			pat, err := c.restPattern(ps[i+1])
			if err != nil {
				return nil, err
			}
			ar.rest = pat
			ar.paramText = append(ar.paramText, "&", shown(ps[i+1]))
			break
		}
		pat, err := c.pattern(ps[i])
		if err != nil {
			return nil, err
		}
		ar.params = append(ar.params, pat)
		ar.paramText = append(ar.paramText, shown(ps[i]))
	}
	ar.paramSlots = make([]int, 0, len(ar.params))
	for _, p := range ar.params {
		sp, ok := p.(*slotPattern)
		if !ok {
			ar.paramSlots = nil
			break
		}
		ar.paramSlots = append(ar.paramSlots, sp.slot)
	}
	n := len(ar.params)
	if ar.rest != nil {
		n++
	}
	c.recur = &recurTarget{n: n, what: "fn"}
	body, err := c.fnConditions(body)
	if err != nil {
		return nil, err
	}
	b, err := c.compileBody(body, true)
	if err != nil {
		return nil, err
	}
	ar.body = b
	return ar, nil
}

// restPattern compiles what follows &: a symbol, a vector pattern, or a map
// pattern that reads the rest as keyword arguments.
func (c *compiler) restPattern(f Value) (pattern, error) {
	if m, ok := f.(*metaForm); ok {
		f = m.Form
	}
	if _, ok := f.(*mapForm); ok {
		p, err := c.pattern(f)
		if err != nil {
			return nil, err
		}
		return &seqPattern{rest: p, as: -1, restAsMap: true, keywordParams: true}, nil
	}
	return c.pattern(f)
}

// pattern compiles a binding form and declares its names. Metadata on a
// destructuring form ([^Map {:keys [a]}]) is a type hint, which means
// nothing here.
func (c *compiler) pattern(f Value) (pattern, error) {
	if m, ok := f.(*metaForm); ok {
		f = m.Form
	}
	switch f := f.(type) {
	case symbol:
		name := string(f)
		if name == "&" || !lexPlainSymbol(name) && !strings.HasPrefix(name, "#") {
			return nil, c.errorf(validationError, "cannot bind %s", name).
				WithHint("binding names are plain symbols like x or total")
		}
		return &slotPattern{slot: c.newLocal(name)}, nil
	case *Vector:
		p := &seqPattern{as: -1}
		elems := f.Elems()
		for i := 0; i < len(elems); i++ {
			switch elems[i] {
			case symbol("&"):
				if i+1 >= len(elems) {
					return nil, c.errorf(validationError, "& must be followed by a name in %s", formText(f))
				}
				i++
				if _, ok := elems[i].(*mapForm); ok {
					p.restAsMap = true
				}
				rp, err := c.pattern(elems[i])
				if err != nil {
					return nil, err
				}
				p.rest = rp
			case Keyword("as"):
				if i+1 >= len(elems) {
					return nil, c.errorf(validationError, ":as must be followed by a name in %s", formText(f))
				}
				i++
				s, ok := elems[i].(symbol)
				if !ok {
					return nil, c.errorf(validationError, ":as must be followed by a name in %s", formText(f))
				}
				p.as = c.newLocal(string(s))
			default:
				ip, err := c.pattern(elems[i])
				if err != nil {
					return nil, err
				}
				p.items = append(p.items, ip)
			}
		}
		return p, nil
	case *mapForm:
		return c.mapPattern(f)
	}
	return nil, c.errorf(validationError, "invalid binding form %s", formText(f)).
		WithHint("bind a name, a vector pattern [a b] or a map pattern {:keys [a b]}")
}

// patternKey is the key a map pattern's entry {name key} reads: Clojure
// evaluates the key form, so 'k is the symbol k, a local names its
// value and a call computes it; a literal is itself.
func (c *compiler) patternKey(form Value) (Value, node, error) {
	switch f := form.(type) {
	case symbol:
		n, err := c.compile(f, false)
		return nil, n, err
	case *list:
		if len(f.Elems) == 2 && f.Elems[0] == symbol("quote") {
			return quoted(f.Elems[1]), nil, nil
		}
		n, err := c.compile(f, false)
		return nil, n, err
	}
	return quoted(form), nil, nil
}

func (c *compiler) mapPattern(f *mapForm) (pattern, error) {
	p := &mapPattern{as: -1}
	defaults := map[string]Value{}
	for i := 0; i+1 < len(f.Elems); i += 2 {
		switch f.Elems[i] {
		case Keyword("or"):
			m, ok := f.Elems[i+1].(*mapForm)
			if !ok {
				return nil, c.errorf(validationError, ":or takes a map of defaults, e.g. {:keys [a] :or {a 0}}")
			}
			for j := 0; j+1 < len(m.Elems); j += 2 {
				s, ok := m.Elems[j].(symbol)
				if !ok {
					return nil, c.errorf(validationError, ":or keys are the bound names, got %s", formText(m.Elems[j]))
				}
				defaults[string(s)] = m.Elems[j+1]
			}
		case Keyword("as"):
			// Clojure binds :as before the keys, so a default may read it.
			s, ok := f.Elems[i+1].(symbol)
			if !ok {
				return nil, c.errorf(validationError, ":as must be followed by a name")
			}
			p.as = c.newLocal(string(s))
		}
	}
	// A name is bound in Clojure's order, each default analyzed in the
	// scope of the names bound before it: {:keys [first last name] :or
	// {name (str first " " last)}} reads the first and last just bound.
	addKey := func(name string, key Value, keyExpr node) error {
		var def node
		if form, ok := defaults[name]; ok {
			n, err := c.compile(form, false)
			if err != nil {
				return err
			}
			def = n
		}
		slot := c.newLocal(name)
		p.entries = append(p.entries, mapPatternEntry{key: key, keyExpr: keyExpr, pat: &slotPattern{slot: slot}, def: def})
		return nil
	}
	// Clojure binds the name-to-key entries and nested patterns first, in
	// the order written, then the names of :keys, :strs and :syms.
	for i := 0; i+1 < len(f.Elems); i += 2 {
		k, v := f.Elems[i], f.Elems[i+1]
		if k == Keyword("or") || k == Keyword("as") {
			continue
		}
		if _, _, ok := keysDirective(k); ok {
			continue
		}
		key, keyExpr, err := c.patternKey(v)
		if err != nil {
			return nil, err
		}
		if s, ok := k.(symbol); ok {
			if err := addKey(string(s), key, keyExpr); err != nil {
				return nil, err
			}
			continue
		}
		sub, err := c.pattern(k)
		if err != nil {
			return nil, err
		}
		p.entries = append(p.entries, mapPatternEntry{key: key, keyExpr: keyExpr, pat: sub})
	}
	for i := 0; i+1 < len(f.Elems); i += 2 {
		k, v := f.Elems[i], f.Elems[i+1]
		kind, ns, ok := keysDirective(k)
		if !ok {
			continue
		}
		vec, ok := v.(*Vector)
		if !ok {
			return nil, c.errorf(validationError, "%s takes a vector of names, e.g. {:keys [a b]}", shown(k))
		}
		for _, e := range vec.Elems() {
			var name string
			switch e := e.(type) {
			case symbol:
				name = string(e)
			case Keyword:
				name = string(e)
			default:
				return nil, c.errorf(validationError, "%s takes names, got %s", shown(k), formText(e))
			}
			key := directiveKey(kind, ns, name)
			if i := strings.LastIndexByte(name, '/'); i >= 0 {
				name = name[i+1:]
			}
			if err := addKey(name, key, nil); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

// Threading macros rewrite their forms and analyze the result.

func threadInto(x, step Value, last bool) Value {
	if l, ok := step.(*list); ok && len(l.Elems) > 0 {
		if head, ok := l.Elems[0].(symbol); !ok || (head != "fn" && head != "fn*") {
			elems := make([]Value, 0, len(l.Elems)+1)
			if last {
				elems = append(append(elems, l.Elems...), x)
			} else {
				elems = append(append(append(elems, l.Elems[0]), x), l.Elems[1:]...)
			}
			return &list{Elems: elems, Pos: l.Pos}
		}
	}
	return &list{Elems: []Value{step, x}, Pos: posOf(step)}
}

func posOf(f Value) Pos {
	if l, ok := f.(*list); ok {
		return l.Pos
	}
	return Pos{}
}

func compileThread(c *compiler, l *list, tail, last bool) (node, error) {
	if len(l.Elems) < 2 {
		return nil, c.errorf(validationError, "%s needs a value to thread", formName(l))
	}
	if err := c.nests(len(l.Elems) - 2); err != nil {
		return nil, err
	}
	x := l.Elems[1]
	for _, step := range l.Elems[2:] {
		x = threadInto(x, step, last)
	}
	return c.compile(x, tail)
}

func (c *compiler) tempSymbol() symbol {
	c.gensym++
	return symbol("#t" + strconv.Itoa(c.gensym)) // the reader never yields '#' first
}

func compileSomeThread(c *compiler, l *list, tail, last bool) (node, error) {
	if len(l.Elems) < 2 {
		return nil, c.errorf(validationError, "%s needs a value to thread", formName(l))
	}
	// (some-> x s1 s2) is (if-some [t1 x] (if-some [t2 (s1 t1)] (s2 t2) nil) nil),
	// built from the inside out: expanding a step at a time copied the
	// steps left at each, quadratic in the steps.
	x := l.Elems[1]
	steps := l.Elems[2:]
	if len(steps) == 0 {
		return c.compile(x, tail)
	}
	if err := c.nests(len(steps)); err != nil {
		return nil, err
	}
	temps := make([]Value, len(steps))
	for i := range temps {
		temps[i] = c.tempSymbol()
	}
	form := threadInto(temps[len(steps)-1], steps[len(steps)-1], last)
	for i := len(steps) - 1; i >= 0; i-- {
		value := x
		if i > 0 {
			value = threadInto(temps[i-1], steps[i-1], last)
		}
		form = &list{Elems: []Value{symbol("if-some"), NewVector([]Value{temps[i], value}), form, Nil}, Pos: l.Pos}
	}
	return compileIfSome(c, form.(*list), tail)
}

func compileCondThread(c *compiler, l *list, tail, last bool) (node, error) {
	if len(l.Elems) < 2 || len(l.Elems)%2 != 0 {
		return nil, c.errorf(validationError, "%s needs a value and test/form pairs", formName(l))
	}
	// (cond-> x t1 s1 t2 s2) is (let [g x g (if t1 (-> g s1) g) ...] g).
	g := c.tempSymbol()
	binds := []Value{g, l.Elems[1]}
	for i := 2; i+1 < len(l.Elems); i += 2 {
		binds = append(binds, g, &list{Elems: []Value{symbol("if"), l.Elems[i], threadInto(g, l.Elems[i+1], last), g}, Pos: l.Pos})
	}
	return compileLet(c, &list{Elems: []Value{symbol("let"), NewVector(binds), g}, Pos: l.Pos}, tail)
}

func compileAsThread(c *compiler, l *list, tail bool) (node, error) {
	if len(l.Elems) < 3 {
		return nil, c.errorf(validationError, "as-> needs a value and a name").WithHint("write (as-> x $ (f $) (g $ 1))")
	}
	name := l.Elems[2]
	binds := []Value{name, l.Elems[1]}
	for _, step := range l.Elems[3:] {
		binds = append(binds, name, step)
	}
	return compileLet(c, &list{Elems: []Value{symbol("let"), NewVector(binds), name}, Pos: l.Pos}, tail)
}

// ifLetNode binds the test value only when it passes.
type ifLetNode struct {
	init   node
	pat    pattern
	then   node
	els    node
	notNil bool // if-some: the test is "not nil" instead of truthiness
}

func (n *ifLetNode) eval(th *Thread, fr *frame) (Value, error) {
	v, err := n.init.eval(th, fr)
	if err != nil {
		return nil, err
	}
	pass := truthy(v)
	if n.notNil {
		_, isNil := v.(NilType)
		pass = !isNil
	}
	if !pass {
		return n.els.eval(th, fr)
	}
	if err := n.pat.bind(th, fr, v); err != nil {
		return nil, err
	}
	return n.then.eval(th, fr)
}

func compileIfLet(c *compiler, l *list, tail bool) (node, error) {
	return compileConditionalBinding(c, l, tail, "if-let", false, false)
}

func compileWhenLet(c *compiler, l *list, tail bool) (node, error) {
	return compileConditionalBinding(c, l, tail, "when-let", false, true)
}

func compileIfSome(c *compiler, l *list, tail bool) (node, error) {
	return compileConditionalBinding(c, l, tail, "if-some", true, false)
}

func compileConditionalBinding(c *compiler, l *list, tail bool, what string, notNil, when bool) (node, error) {
	forms, err := c.bindingVector(l, what)
	if err != nil {
		return nil, err
	}
	if len(forms) != 2 {
		return nil, c.errorf(validationError, "%s takes exactly one binding", what).
			WithHint("write (%s [x expr] ...); nest them for several bindings", what)
	}
	if !when && (len(l.Elems) < 3 || len(l.Elems) > 4) {
		return nil, c.errorf(validationError, "%s takes a binding, a then form and an optional else form", what)
	}
	init, err := c.compile(forms[1], false)
	if err != nil {
		return nil, err
	}
	var els node = &constNode{Nil}
	if !when && len(l.Elems) == 4 {
		if els, err = c.compile(l.Elems[3], tail); err != nil {
			return nil, err
		}
	}
	mark := len(c.locals)
	defer func() { c.dropLocals(mark) }()
	pat, err := c.pattern(forms[0])
	if err != nil {
		return nil, err
	}
	var then node
	if when {
		then, err = c.compileBody(l.Elems[2:], tail)
	} else {
		then, err = c.compile(l.Elems[2], tail)
	}
	if err != nil {
		return nil, err
	}
	return &ifLetNode{init: init, pat: pat, then: then, els: els, notNil: notNil}, nil
}

func compileCase(c *compiler, l *list, tail bool) (node, error) {
	if len(l.Elems) < 2 {
		return nil, c.errorf(validationError, "case needs an expression and clauses")
	}
	expr, err := c.compile(l.Elems[1], false)
	if err != nil {
		return nil, err
	}
	n := &caseNode{expr: expr, keys: map[any]int{}, pos: l.Pos}
	clauses := l.Elems[2:]
	if len(clauses)%2 == 1 {
		if n.fallback, err = c.compile(clauses[len(clauses)-1], tail); err != nil {
			return nil, err
		}
		clauses = clauses[:len(clauses)-1]
	}
	for i := 0; i < len(clauses); i += 2 {
		var consts []Value
		if group, ok := clauses[i].(*list); ok {
			consts = quotedAll(group.Elems)
		} else {
			consts = []Value{quoted(clauses[i])}
		}
		r, err := c.compile(clauses[i+1], tail)
		if err != nil {
			return nil, err
		}
		for _, k := range consts {
			hk := hashKey(k)
			if _, dup := n.keys[hk]; dup {
				return nil, c.errorf(validationError, "case has the constant %s twice", shown(k))
			}
			n.keys[hk] = len(n.results)
		}
		n.results = append(n.results, r)
	}
	return n, nil
}

func compileCondp(c *compiler, l *list, tail bool) (node, error) {
	if len(l.Elems) < 3 {
		return nil, c.errorf(validationError, "condp needs a predicate, an expression and clauses").
			WithHint("write (condp = x 1 \"one\" 2 \"two\" \"other\")")
	}
	pred, err := c.compile(l.Elems[1], false)
	if err != nil {
		return nil, err
	}
	expr, err := c.compile(l.Elems[2], false)
	if err != nil {
		return nil, err
	}
	n := &condpNode{pred: pred, expr: expr, pos: l.Pos}
	// Clauses are test result, or test :>> f (f is called with what the
	// predicate returned); a last lone form is the default.
	clauses := l.Elems[3:]
	for len(clauses) >= 2 {
		arrow := clauses[1] == Keyword(">>") && len(clauses) >= 3
		t, err := c.compile(clauses[0], false)
		if err != nil {
			return nil, err
		}
		result := clauses[1]
		if arrow {
			result = clauses[2]
		}
		r, err := c.compile(result, tail && !arrow)
		if err != nil {
			return nil, err
		}
		n.tests = append(n.tests, t)
		n.results = append(n.results, r)
		n.arrows = append(n.arrows, arrow)
		clauses = clauses[2:]
		if arrow {
			clauses = clauses[1:]
		}
	}
	if len(clauses) == 1 {
		if n.fallback, err = c.compile(clauses[0], tail); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// compileDotimes rewrites (dotimes [i n] body...) to
// (doseq [i (clojure.core/range (clojure.core/quot n 1))] body...); the
// qualified names reach the builtins even where a local shadows them, and
// quot truncates a fraction as Clojure's (long n) does: (dotimes [i 2.5])
// runs twice, where (range 2.5) has three items.
func compileDotimes(c *compiler, l *list, tail bool) (node, error) {
	v, ok := optional(l.Elems, 1).(*Vector)
	if !ok || v.Len() != 2 {
		return nil, c.errorf(validationError, "dotimes takes a binding vector [name count]").
			WithHint("write (dotimes [i 3] (println i))")
	}
	whole := &list{Elems: []Value{symbol("clojure.core/quot"), v.index(1), Int(1)}, Pos: l.Pos}
	count := &list{Elems: []Value{symbol("clojure.core/range"), whole}, Pos: l.Pos}
	form := &list{Elems: append([]Value{symbol("doseq"), NewVector([]Value{v.index(0), count})}, l.Elems[2:]...), Pos: l.Pos}
	return compileFor(c, form, false)
}

// compileWhile is Clojure's while, (loop [] (when test body... (recur))):
// models loop over an atom with it. Each pass is a loop iteration, charged
// a step, so a test that stays true stops at the step budget.
func compileWhile(c *compiler, l *list, tail bool) (node, error) {
	if len(l.Elems) < 2 {
		return nil, c.errorf(validationError, "while takes a test and a body").
			WithHint("write (while (< @a 3) (swap! a inc))")
	}
	body := append([]Value{symbol("do")}, l.Elems[2:]...)
	body = append(body, &list{Elems: []Value{symbol("recur")}, Pos: l.Pos})
	step := &list{Elems: []Value{symbol("if"), l.Elems[1], &list{Elems: body, Pos: l.Pos}}, Pos: l.Pos}
	return compileLoop(c, &list{Elems: []Value{symbol("loop"), NewVector(nil), step}, Pos: l.Pos}, tail)
}

func compileFor(c *compiler, l *list, collect bool) (node, error) {
	what := formName(l)
	forms, err := c.bindingVector(l, what)
	if err != nil {
		return nil, err
	}
	if len(forms) == 0 {
		return nil, c.errorf(validationError, "%s needs at least one binding", what)
	}
	mark := len(c.locals)
	savedRecur := c.recur
	c.recur = nil
	defer func() { c.dropLocals(mark); c.recur = savedRecur }()
	n := &forNode{collect: collect, pos: l.Pos}
	for i := 0; i < len(forms); i += 2 {
		switch forms[i] {
		case Keyword("let"):
			v, ok := forms[i+1].(*Vector)
			if !ok || v.Len()%2 != 0 {
				return nil, c.errorf(validationError, "%s :let takes a binding vector", what)
			}
			binds, err := c.bindings(v.Elems())
			if err != nil {
				return nil, err
			}
			n.clauses = append(n.clauses, forClause{kind: forLet, lets: binds})
		case Keyword("when"), Keyword("while"):
			e, err := c.compile(forms[i+1], false)
			if err != nil {
				return nil, err
			}
			kind := forWhen
			if forms[i] == Keyword("while") {
				kind = forWhile
			}
			n.clauses = append(n.clauses, forClause{kind: kind, expr: e})
		default:
			if k, ok := forms[i].(Keyword); ok {
				return nil, c.errorf(validationError, "%s does not support :%s", what, string(k)).
					WithHint("use :let, :when or :while")
			}
			e, err := c.compile(forms[i+1], false)
			if err != nil {
				return nil, err
			}
			pat, err := c.pattern(forms[i])
			if err != nil {
				return nil, err
			}
			n.clauses = append(n.clauses, forClause{kind: forBind, pat: pat, expr: e})
		}
	}
	if n.clauses[0].kind != forBind {
		return nil, c.errorf(validationError, "%s must start with a binding, not a modifier", what)
	}
	body, err := c.compileBody(l.Elems[2:], false)
	if err != nil {
		return nil, err
	}
	n.body = body
	return n, nil
}
