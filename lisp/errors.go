package lisp

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
)

// ErrorKind classifies a failed evaluation. The names travel on the wire as
// TurnError.type, so they are part of the API.
type ErrorKind string

// Error kinds. The limit kinds name the budget that was exhausted.
const (
	parseError         ErrorKind = "parse_error"
	validationError    ErrorKind = "validation_error"
	undefinedSymbol    ErrorKind = "undefined_symbol"
	arityErrorKind     ErrorKind = "arity_error"
	typeError          ErrorKind = "type_error"
	arithmeticError    ErrorKind = "arithmetic_error"
	ambiguousReference ErrorKind = "ambiguous_reference"
	executionError     ErrorKind = "execution_error"
	toolError          ErrorKind = "tool_error"
	ToolTimeout        ErrorKind = "tool_timeout" // the host waited too long for a tool's answer
	fail               ErrorKind = "fail"
	stepLimit          ErrorKind = "step_limit"
	memoryLimit        ErrorKind = "memory_limit"
	depthLimit         ErrorKind = "depth_limit"
	outputLimit        ErrorKind = "output_limit"
	ToolCallLimit      ErrorKind = "tool_call_limit"
	emitLimit          ErrorKind = "emit_limit"
	timeout            ErrorKind = "timeout"
	// noProgram is an LLM reply that holds no fenced program to run.
	noProgram ErrorKind = "no_program"
)

// Error is a failed evaluation, written for the LLM that wrote the program:
// the message says what went wrong, the hint what to do instead.
type Error struct {
	Kind    ErrorKind
	Message string
	Hint    string
	Pos     Pos // where in the program, when known
	// class is the short name of the Java exception class Clojure throws
	// for this error, where it is known (javaSupers); javaMessage the
	// message its exception carries there, which ex-message gives.
	class, javaMessage string
	// javaNoMessage: Clojure's exception has no message (an index out of
	// a vector's range), so ex-message is nil.
	javaNoMessage bool
	// site is the program counter of the code that gave the hint, so that
	// a test can tell which hint site a program reaches
	// (TestEveryHintSiteIsFollowed).
	site uintptr
}

// asJava says which Java exception Clojure throws for e, and with what
// message ("" when not known).
func (e *Error) asJava(class, message string) *Error {
	e.class, e.javaMessage = class, message
	return e
}

// asJavaWithoutMessage says that Clojure throws class for e with no
// message: (ex-message e) is nil and (str e) the class name alone.
func (e *Error) asJavaWithoutMessage(class string) *Error {
	e.class, e.javaNoMessage = class, true
	return e
}

// javaSupers is each Java exception class a program may catch, by short
// name, to its superclass, as in Java: (catch IllegalArgumentException e)
// catches a NumberFormatException, (catch Exception e) everything but an
// AssertionError, which is an Error.
var javaSupers = map[string]string{
	"Throwable":                       "",
	"Exception":                       "Throwable",
	"Error":                           "Throwable",
	"AssertionError":                  "Error",
	"VirtualMachineError":             "Error",
	"StackOverflowError":              "VirtualMachineError", // a lazy sequence or delay that needs itself (lazyseq.go, delay.go)
	"LinkageError":                    "Error",
	"IncompatibleClassChangeError":    "LinkageError",
	"IllegalAccessError":              "IncompatibleClassChangeError", // a transient used after persistent!
	"RuntimeException":                "Exception",
	"IllegalArgumentException":        "RuntimeException",
	"NumberFormatException":           "IllegalArgumentException",
	"ArityException":                  "IllegalArgumentException",
	"ArithmeticException":             "RuntimeException",
	"ClassCastException":              "RuntimeException",
	"NullPointerException":            "RuntimeException",
	"IllegalStateException":           "RuntimeException",
	"UnsupportedOperationException":   "RuntimeException",
	"IndexOutOfBoundsException":       "RuntimeException",
	"StringIndexOutOfBoundsException": "IndexOutOfBoundsException",
	"ArrayIndexOutOfBoundsException":  "IndexOutOfBoundsException",
	"ExceptionInfo":                   "RuntimeException",

	// format's, from java.util
	"IllegalFormatException":                 "IllegalArgumentException",
	"IllegalFormatConversionException":       "IllegalFormatException",
	"MissingFormatArgumentException":         "IllegalFormatException",
	"UnknownFormatConversionException":       "IllegalFormatException",
	"DuplicateFormatFlagsException":          "IllegalFormatException",
	"FormatFlagsConversionMismatchException": "IllegalFormatException",
	"IllegalFormatFlagsException":            "IllegalFormatException",
	"IllegalFormatPrecisionException":        "IllegalFormatException",
	"MissingFormatWidthException":            "IllegalFormatException",

	// java.time's
	"DateTimeException":                "RuntimeException",
	"DateTimeParseException":           "DateTimeException",
	"UnsupportedTemporalTypeException": "DateTimeException",

	// Classes nothing here throws (no I/O, threads, network or
	// reflection), which models catch out of habit: a catch of one takes
	// only what a program threw of it, as in Java, not every error.
	"IOException":                     "Exception",
	"FileNotFoundException":           "IOException",
	"EOFException":                    "IOException",
	"UncheckedIOException":            "RuntimeException",
	"MalformedURLException":           "IOException",
	"URISyntaxException":              "Exception",
	"SQLException":                    "Exception",
	"InterruptedException":            "Exception",
	"TimeoutException":                "Exception",
	"ExecutionException":              "Exception",
	"CancellationException":           "IllegalStateException",
	"NoSuchElementException":          "RuntimeException",
	"InputMismatchException":          "NoSuchElementException",
	"ConcurrentModificationException": "RuntimeException",
	"EmptyStackException":             "RuntimeException",
	"SecurityException":               "RuntimeException",
	"CloneNotSupportedException":      "Exception",
	"ReflectiveOperationException":    "Exception",
	"ClassNotFoundException":          "ReflectiveOperationException",
	"OutOfMemoryError":                "VirtualMachineError",
}

// javaPackages give each class of javaSupers its full name.
var javaPackages = map[string]string{"ArityException": "clojure.lang.", "ExceptionInfo": "clojure.lang.",
	"IllegalFormatException": "java.util.", "IllegalFormatConversionException": "java.util.", "MissingFormatArgumentException": "java.util.",
	"UnknownFormatConversionException": "java.util.", "DuplicateFormatFlagsException": "java.util.", "FormatFlagsConversionMismatchException": "java.util.",
	"IllegalFormatFlagsException": "java.util.", "IllegalFormatPrecisionException": "java.util.", "MissingFormatWidthException": "java.util.",
	"DateTimeException": "java.time.", "DateTimeParseException": "java.time.format.", "UnsupportedTemporalTypeException": "java.time.temporal.",
	"IOException": "java.io.", "FileNotFoundException": "java.io.", "EOFException": "java.io.", "UncheckedIOException": "java.io.",
	"MalformedURLException": "java.net.", "URISyntaxException": "java.net.", "SQLException": "java.sql.",
	"TimeoutException": "java.util.concurrent.", "ExecutionException": "java.util.concurrent.", "CancellationException": "java.util.concurrent.",
	"NoSuchElementException": "java.util.", "InputMismatchException": "java.util.", "ConcurrentModificationException": "java.util.",
	"EmptyStackException": "java.util."}

// javaClassName is the full name of the class short.
func javaClassName(short string) string {
	if p, ok := javaPackages[short]; ok {
		return p + short
	}
	return "java.lang." + short
}

// isA reports whether class is ancestor or one of its subclasses.
func isA(class, ancestor string) bool {
	for c := class; c != ""; c = javaSupers[c] {
		if c == ancestor {
			return true
		}
	}
	return false
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

// javaErrorf builds an error a program may catch, of one of the kinds
// catch takes (catchableKinds), naming the Java exception class Clojure
// throws for it: a short name of javaSupers, or noJavaClass for a refusal
// where Clojure throws nothing. Errors of those kinds are built here, or
// by Errorf with the class named in the same statement (asJava and the
// helpers that call it), so that no site forgets its class
// (TestCatchableErrorsNameAClass).
func javaErrorf(kind ErrorKind, class, format string, args ...any) *Error {
	return Errorf(kind, format, args...).asJava(class, "")
}

// noJavaClass is the class of a refusal where Clojure throws no exception:
// it returns what PTC-Lisp cannot reproduce (a function's class, an
// identity hash, a surrogate character, an order of a set's members),
// computes what never ends, runs into a limit of the sidecar's own, or is
// a builtin of PTC-Lisp's own (where, round with digits). A catch of
// Exception or RuntimeException takes it; a catch of a narrower class
// takes it by its kind (catches).
const noJavaClass = ""

// catchableKinds are the kinds of error a program's catch takes, which
// name a Java class (javaErrorf).
var catchableKinds = []ErrorKind{typeError, arithmeticError, executionError, arityErrorKind}

// WithHint returns e with a hint attached.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	e.site = callerPC()
	return e
}

// callerPC is the program counter of the call to the function that calls
// it.
func callerPC() uintptr {
	var pc [1]uintptr
	runtime.Callers(3, pc[:])
	return pc[0]
}

// asError returns err as an *Error, wrapping foreign errors as execution errors.
func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var t *thrown
	if errors.As(err, &t) {
		catchAs := "Exception"
		if !catches("Exception", t) {
			catchAs = t.class // an Error, such as AssertionError, which Exception does not catch
		}
		return Errorf(t.kind, "uncaught exception: %s", t.message).
			WithHint("catch it with (try ... (catch %s e ...)), or end the program with (fail reason)", catchAs)
	}
	return &Error{Kind: executionError, Message: err.Error()}
}

func arityError(name, sig string, got int) *Error {
	err := javaErrorf(arityErrorKind, noJavaClass, "%s called with %d argument%s", name, got, plural(got)).
		WithHint("call it as %s", sig)
	if strings.HasPrefix(name, ":") {
		return err.asJava("ArityException", wrongArgs(got, name))
	}
	if q := clojureVarName(name); q != "" {
		return err.asJava("ArityException", wrongArgs(got, q))
	}
	return err
}

// wrongArgs is the message of Clojure's ArityException for a call of fn,
// which a program reads with ex-message (and matches with a regex).
func wrongArgs(got int, fn string) string {
	return fmt.Sprintf("Wrong number of args (%d) passed to: %s", got, fn)
}

// clojureVarName is the namespace-qualified name Clojure gives the
// function of a builtin's name, clojure.core's first; "" for a name that
// no namespace models use has.
func clojureVarName(name string) string {
	publics := namespacePublics()
	if i := strings.IndexByte(name, '/'); i > 0 {
		if ns, ok := clojureNamespaceOf[name[:i]]; ok && publics[ns][name[i+1:]] {
			return ns + name[i:]
		}
		return ""
	}
	for _, ns := range []string{"clojure.core", "clojure.string", "clojure.set", "clojure.walk"} {
		if publics[ns][name] {
			return ns + "/" + name
		}
	}
	return ""
}

// typeErrorf reports a wrong argument type: fn is the function, want what it
// expected, got the value it received. The error carries the Java class
// Clojure throws for it by the rule its probes show
// (testdata/typeclasses/classes.tsv): nil where a value is needed is a
// NullPointerException; any other value where a string, number, character,
// keyword or other scalar is needed is a ClassCastException (Clojure casts
// it). Where a collection is needed, Clojure throws either a
// ClassCastException (a cast to the interface) or an
// IllegalArgumentException (seq of a non-seqable), by function: those
// errors name no class unless their site names it (asJava), and catches
// lets either take them. A site whose Clojure class differs names it.
func typeErrorf(fn, want string, got Value) *Error {
	e := javaErrorf(typeError, "ClassCastException", "%s expected %s, got %s", fn, want, got.TypeName())
	if _, isNil := got.(NilType); isNil {
		return e.asJava("NullPointerException", "")
	}
	if !wantsCollection(want) {
		return e.asJava("ClassCastException", "")
	}
	return e.walkFails(got)
}

// walkFails gives e, a refusal of got (not nil) where a collection is
// needed, the class Clojure throws when it walks got as a sequence: seq of
// a value it cannot walk (a number, a keyword, a function) is an
// IllegalArgumentException; a string or a collection of the wrong kind
// walks, and the cast of what it yields (a character, an element that is
// no map entry) is a ClassCastException. A site where Clojure casts the
// argument itself instead calls castFails.
func (e *Error) walkFails(got Value) *Error {
	switch got.(type) {
	case String, *Vector, *Set, *Map:
		return e.asJava("ClassCastException", "")
	}
	return e.asJava("IllegalArgumentException", "")
}

// castFails gives e, a refusal of got where a collection of some kind is
// needed, the ClassCastException Clojure throws when it casts got to that
// kind's interface; nil keeps its NullPointerException.
func (e *Error) castFails(got Value) *Error {
	if got != Nil {
		e.asJava("ClassCastException", "")
	}
	return e
}

// javaCastMessage is the message of the ClassCastException Java throws
// casting a value of class from to class to, with the modules Java names
// in it (JDK 9 and later): the JDK's classes are java.base's, Clojure's
// the application loader's unnamed module. A class of neither (a
// record's, whose loader Java names with an identity hash) leaves the
// modules out.
func javaCastMessage(from, to string) string {
	text := "class " + from + " cannot be cast to class " + to
	module := func(class string) string {
		switch {
		case strings.HasPrefix(class, "java."):
			return "module java.base of loader 'bootstrap'"
		case strings.HasPrefix(class, "clojure."):
			return "unnamed module of loader 'app'"
		}
		return ""
	}
	fromModule, toModule := module(from), module(to)
	switch {
	case fromModule == "" || toModule == "":
		return text
	case fromModule == toModule:
		return text + " (" + from + " and " + to + " are in " + fromModule + ")"
	}
	return text + " (" + from + " is in " + fromModule + "; " + to + " is in " + toModule + ")"
}

// javaSimpleName is a class's name without its package.
func javaSimpleName(class string) string { return class[strings.LastIndexByte(class, '.')+1:] }

// notAn gives e, a refusal of got where Clojure casts it to the
// interface iface (clojure.lang.IFn for a function, java.util.Comparator
// for a comparator), the exception that cast throws: a
// ClassCastException with Java's message, or for nil the
// NullPointerException of calling through it.
func (e *Error) notAn(iface string, got Value) *Error {
	if got == Nil {
		return e.asJava("NullPointerException", "")
	}
	return e.asJava("ClassCastException", javaCastMessage(javaValueClass(got), iface))
}

// nullFails gives e, a refusal of got, the NullPointerException Clojure
// throws when got is nil.
func (e *Error) nullFails(got Value) *Error {
	if got == Nil {
		e.asJava("NullPointerException", "")
	}
	return e
}

// notSeqable gives e, a refusal of got where a sequence is needed, the
// IllegalArgumentException Clojure's seq throws for a value it cannot walk.
func (e *Error) notSeqable(got Value) *Error {
	if got != Nil {
		e.asJava("IllegalArgumentException", "")
	}
	return e
}

// wantsCollection reports whether want, a typeErrorf description of the
// expected argument, names a collection.
func wantsCollection(want string) bool {
	for _, word := range []string{"collection", "map", "set", "vector", "list", "seq", "transient", "hierarchy", "pair", "entry"} {
		if strings.Contains(want, word) {
			return true
		}
	}
	return false
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Warning is something the interpreter forgave in a program that still
// ran: the turn records it so that the LLM reads it on its next prompt
// and can stop the habit. Types travel on the wire as TurnWarning.type.
type Warning struct {
	Type    string
	Message string
}

// Warning types.
const (
	// WarningUnmatchedClose: closing brackets after the last complete
	// form were ignored.
	WarningUnmatchedClose = "unmatched_closing_bracket"
	// WarningJoinedBlocks: the reply held several code blocks, run as one
	// program.
	WarningJoinedBlocks = "joined_code_blocks"
	// WarningShadowedBuiltin: the program defined a name PTC-Lisp has as
	// a builtin and Clojure does not (round, sum-by, log); the program's
	// definition wins within it.
	WarningShadowedBuiltin = "shadowed_builtin"
	// WarningNamespaceHeader: an ns, require or import form was skipped;
	// the aliases it declared resolve.
	WarningNamespaceHeader = "namespace_header"
	// WarningEvaluationOnly: (def name (atom ...)) was bound for this
	// program only; memory does not keep an atom.
	WarningEvaluationOnly = "evaluation_only"
)
