package lisp

// Delays: (delay body...) is a cell whose body runs the first time it is
// dereferenced (@d, deref or force) and never again; its value, or the
// exception its body threw, is what every later deref gives, as in
// Clojure. A delay is an atom cell of its own kind (atom.delay): it lives
// only while the program runs, as an atom does.

// compileDelay compiles (delay body...) as a function of no arguments
// that the delay calls once.
func compileDelay(c *compiler, l *list, tail bool) (node, error) {
	fn, err := compileThunk(c, l)
	if err != nil {
		return nil, err
	}
	return &delayNode{fn: fn}, nil
}

// compileThunk compiles the body of (form body...) as (fn [] body...).
func compileThunk(c *compiler, l *list) (node, error) {
	return c.compile(&list{Pos: l.Pos, Elems: append([]Value{symbol("fn"), emptyVector}, l.Elems[1:]...)}, false)
}

type delayNode struct{ fn node }

func (n *delayNode) eval(th *Thread, fr *frame) (Value, error) {
	f, err := n.fn.eval(th, fr)
	if err != nil {
		return nil, err
	}
	if err := th.alloc(heapAtom); err != nil {
		return nil, err
	}
	return &atom{delay: true, thunk: f}, nil
}

// force runs a delay's body if it has not run, and gives its value or
// its exception. A body that derefs its own delay, directly or through
// other calls, runs again in Clojure until the stack overflows; here the
// inner deref throws that error at once, and the delay is not realized
// until its body returns.
func (a *atom) force(th *Thread) (Value, error) {
	if a.thunk != nil {
		if a.forcing {
			return nil, Errorf(executionError, "a delay's body needs its own value to make it").
				asJava("StackOverflowError", "")
		}
		a.forcing = true
		v, err := th.call(a.thunk, nil)
		a.forcing, a.thunk = false, nil
		if err != nil {
			a.failure = err
			return nil, err
		}
		a.value = v
	}
	if a.failure != nil {
		return nil, a.failure
	}
	return a.value, nil
}

// delayBuiltins are the functions of delays; deref is builtinDeref.
var delayBuiltins = []*Builtin{
	{Name: "force", Sig: "(force x)", Doc: "the value of delay x, running its body the first time; x itself if not a delay", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Cost: cost(calls(arg(0))),
		Fn: func(th *Thread, args []Value) (Value, error) {
			if a, ok := args[0].(*atom); ok && a.delay {
				return a.force(th)
			}
			return args[0], nil
		}},
	{Name: "delay?", Sig: "(delay? x)", Doc: "x was made by delay", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Cost: cost(constant),
		Fn: func(th *Thread, args []Value) (Value, error) {
			a, ok := args[0].(*atom)
			return boolValue(ok && a.delay), nil
		}},
	{Name: "realized?", Sig: "(realized? d)", Doc: "delay d's body has run, or lazy sequence d has begun to be read", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Cost: cost(constant),
		Fn: builtinRealized, asksLazy: true},
}

func builtinRealized(th *Thread, args []Value) (Value, error) {
	if a, ok := args[0].(*atom); ok && a.delay {
		return boolValue(a.thunk == nil), nil
	}
	if s, ok := args[0].(*infiniteSeq); ok && s.ends() && (s.isDrop() || !s.origin.cell) {
		return boolValue(s.realizedIn(th)), nil
	}
	return nil, castError("realized?", "a delay", args[0], "clojure.lang.IPending").
		WithHint("sequences here are built when they are made, so there is nothing to ask: write true")
}
