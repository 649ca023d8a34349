package lisp

import (
	"math"
	"strings"
	"unicode/utf8"
)

// Cost is how a builtin is charged, declared on its row of the builtin
// table. Builtin.Call applies it: the terms charged before the body runs
// (the items it visits, the keys it hashes, the values it compares or
// orders, the elements it generates) and, when the body returns, the
// allocation of what it built. The body then charges nothing by hand
// that its declaration names, so the table says what every builtin
// pays, a test refuses a builtin without a declaration, and another runs
// every builtin on inputs of growing size to check that the charge grows
// with the work.
//
// Beyond the declaration, every call costs the step of the call itself,
// functions a builtin calls back are charged as calls, and the operations
// on values charge their own work in one place each: seqOf for the entries
// of a map or the characters of a string it builds, lookups (getValue, a
// map or set called as a function) for hashing the key, assoc and conj for
// the entries they copy.
type Cost struct {
	before, after []costTerm
	declared      bool
}

// cost declares a builtin's cost as the sum of its terms.
func cost(terms ...costTerm) Cost {
	c := Cost{declared: true}
	for _, t := range terms {
		switch {
		case t.after:
			c.after = append(c.after, t)
		case t.charge != nil:
			c.before = append(c.before, t)
		}
	}
	return c
}

// costTerm is one part of a Cost: a charge on the arguments the selector
// picks (before the body runs) or on the result (after). A term without a
// charge documents work that is charged elsewhere (calls, value
// operations, a body that must charge as it learns sizes).
type costTerm struct {
	what   string // for the README and error messages of the cost tests
	sel    argSelector
	charge func(th *Thread, vs []Value) error
	after  bool                                          // charged on the result
	result func(th *Thread, args []Value, v Value) error // when after
}

// argSelector picks the arguments a term charges, as a subslice of args.
type argSelector func(args []Value) []Value

// arg selects argument i, counted from the end when negative.
func arg(i int) argSelector {
	return func(args []Value) []Value {
		j := i
		if j < 0 {
			j += len(args)
		}
		if j < 0 || j >= len(args) {
			return nil
		}
		return args[j : j+1]
	}
}

// lastArg selects the last argument, where sequence functions take their
// collection.
var lastArg = arg(-1)

// argsFrom selects the arguments from position i on.
func argsFrom(i int) argSelector {
	return func(args []Value) []Value {
		if i >= len(args) {
			return nil
		}
		return args[i:]
	}
}

// allArgs selects every argument.
var allArgs = argsFrom(0)

// keyArgs selects the keys of key/value pairs from position i on:
// arguments i, i+2, ... (the one selector that builds a slice).
func keyArgs(i int) argSelector {
	return func(args []Value) []Value {
		if i >= len(args) {
			return nil
		}
		keys := make([]Value, 0, (len(args)-i+1)/2)
		for j := i; j < len(args); j += 2 {
			keys = append(keys, args[j])
		}
		return keys
	}
}

// byColl selects the collection of a -by aggregate, which accepts its key
// function and collection in either order (keyAndColl).
func byColl(args []Value) []Value {
	if len(args) != 2 {
		return nil
	}
	if _, coll := keyAndColl(args); coll == args[0] {
		return args[:1]
	}
	return args[1:2]
}

// unlessVector selects what sel does unless it is a vector (which vec
// and seq return as it is).
func unlessVector(sel argSelector) argSelector {
	return func(args []Value) []Value {
		vs := sel(args)
		if len(vs) == 1 {
			if _, ok := vs[0].(*Vector); ok {
				return nil
			}
		}
		return vs
	}
}

// ifVector selects what sel does when it is a vector, nothing otherwise.
func ifVector(sel argSelector) argSelector {
	return func(args []Value) []Value {
		vs := sel(args)
		if len(vs) == 1 {
			if _, ok := vs[0].(*Vector); ok {
				return vs
			}
		}
		return nil
	}
}

// ontoMap selects what sel does when the first argument is a map, as
// into merges a map given one (mergeMaps), nothing otherwise.
func ontoMap(sel argSelector) argSelector {
	return func(args []Value) []Value {
		if len(args) > 0 {
			if _, ok := args[0].(*Map); ok {
				return sel(args)
			}
		}
		return nil
	}
}

// Terms charged before the body runs.

// visits charges a step per item of the selected collections: the
// elements of a vector or set, the entries of a map, the characters of a
// string.
func visits(sel argSelector) costTerm {
	return costTerm{what: "a step per item", sel: sel, charge: func(th *Thread, vs []Value) error {
		var n int64
		for _, v := range vs {
			n += itemCount(v)
		}
		return th.step(n)
	}}
}

// itemCount is how many items a sequence function visits in v.
func itemCount(v Value) int64 {
	switch v := v.(type) {
	case *Vector:
		return int64(v.Len())
	case *Set:
		return int64(v.Len())
	case *Map:
		return int64(v.Len())
	case String:
		return int64(utf8.RuneCountInString(string(v)))
	}
	return 0
}

// perArg charges a step per selected argument.
func perArg(sel argSelector) costTerm {
	return costTerm{what: "a step per argument", sel: sel, charge: func(th *Thread, vs []Value) error {
		return th.step(int64(len(vs)))
	}}
}

// scans charges for reading the selected strings: a step, and one more
// per 64 bytes.
func scans(sel argSelector) costTerm {
	return costTerm{what: "a step per 64 bytes read", sel: sel, charge: func(th *Thread, vs []Value) error {
		for _, v := range vs {
			if s, ok := v.(String); ok {
				if err := scan(th, len(s)); err != nil {
					return err
				}
			}
		}
		return nil
	}}
}

// hashes charges for using each selected value as a key (chargeKey).
func hashes(sel argSelector) costTerm {
	return costTerm{what: "each argument hashed as a key", sel: sel, charge: chargeKeys}
}

// hashesKeys charges for using the keys of key/value pair arguments from
// position i on as keys (chargeKey of arguments i, i+2, ...), without the
// slice of them keyArgs builds.
func hashesKeys(i int) costTerm {
	return costTerm{what: "each key argument hashed as a key", sel: argsFrom(i), charge: func(th *Thread, vs []Value) error {
		for j := 0; j < len(vs); j += 2 {
			if err := chargeKey(th, vs[j]); err != nil {
				return err
			}
		}
		return nil
	}}
}

// hashesItems charges for using each item of the selected collections as
// a key: a step per item, and chargeKey of each.
func hashesItems(sel argSelector) costTerm {
	return costTerm{what: "a step per item hashed as a key", sel: sel, charge: func(th *Thread, vs []Value) error {
		return chargeEachItem(th, vs, chargeKey)
	}}
}

// chargeEachItem charges a step per item of each of vs, and charge of
// each value an item holds.
func chargeEachItem(th *Thread, vs []Value, charge func(*Thread, Value) error) error {
	for _, v := range vs {
		if err := th.step(itemCount(v)); err != nil {
			return err
		}
		if err := eachPart(v, func(x Value) error { return charge(th, x) }); err != nil {
			return err
		}
	}
	return nil
}

// hashesValues charges for using each value of the selected maps as a
// key, as rename-keys does with the new names it is given.
func hashesValues(sel argSelector) costTerm {
	return costTerm{what: "each value of a map argument hashed as a key", sel: sel, charge: func(th *Thread, vs []Value) error {
		for _, v := range vs {
			if m, ok := v.(*Map); ok {
				for _, e := range m.entries {
					if err := chargeKey(th, e.Val); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}}
}

// rehashes charges for hashing every key of the selected maps again, as
// building a map from their entries does (chargeMapKeys).
func rehashes(sel argSelector) costTerm {
	return costTerm{what: "every key of a map argument hashed again", sel: sel, charge: func(th *Thread, vs []Value) error {
		for _, v := range vs {
			if m, ok := v.(*Map); ok {
				if err := chargeMapKeys(th, m); err != nil {
					return err
				}
			}
		}
		return nil
	}}
}

// compares charges for comparing the selected values whole with = (chargeEqual).
func compares(sel argSelector) costTerm {
	return costTerm{what: "each argument compared whole", sel: sel, charge: chargeEqual}
}

// comparesItems charges for comparing each item of the selected
// collections whole with =: a step per item, and chargeEqual of each.
func comparesItems(sel argSelector) costTerm {
	return costTerm{what: "a step per item compared whole", sel: sel, charge: func(th *Thread, vs []Value) error {
		return chargeEachItem(th, vs, func(th *Thread, x Value) error { return chargeEqual(th, []Value{x}) })
	}}
}

// ordering charges for ordering the selected values (compare), which may
// visit them whole: a visit of each (weigh).
func ordering(sel argSelector) costTerm {
	return costTerm{what: "each argument visited whole to order it", sel: sel, charge: func(th *Thread, vs []Value) error {
		_, err := weighAll(th, vs)
		return err
	}}
}

// hashesWhole charges for hashing the selected values as hash does
// (hasheq), which visits them whole: a visit of each (weigh). A step per
// item at the top only let a vector holding one of a million items hash
// for a step.
func hashesWhole(sel argSelector) costTerm {
	return costTerm{what: "each argument visited whole to hash it", sel: sel, charge: func(th *Thread, vs []Value) error {
		_, err := weighAll(th, vs)
		return err
	}}
}

// ordersItems is orders of every item of the selected collections.
func orderingItems(sel argSelector) costTerm {
	return costTerm{what: "each item visited whole to order it", sel: sel, charge: func(th *Thread, vs []Value) error {
		for _, v := range vs {
			if err := eachPart(v, func(x Value) error { _, err := weigh(th, x); return err }); err != nil {
				return err
			}
		}
		return nil
	}}
}

// sorts charges n⌈log₂ n⌉ steps for the comparisons of sorting the n items
// of the selected collection.
func sorts(sel argSelector) costTerm {
	return costTerm{what: "n log n steps for the comparisons of a sort", sel: sel, charge: func(th *Thread, vs []Value) error {
		for _, v := range vs {
			if err := sortCost(th, int(itemCount(v))); err != nil {
				return err
			}
		}
		return nil
	}}
}

// generates charges, before the body builds anything, a step and a
// vector element per item of a result whose length count computes from
// the arguments: a generator's result can be far larger than its
// arguments ((repeat n x), (apply concat (repeat n v))), so no Go
// allocation may precede its charge.
func generates(count func(args []Value) int64) costTerm {
	return costTerm{what: "a step and an element per item generated", sel: allArgs, charge: func(th *Thread, vs []Value) error {
		n := min(count(vs), maxRangeLen) // no overflow below
		if err := th.step(n); err != nil {
			return err
		}
		return th.alloc(vectorHeap.shape(int(n), false))
	}}
}

// totalItems counts the items of the selected collections, for generates.
func totalItems(sel argSelector) func(args []Value) int64 {
	return func(args []Value) int64 {
		var n int64
		for _, v := range sel(args) {
			n += itemCount(v)
		}
		return n
	}
}

// counts charges, before the body runs, a step per unit of the work
// that count computes from the arguments (partition: a step per chunk and
// per item in it); count gives 0 for arguments the builtin refuses, which
// the body then reports.
func counts(what string, count func(args []Value) int64) costTerm {
	return costTerm{what: what, sel: allArgs, charge: func(th *Thread, vs []Value) error {
		return th.step(count(vs))
	}}
}

// rebuilds charges for rebuilding the selected values whole, every
// collection in them, as keywordize-keys and postwalk do: a step per value
// reached, per path to it (the walk charges it), the allocation of each
// vector, map and set, and each collection key of a map or element of a
// set hashed again. A
// function is not entered. A value nesting too deep is charged as far as
// the walk goes; the body reports it.
func rebuilds(sel argSelector) costTerm {
	return costTerm{what: "a step per value, and the allocation of each collection, rebuilt whole", sel: sel, charge: func(th *Thread, vs []Value) error {
		for _, v := range vs {
			w := newWalk(th, v, MaxValueNesting)
			for ev, at := w.next(); ev != walkDone; ev, at = w.next() {
				if ev == walkLeave {
					continue
				}
				switch c := at.(type) {
				case *Vector:
					if err := th.alloc(builtSize(c)); err != nil {
						return err
					}
				case *Set:
					if err := th.alloc(builtSize(c)); err != nil {
						return err
					}
					if err := chargeKeys(th, c.elems); err != nil {
						return err
					}
				case *Map:
					if err := th.alloc(builtSize(c)); err != nil {
						return err
					}
					if err := chargeMapKeys(th, c); err != nil {
						return err
					}
				case holder:
					w.skip()
				}
			}
			if w.err != nil && w.err != errTooDeep {
				return w.err
			}
		}
		return nil
	}}
}

// copies charges the allocation of a copy of each selected collection:
// its header and items, one level.
func copies(sel argSelector) costTerm {
	return costTerm{what: "the allocation of a copy of the collection", sel: sel, charge: func(th *Thread, vs []Value) error {
		for _, v := range vs {
			switch v.(type) {
			case *Vector, *Map, *Set:
				if err := th.alloc(builtSize(v)); err != nil {
					return err
				}
			}
		}
		return nil
	}}
}

// matching charges a regex match of the pattern argument against the
// input argument before the body runs, since a match cannot be
// interrupted (chargeMatch): a regex, or a string where literal is false
// (the re- functions compile one; split and replace take it as text).
// Anything else is for the body to refuse.
func matching(pattern, input argSelector, literal bool) costTerm {
	return costTerm{what: "the regex match, charged before it runs", sel: allArgs, charge: func(th *Thread, args []Value) error {
		p, in := pattern(args), input(args)
		if len(p) != 1 || len(in) != 1 {
			return nil
		}
		s, ok := in[0].(String)
		if !ok {
			return nil
		}
		switch re := p[0].(type) {
		case *regex:
			return chargeMatch(th, re.insts, len(s))
		case String:
			if !literal && len(re) <= maxPatternBytes {
				return chargeMatch(th, programSize(string(re)), len(s))
			}
		}
		return nil
	}}
}

// Terms charged on the result.

// builds charges the allocation of the collection or string the body
// returns (its header and items, or its bytes), unless it returned one of
// its arguments.
var builds = costTerm{what: "the allocation of the result", after: true,
	result: func(th *Thread, args []Value, v Value) error {
		if isArg(args, v) {
			return nil
		}
		return th.alloc(builtSize(v))
	}}

// buildsItems is builds for a result whose items are built too: groups,
// chunks, tuples, the parts of a split string.
var buildsItems = costTerm{what: "the allocation of the result and of each of its items", after: true,
	result: func(th *Thread, args []Value, v Value) error {
		if isArg(args, v) {
			return nil
		}
		n := builtSize(v)
		if items, ok := v.(*Vector); ok {
			for _, e := range items.elems {
				n += builtSize(e)
			}
		}
		if m, ok := v.(*Map); ok {
			for _, e := range m.entries {
				n += builtSize(e.Val)
			}
		}
		return th.alloc(n)
	}}

// Terms that document work charged elsewhere.

// calls documents a builtin that calls a function back per item of the
// selected collections; each call is charged as a call.
func calls(sel argSelector) costTerm {
	return costTerm{what: "the function calls it makes, each charged as a call", sel: sel}
}

// updates documents a collection update (conj, assoc, merge, ...): the
// value operation that makes it charges a step per item it copies and
// rehashes, and the header and items it adds. Memory is charged for the
// growth only, since the old version usually becomes garbage at once.
var updates = costTerm{what: "the update: a step per item copied, the allocation of what it adds"}

// writes documents a builtin that builds text: it writes through a
// textWriter, which charges the text's bytes as allocation (and a step per
// 64) as they are written, and the walk of each value printed a step per
// value, so a text too large for the budget stops as it reaches it.
var writes = costTerm{what: "the text, charged as it is written"}

// lookups documents a builtin that looks keys up: the lookup (getValue, a
// map or set called as a function) hashes the key (chargeKey), or reads a
// string up to the index.
var lookups = costTerm{what: "the key hashed for each lookup"}

// views documents a result that shares the items of its argument (take,
// drop, rest, subvec, ...): sub charges the view's header.
var views = costTerm{what: "the header of a view of the argument"}

// constant documents a builtin whose work does not grow with its
// arguments: only the step of the call.
var constant = costTerm{what: "the step of the call only"}

// testsEquality documents a builtin whose tests of equality, and the
// hashing of the keys it looks up, charge what they read as they go
// (equalCharged): they may run once per element or per entry of a
// table the arguments do not hold.
var testsEquality = costTerm{what: "each test of equality charged as it reads (equalCharged)"}

// extendedPrecision charges a fixed number of steps for a function
// computed in extended-precision floats (jvmmath.go: sin, cos, tan, exp,
// log, log10 to Java's last digit; pow is powCost), which takes from a few to a few tens
// of microseconds a call, hundreds of loop steps' time: charged as one
// step, a loop of them ran until the clock stopped it, alone or under
// load alike in nothing.
func extendedPrecision(steps int64) costTerm {
	return costTerm{what: "a fixed charge for extended-precision float arithmetic", sel: allArgs, charge: func(th *Thread, _ []Value) error {
		return th.step(steps)
	}}
}

// The charges of extendedPrecision: one step per 64 ns the function takes
// on the 2-core machine (measured with the limits lifted, 20,000 calls
// each), within three times the arithmetic loop's 23 ns a step and under
// the dearest per step of the calibration (defmethod, format: 100-120), so
// that a loop of them reaches the step limit in about the CPU time a loop
// of other work does. At one step per 0.1 µs, and log at one per 0.5 µs
// and pow at one step a call, a loop of them reached a 1 s clock on a
// loaded machine first (pow: 3.1 s of CPU to the step limit).
const (
	trigSteps  = 320 // sin, cos, tan: 20 µs, pi/2 taken out with 1,200 bits
	log10Steps = 256 // a logarithm and a quotient by log 10 (bigLn10): 16 µs
	expSteps   = 112 // 7 µs
	logSteps   = 240 // 15 µs
	// pow: an integral exponent up to maxExactPower is taken by squaring
	// (2-3 µs); any other is e^(y log x) at extended precision (22-25 µs).
	powExactSteps = 40
	powSteps      = 384
)

// powCost charges pow by the path javaPow takes for its arguments.
var powCost = costTerm{what: "a fixed charge for extended-precision float arithmetic, by the exponent's kind", sel: allArgs,
	charge: func(th *Thread, args []Value) error {
		if len(args) == 2 {
			if y, ok := toFloat(args[1]); ok && y == math.Trunc(y) && math.Abs(y) <= maxExactPower {
				return th.step(powExactSteps)
			}
		}
		return th.step(powSteps)
	}}

// chargedInBody documents a part of the cost the body charges itself,
// because its size is known only as the body runs: why says what and how.
func chargedInBody(why string) costTerm { return costTerm{what: why} }

// Applying a declaration.

// chargeBefore charges the terms of c that come before the body.
func (c *Cost) chargeBefore(th *Thread, args []Value) error {
	for i := range c.before {
		t := &c.before[i]
		if err := t.charge(th, t.sel(args)); err != nil {
			return err
		}
	}
	return nil
}

// chargeAfter charges the terms of c that come with the result v.
func (c *Cost) chargeAfter(th *Thread, args []Value, v Value) error {
	for i := range c.after {
		if err := c.after[i].result(th, args, v); err != nil {
			return err
		}
	}
	return nil
}

// describe lists the terms, for the tests.
func (c Cost) describe() string {
	var parts []string
	for _, t := range append(append([]costTerm{}, c.before...), c.after...) {
		parts = append(parts, t.what)
	}
	return strings.Join(parts, "; ")
}

// eachPart calls f on each value an item of v holds, without building
// map entries or characters: the elements of a vector or set, the keys
// and values of a map. A string's characters hold nothing more to charge.
func eachPart(v Value, f func(Value) error) error {
	switch v := v.(type) {
	case *Vector:
		for _, e := range v.elems {
			if err := f(e); err != nil {
				return err
			}
		}
	case *Set:
		for _, e := range v.elems {
			if err := f(e); err != nil {
				return err
			}
		}
	case *Map:
		for _, e := range v.entries {
			if err := f(e.Key); err != nil {
				return err
			}
			if err := f(e.Val); err != nil {
				return err
			}
		}
	}
	return nil
}

// isArg reports whether v is one of args, so a builtin that returns its
// argument (vec of a vector, conj of a member) is charged nothing for it.
func isArg(args []Value, v Value) bool {
	for _, a := range args {
		switch a.(type) {
		case *Vector, *Map, *Set, String:
			if a == v {
				return true
			}
		}
	}
	return false
}

// builtSize is the allocation charged for a value a builtin built: its
// heap shape (heap.go), for a collection, a string, a big number, a
// function holding values, a transient or a reducing function (cat's). A
// lazy sequence was charged as it was made (madeSeq).
func builtSize(v Value) int64 {
	switch v.(type) {
	case *infiniteSeq:
		return 0
	case *Vector, *Set, *Map, String, holder, *BigInt, *BigDec, *transient, *stepFn:
		return heapShapeOf(v)
	}
	return 0
}

// sortCost charges n*log2(n) steps for a sort of n items.
func sortCost(th *Thread, n int) error {
	if n < 2 {
		return nil
	}
	return th.step(int64(n) * int64(math.Ceil(math.Log2(float64(n)))))
}
