package lisp

import (
	"errors"
	"fmt"
	"strings"
)

// node is one compiled expression. The analysis pass turns each form into a
// tree of nodes once per program, with every symbol already resolved to a
// local slot, a captured value, a user definition, a builtin, a data key or
// a tool; evaluation then never looks at the source forms again.
type node interface {
	eval(th *Thread, fr *frame) (Value, error)
}

// frame is the activation of one function (or of the program's top level):
// its local slots, assigned at analysis time, and the values its closure
// captured when it was created.
//
// Nothing keeps a frame once its call returns: closures capture values,
// not frames, and no node stores the frame it runs in. So a closure call
// takes its frame from the thread's free list and gives it back on return
// (see Thread.takeFrame), and recursion allocates frames only as deep as
// it goes, not once per call.
type frame struct {
	slots []Value
	free  []Value
	// inline holds the slots of small functions; big those of larger ones,
	// kept across reuses of the frame.
	inline [4]Value
	big    []Value
}

func newFrame(nslots int, free []Value) *frame {
	fr := &frame{}
	fr.reset(nslots, free)
	return fr
}

// reset readies fr for a call with nslots empty slots.
func (fr *frame) reset(nslots int, free []Value) {
	fr.free = free
	switch {
	case nslots <= len(fr.inline):
		fr.slots = fr.inline[:nslots]
	case nslots <= cap(fr.big):
		fr.slots = fr.big[:nslots]
	default:
		fr.big = make([]Value, nslots)
		fr.slots = fr.big
	}
}

// recurMarker is returned by a recur node in place of a value. Analysis only
// allows recur in tail position, so the marker travels straight up through
// if/do/let to the loop or function that restarts with th.recurArgs.
type recurMarkerType struct{}

func (recurMarkerType) TypeName() string { return "recur" }

var recurMarker Value = recurMarkerType{}

// earlyReturn carries (return v) up to the top level.
type earlyReturn struct{ value Value }

func (*earlyReturn) Error() string { return "return" }

type constNode struct{ v Value }

func (n *constNode) eval(*Thread, *frame) (Value, error) { return n.v, nil }

type localNode struct{ slot int }

func (n *localNode) eval(_ *Thread, fr *frame) (Value, error) { return fr.slots[n.slot], nil }

type freeNode struct{ index int }

func (n *freeNode) eval(_ *Thread, fr *frame) (Value, error) { return fr.free[n.index], nil }

// globalNode reads a user definition by name. The lookup happens at run time
// because a def earlier in the program (or in an earlier turn) binds it; when
// it is not bound, the bare name falls back to data/ or tool/.
type globalNode struct {
	name string
	pos  Pos
}

func (n *globalNode) eval(th *Thread, _ *frame) (Value, error) {
	v, err := th.prog.lookupGlobal(n.name)
	if err != nil {
		return nil, withPos(err, n.pos)
	}
	return v, nil
}

// dataNode reads data/key.
type dataNode struct{ key string }

func (n *dataNode) eval(th *Thread, _ *frame) (Value, error) {
	return th.prog.dataValue(n.key), nil
}

// previousNode reads *1, *2 or *3.
type previousNode struct{ index int }

func (n *previousNode) eval(th *Thread, _ *frame) (Value, error) {
	if n.index < len(th.prog.previous) && th.prog.previous[n.index] != nil {
		return th.prog.previous[n.index], nil
	}
	return Nil, nil
}

type vectorNode struct{ elems []node }

func (n *vectorNode) eval(th *Thread, fr *frame) (Value, error) {
	elems, err := evalNodes(th, fr, n.elems)
	if err != nil {
		return nil, err
	}
	if err := th.allocVector(len(elems)); err != nil {
		return nil, err
	}
	v := NewVector(elems)
	return v, th.checkWeight(v)
}

type mapNode struct {
	elems []node // key, value, key, value ...
	class *recordClass
}

func (n *mapNode) eval(th *Thread, fr *frame) (Value, error) {
	if err := th.allocMap(len(n.elems) / 2); err != nil {
		return nil, err
	}
	b := NewMapBuilder(len(n.elems) / 2)
	for i := 0; i < len(n.elems); i += 2 {
		k, err := n.elems[i].eval(th, fr)
		if err != nil {
			return nil, err
		}
		if k, err = realizedKey(th, k); err != nil {
			return nil, err
		}
		v, err := n.elems[i+1].eval(th, fr)
		if err != nil {
			return nil, err
		}
		b.Set(k, v)
	}
	b.m.setClass(n.class)
	m := b.Map()
	return m, th.checkWeight(m)
}

type setNode struct{ elems []node }

func (n *setNode) eval(th *Thread, fr *frame) (Value, error) {
	elems, err := evalNodes(th, fr, n.elems)
	if err != nil {
		return nil, err
	}
	for i, e := range elems {
		if elems[i], err = realizedKey(th, e); err != nil {
			return nil, err
		}
	}
	if err := th.allocSet(len(elems)); err != nil {
		return nil, err
	}
	s := NewSet(elems)
	return s, th.checkWeight(s)
}

func evalNodes(th *Thread, fr *frame, nodes []node) ([]Value, error) {
	if len(nodes) == 0 {
		return nil, nil
	}
	out := make([]Value, len(nodes))
	for i, a := range nodes {
		v, err := a.eval(th, fr)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// callNode applies a function to arguments evaluated left to right.
type callNode struct {
	fn     node
	args   []node
	pos    Pos
	borrow bool // fn is a builtin whose row borrows its arguments
}

func (n *callNode) eval(th *Thread, fr *frame) (Value, error) {
	f, err := n.fn.eval(th, fr)
	if err != nil {
		return nil, err
	}
	if c, ok := f.(*closure); ok && len(n.args) <= 4 {
		return n.evalClosureCall(th, fr, c)
	}
	if _, closure := f.(*closure); n.borrow || closure {
		return n.evalBorrowed(th, fr, f)
	}
	args, err := evalNodes(th, fr, n.args)
	if err != nil {
		return nil, err
	}
	v, err := th.call(f, args)
	return th.callResult(v, err, n.pos)
}

// evalBorrowed evaluates the arguments onto the thread's scratch stack and
// calls f with them there, for an f that keeps no part of its argument
// slice (see borrowedCall). Calls nested in the arguments push above and
// pop back before the next argument.
func (n *callNode) evalBorrowed(th *Thread, fr *frame, f Value) (Value, error) {
	base := len(th.scratch)
	for _, a := range n.args {
		v, err := a.eval(th, fr)
		if err != nil {
			th.popScratch(base)
			return nil, err
		}
		th.scratch = append(th.scratch, v)
	}
	v, err := th.call(f, th.scratch[base:len(th.scratch):len(th.scratch)])
	th.popScratch(base)
	return th.callResult(v, err, n.pos)
}

// evalClosureCall calls a closure with up to four arguments held in an
// array on the Go stack: closure.Call copies them into its frame and keeps
// no part of the slice.
func (n *callNode) evalClosureCall(th *Thread, fr *frame, c *closure) (Value, error) {
	var buf [4]Value
	args := buf[:len(n.args)]
	for i, a := range n.args {
		v, err := a.eval(th, fr)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	v, err := th.callClosure(c, args)
	return th.callResult(v, err, n.pos)
}

// keywordCallNode is (:key coll), a callNode without the argument slice:
// the same steps, depth check and result, one allocation less per lookup.
type keywordCallNode struct {
	key  Keyword
	coll node
	pos  Pos
}

func (n *keywordCallNode) eval(th *Thread, fr *frame) (Value, error) {
	coll, err := n.coll.eval(th, fr)
	if err != nil {
		return nil, err
	}
	if err := th.enterCall(); err != nil {
		return nil, withPos(err, n.pos)
	}
	if _, ok := coll.(*transient); ok || orderOf(coll) != nil {
		// a transient may be used up; a sorted collection compares
		v, err := n.key.Call(th, []Value{coll})
		return th.callResult(v, err, n.pos)
	}
	v := n.key.get(coll, nil)
	if err := th.checkWeight(v); err != nil {
		return nil, withPos(err, n.pos)
	}
	return v, nil
}

// callResult is what a call node at pos answers for a call that returned
// v, err: v, unless the call failed or built a value too large to print,
// and then the error placed at the call.
func (th *Thread) callResult(v Value, err error, pos Pos) (Value, error) {
	if err == nil {
		err = th.checkWeight(v)
	}
	if err != nil {
		return nil, withPos(err, pos)
	}
	return v, nil
}

// notCallableNode is a call of a literal that is no function, as
// ((1 [1 2])): Clojure compiles it and throws its ClassCastException when
// the call runs, before the arguments are evaluated, so a try around it
// catches the error.
type notCallableNode struct {
	v    Value
	form string
	pos  Pos
}

func (n *notCallableNode) eval(*Thread, *frame) (Value, error) {
	return nil, withPos(notCallable(n.v, n.form), n.pos)
}

// notCallable is the error of calling v, which is no function, in the
// call written form: Clojure's ClassCastException, or its
// NullPointerException for nil.
func notCallable(v Value, form string) *Error {
	e := javaErrorf(typeError, "ClassCastException", "%s is not a function, so %s cannot be called", shown(v), form).
		WithHint("a list is a call; write data as a vector, e.g. [1 2 3]")
	if v == Nil {
		return e.asJava("NullPointerException", "")
	}
	return e.asJava("ClassCastException", javaCastMessage(javaValueClass(v), "clojure.lang.IFn"))
}

// withPos attaches a source position to an error that has none yet, so the
// innermost call that failed names its place in the program.
func withPos(err error, pos Pos) error {
	var e *Error
	if pos.Line > 0 && errors.As(err, &e) && e.Pos.Line == 0 {
		e.Pos = pos
	}
	return err
}

type ifNode struct{ cond, then, els node }

func (n *ifNode) eval(th *Thread, fr *frame) (Value, error) {
	c, err := n.cond.eval(th, fr)
	if err != nil {
		return nil, err
	}
	if truthy(c) {
		return n.then.eval(th, fr)
	}
	return n.els.eval(th, fr)
}

type doNode struct{ body []node }

func (n *doNode) eval(th *Thread, fr *frame) (Value, error) {
	var v Value = Nil
	for _, e := range n.body {
		var err error
		if v, err = e.eval(th, fr); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// andNode and orNode short-circuit and return the deciding value.
type andNode struct{ args []node }

func (n *andNode) eval(th *Thread, fr *frame) (Value, error) {
	var v Value = trueValue
	for _, a := range n.args {
		var err error
		if v, err = a.eval(th, fr); err != nil {
			return nil, err
		}
		if !truthy(v) {
			return v, nil
		}
	}
	return v, nil
}

type orNode struct{ args []node }

func (n *orNode) eval(th *Thread, fr *frame) (Value, error) {
	var v Value = Nil
	for _, a := range n.args {
		var err error
		if v, err = a.eval(th, fr); err != nil {
			return nil, err
		}
		if truthy(v) {
			return v, nil
		}
	}
	return v, nil
}

// binding is one pattern of a let or loop with its initial expression.
type binding struct {
	pat  pattern
	init node
}

type letNode struct {
	binds []binding
	body  node
}

func (n *letNode) eval(th *Thread, fr *frame) (Value, error) {
	for _, b := range n.binds {
		v, err := b.init.eval(th, fr)
		if err != nil {
			return nil, err
		}
		if err := b.pat.bind(th, fr, v); err != nil {
			return nil, err
		}
	}
	return n.body.eval(th, fr)
}

type loopNode struct {
	binds []binding
	body  node
	pos   Pos
}

func (n *loopNode) eval(th *Thread, fr *frame) (Value, error) {
	for _, b := range n.binds {
		v, err := b.init.eval(th, fr)
		if err != nil {
			return nil, err
		}
		if err := b.pat.bind(th, fr, v); err != nil {
			return nil, err
		}
	}
	for {
		v, err := n.body.eval(th, fr)
		if err != nil {
			return nil, err
		}
		if v != recurMarker {
			return v, nil
		}
		if err := th.step(1); err != nil {
			return nil, withPos(err, n.pos)
		}
		args := th.recurArgs
		th.recurArgs = nil
		for i, b := range n.binds {
			if err := b.pat.bind(th, fr, args[i]); err != nil {
				return nil, err
			}
		}
	}
}

type recurNode struct{ args []node }

func (n *recurNode) eval(th *Thread, fr *frame) (Value, error) {
	args, err := evalNodes(th, fr, n.args)
	if err != nil {
		return nil, err
	}
	th.recurArgs = args
	return recurMarker, nil
}

// defNode binds a user definition and returns its var.
type defNode struct {
	name string
	doc  string
	init node
	once bool // defonce: keep an existing definition
	// holdsAtom: the value form is (atom ...), bound for this evaluation
	// only (progState.defineForEvaluation).
	holdsAtom bool
	// attrs evaluates the metadata the name was written with, nil for
	// none (meta.go: defAttrs).
	attrs node
	pos   Pos
}

func (n *defNode) eval(th *Thread, fr *frame) (Value, error) {
	if n.once && th.prog.isDefined(n.name) {
		return &varRef{Name: n.name}, nil
	}
	v, err := n.init.eval(th, fr)
	if err != nil {
		return nil, err
	}
	attrs, doc, err := n.evalAttrs(th, fr)
	if err != nil {
		return nil, err
	}
	// Memory goes back to the caller with the turn: a value too large to
	// send fails here, where the program can be told which definition,
	// and before definable walks it.
	if limit := th.limits.MaxEmitBytes; limit > 0 && weightOf(v) > limit {
		return nil, withPos(emitError("the value of "+n.name, weightOf(v), limit), n.pos)
	}
	if err := n.chargeDefinition(th); err != nil {
		return nil, withPos(err, n.pos)
	}
	if a, ok := v.(*atom); ok && n.holdsAtom {
		th.prog.defineForEvaluation(n.name, a, doc)
		th.prog.globals[n.name].attrs = attrs
		return &varRef{Name: n.name}, nil
	}
	bad, isBad, deep, err := definable(th, v, th.prog.env.valueNesting())
	if err != nil {
		return nil, withPos(err, n.pos)
	}
	if _, ok := bad.(*atom); isBad && ok {
		// A function that closes over an atom (a counter, an id
		// generator, a delay that swap!s): it runs in this program as in
		// Clojure, and memory does not keep it, as (def x (atom ...)).
		if v, err = n.named(th, v); err != nil {
			return nil, err
		}
		th.prog.defineForEvaluation(n.name, v, doc)
		th.prog.globals[n.name].attrs = attrs
		th.prog.addRunWarning(Warning{Type: WarningEvaluationOnly, Message: fmt.Sprintf(
			"%s holds an atom, which lives only while the program runs: it is defined for this program and not kept between turns", n.name)})
		return &varRef{Name: n.name}, nil
	}
	if _, ok := bad.(*transient); isBad && ok {
		return nil, withPos(Errorf(validationError, "%s cannot be kept between turns: its value holds a transient, which lives only while the program runs", n.name).
			WithHint("def the value it holds: (def %s (persistent! t))", n.name), n.pos)
	}
	if isBad {
		what := withArticle(bad.TypeName())
		if b, isBuiltin := bad.(*Builtin); isBuiltin {
			what = "a function built by " + b.Name
		}
		return nil, withPos(Errorf(validationError, "%s cannot be kept between turns: its value holds %s, which has no source", n.name, what).
			WithHint("define functions with defn or fn, e.g. (defn %s [x] ...), or keep the value in a let", n.name), n.pos)
	}
	if v, err = n.named(th, v); err != nil {
		return nil, err
	}
	th.prog.define(n.name, v, doc, !deep)
	th.prog.globals[n.name].attrs = attrs
	return &varRef{Name: n.name}, nil
}

// chargeDefinition charges what evaluating the definition keeps besides
// its value: the var it returns, and for a name not yet defined in the
// evaluation, its global, its binding in memory and their entries
// (heapDefinition). A redefinition reuses them.
func (n *defNode) chargeDefinition(th *Thread) error {
	held := heapNamed + int64(len(n.name))
	if _, ok := th.prog.globals[n.name]; !ok {
		held += heapDefinition
	}
	return th.alloc(held)
}

// named gives an anonymous closure the definition's name, in a copy
// charged as the closure was.
func (n *defNode) named(th *Thread, v Value) (Value, error) {
	c, ok := v.(*closure)
	if !ok || c.name != "" {
		return v, nil
	}
	if err := th.alloc(c.heapShape()); err != nil {
		return nil, withPos(err, n.pos)
	}
	named := *c
	named.name = n.name
	return &named, nil
}

// caseNode matches a value against literal constants.
type caseNode struct {
	expr     node
	keys     map[any]int // hash key of a constant -> result index
	results  []node
	fallback node // nil: no default, no match is an error
	pos      Pos
}

func (n *caseNode) eval(th *Thread, fr *frame) (Value, error) {
	v, err := n.expr.eval(th, fr)
	if err != nil {
		return nil, err
	}
	if v, err = realizedKey(th, v); err != nil {
		return nil, withPos(err, n.pos)
	}
	if i, ok := n.keys[hashKey(v)]; ok {
		return n.results[i].eval(th, fr)
	}
	if n.fallback != nil {
		return n.fallback.eval(th, fr)
	}
	return nil, withPos(Errorf(executionError, "case has no clause matching %s", shown(v)).
		WithHint("add a default expression as the last form of case").
		asJava("IllegalArgumentException", "No matching clause: "+shownStr(v)), n.pos)
}

// condpNode: (condp pred expr test result ... default).
type condpNode struct {
	pred, expr node
	tests      []node
	results    []node
	arrows     []bool // the result is a function of the predicate's value (:>>)
	fallback   node
	pos        Pos
}

func (n *condpNode) eval(th *Thread, fr *frame) (Value, error) {
	p, err := n.pred.eval(th, fr)
	if err != nil {
		return nil, err
	}
	x, err := n.expr.eval(th, fr)
	if err != nil {
		return nil, err
	}
	for i, t := range n.tests {
		tv, err := t.eval(th, fr)
		if err != nil {
			return nil, err
		}
		ok, err := th.call(p, []Value{tv, x})
		if err != nil {
			return nil, withPos(err, n.pos)
		}
		if truthy(ok) {
			r, err := n.results[i].eval(th, fr)
			if err != nil || !n.arrows[i] {
				return r, err
			}
			v, err := call(th, "condp", r, ok)
			return v, withPos(err, n.pos)
		}
	}
	if n.fallback != nil {
		return n.fallback.eval(th, fr)
	}
	return nil, withPos(Errorf(executionError, "condp has no clause matching %s", shown(x)).
		WithHint("add a default expression as the last form of condp").
		asJava("IllegalArgumentException", "No matching clause: "+shownStr(x)), n.pos)
}

// forNode implements for (collecting) and doseq (discarding): nested
// iteration over binding clauses with :let, :when and :while modifiers.
type forNode struct {
	clauses []forClause
	body    node
	collect bool
	pos     Pos
}

type forClause struct {
	kind int // forBind, forLet, forWhen, forWhile
	pat  pattern
	expr node
	lets []binding
}

const (
	forBind = iota
	forLet
	forWhen
	forWhile
)

func (n *forNode) eval(th *Thread, fr *frame) (Value, error) {
	var out []Value
	if _, err := n.run(th, fr, 0, &out); err != nil {
		return nil, withPos(err, n.pos)
	}
	if !n.collect {
		return Nil, nil
	}
	if err := th.allocVector(len(out)); err != nil {
		return nil, err
	}
	return NewVector(out), nil
}

// run iterates clause i onward; it reports false when a :while ended the
// iteration of the enclosing binding.
func (n *forNode) run(th *Thread, fr *frame, i int, out *[]Value) (bool, error) {
	if i == len(n.clauses) {
		if err := th.step(1); err != nil {
			return false, err
		}
		v, err := n.body.eval(th, fr)
		if err != nil {
			return false, err
		}
		if n.collect {
			*out = append(*out, v)
		}
		return true, nil
	}
	c := n.clauses[i]
	switch c.kind {
	case forLet:
		for _, b := range c.lets {
			v, err := b.init.eval(th, fr)
			if err != nil {
				return false, err
			}
			if err := b.pat.bind(th, fr, v); err != nil {
				return false, err
			}
		}
		return n.run(th, fr, i+1, out)
	case forWhen, forWhile:
		v, err := c.expr.eval(th, fr)
		if err != nil {
			return false, err
		}
		if !truthy(v) {
			return c.kind == forWhen, nil
		}
		return n.run(th, fr, i+1, out)
	}
	coll, err := c.expr.eval(th, fr)
	if err != nil {
		return false, err
	}
	if s, ok := coll.(*infiniteSeq); ok {
		return n.runSeq(th, fr, i, s, out)
	}
	items, err := elemsForIteration(th, "for", coll)
	if err != nil {
		return false, err
	}
	for _, item := range items {
		if cont, err := n.runItem(th, fr, i, item, out); err != nil || !cont {
			return true, err
		}
	}
	return true, nil
}

// runItem runs clause i's binding to item and the clauses after it; it
// reports false when a :while ended the iteration of that binding.
func (n *forNode) runItem(th *Thread, fr *frame, i int, item Value, out *[]Value) (bool, error) {
	if err := th.step(1); err != nil {
		return false, err
	}
	if err := n.clauses[i].pat.bind(th, fr, item); err != nil {
		return false, err
	}
	return n.run(th, fr, i+1, out)
}

// runSeq iterates clause i over a lazy sequence, reading it an element at
// a time as Clojure's for does, so that a :while ends an endless one. One
// that never ends with no :while to end it is refused at once.
func (n *forNode) runSeq(th *Thread, fr *frame, i int, s *infiniteSeq, out *[]Value) (bool, error) {
	if !s.ends() && !n.endedByWhile(i) {
		return false, infiniteError("for", s)
	}
	g, err := s.reader(th)
	if err != nil {
		return false, err
	}
	for {
		item, err := g.next(th)
		if err == errSeqEnd {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		if cont, err := n.runItem(th, fr, i, item, out); err != nil || !cont {
			return true, err
		}
	}
}

// endedByWhile reports whether a :while stands between binding clause i
// and the next binding: only it ends the iteration of binding i early.
func (n *forNode) endedByWhile(i int) bool {
	for _, c := range n.clauses[i+1:] {
		switch c.kind {
		case forBind:
			return false
		case forWhile:
			return true
		}
	}
	return false
}

// elemsForIteration returns what destructuring and for iterate over: a
// vector's or set's elements, a map's [key value] entries, a string's
// characters, nothing for nil.
func elemsForIteration(th *Thread, fn string, v Value) ([]Value, error) {
	switch v := v.(type) {
	case *Vector:
		return v.Elems(), nil
	case *Set:
		return v.seqElems(th)
	case NilType:
		return nil, nil
	case *Map:
		entries, err := v.seqEntries(th)
		if err != nil {
			return nil, err
		}
		if err := th.allocVector(v.Len()); err != nil {
			return nil, err
		}
		out := make([]Value, v.Len())
		for i, e := range entries {
			if err := th.allocVector(2); err != nil {
				return nil, err
			}
			out[i] = newMapEntry(e.Key, e.Val)
		}
		return out, nil
	case String:
		s := string(v)
		if err := th.allocVector(len(s)); err != nil {
			return nil, err
		}
		out := make([]Value, 0, len(s))
		for _, r := range s {
			out = append(out, String(string(r)))
		}
		return out, nil
	}
	return nil, javaErrorf(typeError, "IllegalArgumentException", "%s expected a collection, got %s", fn, v.TypeName()).
		WithHint("iterate over a vector, map, set or string")
}

// quoted converts a quoted form to data: lists become list values, map
// and set literals maps and sets.
func quoted(f Value) Value {
	switch f := f.(type) {
	case *list:
		return newList(quotedAll(f.Elems))
	case *Vector:
		return NewVector(quotedAll(f.Elems()))
	case *mapForm:
		b := NewMapBuilder(len(f.Elems) / 2)
		for i := 0; i+1 < len(f.Elems); i += 2 {
			b.Set(quoted(f.Elems[i]), quoted(f.Elems[i+1]))
		}
		b.m.setClass(f.class)
		return b.Map()
	case *setForm:
		return newLiteralSet(quotedAll(f.Elems))
	case *metaForm:
		return quotedMeta(f)
	}
	return f
}

func quotedAll(fs []Value) []Value {
	out := make([]Value, len(fs))
	for i, f := range fs {
		out[i] = quoted(f)
	}
	return out
}

// formText is the source text of a form, for error messages.
func formText(f Value) string {
	s := shownIn(f, 60)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return strings.TrimSpace(s)
}

// binaryNode is a two-argument call of a builtin whose row has a fast case
// (Builtin.binary). Two integers take the fast path, which charges the
// steps the builtin's declaration charges (steps) and needs no argument
// slice; any other operands, and an integer overflow, go through the
// builtin itself.
type binaryNode struct {
	fn    *Builtin
	op    *binaryOp
	steps int64
	a, b  node
	pos   Pos
}

// binaryOp is the fast case of a builtin. ints is its value on two
// integers and whether it applies (false on overflow, where the builtin
// reports the error).
type binaryOp struct {
	ints func(x, y Int) (Value, bool)
	// scalars, when set, answers for any two values that are their own
	// hash key (nil, booleans, integers, strings, keywords): = and not=,
	// which weigh such arguments for free.
	scalars func(equal bool) Value
}

func (n *binaryNode) eval(th *Thread, fr *frame) (Value, error) {
	a, err := n.a.eval(th, fr)
	if err != nil {
		return nil, err
	}
	b, err := n.b.eval(th, fr)
	if err != nil {
		return nil, err
	}
	if err := th.enterCall(); err != nil {
		return nil, withPos(err, n.pos)
	}
	if x, ok := a.(Int); ok {
		if y, ok := b.(Int); ok {
			if v, ok := n.op.ints(x, y); ok {
				if n.steps > 0 {
					if err := th.step(n.steps); err != nil {
						return nil, withPos(err, n.pos)
					}
				}
				return v, nil
			}
		}
	}
	if n.op.scalars != nil && ownHashKey(a) && ownHashKey(b) {
		// What = and not= are declared to charge (compares) for two
		// values that are their own hash keys.
		if err := chargeEqualScalar(th, a); err != nil {
			return nil, withPos(err, n.pos)
		}
		if err := chargeEqualScalar(th, b); err != nil {
			return nil, withPos(err, n.pos)
		}
		return n.op.scalars(a == b), nil
	}
	base := len(th.scratch)
	th.scratch = append(th.scratch, a, b)
	th.depth++
	v, err := n.fn.Call(th, th.scratch[base:base+2:base+2])
	th.depth--
	th.popScratch(base)
	return th.callResult(v, err, n.pos)
}

// ownHashKey reports whether v is its own hashKey, so that Equal on two
// such values is ==.
func ownHashKey(v Value) bool {
	switch v.(type) {
	case NilType, Bool, Int, String, Keyword:
		return true
	}
	return false
}

// withArticle is a kind's name after its indefinite article: "an
// exception", "a delay".
func withArticle(name string) string {
	if name != "" && strings.ContainsRune("aeiou", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}
