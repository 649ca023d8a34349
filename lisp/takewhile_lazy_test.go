package lisp

import (
	"sync"
	"testing"
)

// TestTakeWhileHeldReadsTheSame has callers at once read a take-while of
// an endless sequence kept between turns: each reader starts its own
// generator, so each sees the same items and the same end.
func TestTakeWhileHeldReadsTheSame(t *testing.T) {
	prelude := genPreludeMemory(t, `(take-while #(< % 2000) (iterate inc 0))`)
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Go(func() {
			for r := range 3 {
				res := run(t, `[(vec (take 3 p)) (count p) (nth p 1999) (seq? p)]`, Env{Prelude: prelude})
				if res.Err != nil || Repr(res.Value) != "[[0 1 2] 2000 1999 true]" {
					t.Errorf("caller %d round %d: %s %v", c, r, Repr(res.Value), res.Err)
					return
				}
			}
		})
	}
	wg.Wait()
}
