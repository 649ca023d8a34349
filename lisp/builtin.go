package lisp

// Builtin is a function implemented in Go. Each builtin documents itself in
// one line, and the default system prompt is generated from those lines, so
// the prompt lists exactly what is implemented.
type Builtin struct {
	Name string
	// Sig is the call shape shown to the LLM, e.g. "(filter pred coll)".
	Sig string
	// Doc is a one-line description.
	Doc string
	// MinArgs and MaxArgs bound the arity; MaxArgs < 0 means variadic.
	// Category groups builtins in the system prompt and in "did you mean"
	// hints: "collection", "map", "set", "string", "regex", "math",
	// "compare", "logic", "predicate", "function", "io".
	Category         string
	MinArgs, MaxArgs int
	Fn               func(th *Thread, args []Value) (Value, error)
	// Cost declares how the builtin is charged beyond the step of its
	// call (see Cost); Call applies it around Fn.
	Cost Cost

	// borrows is set for the builtins of borrowsArgs: Fn reads its
	// argument slice only while it runs.
	borrows bool
}

// Call checks the arity and runs the builtin, charging what its Cost
// declares before and after.
func (b *Builtin) Call(th *Thread, args []Value) (Value, error) {
	if len(args) < b.MinArgs || (b.MaxArgs >= 0 && len(args) > b.MaxArgs) {
		return nil, arityError(b.Name, b.Sig, len(args))
	}
	if len(b.Cost.before) > 0 {
		if err := b.Cost.chargeBefore(th, args); err != nil {
			return nil, err
		}
	}
	v, err := b.Fn(th, args)
	if err == nil && len(b.Cost.after) > 0 {
		if err = b.Cost.chargeAfter(th, args, v); err != nil {
			return nil, err
		}
	}
	return v, err
}
