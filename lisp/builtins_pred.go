package lisp

import (
	"math"
	"unicode/utf8"
)

// Type predicates (spec 8.7), numeric predicates (spec 8.8) and the Clojure
// predicates LLMs commonly write beyond the spec.
var predicateBuiltins = []*Builtin{
	typePred("nil?", "x is nil", func(v Value) bool { _, ok := v.(NilType); return ok }),
	typePred("some?", "x is not nil", func(v Value) bool { _, ok := v.(NilType); return !ok }),
	typePred("boolean?", "x is true or false", func(v Value) bool { _, ok := v.(Bool); return ok }),
	typePred("true?", "x is exactly true", func(v Value) bool { b, ok := v.(Bool); return ok && bool(b) }),
	typePred("false?", "x is exactly false", func(v Value) bool { b, ok := v.(Bool); return ok && !bool(b) }),
	typePred("number?", "x is an integer, a decimal or a float (##NaN and ##Inf included)", func(v Value) bool { _, ok := asFloat(v); return ok }),
	typePred("int?", "x is an integer", isInt),
	typePred("integer?", "x is an integer", isInteger),
	typePred("rational?", "x is an integer or a decimal (there are no ratios)", func(v Value) bool { return isInteger(v) || isDecimal(v) }),
	unlisted(typePred("ratio?", "false: there are no ratios", func(Value) bool { return false })),
	unlisted(typePred("decimal?", "x is a decimal, such as 1.5M", isDecimal)),
	typePred("float?", "x is a float", isFloat),
	typePred("double?", "x is a float", isDouble), // the prompt's text; false for (float x)'s 32-bit float, as in Clojure
	typePred("nat-int?", "x is an integer >= 0", func(v Value) bool { n, ok := v.(Int); return ok && n >= 0 }),
	typePred("pos-int?", "x is an integer > 0", func(v Value) bool { n, ok := v.(Int); return ok && n > 0 }),
	typePred("neg-int?", "x is an integer < 0", func(v Value) bool { n, ok := v.(Int); return ok && n < 0 }),
	typePred("string?", "x is a string", func(v Value) bool { _, ok := v.(String); return ok }),
	typePred("char?", "x is a one-character string (characters are strings)", func(v Value) bool {
		s, ok := v.(String)
		// One character is at most utf8.UTFMax bytes: a long string is
		// not counted.
		return ok && len(s) <= utf8.UTFMax && utf8.RuneCountInString(string(s)) == 1
	}),
	typePred("keyword?", "x is a keyword", func(v Value) bool { _, ok := v.(Keyword); return ok }),
	typePred("symbol?", "x is a symbol (never, at run time)", func(v Value) bool { _, ok := v.(symbol); return ok }),
	unlisted(typePred("ident?", "x is a keyword or a symbol", func(v Value) bool { _, ok := identNamespace(v); return ok })),
	unlisted(identPred("simple-ident?", "x is a keyword or a symbol without a namespace", nil, false)),
	unlisted(identPred("qualified-ident?", "x is a keyword or a symbol with a namespace", nil, true)),
	unlisted(identPred("simple-keyword?", "x is a keyword without a namespace", isKeyword, false)),
	unlisted(identPred("qualified-keyword?", "x is a keyword with a namespace", isKeyword, true)),
	unlisted(identPred("simple-symbol?", "x is a symbol without a namespace", isSymbol, false)),
	unlisted(identPred("qualified-symbol?", "x is a symbol with a namespace", isSymbol, true)),
	typePred("var?", "x is a var reference #'name", func(v Value) bool { _, ok := v.(*varRef); return ok }),
	typePred("vector?", "x is a vector", func(v Value) bool { x, ok := v.(*Vector); return ok && !x.IsList() }),
	typePred("list?", "x is a list: '(1 2), (list ...)", isList),
	typePred("map?", "x is a map", func(v Value) bool { _, ok := v.(*Map); return ok }),
	unlisted(typePred("record?", "x is a record (defrecord)", func(v Value) bool { m, ok := v.(*Map); return ok && m.class() != nil })),
	typePred("set?", "x is a set", func(v Value) bool { _, ok := v.(*Set); return ok }),
	typePred("coll?", "x is a vector; maps, sets and strings are not collections here", isVector),
	typePred("sequential?", "x is a vector", isVector),
	typePred("indexed?", "x is a vector", isVectorNotList),
	typePred("reversible?", "x is a vector, or a sorted map or set", func(v Value) bool { return isVectorNotList(v) || orderOf(v) != nil }),
	typePred("associative?", "x is a map or a vector", func(v Value) bool {
		switch v.(type) {
		case *Map:
			return true
		}
		return isVectorNotList(v)
	}),
	typePred("counted?", "x is a vector, map or set", func(v Value) bool {
		switch v.(type) {
		case *Map, *Vector, *Set, *transient:
			return true
		}
		return false
	}),
	typePred("seqable?", "x is a vector, map, set, string or nil", func(v Value) bool {
		switch v.(type) {
		case *Map, *Vector, *Set, String, NilType:
			return true
		}
		return false
	}),
	typePred("sorted?", "x is a sorted map or set", func(v Value) bool { return orderOf(v) != nil }),
	typePred("map-entry?", "x is a [key value] entry of a map, as seq, first and find give", func(v Value) bool { x, ok := v.(*Vector); return ok && x.isEntry() }),
	typePred("fn?", "x is a function", isFn),
	typePred("ifn?", "x can be called: a function, keyword, map or set", func(v Value) bool {
		if m, ok := v.(*Map); ok && m.class() != nil {
			return false // a record is not a function of its keys
		}
		if isList(v) {
			return false // a list is no function of its indexes, as a vector is
		}
		_, sym := v.(symbol) // a symbol looks itself up, as a keyword does
		return sym || isCallable(v)
	}),
	numPred("zero?", "x is 0 or 0.0", func(f float64) bool { return f == 0 }),
	numPred("pos?", "x > 0", func(f float64) bool { return f > 0 }),
	numPred("neg?", "x < 0", func(f float64) bool { return f < 0 }),
	numPred("NaN?", "x is ##NaN", math.IsNaN),
	numPred("infinite?", "x is ##Inf or ##-Inf", func(f float64) bool { return math.IsInf(f, 0) }),
	intPred("even?", "n is even; floats are a type error", func(n int64) bool { return n%2 == 0 }),
	intPred("odd?", "n is odd; floats are a type error", func(n int64) bool { return n%2 != 0 }),
	{Name: "distinct?", Sig: "(distinct? x y ...)", Doc: "no two arguments are equal", Category: "predicate",
		MinArgs: 1, MaxArgs: variadic, Cost: cost(perArg(allArgs), hashes(allArgs)), Fn: func(th *Thread, args []Value) (Value, error) {
			seen := make(map[any]bool, len(args))
			for _, a := range args {
				k := hashKey(a)
				if seen[k] {
					return falseValue, nil
				}
				seen[k] = true
			}
			return trueValue, nil
		}},
}

func isInt(v Value) bool { _, ok := v.(Int); return ok }
func isInteger(v Value) bool {
	_, big := v.(*BigInt)
	return big || isInt(v)
}
func isDecimal(v Value) bool { _, ok := v.(*BigDec); return ok }
func isFloat(v Value) bool   { _, ok := floatValue(v); return ok }
func isDouble(v Value) bool  { _, ok := v.(Float); return ok }
func isVector(v Value) bool  { _, ok := v.(*Vector); return ok }

func isList(v Value) bool { x, ok := v.(*Vector); return ok && x.IsList() }

// isVectorNotList is true of a vector proper: Clojure's lists are not
// indexed, associative or reversible.
func isVectorNotList(v Value) bool { x, ok := v.(*Vector); return ok && !x.IsList() }

// isFn reports whether v is a function proper (not a keyword, map or set).
func isFn(v Value) bool {
	switch v.(type) {
	case *Builtin, Function:
		return true
	}
	return false
}

// unlisted is b kept out of the system prompt: a Clojure name models
// write out of habit, where what the prompt lists already says the same.
func unlisted(b *Builtin) *Builtin {
	b.Category = "idiom"
	return b
}

func typePred(name, doc string, test func(Value) bool) *Builtin {
	return &Builtin{Name: name, Sig: "(" + name + " x)", Doc: doc, Category: "predicate", MinArgs: 1, MaxArgs: 1, Cost: cost(constant),
		Fn: func(th *Thread, args []Value) (Value, error) { return boolValue(test(args[0])), nil }}
}

// identPred is one of Clojure's ident predicates: x is a keyword or a
// symbol (only one that kind takes, when kind is not nil) whose
// namespace is there when qualified, absent when not.
func identPred(name, doc string, kind func(Value) bool, qualified bool) *Builtin {
	return typePred(name, doc, func(v Value) bool {
		if kind != nil && !kind(v) {
			return false
		}
		ns, ok := identNamespace(v)
		return ok && (ns != Nil) == qualified
	})
}

func isKeyword(v Value) bool { _, ok := v.(Keyword); return ok }
func isSymbol(v Value) bool  { _, ok := v.(symbol); return ok }

// identNamespace is the namespace of a keyword or symbol (nil when it has
// none), and false for any other value.
func identNamespace(v Value) (Value, bool) {
	switch v.(type) {
	case Keyword, symbol:
		ns, err := builtinNamespace(nil, []Value{v})
		return ns, err == nil
	}
	return nil, false
}

// numPred is a predicate on numbers; other values are a type error, and
// NaN satisfies none of them but NaN?.
func numPred(name, doc string, test func(float64) bool) *Builtin {
	return &Builtin{Name: name, Sig: "(" + name + " x)", Doc: doc, Category: "predicate", MinArgs: 1, MaxArgs: 1, Cost: cost(constant),
		Fn: func(th *Thread, args []Value) (Value, error) {
			f, ok := asFloat(args[0])
			if !ok {
				return numberArg(name, args[0])
			}
			if d, ok := args[0].(*BigDec); ok {
				f = float64(d.unscaled.Sign()) // its sign: a tiny decimal's double is 0
			}
			return boolValue(test(f)), nil
		}}
}

func intPred(name, doc string, test func(int64) bool) *Builtin {
	return &Builtin{Name: name, Sig: "(" + name + " n)", Doc: doc, Category: "predicate", MinArgs: 1, MaxArgs: 1, Cost: cost(constant),
		Fn: func(th *Thread, args []Value) (Value, error) {
			if b, ok := args[0].(*BigInt); ok {
				return boolValue(test(int64(b.n.Bit(0)))), nil // its parity is its last bit's
			}
			n, ok := args[0].(Int)
			if !ok {
				// Clojure's "Argument must be an integer", nil included
				e := Errorf(typeError, "%s expected an integer, got %s", name, describe(args[0])).asJava("IllegalArgumentException", "")
				if isFloat(args[0]) {
					e = e.WithHint("/ always returns a float: divide integers with (quot x 2), or test (%s (int x))", name)
				}
				return nil, e
			}
			return boolValue(test(int64(n))), nil
		}}
}
