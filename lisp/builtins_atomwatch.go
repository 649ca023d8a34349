package lisp

// An atom's validator and watches, as Clojure's: a validator is called
// with each new value before it is set, and a value it refuses is
// Clojure's IllegalStateException "Invalid reference state", the atom
// keeping its value; a watch is called with its key, the atom, the old
// and the new value after each change. They live with the atom, only
// while the program runs.

type atomWatch struct{ key, fn Value }

var atomWatchBuiltins = []*Builtin{
	{Name: "add-watch", Sig: "(add-watch a key f)", Doc: "call (f key a old new) after each change of atom a; the same key replaces", Category: "idiom",
		MinArgs: 3, MaxArgs: 3, Cost: cost(testsEquality), Fn: func(th *Thread, args []Value) (Value, error) {
			a, err := atomArg("add-watch", args[0])
			if err != nil {
				return nil, err
			}
			w := atomWatch{key: args[1], fn: args[2]}
			for i, old := range a.watches {
				if same, err := equalCharged(th, old.key, w.key); err != nil {
					return nil, err
				} else if same {
					a.watches[i] = w
					return a, nil
				}
			}
			if err := th.alloc(heapFunction); err != nil {
				return nil, err
			}
			a.watches = append(a.watches, w)
			return a, nil
		}},
	{Name: "remove-watch", Sig: "(remove-watch a key)", Doc: "atom a without the watch of key", Category: "idiom",
		MinArgs: 2, MaxArgs: 2, Cost: cost(testsEquality), Fn: func(th *Thread, args []Value) (Value, error) {
			a, err := atomArg("remove-watch", args[0])
			if err != nil {
				return nil, err
			}
			for i, w := range a.watches {
				if same, err := equalCharged(th, w.key, args[1]); err != nil {
					return nil, err
				} else if same {
					a.watches = append(a.watches[:i:i], a.watches[i+1:]...)
					break
				}
			}
			return a, nil
		}},
	{Name: "set-validator!", Sig: "(set-validator! a f)", Doc: "check each new value of atom a with f (nil removes the check); the current value must pass", Category: "idiom",
		MinArgs: 2, MaxArgs: 2, Cost: cost(calls(arg(1))), Fn: func(th *Thread, args []Value) (Value, error) {
			a, err := atomArg("set-validator!", args[0])
			if err != nil {
				return nil, err
			}
			if err := validate(th, args[1], a.value); err != nil {
				return nil, err
			}
			a.validator = args[1]
			if a.validator == Nil {
				a.validator = nil
			}
			return Nil, nil
		}},
	{Name: "get-validator", Sig: "(get-validator a)", Doc: "the validator of atom a, or nil", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			a, err := atomArg("get-validator", args[0])
			if err != nil {
				return nil, err
			}
			if a.validator == nil {
				return Nil, nil
			}
			return a.validator, nil
		}},
}

// builtinAtom is (atom x) and (atom x :validator f :meta m).
func builtinAtom(th *Thread, args []Value) (Value, error) {
	a := &atom{value: args[0]}
	for i := 1; i < len(args); i += 2 {
		// Clojure reads :validator and :meta and ignores other options.
		if args[i] == Keyword("validator") && args[i+1] != Nil {
			a.validator = args[i+1]
		}
		if args[i] == Keyword("meta") {
			m, err := metaArg("atom", args[i+1])
			if err != nil {
				return nil, err
			}
			a.meta = m
		}
	}
	if err := th.alloc(heapAtom); err != nil {
		return nil, err
	}
	if a.validator != nil {
		if err := validate(th, a.validator, a.value); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// set gives a its new value v when its validator takes v, then calls its
// watches.
func (a *atom) set(th *Thread, v Value) error {
	if a.validator != nil {
		if err := validate(th, a.validator, v); err != nil {
			return err
		}
	}
	old := a.value
	a.value = v
	for _, w := range a.watches {
		if _, err := th.call(w.fn, []Value{w.key, a, old, v}); err != nil {
			return err
		}
	}
	return nil
}

// validate is Clojure's check of a reference's new value: an error the
// validator throws propagates, and a false or nil answer is
// IllegalStateException.
func validate(th *Thread, validator, v Value) error {
	if validator == nil || validator == Nil {
		return nil
	}
	ok, err := th.call(validator, []Value{v})
	if err != nil {
		return err
	}
	if !truthy(ok) {
		return &thrown{message: "Invalid reference state", kind: executionError, class: "IllegalStateException"}
	}
	return nil
}
