package lisp

import (
	"time"
)

// The date interop of the specification (section 8.13), deterministic:
// (java.util.Date. x) for a timestamp or a date string is that instant
// as epoch milliseconds, which (.getTime d) returns; LocalDate/parse
// (interop_localdate.go) reads an ISO date and returns it as its string,
// which compares and prints as the specification shows. The current time, (java.util.Date.)
// and System/currentTimeMillis, would make a program's result depend on
// when it ran, so they are refused with a hint to pass the time in data.
var dateBuiltins = []*Builtin{
	{Name: "java.util.Date.", Sig: "(java.util.Date. timestamp-or-string)", Doc: "epoch milliseconds of the instant", Category: "idiom",
		reach: javaForm, aliases: []string{"Date."},
		MinArgs: 0, MaxArgs: 1, Fn: builtinDate, Cost: cost(scans(arg(0)))},
	{Name: ".getTime", Sig: "(.getTime date)", Doc: "epoch milliseconds of a date made by java.util.Date.", Category: "idiom", reach: javaForm,
		MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			if ms, ok := args[0].(Int); ok {
				return ms, nil
			}
			// reflection finds no getTime method of the receiver's class
			return nil, typeErrorf(".getTime", "a date made by (java.util.Date. x)", args[0]).
				WithHint("LocalDate/parse gives an ISO date string: compare those as strings").
				notSeqable(args[0])
		}},
	{Name: "System/currentTimeMillis", Sig: "(System/currentTimeMillis)", Doc: "refused: the current time", Category: "idiom", reach: javaStatic,
		Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) { return nil, nowError("System/currentTimeMillis") }},
}

func nowError(form string) *Error {
	return Errorf(validationError, "%s is not available: the current time would make the program's result depend on when it ran", form).
		WithHint("pass the current time in as data (e.g. data/now) and use that")
}

func builtinDate(th *Thread, args []Value) (Value, error) {
	if len(args) == 0 {
		return nil, nowError("(java.util.Date.)")
	}
	switch a := args[0].(type) {
	case Int:
		if a > -1_000_000_000_000 && a < 1_000_000_000_000 {
			return a * 1000, nil // seconds, as the specification reads small timestamps
		}
		return a, nil
	case String:
		s := string(a)
		for _, layout := range []string{time.RFC3339Nano, time.DateOnly, time.RFC1123Z, "Mon, 2 Jan 2006 15:04:05 -0700"} {
			if t, err := time.Parse(layout, s); err == nil {
				return Int(t.UnixMilli()), nil
			}
		}
		return nil, Errorf(executionError, "java.util.Date. cannot read the date %s", describe(a)).
			WithHint(`write it as ISO-8601, e.g. "2026-01-08T14:30:00Z" or "2026-01-08"`).asJavaWithoutMessage("IllegalArgumentException")
	}
	return nil, typeErrorf("java.util.Date.", "a timestamp or a date string", args[0])
}
