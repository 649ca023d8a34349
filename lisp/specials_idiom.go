package lisp

import (
	"errors"
	"slices"
	"strconv"
	"strings"
)

// Clojure forms models write that the specification leaves out, where
// they fit the sandbox (docs/LANGUAGE.md); their rows, marked idiom, are in
// specialForms. Most rewrite into forms the analyzer already has; try and
// with-out-str need nodes of their own.

// compileLetfn is (letfn [(f [x] ...) ...] body): the functions are
// bound as named fns, so each calls itself. When one calls a function
// defined after it (mutual recursion), they become one group: a function
// that makes the group's function i,
//
//	(let [letfn-f-g (fn letfn-f-g [i] (case i 0 (fn f [x] (let [g (letfn-f-g 1)] ...))
//	                                          1 (fn g [y] (let [f (letfn-f-g 0)] ...))))
//	      f (letfn-f-g 0)
//	      g (letfn-f-g 1)]
//	  body)
//
// in which each function makes the others it calls when it is called.
// Closures capture values, so two functions holding each other would make
// a value that contains itself; the group holds neither, only the code,
// and each function holds the group. It prints, and is kept between turns,
// as that source.
func compileLetfn(c *compiler, l *list, tail bool) (node, error) {
	specs, ok := optional(l.Elems, 1).(*Vector)
	if !ok {
		return nil, c.errorf(validationError, "letfn needs a vector of function specs").
			WithHint("write (letfn [(f [x] body)] (f 1))")
	}
	names := make([]symbol, 0, specs.Len())
	fns := make([]*list, 0, specs.Len())
	for _, s := range specs.Elems() {
		spec, ok := s.(*list)
		if !ok || len(spec.Elems) < 2 {
			return nil, c.errorf(validationError, "letfn takes specs like (f [x] body), got %s", formText(s)).
				WithHint("write each function as (name [params] body): (letfn [(f [x] body)] (f 1))")
		}
		name, ok := spec.Elems[0].(symbol)
		if !ok {
			return nil, c.errorf(validationError, "letfn takes specs like (f [x] body), got %s", formText(s)).
				WithHint("write each function as (name [params] body): (letfn [(f [x] body)] (f 1))")
		}
		names = append(names, name)
		fns = append(fns, &list{Elems: append([]Value{symbol("fn"), name}, spec.Elems[1:]...), Pos: spec.Pos})
	}
	binds := make([]Value, 0, 2*len(fns)+2)
	index := nameIndex(names)
	mutual, err := forwardReference(c, index, fns)
	if err != nil {
		return nil, err
	}
	if !mutual {
		for i, fn := range fns {
			binds = append(binds, names[i], fn)
		}
	} else {
		group := letfnGroupName(names)
		cases := []Value{symbol("case"), symbol("i")}
		for i, fn := range fns {
			f, err := withSiblings(c, fn, group, names, index, i)
			if err != nil {
				return nil, err
			}
			cases = append(cases, Int(i), f)
		}
		dispatch := &list{Elems: []Value{symbol("fn"), group, NewVector([]Value{symbol("i")}), &list{Elems: cases, Pos: l.Pos}}, Pos: l.Pos}
		binds = append(binds, group, dispatch)
		for i, name := range names {
			binds = append(binds, name, &list{Elems: []Value{group, Int(i)}, Pos: l.Pos})
		}
	}
	return compileLet(c, &list{Elems: append([]Value{symbol("let"), NewVector(binds)}, l.Elems[2:]...), Pos: l.Pos}, tail)
}

// forwardReference reports whether a function mentions one defined after it.
// Each function but the last is walked once, whatever the number of names.
func forwardReference(c *compiler, index map[symbol]int, fns []*list) (bool, error) {
	for i, fn := range fns[:max(len(fns)-1, 0)] {
		found, err := c.symbolsIn([]Value{fn})
		if err != nil {
			return false, err
		}
		for name := range found {
			if j, ok := index[name]; ok && j > i {
				return true, nil
			}
		}
	}
	return false, nil
}

// nameIndex maps each name to its position; a name given twice, to its last.
func nameIndex(names []symbol) map[symbol]int {
	index := make(map[symbol]int, len(names))
	for i, n := range names {
		index[n] = i
	}
	return index
}

// letfnGroupNameBytes bounds the names a group's name is made of: the name
// is in every function of the group, which would otherwise print and be
// kept as the group's functions times their names.
const letfnGroupNameBytes = 64

// letfnGroupName names a mutually recursive group after its functions,
// a name that reads back as a symbol and that no program is likely to
// bind inside them: the first names, up to letfnGroupNameBytes, and how
// many more there are.
func letfnGroupName(names []symbol) symbol {
	var b strings.Builder
	b.WriteString("letfn")
	for i, n := range names {
		if b.Len()+1+len(n) > letfnGroupNameBytes {
			b.WriteString("-and-" + strconv.Itoa(len(names)-i) + "-more")
			break
		}
		b.WriteString("-" + string(n))
	}
	return symbol(b.String())
}

// withSiblings is the fn form of group function i, each arity's body
// wrapped in a let that makes the other functions of the group it
// mentions, unless its parameters bind that name; index is nameIndex of
// names.
func withSiblings(c *compiler, fn *list, group symbol, names []symbol, index map[symbol]int, i int) (*list, error) {
	rest := fn.Elems[2:] // after fn and the name
	wrap := func(params *Vector, body []Value) ([]Value, error) {
		bound, err := c.symbolsIn([]Value{params})
		if err != nil {
			return nil, err
		}
		mentioned, err := c.symbolsIn(body)
		if err != nil {
			return nil, err
		}
		var siblings []int
		for name := range mentioned {
			if j, ok := index[name]; ok && j != i && !bound[name] {
				siblings = append(siblings, j)
			}
		}
		slices.Sort(siblings)
		var binds []Value
		for _, j := range siblings {
			binds = append(binds, names[j], &list{Elems: []Value{group, Int(j)}, Pos: fn.Pos})
		}
		if len(binds) == 0 {
			return body, nil
		}
		return []Value{&list{Elems: append([]Value{symbol("let"), NewVector(binds)}, body...), Pos: fn.Pos}}, nil
	}
	out := []Value{fn.Elems[0], fn.Elems[1]}
	if params, ok := optional(rest, 0).(*Vector); ok {
		body, err := wrap(params, rest[1:])
		if err != nil {
			return nil, err
		}
		return &list{Elems: append(append(out, params), body...), Pos: fn.Pos}, nil
	}
	for _, a := range rest { // (f ([x] ...) ([x y] ...))
		al, ok := a.(*list)
		if !ok || len(al.Elems) == 0 {
			out = append(out, a) // fn reports the malformed arity
			continue
		}
		params, ok := al.Elems[0].(*Vector)
		if !ok {
			out = append(out, a)
			continue
		}
		body, err := wrap(params, al.Elems[1:])
		if err != nil {
			return nil, err
		}
		out = append(out, &list{Elems: append([]Value{params}, body...), Pos: al.Pos})
	}
	return &list{Elems: out, Pos: fn.Pos}, nil
}

// symbolsIn is the set of symbols the forms mention anywhere. A letfn
// nested in another's function is walked again by each letfn around it,
// so the forms walked can be the program's nesting times its size: past
// as many forms as the program has bytes (freeWalks), each is a step.
func (c *compiler) symbolsIn(forms []Value) (map[symbol]bool, error) {
	found := map[symbol]bool{}
	walked := 0
	var walk func(fs []Value)
	walk = func(fs []Value) {
		walked += len(fs)
		for _, f := range fs {
			switch f := f.(type) {
			case symbol:
				found[f] = true
			case *list:
				walk(f.Elems)
			case *Vector:
				walk(f.Elems())
			case *mapForm:
				walk(f.Elems)
			case *setForm:
				walk(f.Elems)
			}
		}
	}
	walk(forms)
	c.freeWalks -= walked
	if c.freeWalks < 0 && c.th != nil {
		if err := c.th.step(int64(-c.freeWalks)); err != nil {
			return nil, err
		}
		c.freeWalks = 0
	}
	return found, nil
}

// compileWhenFirst is (when-first [x coll] body): body with x bound to
// the first item, when coll has one.
func compileWhenFirst(c *compiler, l *list, tail bool) (node, error) {
	v, ok := optional(l.Elems, 1).(*Vector)
	if !ok || v.Len() != 2 {
		return nil, c.errorf(validationError, "when-first takes a binding vector [x coll]").
			WithHint("write (when-first [x coll] body)")
	}
	s := c.tempSymbol()
	inner := &list{Elems: append([]Value{symbol("let"), NewVector([]Value{v.index(0), &list{Elems: []Value{symbol("clojure.core/first"), s}, Pos: l.Pos}})}, l.Elems[2:]...), Pos: l.Pos}
	when := &list{Elems: []Value{symbol("when"), &list{Elems: []Value{symbol("clojure.core/seq"), s}, Pos: l.Pos}, inner}, Pos: l.Pos}
	return compileLet(c, &list{Elems: []Value{symbol("let"), NewVector([]Value{s, v.index(1)}), when}, Pos: l.Pos}, tail)
}

// compileDoto is (doto x (f a) g): calls (f x a) and (g x) and returns x.
func compileDoto(c *compiler, l *list, tail bool) (node, error) {
	if len(l.Elems) < 2 {
		return nil, c.errorf(validationError, "doto needs a value").WithHint("write (doto x (f a))")
	}
	t := c.tempSymbol()
	body := []Value{symbol("let"), NewVector([]Value{t, l.Elems[1]})}
	for _, step := range l.Elems[2:] {
		body = append(body, threadInto(t, step, false))
	}
	body = append(body, t)
	return compileLet(c, &list{Elems: body, Pos: l.Pos}, tail)
}

// compileAssert is (assert test) and (assert test message): an error
// when test is falsy, as Clojure's AssertionError.
func compileAssert(c *compiler, l *list, tail bool) (node, error) {
	if len(l.Elems) < 2 || len(l.Elems) > 3 {
		return nil, c.errorf(validationError, "assert takes a test and an optional message").
			WithHint(`write (assert (pos? n) "n must be positive")`)
	}
	test, err := c.compile(l.Elems[1], false)
	if err != nil {
		return nil, err
	}
	n := &assertNode{test: test, text: formText(l.Elems[1]), pos: l.Pos}
	if len(l.Elems) == 3 {
		if n.message, err = c.compile(l.Elems[2], false); err != nil {
			return nil, err
		}
	}
	return n, nil
}

type assertNode struct {
	test, message node
	text          string
	pos           Pos
}

func (n *assertNode) eval(th *Thread, fr *frame) (Value, error) {
	v, err := n.test.eval(th, fr)
	if err != nil || truthy(v) {
		return Nil, err
	}
	msg := "Assert failed: " + n.text
	if n.message != nil {
		m, err := n.message.eval(th, fr)
		if err != nil {
			return nil, err
		}
		msg = "Assert failed: " + Str(m) + "\n" + n.text
	}
	return nil, withPos(&thrown{message: msg, kind: executionError, class: "AssertionError"}, n.pos)
}

// compileThrow is (throw e), e made by ex-info.
func compileThrow(c *compiler, l *list, tail bool) (node, error) {
	if len(l.Elems) != 2 {
		return nil, c.errorf(validationError, "throw takes one exception").
			WithHint(`write (throw (ex-info "what went wrong" {:key value}))`)
	}
	x, err := c.compile(l.Elems[1], false)
	if err != nil {
		return nil, err
	}
	return &throwNode{x: x, pos: l.Pos}, nil
}

type throwNode struct {
	x   node
	pos Pos
}

func (n *throwNode) eval(th *Thread, fr *frame) (Value, error) {
	v, err := n.x.eval(th, fr)
	if err != nil {
		return nil, err
	}
	if e, ok := v.(*thrown); ok {
		return nil, e
	}
	// Clojure casts what it throws to Throwable: nil fails as a
	// NullPointerException, any other value as a ClassCastException, each
	// with the message Java gives it.
	e := javaErrorf(typeError, "ClassCastException", "throw expected an exception made by ex-info, got %s", describe(v)).
		WithHint(`write (throw (ex-info "what went wrong" {:key value})), or (fail reason) to end the program`)
	if v == Nil {
		e.asJava("NullPointerException", `Cannot throw exception because "null" is null`)
	} else {
		e.asJava("ClassCastException", javaCastMessage(javaValueClass(v), "java.lang.Throwable"))
	}
	return nil, withPos(e, n.pos)
}

// compileTry is (try body... (catch Class e handler...) ... (finally ...)).
func compileTry(c *compiler, l *list, tail bool) (node, error) {
	n := &tryNode{pos: l.Pos}
	var body []Value
	for _, f := range l.Elems[1:] {
		cl, ok := f.(*list)
		head := symbol("")
		if ok && len(cl.Elems) > 0 {
			head, _ = cl.Elems[0].(symbol)
		}
		switch head {
		case "catch":
			if len(cl.Elems) < 3 {
				return nil, c.errorf(validationError, "catch takes a class, a name and a body").
					WithHint("write (catch Exception e (ex-message e))")
			}
			name, ok := cl.Elems[2].(symbol)
			if !ok {
				return nil, c.errorf(validationError, "catch takes a class, a name and a body, got %s", formText(cl))
			}
			mark := len(c.locals)
			slot := c.newLocal(string(name))
			handler, err := c.compileBody(cl.Elems[3:], false)
			c.locals = c.locals[:mark]
			if err != nil {
				return nil, err
			}
			n.catches = append(n.catches, catchClause{class: Repr(cl.Elems[1]), slot: slot, body: handler})
		case "finally":
			fin, err := c.compileBody(cl.Elems[1:], false)
			if err != nil {
				return nil, err
			}
			n.finally = fin
		default:
			if len(n.catches) > 0 || n.finally != nil {
				return nil, c.errorf(validationError, "try takes its body first, then catch and finally clauses")
			}
			body = append(body, f)
		}
	}
	b, err := c.compileBody(body, false)
	if err != nil {
		return nil, err
	}
	n.body = b
	return n, nil
}

type tryNode struct {
	body    node
	catches []catchClause
	finally node
	pos     Pos
}

type catchClause struct {
	class string
	slot  int
	body  node
}

func (n *tryNode) eval(th *Thread, fr *frame) (Value, error) {
	v, err := n.body.eval(th, fr)
	if err != nil {
		if e, made, ok := catchable(err); ok {
			for _, c := range n.catches {
				if catches(c.class, e) {
					if made {
						if cerr := chargeCaughtError(th, e); cerr != nil {
							v, err = nil, cerr // a budget error: not caught, finally still runs
							break
						}
					}
					fr.slots[c.slot] = e
					v, err = c.body.eval(th, fr)
					break
				}
			}
		}
	}
	if n.finally != nil {
		if _, ferr := n.finally.eval(th, fr); ferr != nil {
			return nil, ferr
		}
	}
	return v, err
}

// catchable returns the exception a catch clause sees for err, if a
// program may catch it: what it threw, and the interpreter's errors about
// its values (types, arithmetic, arity at run time, failed tools). Budget
// errors (steps, memory, depth, output, tool calls, time), return and
// fail, and a suspended tool call are never caught: a program must not be
// able to outlive its budget or hide how it ended.
func catchable(err error) (t *thrown, made, ok bool) {
	if errors.As(err, &t) {
		return t, false, true
	}
	var e *Error
	if !errors.As(err, &e) {
		return nil, false, false
	}
	switch e.Kind {
	case typeError, arithmeticError, executionError, arityErrorKind, toolError, undefinedSymbol, ambiguousReference:
		class := e.class
		switch {
		case class != "":
		case e.Kind == arithmeticError:
			class = "ArithmeticException"
		case e.Kind == arityErrorKind:
			class = "ArityException"
		}
		return &thrown{message: e.Message, kind: e.Kind, class: class, javaMessage: e.javaMessage, noMessage: e.javaNoMessage}, true, true
	}
	return nil, false, false
}

// chargeCaughtError charges for an interpreter's error a program caught:
// the failing call built it (its messages, the description of the value
// it refused, its position) outside any charge, since an error that is
// not caught ends the program; caught, it becomes a value, and a loop of
// failing calls could build and keep millions of them. heapCaughtError
// and each byte of its messages, written and copied a few times, are
// what building one allocates.
func chargeCaughtError(th *Thread, e *thrown) error {
	return th.alloc(heapCaughtError + heapCaughtErrorByte*int64(len(e.message)+len(e.javaMessage)))
}

// catches reports whether a catch clause of class catches e: by Java's
// hierarchy (javaSupers) when e's class is known. The interpreter's other
// type and execution errors, which Clojure throws as one of several
// classes, are caught by those it may be; a class name javaSupers does
// not know, and :default, catch every catchable error.
func catches(class string, e *thrown) bool {
	short := class[strings.LastIndexByte(class, '.')+1:]
	if _, known := javaSupers[short]; !known {
		return true
	}
	if e.class != "" {
		return isA(e.class, short)
	}
	switch short {
	case "Throwable", "Exception", "RuntimeException":
		return true
	case "ClassCastException", "IllegalArgumentException", "NullPointerException":
		return e.kind == typeError
	case "NumberFormatException", "IndexOutOfBoundsException", "StringIndexOutOfBoundsException", "IllegalStateException":
		// A value of the wrong type is a ClassCastException, an
		// IllegalArgumentException or a NullPointerException in Clojure,
		// never one of these: the parsers and index checks that throw them
		// name their class.
		return e.kind == executionError
	}
	return false
}

// compileWithOutStr is (with-out-str body...): what body prints, as a
// string, instead of output.
func compileWithOutStr(c *compiler, l *list, tail bool) (node, error) {
	body, err := c.compileBody(l.Elems[1:], false)
	if err != nil {
		return nil, err
	}
	return &withOutStrNode{body: body}, nil
}

type withOutStrNode struct{ body node }

func (n *withOutStrNode) eval(th *Thread, fr *frame) (Value, error) {
	if th.prog == nil {
		return nil, javaErrorf(executionError, noJavaClass, "with-out-str cannot run here")
	}
	saved := th.prog.capture
	var b strings.Builder
	th.prog.capture = &b
	_, err := n.body.eval(th, fr)
	th.prog.capture = saved
	if err != nil {
		return nil, err
	}
	return newString(th, b.String())
}
