package lisp

// Tree walking, as clojure.walk and tree-seq. Map entries are walked as
// [key value] vectors and must stay pairs to rebuild the map.
var walkBuiltins = []*Builtin{
	{Name: "walk", Sig: "(walk inner outer form)", Doc: "(outer form-with-inner-applied-to-each-item); scalars give (outer form)", Category: "collection",
		MinArgs: 3, MaxArgs: 3, Fn: func(th *Thread, args []Value) (Value, error) {
			inner := func(v Value) (Value, error) { return call(th, "walk", args[0], v) }
			outer := func(v Value) (Value, error) { return call(th, "walk", args[1], v) }
			return walkOnce(th, "walk", args[2], inner, outer, true)
		},
		Cost: cost(perArg(arg(2)), visits(arg(2)), copies(arg(2)), calls(argsFrom(0)))},
	{Name: "prewalk", Sig: "(prewalk f form)", Doc: "f applied to every node, parents before their children", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: func(th *Thread, args []Value) (Value, error) {
			return prewalk(th, args[0], args[1], 0)
		},
		// What is walked is what f returns for each node, known only as
		// f returns it.
		Cost: cost(calls(arg(0)), chargedInBody("a step per node, and each collection it rebuilds (walkOnce)"))},
	{Name: "postwalk", Sig: "(postwalk f form)", Doc: "f applied to every node, children before their parents", Category: "collection",
		MinArgs: 2, MaxArgs: 2, Fn: func(th *Thread, args []Value) (Value, error) {
			return postwalk(th, args[0], args[1], 0)
		},
		Cost: cost(rebuilds(arg(1)), calls(arg(0)))},
	{Name: "tree-seq", Sig: "(tree-seq branch? children root)", Doc: "every node in depth-first order; (children node) is called where (branch? node) is truthy", Category: "collection",
		MinArgs: 3, MaxArgs: 3, Fn: builtinTreeSeq,
		// The nodes are what children returns, known only as it returns.
		Cost: cost(calls(argsFrom(0)), chargedInBody("a step and an element per node it visits"))},
}

// walkOnce rebuilds a collection from inner applied to each item, then
// applies outer to the result. declared says the builtin's declaration
// charged the step and the rebuilt collection (walk, postwalk); prewalk
// walks what f returns, and walkOnce charges it.
func walkOnce(th *Thread, fn string, form Value, inner, outer func(Value) (Value, error), declared bool) (Value, error) {
	alloc := func(n int64) error {
		if declared {
			return nil
		}
		return th.alloc(n)
	}
	if !declared {
		if err := th.step(1); err != nil {
			return nil, err
		}
	}
	switch c := form.(type) {
	case *Vector:
		if err := alloc(vectorHeap.built(c.Len())); err != nil {
			return nil, err
		}
		out := make([]Value, 0, c.Len())
		for _, e := range c.elems {
			v, err := inner(e)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		// A list stays a list and an entry an entry, as Clojure's walk
		// rebuilds each (a MapEntry of the walked key and value).
		// A vector keeps its metadata, as Clojure 1.11's walk pours it
		// into (empty form); a list, rebuilt with (apply list ...),
		// does not.
		rebuilt := NewVector(out)
		rebuilt.form = newVectorForm(c.IsList(), c.isEntry(), nil)
		if c.IsList() {
			return outer(rebuilt)
		}
		return outer(keepMeta(c, rebuilt))
	case *Set:
		if err := alloc(setHeap.built(c.Len())); err != nil {
			return nil, err
		}
		elems, err := c.seqElems(th)
		if err != nil {
			return nil, err
		}
		out := make([]Value, 0, c.Len())
		for _, e := range elems {
			v, err := inner(e)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		if err := chargeKeys(th, out); err != nil {
			return nil, err
		}
		if o := orderOf(c); o != nil { // as Clojure's, which pours the items into (empty form)
			s, err := sortedSetOf(th, fn, o, out)
			if err != nil {
				return nil, err
			}
			return outer(keepMeta(c, s))
		}
		return outer(keepMeta(c, NewSet(out)))
	case *Map:
		entries, err := mapEntries(th, c)
		if err != nil {
			return nil, err
		}
		if err := alloc(mapHeap.built(c.Len())); err != nil {
			return nil, err
		}
		b := NewMapBuilder(c.Len())
		b.hashLike(c) // Clojure pours the entries into (empty form)
		if c.class() != nil {
			// and conjoins them onto a record itself: a changed key
			// leaves the old one in place.
			b.addAll(c)
		}
		for _, e := range entries {
			v, err := inner(e)
			if err != nil {
				return nil, err
			}
			if err := addEntry(th, b, fn, v); err != nil {
				return nil, err
			}
		}
		if o := orderOf(c); o != nil {
			m, err := resorted(th, fn, o, b.Map())
			if err != nil {
				return nil, err
			}
			return outer(keepMeta(c, m))
		}
		return outer(keepMeta(c, b.Map()))
	}
	return outer(form)
}

// walkDepth bounds recursion into nested values.
func walkDepth(th *Thread, fn string, depth int) error {
	limit := th.limitsInUse().MaxDepth // positive: see Limits.WithDefaults
	if depth > limit {
		return Errorf(depthLimit, "%s: data nested deeper than %d levels", fn, limit)
	}
	return nil
}

func prewalk(th *Thread, f, form Value, depth int) (Value, error) {
	if err := walkDepth(th, "prewalk", depth); err != nil {
		return nil, err
	}
	v, err := call(th, "prewalk", f, form)
	if err != nil {
		return nil, err
	}
	inner := func(x Value) (Value, error) { return prewalk(th, f, x, depth+1) }
	return walkOnce(th, "prewalk", v, inner, func(x Value) (Value, error) { return x, nil }, false)
}

func postwalk(th *Thread, f, form Value, depth int) (Value, error) {
	if err := walkDepth(th, "postwalk", depth); err != nil {
		return nil, err
	}
	inner := func(x Value) (Value, error) { return postwalk(th, f, x, depth+1) }
	outer := func(x Value) (Value, error) { return call(th, "postwalk", f, x) }
	return walkOnce(th, "postwalk", form, inner, outer, true)
}

func builtinTreeSeq(th *Thread, args []Value) (Value, error) {
	branch, children := args[0], args[1]
	var out []Value
	// Depth-first with an explicit stack of pending siblings.
	stack := [][]Value{{args[2]}}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		if len(top) == 0 {
			stack = stack[:len(stack)-1]
			continue
		}
		node := top[0]
		stack[len(stack)-1] = top[1:]
		if err := th.step(1); err != nil {
			return nil, err
		}
		if err := th.alloc(heapSlot); err != nil {
			return nil, err
		}
		out = append(out, node)
		isBranch, err := truthyCall(th, "tree-seq", branch, node)
		if err != nil {
			return nil, err
		}
		if !isBranch {
			continue
		}
		kids, err := call(th, "tree-seq", children, node)
		if err != nil {
			return nil, err
		}
		elems, err := seqOf(th, "tree-seq", kids, anySeq)
		if err != nil {
			return nil, err
		}
		if len(elems) > 0 {
			stack = append(stack, elems)
		}
	}
	return NewVector(out), nil
}
