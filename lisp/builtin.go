package lisp

import (
	"context"
	"slices"
	"strings"
)

// Builtin is a function implemented in Go, declared by one row of the
// builtin table (builtins_*.go). The row is everything about the builtin:
// its arities, its function, its cost, the forms it takes beyond Fn (a
// transducer without its collection, a way through an infinite sequence,
// a fast path for two integers), whether it borrows its arguments, and
// where it is reached and documented. Nothing changes a row once declared:
// Call runs exactly what the row says, the system prompt, the "did you
// mean" hints and the arity checks read the same rows, and a builtin cannot
// exist without its documentation.
type Builtin struct {
	Name string
	// Sig is the call shape shown to the LLM, e.g. "(filter pred coll)".
	Sig string
	// Doc is a one-line description.
	Doc string
	// Category groups builtins in the system prompt and in "did you mean"
	// hints: "collection", "map", "set", "string", "regex", "math",
	// "compare", "logic", "predicate", "function", "io"; "idiom" for the
	// Clojure the prompt leaves out, which docs/LANGUAGE.md lists.
	Category string
	// MinArgs and MaxArgs bound the arity, every form included; MaxArgs <
	// 0 means variadic.
	MinArgs, MaxArgs int
	// arities, when set, are the only argument counts between MinArgs and
	// MaxArgs accepted: (subseq sc test key) takes 3 or 5.
	arities []int
	Fn      func(th *Thread, args []Value) (Value, error)
	// Cost declares how the builtin is charged beyond the step of its
	// call (see Cost); Call applies it around whatever runs.
	Cost Cost

	// lean marks the functions the lean system prompt describes one by
	// one: those Clojure lacks or that behave differently here. Every
	// other prompt function is listed by name only.
	lean bool
	// reach is how a program names the builtin, and so where it is
	// documented.
	reach reach
	// aliases are further names that reach the builtin the same way.
	aliases []string

	// xform, when set, is the builtin's transducer: called with
	// xform.args arguments (its collection left out), it returns one.
	xform *xform
	// lazy, when set, is the builtin on an infinite sequence argument;
	// without it such an argument is refused (seqOf).
	lazy lazyForm
	// lazyXform says the builtin is lazy in Clojure and its transducer
	// says how: on a lazy or infinite sequence in its collection position
	// it makes a lazy sequence through xform (lazyThroughXform).
	lazyXform bool
	// asksLazy says that Fn takes a lazy sequence that may end as it is
	// (realized?), where other builtins without a lazy form read it
	// whole first (lazyseq.go).
	asksLazy bool
	// binary, when set, is the builtin's fast case for two integers,
	// which a two-argument call compiles to (binaryNode).
	binary *binaryOp
	// borrows says that Fn reads its argument slice only while it runs,
	// keeps none of it and calls no function back: a call may pass
	// arguments from the thread's scratch stack. These are the
	// arithmetic and comparisons of tight loops and recursion, and the
	// lookups and str of per-element functions.
	borrows bool
}

// reach is how a program names a builtin.
type reach int

const (
	// byName: by its bare name, (filter ...), or under a Clojure
	// namespace, (clojure.core/filter ...); listed in the system prompt
	// under its Category, unless that is "idiom".
	byName reach = iota
	// javaStatic: as a Java static method, (Integer/parseInt s), which
	// models write from habit; not in the prompt.
	javaStatic
	// javaForm: as a Java constructor or method form at the head of a
	// call, (java.util.Date. x) or (.getTime d); not in the prompt.
	javaForm
	// inNamespace: only under the Clojure namespace its Name starts
	// with (or an alias of it), by the part after the slash, because the
	// bare name means something else in core: (str/reverse s),
	// (clojure.set/join xrel yrel).
	inNamespace
	// qualified: by its full name only, ns/name, for a namespace of
	// PTC-Lisp's own that Clojure programs reach through a library
	// (json/parse-string, as cheshire's); not in the prompt.
	qualified
)

// xform is a builtin's transducer form.
type xform struct {
	// args is how many arguments the transducer call takes: those of
	// the builtin's call without its collection.
	args int
	// step makes the reducing function the transducer makes of rf,
	// given the call's arguments (f is Nil when there are none); each
	// application starts fresh state.
	step func(name string, f, rf Value) Value
}

// lazyForm is a builtin applied to arguments of which s is the first
// infinite sequence; plain is the builtin's Fn, for what it can hand on.
type lazyForm func(th *Thread, args []Value, s *infiniteSeq, plain func(*Thread, []Value) (Value, error)) (Value, error)

// Call checks the arity and runs the builtin, charging what its Cost
// declares before and after.
func (b *Builtin) Call(th *Thread, args []Value) (Value, error) {
	if len(args) < b.MinArgs || (b.MaxArgs >= 0 && len(args) > b.MaxArgs) || (b.arities != nil && !slices.Contains(b.arities, len(args))) {
		return nil, b.javaClassed(args, arityError(b.Name, b.Sig, len(args)))
	}
	if err := chargeWideNumbers(th, args); err != nil {
		return nil, err
	}
	if len(b.Cost.before) > 0 {
		if err := b.Cost.chargeBefore(th, args); err != nil {
			return nil, err
		}
	}
	allocated := th.allocated
	v, err := b.run(th, args)
	if err != nil {
		return nil, b.javaClassed(args, err)
	}
	if err := chargeMadeNumber(th, args, v, th.allocated-allocated); err != nil {
		return nil, err
	}
	switch {
	case b.makesTransducer(args):
		// The row's terms on the result describe its call on a
		// collection; the transducer it made is charged what it holds:
		// (take 2) kept 151 bytes and was charged none.
		if err = th.alloc(builtSize(v)); err != nil {
			return nil, err
		}
	case len(b.Cost.after) > 0:
		if err = b.Cost.chargeAfter(th, args, v); err != nil {
			return nil, err
		}
	}
	return v, err
}

// makesTransducer reports whether b, called with args, returns its
// transducer.
func (b *Builtin) makesTransducer(args []Value) bool {
	return b.xform != nil && len(args) == b.xform.args
}

// chargeMadeNumber charges a big integer or decimal a call returned, when
// none of its arguments is that number and none could hold it (each is a
// number, a text, a keyword, a boolean or nil), its heap shape less what
// the call charged already: made by the call, whatever the row declares.
// The conversions (bigint, bigdec, BigDecimal.), quot, rem, mod, the
// methods of decimals and an overflowing *' made one charged nothing, and
// kept by the million they held far more than the budget.
func chargeMadeNumber(th *Thread, args []Value, v Value, charged int64) error {
	switch v.(type) {
	case *BigInt, *BigDec:
	default:
		return nil
	}
	for _, a := range args {
		if a == v {
			return nil
		}
		switch a.(type) {
		case Int, Float, Float32, *BigInt, *BigDec, String, Keyword, Bool, NilType:
		default:
			return nil // the number may be one the argument held, or one a call inside charged
		}
	}
	if shape := heapShapeOf(v); charged < shape {
		return th.alloc(shape - charged)
	}
	return nil
}

// wideNumberWords is the width, in 64-bit words, from which a number
// argument is charged for being read: about 40 digits.
const wideNumberWords = 3

// chargeWideNumbers charges a step per word of each decimal or big
// integer argument of wideNumberWords or more, whatever the builtin does
// with it: converting one to a double, an index or a count, or reading
// it at all, costs about a word's step (a 300-digit decimal's double
// took 0.8 µs, charged one step, 20 times the median CPU per step). The
// rows' own terms charge what grows faster than the digits.
func chargeWideNumbers(th *Thread, args []Value) error {
	var words int64
	for _, a := range args {
		switch n := a.(type) {
		case *BigDec:
			if w := decWords(n); w >= wideNumberWords {
				words += w
			}
		case *BigInt:
			if w := int64(len(n.n.Bits())); w >= wideNumberWords {
				words += w
			}
		}
	}
	if words == 0 {
		return nil
	}
	return th.step(words)
}

// run is what the row says the builtin does with args: its form on an
// infinite sequence, its transducer, or Fn.
func (b *Builtin) run(th *Thread, args []Value) (Value, error) {
	if b.lazyXform {
		if v, ok, err := b.lazyThroughXform(th, args); ok {
			return v, err
		}
	}
	if read := readsPartsWhole[b.Name]; read != nil {
		whole, err := realizedDeep(th, args, read)
		if err != nil {
			return nil, err
		}
		args = whole
	}
	if b.lazy != nil {
		// A call of the transducer's arity makes the transducer, whatever
		// its arguments hold: no sequence is read.
		if s, ok := firstInfinite(args); ok && !b.makesTransducer(args) {
			return b.lazy(th, args, s, b.Fn)
		}
	} else if !b.asksLazy && endingArg(args) {
		// A builtin with no form of its own for lazy sequences reads a
		// lazy sequence that may end whole, as a list (lazyseq.go).
		whole, err := realizedArgsBut(th, args, holdsArgs[b.Name])
		if err != nil {
			return nil, err
		}
		args = whole
	}
	if b.makesTransducer(args) {
		var f Value = Nil
		if len(args) == 1 {
			f = args[0]
		}
		t := &transducer{name: b.Name, apply: func(rf Value) Value { return b.xform.step(b.Name, f, rf) }}
		// As a combined function it prints, and is kept between turns,
		// as the call that made it: (map inc).
		return madeFn(th, b.Name, args, func(th *Thread, xs []Value) (Value, error) { return t.Call(th, xs) })
	}
	return b.Fn(th, args)
}

// The builtin table is one slice of rows per section of the language
// reference (builtins_*.go), indexed once into the registry below.
// Keeping the sections as plain data means the system prompt, the "did
// you mean" hints and the arity checks all read the same source, and a
// builtin cannot exist without its documentation.
var builtinSections = [][]*Builtin{
	collectionBuiltins,
	sequenceBuiltins,
	aggregateBuiltins,
	walkBuiltins,
	mapBuiltins,
	setBuiltins,
	stringBuiltins,
	regexBuiltins,
	mathBuiltins,
	bigBuiltins,
	decimalBuiltins,
	uncheckedBuiltins,
	uncheckedIntBuiltins,
	compareBuiltins,
	logicBuiltins,
	predicateBuiltins,
	functionBuiltins,
	idiomBuiltins,
	atomWatchBuiltins,
	metaBuiltins,
	hierarchyBuiltins,
	sortedBuiltins,
	classBuiltins,
	aliasBuiltins,
	delayBuiltins,
	lazySeqBuiltins,
	multimethodBuiltins,
	protocolBuiltins,
	transientBuiltins,
	bitBuiltins,
	javaBuiltins,
	javaInteropBuiltins,
	jsonBuiltins,
	readBuiltins,
	introspectBuiltins,
	stringNamespaceBuiltins,
	namespaceBuiltins,
}

// registry is every builtin, indexed by the names that reach it; built
// once from the rows and never changed.
type registry struct {
	list      []*Builtin          // reached by name, sorted by name
	byName    map[string]*Builtin // those
	functions map[string]*Builtin // those and the evaluator's core functions
	statics   map[string]*Builtin // "Class/method"
	forms     map[string]*Builtin // "Class." and ".method"
	inNS      map[string]*Builtin // "clojure.string/reverse": reached only so
	pairSteps map[*Builtin]int64  // what a binary row's cost charges for two integers
}

var builtins = newRegistry(withBigIntegerMethods(withDecimalMethods(builtinSections)), coreFunctions)

// newRegistry indexes the rows of sections and the core functions. Two
// rows reaching the same name is a programming error.
func newRegistry(sections [][]*Builtin, core []*Builtin) *registry {
	r := &registry{byName: map[string]*Builtin{}, functions: map[string]*Builtin{}, statics: map[string]*Builtin{},
		forms: map[string]*Builtin{}, inNS: map[string]*Builtin{}, pairSteps: map[*Builtin]int64{}}
	for _, b := range slices.Concat(sections...) {
		switch b.reach {
		case byName:
			r.list = append(r.list, b)
			addNames(r.byName, b, b.Name)
			addNames(r.functions, b, b.Name)
		case javaStatic, qualified:
			addNames(r.statics, b, b.Name)
		case javaForm:
			addNames(r.forms, b, b.Name)
		case inNamespace:
			addNames(r.inNS, b, b.Name)
		}
		if b.binary != nil {
			r.pairSteps[b] = pairSteps(b)
		}
	}
	for _, b := range core {
		addNames(r.functions, b, b.Name)
	}
	slices.SortFunc(r.list, func(a, b *Builtin) int { return strings.Compare(a.Name, b.Name) })
	return r
}

// addNames adds b to m under name and b's aliases.
func addNames(m map[string]*Builtin, b *Builtin, name string) {
	for _, n := range append([]string{name}, b.aliases...) {
		if _, dup := m[n]; dup {
			panic("lisp: builtin " + n + " defined twice")
		}
		m[n] = b
	}
}

// pairSteps is what b's declaration charges before it runs on two
// integers, which its fast path charges in its place.
func pairSteps(b *Builtin) int64 {
	th := newThread(context.Background(), Limits{MaxSteps: Unlimited, MaxAllocBytes: Unlimited})
	if err := b.Cost.chargeBefore(th, []Value{Int(1), Int(2)}); err != nil {
		panic("lisp: charging " + b.Name + " on two integers: " + err.Error())
	}
	return th.steps
}

// lookupFunction finds a builtin or a core function by its name.
func lookupFunction(name string) (*Builtin, bool) {
	b, ok := builtins.functions[name]
	return b, ok
}

// lookupBuiltin returns the builtin function called name.
func lookupBuiltin(name string) (*Builtin, bool) {
	b, ok := builtins.byName[name]
	return b, ok
}

// Builtins returns every builtin reached by its name, sorted by name. The
// slice is shared and must not be modified.
func Builtins() []*Builtin { return builtins.list }
