package lisp

import (
	"errors"
	"fmt"
)

// ErrorKind classifies a failed evaluation. The names travel on the wire as
// TurnError.type, so they are part of the API.
type ErrorKind string

// Error kinds. The limit kinds name the budget that was exhausted.
const (
	ParseError         ErrorKind = "parse_error"
	ValidationError    ErrorKind = "validation_error"
	UndefinedSymbol    ErrorKind = "undefined_symbol"
	ArityError         ErrorKind = "arity_error"
	TypeError          ErrorKind = "type_error"
	ArithmeticError    ErrorKind = "arithmetic_error"
	AmbiguousReference ErrorKind = "ambiguous_reference"
	ExecutionError     ErrorKind = "execution_error"
	ToolError          ErrorKind = "tool_error"
	ToolTimeout        ErrorKind = "tool_timeout" // the host waited too long for a tool's answer
	Fail               ErrorKind = "fail"
	StepLimit          ErrorKind = "step_limit"
	MemoryLimit        ErrorKind = "memory_limit"
	DepthLimit         ErrorKind = "depth_limit"
	OutputLimit        ErrorKind = "output_limit"
	ToolCallLimit      ErrorKind = "tool_call_limit"
	EmitLimit          ErrorKind = "emit_limit"
	Timeout            ErrorKind = "timeout"
	// NoProgram is an LLM reply that holds no fenced program to run.
	NoProgram ErrorKind = "no_program"
)

// Error is a failed evaluation, written for the LLM that wrote the program:
// the message says what went wrong, the hint what to do instead.
type Error struct {
	Kind    ErrorKind
	Message string
	Hint    string
	Pos     Pos // where in the program, when known
}

func (e *Error) Error() string {
	s := string(e.Kind)
	if e.Pos.Line > 0 {
		s += fmt.Sprintf(" at line %d, column %d", e.Pos.Line, e.Pos.Col)
	}
	s += ": " + e.Message
	if e.Hint != "" {
		s += " (hint: " + e.Hint + ")"
	}
	return s
}

// Errorf builds an *Error of the given kind.
func Errorf(kind ErrorKind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// WithHint returns e with a hint attached.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// AsError returns err as an *Error, wrapping foreign errors as execution errors.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Kind: ExecutionError, Message: err.Error()}
}

func arityError(name, sig string, got int) *Error {
	return Errorf(ArityError, "%s called with %d argument%s", name, got, plural(got)).
		WithHint("call it as %s", sig)
}

// TypeErrorf reports a wrong argument type: fn is the function, want what it
// expected, got the value it received.
func TypeErrorf(fn, want string, got Value) *Error {
	return Errorf(TypeError, "%s expected %s, got %s", fn, want, got.TypeName())
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
