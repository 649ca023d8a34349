package lisp

import "strings"

// checkResultKind refuses a result that only exists while a program runs:
// an atom, an unbounded sequence, a reduced marker or a caught exception.
// The turn's result must be data the caller can read.
func checkResultKind(v Value) *Error { return checkSentKind("the result", v) }

// checkSentKind is checkResultKind of anything a turn sends back, named
// what: its result, a fail reason, a tool call's arguments. The caller
// sends each back (as previous results, tool results, the turns of
// ToMessages), and a kind that lives only while the program runs has no
// text that reads back.
func checkSentKind(what string, v Value) *Error {
	verb, is := "return", "is"
	if what != "the result" {
		verb = "send"
	}
	if namesPlural(what) {
		is = "are"
	}
	switch v := v.(type) {
	case *atom:
		// An atom, a delay or a volatile.
		article := "a"
		if v.TypeName()[0] == 'a' {
			article = "an"
		}
		return Errorf(validationError, "%s %s %s %s, which lives only while the program runs", what, is, article, v.TypeName()).
			WithHint("%s its value: @a", verb)
	case *transient:
		return Errorf(validationError, "%s %s a transient, which lives only while the program runs", what, is).
			WithHint("%s the value it holds: (persistent! t)", verb)
	case *infiniteSeq:
		if what != "the result" {
			return nil // sent as its source, which reads back; only a result is consumed whole
		}
		return infiniteError(what, v)
	case *stepFn:
		return Errorf(validationError, "%s %s a reducing function, which only lives while the program runs", what, is).
			WithHint("apply transducers with into, transduce or sequence")
	case *reducedValue:
		return Errorf(validationError, "%s %s (reduced ...), which only reduce understands", what, is).
			WithHint("use reduced inside the function given to reduce")
	case *thrown:
		return Errorf(validationError, "%s %s an exception: %s", what, is, v.message).
			WithHint("%s (ex-message e) or (ex-data e)", verb)
	}
	return nil
}

// namesPlural reports whether what, the name of something a turn sends back,
// is plural ("the arguments of tool/x"), for the verb of its errors.
func namesPlural(what string) bool { return strings.HasPrefix(what, "the arguments") }
