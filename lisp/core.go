package lisp

import (
	"strings"
)

// coreFunctions are the functions that need the evaluator's program state
// (println, return, fail) or belong to the predicate builders of the
// PTC-Lisp specification (section 7 of ptc_runner's; all-of, any-of,
// none-of). They resolve like builtins.
var coreFunctions = []*Builtin{
	{Name: "println", Sig: "(println x ...)", Category: "io", MinArgs: 0, MaxArgs: -1,
		Doc: "print the values separated by spaces as one line of output; returns nil", Fn: corePrintln,
		Cost: cost(writes, chargedInBody("the line, written within the output budget"))},
	{Name: "print", Sig: "(print x ...)", Category: "io", MinArgs: 0, MaxArgs: -1,
		Doc: "as println: each call is one line of output", Fn: corePrint,
		Cost: cost(writes, chargedInBody("the line, written within the output budget")),
		lean: true},
	{Name: "newline", Sig: "(newline)", Category: "idiom", MinArgs: 0, MaxArgs: 0,
		Doc: "print a newline, as (println); returns nil", Fn: func(th *Thread, args []Value) (Value, error) { return Nil, printLine(th, nil, asPrint, true) },
		Cost: cost(writes, chargedInBody("the line, written within the output budget"))},
	{Name: "prn", Sig: "(prn x ...)", Category: "io", MinArgs: 0, MaxArgs: -1,
		Doc: "print the values as data (strings quoted) as one line of output; returns nil", Fn: corePrn,
		Cost: cost(writes, chargedInBody("the line, written within the output budget"))},
	{Name: "pr", Sig: "(pr x ...)", Category: "idiom", MinArgs: 0, MaxArgs: -1,
		Doc: "print the values as data (strings quoted), without a newline; returns nil", Fn: corePr,
		Cost: cost(writes, chargedInBody("the line, written within the output budget"))},
	{Name: "printf", Sig: "(printf fmt x ...)", Category: "io", MinArgs: 1, MaxArgs: -1,
		Doc: "print (format fmt x ...) as one line of output; returns nil", Fn: corePrintf,
		Cost: cost(chargedInBody("the line, formatted by format (whose declaration applies) and charged when printed"))},
	{Name: "return", Sig: "(return value)", Category: "io", MinArgs: 0, MaxArgs: 1,
		Doc: "end the task at once with value as the answer", Fn: coreReturn,
		Cost: cost(constant),
		lean: true},
	{Name: "fail", Sig: "(fail reason)", Category: "io", MinArgs: 0, MaxArgs: 1,
		Doc: "end the task at once as a failure, with reason as the error", Fn: coreFail,
		Cost: cost(constant),
		lean: true},
	{Name: "all-of", Sig: "(all-of pred ...)", Category: "logic", MinArgs: 0, MaxArgs: -1,
		Doc: "predicate: every pred holds", Fn: combinator("all-of"),
		Cost: cost(builds),
		lean: true},
	{Name: "any-of", Sig: "(any-of pred ...)", Category: "logic", MinArgs: 0, MaxArgs: -1,
		Doc: "predicate: some pred holds", Fn: combinator("any-of"),
		Cost: cost(builds),
		lean: true},
	{Name: "none-of", Sig: "(none-of pred ...)", Category: "logic", MinArgs: 0, MaxArgs: -1,
		Doc: "predicate: no pred holds", Fn: combinator("none-of"),
		Cost: cost(builds),
		lean: true},
}

// CoreFunctions returns the functions the evaluator itself provides
// (println, return, fail, all-of, any-of, none-of), for documentation such
// as the system prompt. The slice must not be modified.
func CoreFunctions() []*Builtin { return coreFunctions }

func corePrintln(th *Thread, args []Value) (Value, error) {
	return Nil, printLine(th, args, asPrint, true)
}

// corePrint is println without the newline, which only with-out-str sees.
func corePrint(th *Thread, args []Value) (Value, error) {
	return Nil, printLine(th, args, asPrint, false)
}

func corePrn(th *Thread, args []Value) (Value, error) { return Nil, printLine(th, args, asEDN, true) }

// corePr is prn without the newline, which only with-out-str sees.
func corePr(th *Thread, args []Value) (Value, error) { return Nil, printLine(th, args, asEDN, false) }

// printLine prints args, separated by spaces, as one line of output (or,
// inside with-out-str, as text, ended by a newline when newline is set),
// in the given style. The line is written through
// a writer that charges it as it grows and stops at the output budget, so
// printing a huge value fails when the output is full, not after the
// whole text was built.
func printLine(th *Thread, args []Value, style textStyle, newline bool) error {
	t := textWriter{th: th}
	if th.prog != nil && th.limits.MaxOutputBytes > 0 {
		t.limit = int64(th.limits.MaxOutputBytes-th.prog.outputUsed()) + 1
	}
	for i, a := range args {
		if i > 0 {
			t.writeByte(' ')
		}
		if err := writeValue(&t, th, a, style); err != nil {
			return err
		}
		if t.full {
			return outputLimitError(th.limits.MaxOutputBytes)
		}
	}
	if err := t.finish(); err != nil || th.prog == nil {
		return err
	}
	return th.prog.output(th, string(t.buf), newline)
}

func corePrintf(th *Thread, args []Value) (Value, error) {
	s, err := th.call(rowNamed(stringBuiltins, "format"), args)
	if err != nil {
		return nil, err
	}
	if th.prog == nil {
		return Nil, nil
	}
	if th.prog.capture != nil {
		return Nil, th.prog.output(th, Str(s), false)
	}
	return Nil, th.prog.print(th, strings.TrimSuffix(Str(s), "\n"))
}

func coreReturn(th *Thread, args []Value) (Value, error) {
	var v Value = Nil
	if len(args) == 1 {
		v = args[0]
	}
	return nil, &earlyReturn{value: v}
}

// failure is (fail reason): the program ends as failed with reason.
type failure struct{ reason Value }

func (f *failure) Error() string { return "fail: " + failMessage(f.reason) }

func failMessage(v Value) string {
	if s, ok := v.(String); ok {
		return string(s)
	}
	return Repr(v)
}

func coreFail(th *Thread, args []Value) (Value, error) {
	var v Value = Nil
	if len(args) == 1 {
		v = args[0]
	}
	return nil, &failure{reason: v}
}

// predicateCombinator is the function all-of, any-of and none-of return.
type predicateCombinator struct {
	kind   string
	preds  []Value
	weight int64 // see valueWeight
}

func (*predicateCombinator) TypeName() string { return "function" }

func (p *predicateCombinator) ParamNames() []string { return []string{"item"} }

// valueWeight counts the predicates, which the combinator prints with.
func (p *predicateCombinator) valueWeight() int64 { return max(p.weight, 1) }

// writeText writes the call that makes the predicate.
func (p *predicateCombinator) writeText(pr *printer, i int) { writeCall(pr, p.kind, i, len(p.preds)) }

// heldValues are the predicates it combines.
func (p *predicateCombinator) heldValues() []Value { return p.preds }

func (p *predicateCombinator) Call(th *Thread, args []Value) (Value, error) {
	if len(args) != 1 {
		return nil, arityError(p.kind+" predicate", "(pred item)", len(args))
	}
	for _, q := range p.preds {
		v, err := th.call(q, args)
		if err != nil {
			return nil, err
		}
		t := truthy(v)
		switch {
		case p.kind == "all-of" && !t:
			return falseValue, nil
		case p.kind == "any-of" && t:
			return trueValue, nil
		case p.kind == "none-of" && t:
			return falseValue, nil
		}
	}
	return Bool(p.kind != "any-of"), nil
}

func combinator(kind string) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		for _, a := range args {
			if _, ok := a.(Callable); !ok {
				return nil, javaErrorf(typeError, noJavaClass, "%s expected predicates, got %s", kind, a.TypeName()).
					WithHint("pass predicates such as (where :age > 18) or :active")
			}
		}
		return &predicateCombinator{kind: kind, preds: append([]Value(nil), args...), weight: callWeight(kind, args)}, nil
	}
}

// toolFunc is a tool as a function value: calling it goes through the host.
type toolFunc struct{ Name string }

func (*toolFunc) TypeName() string { return "function" }

// ParamNames: tools take one argument map.
func (t *toolFunc) ParamNames() []string { return []string{"args"} }

// Call invokes the tool with the arguments of spec 9.5: none gives nil, a
// single map is passed through, anything else is wrapped as {:args [...]}.
func (t *toolFunc) Call(th *Thread, args []Value) (Value, error) {
	if th.prog == nil {
		return nil, Errorf(toolError, "tool/%s cannot be called here", t.Name)
	}
	var arg Value = Nil
	switch {
	case len(args) == 0:
	case len(args) == 1:
		if m, ok := args[0].(*Map); ok {
			arg = m
			break
		}
		fallthrough
	default:
		arg = singletonMap(Keyword("args"), NewVector(append([]Value(nil), args...)))
	}
	return th.prog.callTool(th, t.Name, arg)
}

// singletonMap returns the one-entry map {k v}.
func singletonMap(k, v Value) *Map {
	b := NewMapBuilder(1)
	b.Set(k, v)
	return b.Map()
}

// Call on a var calls the user definition it names.
func (v *varRef) Call(th *Thread, args []Value) (Value, error) {
	if th.prog == nil {
		return nil, Errorf(undefinedSymbol, "#'%s is not defined", v.Name)
	}
	f, err := th.prog.lookupGlobal(v.Name)
	if err != nil {
		return nil, err
	}
	return th.call(f, args)
}
