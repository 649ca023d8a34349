package lisp

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestMultimethodsAreChargedBeforeTheyAreBuilt: the multimethods and
// protocols of a program are expanded into functions before the program
// is compiled, each many times its text. Every one of them is charged as
// it is met, so that a program of tens of thousands ends at the memory
// limit having built little more than it read, however they are written
// (defmulti, defmethod, defprotocol, defrecord with methods, extend-type).
func TestMultimethodsAreChargedBeforeTheyAreBuilt(t *testing.T) {
	forms := func(n int, format string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, format, i)
		}
		return b.String()
	}
	for _, src := range []string{
		forms(30_000, "(defmulti m%[1]d identity) "),
		"(defprotocol P " + forms(30_000, "(p%[1]d [x]) ") + ")",
		forms(20_000, "(defprotocol P%[1]d (p%[1]d [x])) "),
		"(defmulti m identity) " + forms(30_000, "(defmethod m %[1]d [x] %[1]d) "),
		"(defprotocol P (p [x])) " + forms(8_000, "(defrecord R%[1]d [a] P (p [x] %[1]d)) "),
		"(defprotocol P (p [x])) " + forms(8_000, "(defrecord R%[1]d [a]) (extend-type R%[1]d P (p [x] %[1]d)) "),
	} {
		name := src[:40]
		res := run(t, src+" 1", Env{})
		var e *Error
		if !errors.As(res.Err, &e) || e.Kind != memoryLimit && e.Kind != stepLimit {
			t.Errorf("%s...: %v, want a memory or step limit", name, res.Err)
			continue
		}
		read := allocatedBy(t, "(quote ("+src+"))")
		got := allocatedBy(t, src+" 1")
		t.Logf("%s...: %d KiB, read as data %d KiB", name, got>>10, read>>10)
		if got > 2*read+uint64(DefaultLimits().MaxAllocBytes) {
			t.Errorf("%s... allocated %d KiB, over twice the %d KiB of reading it as data and the budget", name, got>>10, read>>10)
		}
	}
}
