package lisp

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// locals binds n locals, a0 to a(n-1), around body.
func locals(n int, body string) string {
	var b strings.Builder
	b.WriteString("(let [")
	for i := range n {
		b.WriteString("a" + strconv.Itoa(i) + " " + strconv.Itoa(i) + " ")
	}
	return b.String() + "] " + body + ")"
}

// TestCapturesAreCharged: a local used under d nested functions is
// captured by each of them, so the captures of a program can be its
// nesting times its locals, far more than its forms (300 levels over
// 3,000 locals are 900,000 captures from 25 KB of source). Every way of
// making a function captures through the same analysis, which charges
// each capture's bytes: each ends memory_limit, while a function over a
// few locals is charged next to nothing.
func TestCapturesAreCharged(t *testing.T) {
	const n, levels = 3000, 300
	var used strings.Builder
	used.WriteString("[")
	for i := range n {
		used.WriteString("a" + strconv.Itoa(i) + " ")
	}
	used.WriteString("]")
	for _, wrap := range []struct{ open, close string }{
		{"(fn [] ", ")"},
		{"(delay ", ")"},
		{"(lazy-seq (list ", "))"},
		{"(letfn [(g [] ", ")] g)"},
		{"(fn [x] (if x ", " 0))"},
	} {
		src := locals(n, strings.Repeat(wrap.open, levels)+used.String()+strings.Repeat(wrap.close, levels))
		if res := run(t, src, Env{}); res.Err == nil || res.Err.Kind != memoryLimit {
			t.Errorf("%d levels of %s...%s over %d locals: %v, want memory_limit", levels, wrap.open, wrap.close, n, res.Err)
		}
	}
	small := locals(3, strings.Repeat("(fn [] ", levels)+"[a0 a1 a2]"+strings.Repeat(")", levels))
	if res := run(t, small, Env{}); res.Err != nil {
		t.Errorf("%d levels of fn over 3 locals: %v", levels, res.Err)
	}
}

// TestLetfnGroupIsItsSourceSize: a mutually recursive letfn becomes one
// group, which every function of it holds and prints as. The group's
// name was every function's name joined, written once in each function:
// 2,000 functions printed as 24 MB. Its name is now bounded, so the group
// prints in a few times the size of its source (each function's siblings
// are bound in it by name), and its functions still call each other.
func TestLetfnGroupIsItsSourceSize(t *testing.T) {
	const n = 2000
	var b strings.Builder
	b.WriteString("(letfn [")
	for i := range n {
		fmt.Fprintf(&b, "(f%d [k] (if (pos? k) (f%d (dec k)) %d)) ", i, (i+1)%n, i)
	}
	b.WriteString("] [f0 (f0 150)])")
	src := b.String()
	res := run(t, src, Env{})
	if res.Err != nil {
		t.Fatalf("a letfn group of %d functions: %v", n, res.Err)
	}
	pair := res.Value.(*Vector)
	if got := Repr(pair.index(1)); got != "150" {
		t.Errorf("f0 called 150 times down the group: %s, want 150", got)
	}
	if text := Repr(pair.index(0)); len(text) > 8*len(src) {
		t.Errorf("a function of the group prints as %d bytes, over eight times the %d of its source", len(text), len(src))
	}
}

// TestDefinedNamesInOrder: the names a program defines are listed in the
// order of their latest first definition; a name made an atom leaves the
// list until it is defined again, and goes to its end.
func TestDefinedNamesInOrder(t *testing.T) {
	res := run(t, `(def a 1) (def b (atom 0)) (def b 2) (def c 3) (def a (atom 1)) (def a 4) (def c 5) (def d (atom 2))`, Env{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if got := strings.Join(res.Defined, " "); got != "b c a" {
		t.Errorf("defined %q, want %q", got, "b c a")
	}
}

// TestProgramKeepsItsAnalysis: a Program keeps its analysis for the next
// evaluation of its text, however much the analysis was charged (a host
// that keeps Programs counts each by HeldBytes), and an evaluation that
// reuses it is charged alike. 40 levels of functions over 2,000 locals
// capture 80,000 values from 25 KB of text, an analysis of 3.8 MB
// charged.
func TestProgramKeepsItsAnalysis(t *testing.T) {
	var used strings.Builder
	for i := range 2000 {
		used.WriteString("a" + strconv.Itoa(i) + " ")
	}
	heavy := locals(2000, "(count ["+strings.Repeat("(fn [] ", 40)+"["+used.String()+"]"+strings.Repeat(")", 40)+"])")
	for _, src := range []string{heavy, `(let [a 1 b 2] (map (fn [x] (+ x a b)) [1 2 3]))`} {
		p, err := ReadProgram(src, 0)
		if err != nil {
			t.Fatal(err)
		}
		var steps [2]int64
		for i := range steps {
			res, err := EvalProgram(context.Background(), p, Env{})
			if err != nil || res.Err != nil {
				t.Fatalf("%.60s: %v, %v", src, err, res.Err)
			}
			steps[i] = res.Steps
		}
		if p.compiled.Load() == nil {
			t.Errorf("%.60s (%d bytes): analysis not kept", src, len(src))
		}
		if steps[0] != steps[1] {
			t.Errorf("%.60s: %d steps, then %d", src, steps[0], steps[1])
		}
	}
}

// TestMultimethodExpansionCharged: a multimethod and each of its methods
// expand into a function and its dispatch, kept as compiled code of about
// 120 times their text; the analysis is charged for each part, as for a
// defrecord, so 3,000 of them end memory_limit where they held some 18 MB
// uncharged. Protocols expand through the same parts. A program of a few
// is charged next to nothing.
func TestMultimethodExpansionCharged(t *testing.T) {
	var multis, protocols strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&multis, "(defmulti m%d identity) (defmethod m%d 1 [x] x) ", i, i)
		fmt.Fprintf(&protocols, "(defprotocol P%d (p%d [x])) (extend-type String P%d (p%d [x] x)) ", i, i, i, i)
	}
	for _, src := range []string{multis.String() + "1", protocols.String() + "1"} {
		if res := run(t, src, Env{}); res.Err == nil || res.Err.Kind != memoryLimit {
			t.Errorf("%.60s... (%d bytes): %v, want memory_limit", src, len(src), res.Err)
		}
	}
	res := run(t, `(defmulti area :shape) (defmethod area :sq [s] (* (:n s) (:n s))) (defmethod area :default [_] 0) (area {:shape :sq :n 3})`, Env{})
	if res.Err != nil || Repr(res.Value) != "9" {
		t.Errorf("a multimethod of two methods: %v, %v", Repr(res.Value), res.Err)
	}
}
