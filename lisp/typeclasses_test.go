package lisp

import (
	"os"
	"strings"
	"testing"
)

// TestTypeErrorClasses replays testdata/typeclasses/classes.tsv, the Java
// exception class Clojure 1.11 throws for each builtin called with nil, a
// number, a string, a keyword, a map or a vector in the argument it checks
// (recorded by probe.clj; this test never runs Clojure). Where the
// interpreter refuses the same call, its error must name Clojure's class,
// so that a catch of another class lets it through as in Clojure. An error
// that names no class (catches lets ClassCastException,
// IllegalArgumentException and NullPointerException all take it) passes
// only while Clojure's class is one of those three, and only as many of them
// as ambiguousTypeErrors allows.
func TestTypeErrorClasses(t *testing.T) {
	data, err := os.ReadFile("testdata/typeclasses/classes.tsv")
	if err != nil {
		t.Fatal(err)
	}
	classed, ambiguous := 0, []string{}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		src, class, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("classes.tsv:%d: no tab in %q", i+1, line)
		}
		if class == "value" || strings.HasSuffix(class, "CompilerException") {
			// a value where the interpreter may refuse, or a call Clojure
			// refuses to compile, which no catch takes: not a class question
			continue
		}
		short := class[strings.LastIndexByte(class, '.')+1:]
		res := run(t, src, Env{})
		if res.Err == nil || (res.Err.Kind != typeError && res.Err.class == "") {
			continue // answered, or refused as something other than a type error
		}
		switch got := res.Err.class; {
		case got == short:
			classed++
		case got != "":
			t.Errorf("classes.tsv:%d: %s throws %s in Clojure, the interpreter's error is a %s (%v)", i+1, src, short, got, res.Err)
		case short == "ClassCastException" || short == "IllegalArgumentException" || short == "NullPointerException":
			ambiguous = append(ambiguous, src+" "+short)
		default:
			t.Errorf("classes.tsv:%d: %s throws %s in Clojure, the interpreter's type error names no class (%v)", i+1, src, short, res.Err)
		}
	}
	if testing.Verbose() {
		t.Logf("%d type errors with Clojure's class, %d with none:\n%s", classed, len(ambiguous), strings.Join(ambiguous, "\n"))
	}
	if len(ambiguous) > ambiguousTypeErrors {
		t.Errorf("%d type errors name no Java class, more than the %d allowed:\n%s", len(ambiguous), ambiguousTypeErrors, strings.Join(ambiguous, "\n"))
	}
}

// ambiguousTypeErrors is how many probes of classes.tsv may still give a
// type error that names no class: none, every argument error a builtin
// raises carries the class Clojure throws (typeErrorf's rule, or its
// site's).
const ambiguousTypeErrors = 0
