package lisp

import (
	"slices"
	"strings"
)

// lambda is the compiled code of one fn form, shared by every closure made
// from it.
type lambda struct {
	selfName string // (fn name [...] ...): the name the body calls itself by
	arities  []*arity
	nslots   int
	// captures say where the creating frame holds each captured value;
	// freeNames are their names, used to print a closure as self-contained
	// source.
	captures  []capture
	freeNames []string
	form      *list // the source form, for printing and serialization
	// textSize is the length of the text a closure of it prints as,
	// without the values it captured (measureText).
	textSize int64
	// analysisBytes is what compiling its body was charged to build
	// besides its nodes (regex literals compiled once, constant
	// collections), which it holds with its code (Footprint).
	analysisBytes int64
	// extraDepth is the calls more than one that a call of it counts
	// against the depth limit: one per bodyLevelsPerCall levels its body
	// nests.
	extraDepth int
}

// bodyLevelsPerCall is the levels of nesting a function's body may have
// for a call of it to count once against the call depth limit. Evaluating
// a body recurses on the Go stack once per level (about 400 bytes a
// level), and the depth limit counted calls alone: a function whose body
// nests 900 levels, recursing 190 calls deep, grew the stack by 100 MiB
// no budget saw. Counting a call once per this many levels of its body
// keeps the stack below MaxDepth times it (20,000 levels, about 8 MiB, by
// default), and changes nothing for a body of ordinary nesting.
const bodyLevelsPerCall = 100

// measureText is the length of the text a closure of l prints as without
// the values it captured: its fn form, and the let around it that binds
// their names. Measuring it visits the form, charged to th (analysis): a
// fn nested in another is measured with each.
func (l *lambda) measureText(th *Thread) (int64, error) {
	t := textWriter{counting: true}
	if err := (&printer{out: &t, th: th}).print(l.form); err != nil {
		return 0, err
	}
	n := t.size()
	if len(l.freeNames) > 0 {
		n += int64(len("(let [") + len("] ") + len(")"))
		for i, name := range l.freeNames {
			n += int64(len(name) + 1) // the name and the space before its value
			if i > 0 {
				n++ // the space before the name
			}
		}
	}
	return n, nil
}

type arity struct {
	params []pattern // fixed parameters
	rest   pattern   // after &, or nil
	// paramSlots are the slots of the fixed parameters when each is a
	// plain name (no destructuring), nil otherwise.
	paramSlots []int
	selfSlot   int // slot holding the closure itself, -1 if unnamed
	body       node
	paramText  []string
	paramForm  *Vector // the parameter vector as written, for :arglists
}

// capture is where a closure-creating frame finds a captured value.
type capture struct {
	fromFree bool
	index    int
}

// fnNode creates a closure, capturing the current values of the locals its
// body uses. Values are immutable, so capturing by value is exact.
type fnNode struct{ lam *lambda }

func (n *fnNode) eval(th *Thread, fr *frame) (Value, error) {
	if err := th.allocClosure(len(n.lam.captures)); err != nil {
		return nil, err
	}
	var free []Value
	weight := n.lam.textSize
	if len(n.lam.captures) > 0 {
		free = make([]Value, len(n.lam.captures))
		for i, c := range n.lam.captures {
			if c.fromFree {
				free[i] = fr.free[c.index]
			} else {
				free[i] = fr.slots[c.index]
			}
			weight = addWeight(weight, weightOf(free[i]))
		}
	}
	c := &closure{lam: n.lam, free: free, weight: weight}
	return c, th.checkWeight(c)
}

// closure is a user function: compiled code plus the values it captured.
// It prints as self-contained PTC-Lisp source, which is also how it is
// stored in memory between turns.
type closure struct {
	lam  *lambda
	free []Value
	name string // the user definition it was bound to by def/defn, if any
	// weight counts its own text and the captured values, which it prints
	// with.
	weight int64
	meta   *Map // its metadata (meta.go), nil for none
}

// valueWeight is the size of the closure's source with its captured values.
func (c *closure) valueWeight() int64 { return max(c.weight, 1) }

// heldValues are the values the closure captured.
func (c *closure) heldValues() []Value { return c.free }

func (*closure) TypeName() string { return "function" }

// ParamNames lists the parameters of the first arity, with & before a rest
// parameter; destructuring patterns appear as written.
func (c *closure) ParamNames() []string { return c.lam.arities[0].paramText }

// Name is the user definition the closure was defined as, or "".
func (c *closure) Name() string { return c.name }

// writeText writes the closure as its fn form; when it captured locals,
// the form is wrapped in a let that binds them to their values, so the
// text is self-contained: (let [k 3] (fn [x] (* k x))).
func (c *closure) writeText(p *printer, i int) {
	switch {
	case len(c.free) == 0:
		p.form(c.lam.form)
	case i == 0:
		p.out.writeString("(let [")
		p.out.writeString(c.lam.freeNames[0])
		p.out.writeByte(' ')
	case i < len(c.free):
		p.out.writeByte(' ')
		p.out.writeString(c.lam.freeNames[i])
		p.out.writeByte(' ')
	default:
		p.out.writeString("] ")
		p.form(c.lam.form)
		p.out.writeByte(')')
	}
}

// Call applies the closure. recur in tail position restarts the body with
// new arguments without growing the Go stack; in a variadic arity, recur
// passes the rest parameter as one value, as in Clojure.
func (c *closure) Call(th *Thread, args []Value) (Value, error) {
	ar := c.lam.pick(len(args))
	if ar == nil {
		return nil, c.arityError(len(args))
	}
	return c.invoke(th, ar, args, nil)
}

// applyLazy is (apply c fixed... s) of a lazy or infinite sequence s,
// ar c's variadic arity, as Clojure applies it: it reads of s one more
// than the parameters ar names need; a sequence that ends within them is
// spread and the call takes the arity its count picks, else ar takes its
// parameters from fixed and then s, and its rest parameter the rest of
// s, unread.
func (c *closure) applyLazy(th *Thread, ar *arity, fixed []Value, s *infiniteSeq) (Value, error) {
	n := len(ar.params)
	need := max(n-len(fixed), 0)
	taken, err := s.realize(th, need+1)
	if err != nil {
		return nil, err
	}
	args, err := makeSlice(th, len(fixed)+len(taken))
	if err != nil {
		return nil, err
	}
	args = append(append(args, fixed...), taken...)
	if len(taken) <= need {
		return th.call(c, args)
	}
	var rest Value
	if len(fixed) > n {
		// The rest parameter holds the fixed arguments left, then s.
		if err := th.allocVector(len(fixed) - n); err != nil {
			return nil, err
		}
		rest, err = catSeq(th, []Value{NewVector(slices.Clone(fixed[n:])), s})
	} else {
		rest, err = lazyNthrest(true)(th, []Value{s, Int(need)}, s, nil)
	}
	if err != nil {
		return nil, err
	}
	if err := th.enterCall(); err != nil {
		return nil, err
	}
	th.depth++
	v, err := c.invoke(th, ar, args[:n], rest)
	th.depth--
	return v, err
}

// invoke runs arity ar of c on args. restArg, when not nil, is the value
// of ar's rest parameter, and args are its fixed parameters alone.
func (c *closure) invoke(th *Thread, ar *arity, args []Value, restArg Value) (Value, error) {
	if extra := c.lam.extraDepth; extra > 0 {
		return c.callDeep(th, ar, args, restArg, extra)
	}
	fr := th.takeFrame(c.lam.nslots, c.free)
	v, err := c.run(th, ar, fr, args, restArg)
	th.releaseFrame(fr)
	return v, err
}

// callDeep is invoke of a closure whose body nests deep enough to count
// as extra calls more against the depth limit.
func (c *closure) callDeep(th *Thread, ar *arity, args []Value, restArg Value, extra int) (Value, error) {
	if th.depth+extra > th.limits.MaxDepth {
		return nil, Errorf(depthLimit, "call depth limit of %d exceeded: a call of a function whose body nests %d levels or more counts as %d calls", th.limits.MaxDepth, extra*bodyLevelsPerCall, extra+1).
			WithHint("recursion is too deep for the function's nesting; flatten the body or use loop/recur")
	}
	th.depth += extra
	fr := th.takeFrame(c.lam.nslots, c.free)
	v, err := c.run(th, ar, fr, args, restArg)
	th.releaseFrame(fr)
	th.depth -= extra
	return v, err
}

// run binds args (and restArg, see invoke) in fr and evaluates the body,
// restarting it on recur.
func (c *closure) run(th *Thread, ar *arity, fr *frame, args []Value, restArg Value) (Value, error) {
	if ar.selfSlot >= 0 {
		fr.slots[ar.selfSlot] = c
	}
	if restArg == nil {
		if err := ar.bindArgs(th, fr, args); err != nil {
			return nil, err
		}
	} else {
		if err := ar.bindFixed(th, fr, args); err != nil {
			return nil, err
		}
		if err := ar.rest.bind(th, fr, restArg); err != nil {
			return nil, err
		}
	}
	for {
		v, err := ar.body.eval(th, fr)
		if err != nil {
			return nil, err
		}
		if v != recurMarker {
			if c.name != "" && th.prog != nil {
				th.prog.noteReturn(c, v)
			}
			return v, nil
		}
		if err := th.step(1); err != nil {
			return nil, err
		}
		rargs := th.recurArgs
		th.recurArgs = nil
		if err := ar.bindFixed(th, fr, rargs[:len(ar.params)]); err != nil {
			return nil, err
		}
		if ar.rest != nil {
			rest := ar.rest
			if sp, ok := rest.(*seqPattern); ok && sp.keywordParams {
				if _, isMap := rargs[len(ar.params)].(*Map); isMap {
					rest = sp.rest // (recur x {:step 2}) is the keyword arguments' map
				}
			}
			if err := rest.bind(th, fr, rargs[len(ar.params)]); err != nil {
				return nil, err
			}
		}
	}
}

func (ar *arity) bindFixed(th *Thread, fr *frame, args []Value) error {
	if ar.paramSlots != nil {
		for i, slot := range ar.paramSlots {
			fr.slots[slot] = args[i]
		}
		return nil
	}
	for i, p := range ar.params {
		if err := p.bind(th, fr, args[i]); err != nil {
			return err
		}
	}
	return nil
}

func (ar *arity) bindArgs(th *Thread, fr *frame, args []Value) error {
	if err := ar.bindFixed(th, fr, args); err != nil {
		return err
	}
	if ar.rest == nil {
		return nil
	}
	var restVal Value = Nil
	if extra := args[len(ar.params):]; len(extra) > 0 {
		if err := th.allocVector(len(extra)); err != nil {
			return err
		}
		restVal = NewVector(append([]Value(nil), extra...))
	}
	return ar.rest.bind(th, fr, restVal)
}

// variadic is l's arity with a rest parameter, nil when it has none.
func (l *lambda) variadic() *arity {
	for _, ar := range l.arities {
		if ar.rest != nil {
			return ar
		}
	}
	return nil
}

func (l *lambda) pick(n int) *arity {
	var variadic *arity
	for _, ar := range l.arities {
		if ar.rest == nil && len(ar.params) == n {
			return ar
		}
		if ar.rest != nil && n >= len(ar.params) {
			variadic = ar
		}
	}
	return variadic
}

func (c *closure) arityError(got int) *Error {
	name := c.name
	if name == "" {
		name = c.lam.selfName
	}
	if name == "" {
		name = "anonymous function"
	}
	var shapes []string
	for _, ar := range c.lam.arities {
		shapes = append(shapes, "["+strings.Join(ar.paramText, " ")+"]")
	}
	// Clojure names a program's function by its namespace, user/add; an
	// anonymous or local one by a generated class name no program can
	// know, of which user/fn keeps the part a program matches.
	javaName := "user/" + c.name
	if c.name == "" {
		javaName = "user/fn"
	}
	return Errorf(arityErrorKind, "%s called with %d argument%s", name, got, plural(got)).
		WithHint("it takes %s", strings.Join(shapes, " or ")).
		asJava("ArityException", wrongArgs(got, javaName))
}
