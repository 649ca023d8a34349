package lisp

import (
	"fmt"
	"strings"
	"testing"
)

// TestEveryBuiltinErrorNamesAClass calls every builtin that is a var of
// Clojure's namespaces with wrong arguments, at each arity up to three: nil,
// a number, a string, a keyword, a map, a vector, a function or a negative
// float in every position. Each refusal must name the Java exception class
// Clojure throws for the call (which a catch of another class lets through,
// and ex-message reads), so that a builtin added without one fails here.
// The refusals that name none are those where Clojure throws nothing:
// classlessRefusal says which.
func TestEveryBuiltinErrorNamesAClass(t *testing.T) {
	probes := []string{"nil", "42", `"s"`, ":k", "{:a 1}", "[1 2]", "inc", "-1.5"}
	calls, refused := 0, 0
	for _, b := range builtins.list {
		if clojureVarName(b.Name) == "" {
			continue // no Clojure counterpart, so no Java class to name
		}
		most := b.MaxArgs
		if most < 0 || most > 3 {
			most = 3
		}
		for n := b.MinArgs; n <= most; n++ {
			for _, p := range probes {
				src := fmt.Sprintf("(%s %s)", b.Name, strings.TrimSpace(strings.Repeat(p+" ", n)))
				calls++
				res := run(t, src, Env{})
				if res.Err == nil {
					continue
				}
				switch res.Err.Kind {
				case typeError, arithmeticError, executionError, arityErrorKind:
				default:
					continue // a limit, or a refusal of the program's text
				}
				refused++
				if res.Err.class == "" && !res.Err.javaNoMessage && !classlessRefusal(src, res.Err) {
					t.Errorf("%s: the error names no Java class: %v", src, res.Err)
				}
			}
		}
	}
	if refused < 1000 {
		t.Errorf("only %d of %d calls with wrong arguments were refused: the walk no longer reaches the builtins", refused, calls)
	}
}

// classlessRefusal reports whether err, the refusal of src, is one where
// Clojure throws no exception, so there is no class to name: a result
// that never ends ((cycle [1 2]), (range), which Clojure would print
// forever; a non-positive partition or step, refused before the
// collection is looked at, as it never ends for one), the class of a function (Clojure names it
// after where it was compiled), or sort with a nil comparator (Clojure
// sorts in natural order; the interpreter asks for the comparator first).
// sort-by's nil comparator is Clojure's NullPointerException.
func classlessRefusal(src string, err *Error) bool {
	switch {
	case strings.Contains(err.Message, "it never ends"):
		return true
	case strings.Contains(err.Message, "must be positive"): // an endless partition or step
		return true
	case strings.Contains(err.Message, "cannot name a function's class"):
		return true
	case strings.HasPrefix(src, "(sort nil"):
		return true
	}
	return false
}

// TestThrowOfAFunctionNamesItsClass: throwing a function is Clojure's
// ClassCastException naming the class Clojure compiles the function to
// (checked with Clojure 1.11.1; the numbered classes of fn and the
// combinators are named without their numbers).
func TestThrowOfAFunctionNamesItsClass(t *testing.T) {
	cast := " cannot be cast to class java.lang.Throwable"
	app := " is in unnamed module of loader 'app'; java.lang.Throwable is in module java.base of loader 'bootstrap')"
	cases := []struct{ src, want string }{
		{"(throw inc)", "class clojure.core$inc" + cast + " (clojure.core$inc" + app},
		{"(throw not=)", "class clojure.core$not_EQ_" + cast + " (clojure.core$not_EQ_" + app},
		{"(throw str/join)", "class clojure.string$join" + cast + " (clojure.string$join" + app},
		{"(defn valid-row? [r] r) (throw valid-row?)", "class user$valid_row_QMARK_" + cast},
		{"(throw (fn [x] x))", "class user$fn" + cast},
		{"(throw (partial + 1))", "class clojure.core$partial$fn" + cast + " (clojure.core$partial$fn" + app},
	}
	for _, c := range cases {
		res := run(t, "(try "+c.src+" (catch ClassCastException e (ex-message e)))", Env{})
		if res.Err != nil || res.Value != String(c.want) {
			t.Errorf("%s: got %v %v, want %q", c.src, Repr(res.Value), res.Err, c.want)
		}
	}
}
