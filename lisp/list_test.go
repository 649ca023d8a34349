package lisp

import (
	"context"
	"testing"
)

// TestListsBehaveAsLists: where Clojure's lists and vectors differ in a
// way a program can see, a list value behaves as a list.
func TestListsBehaveAsLists(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"'(3 2 1)", "(3 2 1)"},
		{"(list 1 2 3)", "(1 2 3)"},
		{"()", "()"},
		{"(conj '(1 2) 3)", "(3 1 2)"},
		{"(conj '(1 2) 3 4)", "(4 3 1 2)"},
		{"(conj [1 2] 3)", "[1 2 3]"},
		{"(into () [1 2 3])", "(3 2 1)"},
		{"(into '(0) [1 2])", "(2 1 0)"},
		{"(let [s (list 1 2 3)] [(peek s) (pop s)])", "[1 (2 3)]"},
		{"(let [s [1 2 3]] [(peek s) (pop s)])", "[3 [1 2]]"},
		{"(reduce conj () [1 2 3])", "(3 2 1)"},
		{"(= '(1 2) [1 2])", "true"},
		{"(= (list) [])", "true"},
		{"[(list? '(1)) (vector? '(1)) (list? [1]) (vector? [1])]", "[true false false true]"},
		{"(vec '(1 2))", "[1 2]"},
		{"(conj (vec '(1 2)) 3)", "[1 2 3]"},
		{"(empty '(1 2))", "()"},
		{"(first '(1 2))", "1"},
		{"(count (list 1 2))", "2"},
		{"(get '(1 2) 0)", "nil"},
		{"(contains? #{[1 2]} '(1 2))", "true"},
		{"(get {'(1 2) :x} [1 2])", ":x"},
		{"(find {:a 1 :b 2} :b)", "[:b 2]"},
		{"(find {:a 1} :z)", "nil"},
		{"(find [10 20] 1)", "[1 20]"},
		{"(find even? [1 3 4])", "4"},
	} {
		res := run(t, c.src, Env{})
		if res.Err != nil {
			t.Errorf("%s: %v", c.src, res.Err)
			continue
		}
		if got := Repr(res.Value); got != c.want {
			t.Errorf("%s = %s, want %s", c.src, got, c.want)
		}
	}
	if res := run(t, "(pop ())", Env{}); res.Err == nil {
		t.Errorf("(pop ()) succeeded")
	}
}

// TestListRoundTrips: a list leaves a turn as EDN (1 2) and comes back a
// list, through memory, the wire and the source of a closure.
func TestListRoundTrips(t *testing.T) {
	res := run(t, "(def stack '(1 2)) (def nested {:s (list :a) :v [(list)]}) (let [s (list 3 4)] (defn top [] (peek s)))", Env{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	wire := res.Memory.Encode()
	texts := map[string]string{}
	for _, b := range wire {
		texts[b.Name] = b.Value
	}
	if texts["stack"] != "(1 2)" || texts["nested"] != "{:s (:a), :v [()]}" || texts["top"] != "(let [s (list 3 4)] (fn [] (peek s)))" {
		t.Fatalf("memory texts %q", texts)
	}
	mem, err := DecodeMemory(context.Background(), wire)
	if err != nil {
		t.Fatal(err)
	}
	res = run(t, "[(conj stack 0) (conj (:s nested) :b) (top)]", Env{Prelude: mem})
	if res.Err != nil || Repr(res.Value) != "[(0 1 2) (:b :a) 3]" {
		t.Fatalf("after the round trip: %v %v", Repr(res.Value), res.Err)
	}
	for _, text := range []string{"(1 2 3)", "[(1) ()]", "{:a (1 (2))}"} {
		v, err := ReadValue(context.Background(), text, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := WireText(v); got != text {
			t.Errorf("ReadValue(%s) writes back as %s", text, got)
		}
	}
}
