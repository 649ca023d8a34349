package lisp

// Regex functions (spec 8.10). A string where a regex is expected is
// compiled as one.
var regexBuiltins = []*Builtin{
	{Name: "re-pattern", Sig: "(re-pattern s)", Doc: `compile s as a regex: (re-pattern "\\d+")`, Category: "regex",
		MinArgs: 1, MaxArgs: 1, Fn: func(th *Thread, args []Value) (Value, error) {
			switch v := args[0].(type) {
			case *regex:
				return v, nil
			case String:
				if err := th.allocString(len(v)); err != nil {
					return nil, err
				}
				return compileRegex("re-pattern", string(v))
			}
			return nil, typeErrorf("re-pattern", "a string", args[0])
		},
		Cost: cost(chargedInBody("the compiled pattern, charged as a string of its bytes (at most 256)"))},
	{Name: "re-find", Sig: "(re-find re s)", Doc: "first match: the text, or [whole group1 ...] with groups; nil when none", Category: "regex",
		MinArgs: 2, MaxArgs: 2, Fn: builtinReFind,
		Cost: cost(matching(arg(0), arg(1), false), chargedInBody("the match it returns, charged as it is built (matchValue): its size is known only once found"))},
	{Name: "re-matches", Sig: "(re-matches re s)", Doc: "like re-find, but re must match the whole string", Category: "regex",
		MinArgs: 2, MaxArgs: 2, Fn: builtinReMatches,
		Cost: cost(matching(arg(0), arg(1), false), chargedInBody("the match it returns, charged as it is built (matchValue): its size is known only once found"))},
	{Name: "re-seq", Sig: "(re-seq re s)", Doc: "every match, as re-find returns them; nil when none", Category: "regex",
		MinArgs: 2, MaxArgs: 2, Fn: builtinReSeq,
		Cost: cost(matching(arg(0), arg(1), false), chargedInBody("the matches, counted against the allocation budget before Go builds them (findAll): how many there are is known only as they are found"))},
	{Name: "re-split", Sig: "(re-split re s)", Doc: "s split around matches of re", Category: "regex",
		MinArgs: 2, MaxArgs: 2, Fn: func(th *Thread, args []Value) (Value, error) {
			return splitString(th, "re-split", args[1], args[0], nil)
		},
		Cost: cost(scans(arg(1)), matching(arg(0), arg(1), false), chargedInBody("the parts: a string and an element each, charged before they are built, as the matches are found (findAll)")),
		lean: true},
	{Name: "regex?", Sig: "(regex? x)", Doc: "x is a regex", Category: "regex",
		MinArgs: 1, MaxArgs: 1, Fn: func(th *Thread, args []Value) (Value, error) {
			_, ok := args[0].(*regex)
			return boolValue(ok), nil
		},
		Cost: cost(constant),
		lean: true},
}

// regexInput checks the arguments of a match function, whose declaration
// charged the match (matching).
func regexInput(th *Thread, fn string, reV, sV Value) (*regex, string, bool, error) {
	re, err := regexArg(fn, reV)
	if err != nil {
		return nil, "", false, err
	}
	switch s := sV.(type) {
	case String:
		return re, string(s), true, nil
	case NilType:
		return re, "", false, nil
	}
	return nil, "", false, typeErrorf(fn, "a string", sV)
}

func builtinReFind(th *Thread, args []Value) (Value, error) {
	re, s, ok, err := regexInput(th, "re-find", args[0], args[1])
	if err != nil || !ok {
		return Nil, err
	}
	loc := re.re.FindStringSubmatchIndex(s)
	if loc == nil {
		return Nil, nil
	}
	return matchValue(th, s, loc)
}

func builtinReMatches(th *Thread, args []Value) (Value, error) {
	re, s, ok, err := regexInput(th, "re-matches", args[0], args[1])
	if err != nil || !ok {
		return Nil, err
	}
	loc := re.whole.FindStringSubmatchIndex(s)
	if loc == nil {
		return Nil, nil
	}
	return matchValue(th, s, loc)
}

func builtinReSeq(th *Thread, args []Value) (Value, error) {
	re, s, ok, err := regexInput(th, "re-seq", args[0], args[1])
	if err != nil || !ok {
		return Nil, err
	}
	locs, err := findAll(th, re, s, -1)
	if err != nil {
		return nil, err
	}
	if len(locs) == 0 {
		return Nil, nil
	}
	out, err := makeSlice(th, len(locs))
	if err != nil {
		return nil, err
	}
	for _, loc := range locs {
		m, err := matchValue(th, s, loc)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return NewVector(out), nil
}
