package lisp

import "testing"

// TestDeepValues checks that walking and flattening data nested far deeper
// than any call stack fails with a limit or succeeds, without crashing.
func TestDeepValues(t *testing.T) {
	var deep Value = Int(1)
	for range 100_000 {
		deep = NewVector([]Value{deep})
	}
	th := newTestThread()
	if v, err := callBuiltin(th, "flatten", deep); err != nil || Repr(v) != "[1]" {
		t.Errorf("flatten of deep vector = %v, %v", v, err)
	}
	for _, fn := range []string{"prewalk", "postwalk"} {
		_, err := callBuiltin(newTestThread(), fn, builtinFn("identity"), deep)
		if e := asError(err); err == nil || e.Kind != depthLimit {
			t.Errorf("%s of a 100,000-deep vector = %v, want depth_limit", fn, err)
		}
	}
	// Every node of the result holds the rest of the chain, so its printed
	// size is quadratic: a memory limit is as good an answer as the nodes.
	_, err := callBuiltin(newTestThread(), "tree-seq", builtinFn("vector?"), builtinFn("seq"), deep)
	if err != nil && asError(err).Kind != memoryLimit {
		t.Errorf("tree-seq of a deep vector: %v", err)
	}
}
