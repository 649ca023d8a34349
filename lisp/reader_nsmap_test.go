package lisp

import (
	"context"
	"testing"
)

// TestNamespacedMapReads checks #:ns{...}, the text Clojure prints for a
// map whose keys share a namespace, as a value arriving on the wire and as
// a literal in a program: unqualified keys take the namespace, :_/k has
// none, and a qualified key keeps its own.
func TestNamespacedMapReads(t *testing.T) {
	want := "{:user/id 1, :user/name \"a\", :plain 2, :other/k 3}"
	text := `#:user{:id 1 :name "a" :_/plain 2 :other/k 3}`
	v, err := ReadValue(context.Background(), text, 0, 0)
	if err != nil {
		t.Fatalf("ReadValue(%s): %v", text, err)
	}
	if got := Repr(v); got != want {
		t.Errorf("ReadValue(%s) = %s, want %s", text, got, want)
	}
	res := run(t, text, Env{})
	if res.Err != nil {
		t.Fatalf("eval %s: %v", text, res.Err)
	}
	if got := Repr(res.Value); got != want {
		t.Errorf("eval %s = %s, want %s", text, got, want)
	}
	for _, bad := range []string{`#::{:a 1}`, `#:{:a 1}`, `#:a/b{:c 1}`} {
		if _, err := ReadValue(context.Background(), bad, 0, 0); err == nil {
			t.Errorf("ReadValue(%s) read, want an error naming the namespace", bad)
		}
		if res := run(t, bad, Env{}); res.Err == nil {
			t.Errorf("eval %s = %s, want an error naming the namespace", bad, Repr(res.Value))
		}
	}
}
