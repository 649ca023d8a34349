package lisp

import (
	"context"
	"testing"
)

// TestLetfnMutualRecursion: functions of one letfn call each other in any
// order; a parameter named like another function of the group is the
// parameter; and a function of the group is kept between turns as source
// that reads back and runs.
func TestLetfnMutualRecursion(t *testing.T) {
	for src, want := range map[string]string{
		`(letfn [(ev? [n] (if (zero? n) true (od? (dec n)))) (od? [n] (if (zero? n) false (ev? (dec n))))] [(ev? 10) (od? 7) (ev? 7)])`: "[true true false]",
		// Names of builtins, as the textbook example has them.
		`(letfn [(even? [n] (if (zero? n) true (odd? (dec n)))) (odd? [n] (if (zero? n) false (even? (dec n))))] (mapv even? [0 1 2 3]))`: "[true false true false]",
		// Multiple arities, and a captured local.
		`(let [k 10] (letfn [(a ([x] (a x 0)) ([x acc] (if (pos? x) (b (dec x) (+ acc k)) acc))) (b [x acc] (a x acc))] (a 3)))`: "30",
		// f's parameter g is the argument, not the function g.
		`(letfn [(f [g] (g 1)) (g [x] (f inc))] [(f inc) (g 0)])`: "[2 2]",
		// Destructured parameters shadow too.
		`(letfn [(f [{:keys [g]}] (if g (g 1) (h))) (h [] :h)] [(f {:g inc}) (f {})])`:  "[2 :h]",
		`(letfn [(f [n] (if (pos? n) (g (dec n)) :f)) (g [n] (f n))] (trampoline f 3))`: ":f",
	} {
		res := run(t, src, Env{})
		if res.Err != nil {
			t.Errorf("%s: %v", src, res.Err)
			continue
		}
		if got := Repr(res.Value); got != want {
			t.Errorf("%s: %s, want %s", src, got, want)
		}
	}
	res := run(t, `(letfn [(ping [n] (if (pos? n) (pong (dec n)) :done)) (pong [n] (ping n))] ping)`, Env{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	wire := WireText(res.Value)
	back, err := ReadValue(context.Background(), wire, 0, 0)
	if err != nil {
		t.Fatalf("%s does not read back: %v", wire, err)
	}
	if WireText(back) != wire {
		t.Errorf("%s read back as %s", wire, WireText(back))
	}
	got, err := callBuiltin(newTestThread(), "trampoline", back, Int(7))
	if err != nil || got != Keyword("done") {
		t.Errorf("the function read back gives %v, %v", got, err)
	}
}
