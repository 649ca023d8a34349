package lisp

// checkResultKind refuses a result that only exists while a program runs:
// an atom, an unbounded sequence, a reduced marker or a caught exception.
// The turn's result must be data the caller can read.
func checkResultKind(v Value) *Error {
	switch v := v.(type) {
	case *atom:
		// An atom, a delay or a volatile.
		article := "a"
		if v.TypeName()[0] == 'a' {
			article = "an"
		}
		return Errorf(validationError, "the result is %s %s, which lives only while the program runs", article, v.TypeName()).
			WithHint("return its value: @a")
	case *transient:
		return Errorf(validationError, "the result is a transient, which lives only while the program runs").
			WithHint("return the value it holds: (persistent! t)")
	case *infiniteSeq:
		return infiniteError("the result", v)
	case *stepFn:
		return Errorf(validationError, "the result is a reducing function, which only lives while the program runs").
			WithHint("apply transducers with into, transduce or sequence")
	case *reducedValue:
		return Errorf(validationError, "the result is (reduced ...), which only reduce understands").
			WithHint("use reduced inside the function given to reduce")
	case *thrown:
		return Errorf(validationError, "the result is an exception: %s", v.message).
			WithHint("return (ex-message e) or (ex-data e)")
	}
	return nil
}
