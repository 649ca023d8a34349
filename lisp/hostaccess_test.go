package lisp

import (
	"context"
	"go/build"
	"slices"
	"strings"
	"testing"
)

// hostAccessPackages are the standard packages through which Go code reaches
// files, processes, the network or raw memory.
var hostAccessPackages = []string{
	"os", "os/exec", "os/signal", "os/user", "io/fs", "io/ioutil", "path/filepath",
	"net", "net/http", "net/rpc", "net/smtp", "syscall", "plugin", "unsafe", "runtime/cgo",
}

// TestInterpreterImportsNoHostAccess: the sandbox has no I/O because the
// interpreter's code cannot do any; a new import of os or net here is a
// security review, not a refactoring.
func TestInterpreterImportsNoHostAccess(t *testing.T) {
	pkg, err := build.Default.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if slices.Contains(hostAccessPackages, imp) {
			t.Errorf("lisp imports %q: the interpreter must not reach files, processes or the network", imp)
		}
	}
}

// ioNames are the names a program would use to reach the host in Clojure
// or in other Lisps.
var ioNames = []string{
	"slurp", "spit", "load-file", "load", "load-string", "read-line", "read", "eval",
	"sh", "exec", "shell", "system", "getenv", "System/getenv", "System/exit", "sleep", "Thread/sleep",
	"file", "file-seq", "line-seq", "reader", "writer", "input-stream", "output-stream", "delete-file",
	"http-get", "http-post", "fetch", "socket", "url", "open", "with-open", "spit-file",
	"in-ns", "resolve", "intern", "var-set", "alter-var-root",
	"future", "agent", "send", "thread", "pmap-io", "print-to-file",
}

// ioFragments are parts of a name that suggest host access.
var ioFragments = []string{"slurp", "spit", "file", "load", "read-", "write", "http", "socket", "exec", "shell", "env", "eval", "stream", "sleep", "system"}

// readsOnlyItsArgument are the builtins whose names have a fragment of
// ioFragments but that read only the string they are given, as data.
var readsOnlyItsArgument = map[string]bool{"read-string": true, "clojure.edn/read-string": true}

// TestNoBuiltinReachesTheHost: no builtin or special form has a name that
// suggests I/O, and every I/O name a program might try is an undefined
// symbol, which the LLM reads as "this does not exist".
func TestNoBuiltinReachesTheHost(t *testing.T) {
	var names []string
	for _, b := range Builtins() {
		names = append(names, b.Name)
	}
	for n := range specialForms {
		names = append(names, n)
	}
	for _, n := range names {
		if readsOnlyItsArgument[n] {
			continue
		}
		for _, frag := range ioFragments {
			if strings.Contains(n, frag) {
				t.Errorf("builtin or special form %q has a name that suggests host access (%q)", n, frag)
			}
		}
	}
	for _, n := range ioNames {
		src := "(" + n + ` "/etc/passwd")`
		res, err := Eval(context.Background(), src, Env{Limits: DefaultLimits()})
		if err != nil {
			t.Fatal(err)
		}
		if res.Err == nil || res.Err.Kind != undefinedSymbol {
			t.Errorf("%s: %v, want undefined_symbol", src, res.Err)
		}
	} // Namespace headers load nothing: they declare aliases of the
	// namespaces built in, and refuse anything else.
	for _, n := range []string{"require", "import", "use", "ns"} {
		src := "(" + n + ` "/etc/passwd")`
		res, err := Eval(context.Background(), src, Env{Limits: DefaultLimits()})
		if err != nil {
			t.Fatal(err)
		}
		if res.Err == nil || res.Err.Kind != validationError {
			t.Errorf("%s: %v, want validation_error", src, res.Err)
		}
	}
}
