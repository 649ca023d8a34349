package lisp

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// idiomBuiltins are Clojure functions models reach for that the PTC-Lisp
// specification leaves out, where they fit the sandbox: deterministic and
// charged for their work. Their category, "idiom", is not one the system
// prompt lists, so supporting them costs no prompt tokens; they resolve,
// check their arity and appear in "did you mean" hints like every builtin.
// docs/LANGUAGE.md lists them.
var idiomBuiltins = []*Builtin{
	{Name: "reduced", Sig: "(reduced x)", Doc: "stop a reduce with x as its result", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Fn: func(th *Thread, args []Value) (Value, error) { return &reducedValue{args[0]}, nil },
		Cost: cost(constant)},
	{Name: "reduced?", Sig: "(reduced? x)", Doc: "x was made by reduced", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Fn: func(th *Thread, args []Value) (Value, error) {
			_, ok := args[0].(*reducedValue)
			return boolValue(ok), nil
		},
		Cost: cost(constant)},
	{Name: "reductions", Sig: "(reductions f coll) (reductions f init coll)", Doc: "the intermediate values of reduce", Category: "idiom",
		MinArgs: 2, MaxArgs: 3, Fn: builtinReductions,
		Cost: cost(calls(lastArg), builds), lazy: lazyReductions},
	{Name: "iterate", Sig: "(iterate f x)", Doc: "x, (f x), (f (f x)) ... without end: bound it with take or take-while", Category: "idiom",
		MinArgs: 2, MaxArgs: 2, Fn: func(th *Thread, args []Value) (Value, error) { return iterateSeq(th, args[0], args[1]) },
		Cost: cost(chargedInBody("the sequence as it is made (madeSeq); each element produced is a step and an element (seqGenerator.next)"))},
	{Name: "cycle", Sig: "(cycle coll)", Doc: "the items of coll repeated without end: bound it with take", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Fn: builtinCycle,
		Cost: cost(visits(arg(0)), chargedInBody("the sequence as it is made (madeSeq); each element produced is a step and an element (seqGenerator.next)")), lazy: lazyCycle},
	{Name: "rseq", Sig: "(rseq v)", Doc: "the items of a vector, sorted map or sorted set in reverse, or nil when empty", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Fn: builtinRseq,
		Cost: cost(visits(arg(0)), builds)},
	{Name: "symbol", Sig: "(symbol name)", Doc: "the symbol called name", Category: "idiom",
		MinArgs: 1, MaxArgs: 2, Fn: builtinSymbol,
		Cost: cost(scans(allArgs), chargedInBody("the symbol's name, charged as a string"))},
	{Name: "char", Sig: "(char n)", Doc: "the character with code n, a one-character string", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Fn: builtinChar,
		Cost: cost(builds)},
	{Name: "seq?", Sig: "(seq? x)", Doc: "x is a list", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Fn: func(th *Thread, args []Value) (Value, error) {
			_, lazy := args[0].(*infiniteSeq) // a lazy sequence is a seq, as Clojure's LazySeq
			return boolValue(lazy || isList(args[0])), nil
		},
		Cost: cost(constant)},
	{Name: "namespace", Sig: "(namespace k)", Doc: "the namespace of a keyword or symbol, or nil", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Fn: builtinNamespace,
		Cost: cost(constant)},
	{Name: "array-map", Sig: "(array-map k v ...)", Doc: "map of the pairs, in order", Category: "idiom",
		MinArgs: 0, MaxArgs: variadic, Fn: builtinArrayMap,
		Cost: cost(hashesKeys(0), chargedInBody("the map as it grows (chargeGrowth)"))},
	{Name: "memoize", Sig: "(memoize f)", Doc: "f remembering its results for the rest of the evaluation", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Fn: builtinMemoize,
		Cost: cost(builds)},
	{Name: "keywordize-keys", Sig: "(keywordize-keys x)", Doc: "x with every string map key, at any depth, made a keyword", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Fn: keyWalker(func(k Value) Value {
			if s, ok := k.(String); ok {
				return Keyword(s)
			}
			return k
		}),
		Cost: cost(rebuilds(arg(0)))},
	{Name: "stringify-keys", Sig: "(stringify-keys x)", Doc: "x with every keyword map key, at any depth, made a string", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Fn: keyWalker(func(k Value) Value {
			if s, ok := k.(Keyword); ok {
				return String(s[strings.LastIndexByte(string(s), '/')+1:]) // its name, as Clojure's (name k)
			}
			return k
		}),
		Cost: cost(rebuilds(arg(0)))},
	{Name: "trampoline", Sig: "(trampoline f args...)", Doc: "call f, then its result while that is a function", Category: "idiom",
		MinArgs: 1, MaxArgs: variadic, Fn: builtinTrampoline,
		Cost: cost(calls(allArgs))},
	{Name: "atom", Sig: "(atom x)", Doc: "a mutable cell holding x, for this evaluation only", Category: "idiom",
		MinArgs: 1, MaxArgs: 5, arities: []int{1, 3, 5}, Fn: builtinAtom,
		Cost: cost(chargedInBody("the atom (heapAtom)"), calls(arg(2)))},
	{Name: "deref", Sig: "(deref a)", Doc: "the value an atom holds; @a is the same", Category: "idiom",
		MinArgs: 1, MaxArgs: 3, arities: []int{1, 3}, Fn: builtinDeref,
		Cost: cost(constant)},
	{Name: "swap!", Sig: "(swap! a f args...)", Doc: "set atom a to (f @a args...) and return it", Category: "idiom",
		MinArgs: 2, MaxArgs: variadic, Fn: builtinSwap,
		Cost: cost(calls(arg(1)))},
	{Name: "reset!", Sig: "(reset! a x)", Doc: "set atom a to x and return x", Category: "idiom",
		MinArgs: 2, MaxArgs: 2, Fn: builtinReset,
		Cost: cost(constant)},
	{Name: "swap-vals!", Sig: "(swap-vals! a f args...)", Doc: "set atom a to (f @a args...) and return [old new]", Category: "idiom",
		MinArgs: 2, MaxArgs: variadic, Fn: builtinSwapVals,
		Cost: cost(calls(arg(1)), builds)},
	{Name: "reset-vals!", Sig: "(reset-vals! a x)", Doc: "set atom a to x and return [old x]", Category: "idiom",
		MinArgs: 2, MaxArgs: 2, Fn: builtinResetVals,
		Cost: cost(builds)},
	{Name: "ex-info", Sig: "(ex-info message data) (ex-info message data cause)", Doc: "an error to throw, carrying a message and a map", Category: "idiom",
		MinArgs: 2, MaxArgs: 3, Fn: builtinExInfo,
		Cost: cost(constant)},
	{Name: "ex-message", Sig: "(ex-message e)", Doc: "the message of a caught error", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Fn: func(th *Thread, args []Value) (Value, error) { return exMessage(args[0]), nil },
		Cost: cost(constant)},
	throwableMethod(".getMessage", "the message of a caught error, as ex-message", exMessage),
	{Name: "ex-cause", Sig: "(ex-cause e)", Doc: "the exception a caught error wraps (ex-info's third argument), or nil", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Fn: func(th *Thread, args []Value) (Value, error) { return exCause(args[0]), nil },
		Cost: cost(constant)},
	throwableMethod(".getCause", "the exception a caught error wraps, as ex-cause", exCause),
	{Name: "ex-data", Sig: "(ex-data e)", Doc: "the data map of a caught error, or nil", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Fn: func(th *Thread, args []Value) (Value, error) {
			if e, ok := args[0].(*thrown); ok && e.data != nil {
				return e.data, nil
			}
			return Nil, nil
		},
		Cost: cost(constant)},
	{Name: "transduce", Sig: "(transduce xform f coll) (transduce xform f init coll)", Doc: "reduce with f over coll passed through xform", Category: "idiom",
		MinArgs: 3, MaxArgs: 4, Fn: builtinTransduce,
		Cost: cost(visits(lastArg), calls(lastArg))},
	{Name: "completing", Sig: "(completing f) (completing f cf)", Doc: "f as a reducing function whose one-argument arity, called when transduce is done, is cf (identity by default)", Category: "idiom",
		MinArgs: 1, MaxArgs: 2, Fn: builtinCompleting,
		Cost: cost(builds)},
	{Name: "eduction", Sig: "(eduction xform ... coll)", Doc: "the items of coll passed through the transducers in order, as sequence", Category: "idiom",
		MinArgs: 2, MaxArgs: variadic, Fn: builtinEduction,
		Cost: cost(visits(lastArg), calls(lastArg), chargedInBody("an element per item the transducers pass on (transduceInto), and the vector of them")), lazy: lazyEduction},
	{Name: "cat", Sig: "(cat rf)", Doc: "the transducer that passes on each item of each item: (into [] cat [[1] [2 3]])", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Fn: builtinCat,
		Cost: cost(builds)},
	{Name: "sequence", Sig: "(sequence coll) (sequence xform coll)", Doc: "the items of coll, passed through xform", Category: "idiom",
		MinArgs: 1, MaxArgs: 2, Fn: builtinSequence,
		// A transducer may pass on any number of items per item (mapcat),
		// so they are counted against the budget as they come.
		Cost: cost(visits(lastArg), calls(lastArg), chargedInBody("an element per item the transducer passes on (transduceInto), and the vector of them")), lazy: lazySequence},
}

// reducedValue is (reduced x): reduce and transduce stop at it.
type reducedValue struct{ v Value }

func (*reducedValue) TypeName() string { return "reduced" }

// unreduced reports whether v is (reduced x), and x.
func unreduced(v Value) (Value, bool) {
	if r, ok := v.(*reducedValue); ok {
		return r.v, true
	}
	return v, false
}

func builtinReductions(th *Thread, args []Value) (Value, error) {
	f := args[0]
	elems, err := seqOf(th, "reductions", args[len(args)-1], anySeq)
	if err != nil {
		return nil, err
	}
	var acc Value
	if len(args) == 3 {
		acc = args[1]
	} else {
		if len(elems) == 0 {
			v, err := call(th, "reductions", f)
			if err != nil {
				return nil, err
			}
			return NewVector([]Value{v}), nil
		}
		acc, elems = elems[0], elems[1:]
	}
	out := make([]Value, 0, len(elems)+1)
	out = append(out, acc)
	for _, e := range elems {
		if acc, err = call(th, "reductions", f, acc, e); err != nil {
			return nil, err
		}
		v, stop := unreduced(acc)
		out = append(out, v)
		if stop {
			break
		}
	}
	return NewVector(out), nil
}

func builtinCycle(th *Thread, args []Value) (Value, error) {
	elems, err := seqOf(th, "cycle", args[0], anySeq)
	if err != nil {
		return nil, err
	}
	if len(elems) == 0 {
		return emptyList, nil
	}
	return cycleSeq(th, elems)
}

func builtinRseq(th *Thread, args []Value) (Value, error) {
	v, ok := args[0].(*Vector)
	if (!ok || v.IsList()) && orderOf(args[0]) == nil {
		return nil, typeErrorf("rseq", "a vector or a sorted collection", args[0]).WithHint("use (reverse coll) for other collections").castFails(args[0])
	}
	if itemCount(args[0]) == 0 {
		return Nil, nil
	}
	return builtinReverse(th, args)
}

func builtinSymbol(th *Thread, args []Value) (Value, error) {
	var parts []string
	if len(args) == 2 {
		// (symbol ns name) takes two strings, the namespace maybe nil
		// (Clojure casts both to String)
		for i, a := range args {
			if _, ok := a.(String); !ok && !(i == 0 && isNilValue(a)) {
				return nil, typeErrorf("symbol", "a string", a).asJava("ClassCastException", "")
			}
		}
		if isNilValue(args[0]) {
			args = args[1:]
		}
	}
	for _, a := range args {
		switch a := a.(type) {
		case String:
			parts = append(parts, string(a))
		case Keyword:
			parts = append(parts, string(a))
		case symbol:
			parts = append(parts, string(a))
		default:
			// Clojure's "no conversion to symbol", nil included
			return nil, typeErrorf("symbol", "a string", a).asJava("IllegalArgumentException", "")
		}
	}
	name := strings.Join(parts, "/")
	if !symbolReads(name) {
		// Only names that read back as a symbol: a value must survive the wire.
		return nil, javaErrorf(executionError, noJavaClass, "symbol cannot be named %q: it would not read back as a symbol", name).
			WithHint("use a keyword or a string for arbitrary names: (keyword s)")
	}
	if err := th.allocString(len(name)); err != nil {
		return nil, err
	}
	return symbol(name), nil
}

// builtinChar is Clojure's char: a code from 0 to 65535 (a Java char), or
// a character, which here is a one-character string.
func builtinChar(th *Thread, args []Value) (Value, error) {
	var code float64
	switch x := args[0].(type) {
	case Int:
		code = float64(x)
	case Float, Float32:
		f, _ := floatValue(x)
		code = math.Trunc(f)
	case *BigInt, *BigDec:
		// Clojure takes the number's long value, then checks its range.
		n, err := toInteger("long")(th, args)
		if err != nil {
			return nil, err
		}
		code = float64(n.(Int))
	case String:
		if utf8.RuneCountInString(string(x)) == 1 {
			return x, nil
		}
		return nil, typeErrorf("char", "a number or a character", x)
	default:
		return nil, typeErrorf("char", "a number", x)
	}
	if !(code >= 0 && code <= 0xFFFF) {
		return nil, Errorf(executionError, "char: %s is out of range for a character", shown(args[0])).
			WithHint("a character code is from 0 to 65535: (char 65) is \\A").
			asJava("IllegalArgumentException", "")
	}
	if code >= 0xD800 && code <= 0xDFFF {
		return nil, javaErrorf(executionError, noJavaClass, "char: %s is out of range for a character", shown(args[0])).
			WithHint("a character code is from 0 to 65535: (char 65) is \\A")
	}
	return String(string(rune(code))), nil
}

func builtinNamespace(th *Thread, args []Value) (Value, error) {
	var name string
	switch a := args[0].(type) {
	case Keyword:
		name = string(a)
	case symbol:
		name = string(a)
	default:
		return nil, typeErrorf("namespace", "a keyword or symbol", a)
	}
	if i := strings.IndexByte(name, '/'); i >= 0 && name != "/" { // name's namePart is the rest
		return String(name[:i]), nil
	}
	return Nil, nil
}

// builtinMemoize makes (memoize f): a function that prints and is kept
// between turns as (memoize f), and whose cache belongs to the evaluation
// (progState.memo), never to the value: a value from memory may be shared
// by concurrent evaluations, and a cache in it would be shared state.
func builtinMemoize(th *Thread, args []Value) (Value, error) {
	f := args[0]
	if _, ok := f.(Callable); !ok {
		return nil, typeErrorf("memoize", "a function", f)
	}
	id := new(byte) // this memoized function, as a key of the evaluation's caches
	return madeFn(th, "memoize", args, func(th *Thread, xs []Value) (Value, error) {
		if th.prog == nil {
			return th.call(f, xs)
		}
		key, err := realizedKey(th, NewVector(slices.Clone(xs)))
		if err != nil {
			return nil, err
		}
		hk := hashKey(key)
		cache := th.prog.memo[id]
		if v, ok := cache[hk]; ok {
			return v, nil
		}
		v, err := th.call(f, xs)
		if err != nil {
			return nil, err
		}
		if err := th.alloc(heapMemoEntry); err != nil {
			return nil, err
		}
		if cache == nil {
			if th.prog.memo == nil {
				th.prog.memo = map[*byte]map[any]Value{}
			}
			cache = map[any]Value{}
			th.prog.memo[id] = cache
		}
		cache[hk] = v
		return v, nil
	})
}

// keyWalker is a clojure.walk key rewrite: every map, at any depth (in
// vectors, lists, sets and maps), gets its keys passed through key, as
// Clojure's postwalk does it; a map comes out plain, and functions are
// left whole. It walks with the walk (walk.go), rebuilding each
// collection as the walk leaves it; the declaration (rebuilds) charged
// the walk and the collections.
func keyWalker(key func(Value) Value) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		w := newWalk(nil, args[0], MaxValueNesting)
		var levels [][]Value // the rebuilt parts of each collection being walked
		var result Value
		add := func(v Value) {
			if n := len(levels); n > 0 {
				levels[n-1] = append(levels[n-1], v)
			} else {
				result = v
			}
		}
		for ev, at := w.next(); ev != walkDone; ev, at = w.next() {
			if ev == walkLeave {
				parts := levels[len(levels)-1]
				levels = levels[:len(levels)-1]
				add(rebuiltWithKeys(at, parts, key))
				continue
			}
			if _, ok := at.(holder); ok {
				w.skip()
			}
			if w.entered() {
				levels = append(levels, make([]Value, 0, itemCount(at)))
				continue
			}
			add(at)
		}
		if w.err != nil {
			return nil, walkTooDeepError()
		}
		return result, nil
	}
}

// rebuiltWithKeys is the collection v with the parts given, a map's keys
// passed through key.
func rebuiltWithKeys(v Value, parts []Value, key func(Value) Value) Value {
	switch c := v.(type) {
	case *Map:
		b := NewMapBuilder(len(parts) / 2)
		if !c.isHashMap() {
			for i := 0; i+1 < len(parts); i += 2 {
				b.Set(key(parts[i]), parts[i+1])
			}
			return b.Map()
		}
		// Clojure pours a hash map's entries into {} in the map's order;
		// the rebuild is charged with the walk (rebuilds), and so is this.
		perm, _ := hamtPerm(nil, c.Len(), 0, func(i int) Value { return c.entries[i].Key })
		for _, i := range perm {
			b.Set(key(parts[2*i]), parts[2*i+1])
		}
		return b.Map()
	case *Set:
		return keepSetOrder(NewSet(parts), c)
	case *Vector:
		if c.IsList() {
			return newList(parts)
		}
		return NewVector(parts)
	}
	return v
}

func builtinTrampoline(th *Thread, args []Value) (Value, error) {
	v, err := th.call(args[0], slices.Clone(args[1:]))
	for err == nil {
		if _, ok := v.(Callable); !ok {
			return v, nil
		}
		switch v.(type) {
		case Keyword, *Map, *Set, *Vector:
			return v, nil
		}
		v, err = th.call(v, nil)
	}
	return nil, err
}

// atom is a mutable cell. Atoms exist only inside the evaluation that made
// them: nothing outlives it but values, so a program cannot keep one in
// memory (def of an atom fails with a hint to keep its value) nor return
// one (the result must be its value, @a).
type atom struct {
	value     Value
	validator Value       // (atom x :validator f), set-validator!; nil for none
	watches   []atomWatch // add-watch, in the order added
	volatile  bool        // made by volatile!: vswap! and vreset! take it, swap! and reset! do not
	delay     bool        // made by delay (delay.go): deref and force run thunk once
	thunk     Value       // a delay's body as a function, until it has run
	forcing   bool        // a delay's body is running: a deref inside it needs the value it makes
	failure   error       // what a delay's body threw, thrown again by every deref
	meta      *Map        // (atom x :meta m), alter-meta!, reset-meta!; nil for none
}

func (a *atom) TypeName() string {
	switch {
	case a.volatile:
		return "volatile"
	case a.delay:
		return "delay"
	}
	return "atom"
}

func atomArg(fn string, v Value) (*atom, error) {
	a, ok := v.(*atom)
	if !ok {
		return nil, typeErrorf(fn, "an atom", v).WithHint("make one with (atom initial-value)")
	}
	if a.volatile {
		return nil, castError(fn, "an atom", v, "clojure.lang.IAtom").
			WithHint("a volatile takes (vswap! v f) and (vreset! v x)")
	}
	if a.delay {
		return nil, castError(fn, "an atom", v, "clojure.lang.IAtom").
			WithHint("a delay is read with @d or (force d) and never changes: make a cell that changes with (atom x)")
	}
	return a, nil
}

// builtinDeref is @x of an atom, a volatile or a delay.
func builtinDeref(th *Thread, args []Value) (Value, error) {
	if len(args) > 1 {
		// (deref ref timeout-ms timeout-val) is for futures and promises,
		// which the sandbox has not: Clojure's cast of anything else fails
		return nil, derefWithTimeout(args)
	}
	a, ok := args[0].(*atom)
	if !ok {
		return atomArg("deref", args[0])
	}
	if a.delay {
		return a.force(th)
	}
	return a.value, nil
}

func derefWithTimeout(args []Value) error {
	e := typeErrorf("deref", "a future or a promise with a timeout, which the sandbox has not", args[0])
	if isNilValue(args[0]) {
		return e
	}
	return e.asJava("ClassCastException", "")
}

func builtinSwap(th *Thread, args []Value) (Value, error) {
	a, err := atomArg("swap!", args[0])
	if err != nil {
		return nil, err
	}
	return a.swap(th, args[1], args[2:])
}

// swap sets the cell to (f value args...) and returns that.
func (a *atom) swap(th *Thread, f Value, args []Value) (Value, error) {
	v, err := th.call(f, append([]Value{a.value}, args...))
	if err != nil {
		return nil, err
	}
	if err := th.checkWeight(v); err != nil {
		return nil, err
	}
	return v, a.set(th, v)
}

func builtinReset(th *Thread, args []Value) (Value, error) {
	a, err := atomArg("reset!", args[0])
	if err != nil {
		return nil, err
	}
	return args[1], a.set(th, args[1])
}

// builtinSwapVals is swap! returning the value before and after.
func builtinSwapVals(th *Thread, args []Value) (Value, error) {
	a, err := atomArg("swap-vals!", args[0])
	if err != nil {
		return nil, err
	}
	old := a.value
	v, err := builtinSwap(th, args)
	if err != nil {
		return nil, err
	}
	return newVector(th, []Value{old, v})
}

func builtinResetVals(th *Thread, args []Value) (Value, error) {
	a, err := atomArg("reset-vals!", args[0])
	if err != nil {
		return nil, err
	}
	old := a.value
	if _, err := builtinReset(th, args); err != nil {
		return nil, err
	}
	return newVector(th, []Value{old, args[1]})
}

// thrown is an error a program threw with (throw (ex-info ...)) or one of
// the interpreter's own errors caught by catch. Budget errors are never
// caught (see catchable).
type thrown struct {
	message string
	data    *Map
	kind    ErrorKind
	// class is the short name of its Java class where known (javaSupers);
	// javaMessage, when set, the message Clojure's exception carries.
	class, javaMessage string
	// cause is the exception ex-info's third argument wraps, or nil.
	cause *thrown
	// noMessage is set for (ex-info nil data): ex-message is nil.
	noMessage bool
}

func (*thrown) TypeName() string { return "exception" }

func (e *thrown) Error() string { return e.message }

// exMessage is the message of e, a caught exception, as a Clojure
// program reads it; nil for anything else.
func exMessage(e Value) Value {
	t, ok := e.(*thrown)
	switch {
	case !ok || t.noMessage:
		return Nil
	case t.javaMessage != "":
		return String(t.javaMessage)
	}
	return String(t.message)
}

func builtinExInfo(th *Thread, args []Value) (Value, error) {
	msg, ok := args[0].(String)
	if !ok && args[0] != Nil {
		return nil, typeErrorf("ex-info", "a message string", args[0])
	}
	if err := th.alloc(heapThrown); err != nil {
		return nil, err
	}
	e := &thrown{message: string(msg), kind: executionError, class: "ExceptionInfo", noMessage: !ok}
	if d, ok := args[1].(*Map); ok {
		e.data = d
	} else {
		// Clojure's ExceptionInfo refuses nil data too.
		err := typeErrorf("ex-info", "a data map", args[1]).WithHint("pass a map, {} for none: (ex-info %s {})", shown(args[0])).castFails(args[1])
		if args[1] == Nil {
			err = err.asJava("IllegalArgumentException", "Additional data must be non-nil.")
		}
		return nil, err
	}
	if len(args) > 2 {
		switch c := args[2].(type) {
		case *thrown:
			e.cause = c
		case NilType:
		default:
			return nil, typeErrorf("ex-info", "a caught exception as the cause", args[2]).
				WithHint("pass the exception a catch clause binds: (catch Exception e (throw (ex-info \"msg\" {} e)))")
		}
	}
	return e, nil
}

// throwableMethod is a method of Java's Throwable, read from a caught
// exception: anything else is a type error, as the method is not there.
func throwableMethod(name, doc string, read func(Value) Value) *Builtin {
	return &Builtin{Name: name, Sig: "(" + name + " e)", Doc: doc, Category: "idiom", reach: javaForm,
		MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			if _, ok := args[0].(*thrown); !ok {
				// Clojure's reflector finds no such method of the value's class.
				return nil, typeErrorf(name, "a caught exception", args[0]).
					WithHint("call it on the name a catch clause binds: (catch Exception e (%s e))", name).
					asJava("IllegalArgumentException", "")
			}
			return read(args[0]), nil
		}}
}

// javaToString is what Java's toString gives for e, which str and format's
// %s show: "java.lang.ArithmeticException: Divide by zero"; for ex-info,
// "clojure.lang.ExceptionInfo: boom", to which Clojure appends the data
// (returned for the caller to print, nil for other exceptions).
func javaToString(e *thrown) (string, Value) {
	class := e.class
	if class == "" {
		class = "RuntimeException"
	}
	text := javaClassName(class)
	msg, ok := exMessage(e).(String)
	if class != "ExceptionInfo" {
		if ok {
			text += ": " + string(msg)
		}
		return text, nil
	}
	if text += ": " + string(msg); !ok {
		text += "null"
	}
	if e.data == nil {
		return text + " ", emptyMap
	}
	return text + " ", e.data
}

// exCause is the cause of e, a caught exception, or nil, as Clojure's
// ex-cause and Throwable's .getCause.
func exCause(e Value) Value {
	if t, ok := e.(*thrown); ok && t.cause != nil {
		return t.cause
	}
	return Nil
}

// javaBuiltins are the static methods of Java classes that models call,
// as what does the same here; analysis resolves Class/method to them
// (namespaced). Like idiomBuiltins, they cost no prompt tokens.
var javaBuiltins = slices.Concat(
	[]*Builtin{
		javaParse("Integer/parseInt", "an integer", "parse-long", javaParseInt(32)),
		javaParse("Long/parseLong", "an integer", "parse-long", javaParseInt(64)),
		javaParse("Integer/valueOf", "an integer", "parse-long", javaValueOf(32)),
		javaParse("Long/valueOf", "an integer", "parse-long", javaValueOf(64)),
		javaParse("Double/parseDouble", "a number", "parse-double", javaParseDouble),
		javaParse("Double/valueOf", "a number", "parse-double", javaParseDouble),
		javaParse("Float/parseFloat", "a number", "parse-double", javaParseFloat),
		javaStringValueOf(),
		javaCharTest("isDigit", unicode.IsDigit),
		javaCharTest("isLetter", unicode.IsLetter),
		javaCharTest("isLetterOrDigit", func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }),
		javaCharTest("isLowerCase", unicode.IsLower),
		javaCharTest("isUpperCase", unicode.IsUpper),
		javaCharTest("isWhitespace", javaWhitespace),
		javaCharTest("isAlphabetic", func(r rune) bool {
			return unicode.IsLetter(r) || unicode.In(r, unicode.Nl, unicode.Other_Alphabetic)
		}),
		javaCharTest("isSpaceChar", func(r rune) bool { return unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp) }),
		javaMath("Math/ceil", math.Ceil),
		javaMath("Math/floor", math.Floor),
	},
	dateBuiltins,
)

// staticOf is b, reached as a Java static method.
func staticOf(b *Builtin) *Builtin {
	b.reach = javaStatic
	return b
}

// javaParse is a Java number parser: the builtin parser's value, and an
// error where parser gives nil.
func javaParse(name, kind, parser string, parse func(*Thread, []Value) (Value, error)) *Builtin {
	sig, maxArgs := "("+name+" s)", 1
	if kind == "an integer" { // Java's integer parsers take a radix
		sig, maxArgs = "("+name+" s) ("+name+" s radix)", 2
	}
	return &Builtin{Name: name, Sig: sig, Doc: kind + " in s; an error when s is not one", Category: "idiom", reach: javaStatic,
		MinArgs: 1, MaxArgs: maxArgs, Cost: cost(scans(arg(0))), Fn: func(th *Thread, args []Value) (Value, error) {
			v, err := parse(th, args)
			if err != nil {
				return nil, err
			}
			if v == Nil {
				e := javaErrorf(executionError, "NumberFormatException", "%s: %s is not %s", name, describe(args[0]), kind).
					WithHint("(%s s) gives nil instead of failing: (or (%s s) default)", parser, parser)
				if str, ok := args[0].(String); ok {
					if kind != "an integer" && strings.TrimFunc(string(str), func(r rune) bool { return r <= ' ' }) == "" {
						// Java's decimal parser trims, then refuses nothing.
						return nil, e.asJava("NumberFormatException", "empty String")
					}
					return nil, e.asJava("NumberFormatException", `For input string: "`+shownStr(str)+`"`)
				}
				switch {
				case !strings.Contains(name, "/parse"):
					// valueOf has overloads: which class Clojure's reflection
					// throws is not probed (testdata/typeclasses).
				case args[0] != Nil:
					// parseX takes a String only: Clojure casts to it.
					return nil, e.asJava("ClassCastException", "")
				case kind != "an integer":
					// Java's decimal parser reads the null string's length.
					return nil, e.asJava("NullPointerException", "")
				}
				return nil, e.asJava("NumberFormatException", "Cannot parse null string")
			}
			return v, nil
		}}
}

// javaParseFloat is Float/parseFloat: Double/parseDouble's number as a
// 32-bit float (Java's own parse rounds once, to the nearest 32-bit
// float; rounding the double again differs only on rare halfway digits).
func javaParseFloat(th *Thread, args []Value) (Value, error) {
	v, err := javaParseDouble(th, args)
	if f, ok := v.(Float); ok && err == nil {
		return Float32(f), nil
	}
	return v, err
}

// javaCharTest is Character/name, a test of a one-character string.
func javaCharTest(name string, test func(rune) bool) *Builtin {
	full := "Character/" + name
	return &Builtin{Name: full, Sig: "(" + full + " c)", Doc: "test a one-character string", Category: "idiom", reach: javaStatic,
		MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			r, err := charArg(full, args[0])
			if err != nil {
				return nil, err
			}
			return boolValue(test(r)), nil
		}}
}

// charArg reads a character, a one-character string here, or a code
// point, which Java's Character tests take too: (Character/isLetter 97).
func charArg(fn string, v Value) (rune, error) {
	if n, ok := v.(Int); ok {
		if n < 0 || n > unicode.MaxRune {
			return -1, nil // no character: every test is false, as Java's
		}
		return rune(n), nil
	}
	s, ok := v.(String)
	r := []rune(string(s))
	if !ok || len(r) != 1 {
		// Character's tests take a char or an int: Clojure's reflection
		// finds neither for any other argument, nil included.
		return 0, typeErrorf(fn, "a character", v).asJava("IllegalArgumentException", "")
	}
	return r[0], nil
}

// javaMath is a Math method returning a float, as Java's does.
func javaMath(name string, fn func(float64) float64) *Builtin {
	return javaMathCost(name, fn, cost(constant))
}

// javaMathCost is javaMath charged as c.
func javaMathCost(name string, fn func(float64) float64, c Cost) *Builtin {
	return &Builtin{Name: name, Sig: "(" + name + " x)", Doc: "as a float, as Java's", Category: "idiom", reach: javaStatic,
		MinArgs: 1, MaxArgs: 1, Cost: c, Fn: func(th *Thread, args []Value) (Value, error) {
			f, ok := toFloat(args[0])
			if !ok {
				return nil, typeErrorf(name, "a number", args[0])
			}
			return Float(fn(f)), nil
		}}
}

func toFloat(v Value) (float64, bool) {
	return asFloat(v)
}
