package lisp

import (
	"context"
	"fmt"
	"testing"
)

// The evaluator compiles some calls to special nodes (two-argument
// arithmetic and comparison, closure calls on reused frames). Each must be
// indistinguishable from the general call path: the same value, error,
// steps and allocation. Calling the builtin through a local forces the
// general path.
func TestFastPathsMatchGeneralCalls(t *testing.T) {
	operands := []string{"0", "1", "-7", "300", "9223372036854775807", "-9223372036854775808", "-1",
		"2.5", "##NaN", "nil", `"s"`, ":k", "[1 2]", "{:a 1}"}
	for _, op := range binaryBuiltins() {
		for _, a := range operands {
			for _, b := range operands {
				fast := fmt.Sprintf("(%s %s %s)", op, a, b)
				general := fmt.Sprintf("(let [f %s] (f %s %s))", op, a, b)
				assertSameOutcome(t, fast, general, DefaultLimits())
			}
		}
	}
}

// TestFastPathsStopAtTheSameStep runs loops of arithmetic with a step
// budget that runs out inside them: both paths stop at the same place.
func TestFastPathsStopAtTheSameStep(t *testing.T) {
	programs := []struct{ fast, general string }{
		{`(loop [i 0 acc 0] (if (< i 100) (recur (+ i 1) (* 2 acc)) acc))`,
			`(let [lt < add + mul *] (loop [i 0 acc 0] (if (lt i 100) (recur (add i 1) (mul 2 acc)) acc)))`},
		{`(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 12)`,
			`(defn fib [n] (let [lt < add + sub -] (if (lt n 2) n (add (fib (sub n 1)) (fib (sub n 2)))))) (fib 12)`},
	}
	for _, p := range programs {
		for budget := int64(1); budget < 2000; budget += 37 {
			l := DefaultLimits()
			l.MaxSteps = budget
			assertSameOutcome(t, p.fast, p.general, l)
		}
	}
}

// TestDeepRecursionReusesFrames checks that the depth limit still stops
// recursion and that frames handed back are clean for the next call.
func TestDeepRecursionReusesFrames(t *testing.T) {
	l := DefaultLimits()
	l.MaxDepth = 50
	res := run(t, `(defn down [n] (if (= n 0) 0 (+ 1 (down (- n 1))))) (down 100)`, Env{Limits: l})
	if res.Err == nil || res.Err.Kind != depthLimit {
		t.Fatalf("got %v, want a depth_limit error", res.Err)
	}
	// Each call leaves its locals in a reused frame; a later call with
	// fewer bindings must not see them.
	res = run(t, `(defn f [a b] (let [c (+ a b) d (* c 2) e (- d 1)] [a b c d e]))
(defn g [x] (let [y (inc x)] [x y]))
[(f 1 2) (g 10) (f 3 4) (g 20) (map (fn [v] (let [w v] [v w])) [5 6])]`, Env{})
	if want := "[[1 2 3 6 5] [10 11] [3 4 7 14 13] [20 21] [[5 5] [6 6]]]"; res.Err != nil || Repr(res.Value) != want {
		t.Fatalf("got %s (%v), want %s", Repr(res.Value), res.Err, want)
	}
}

// The steps compared are the evaluation's: the two programs differ in
// text, so their analyses are charged differently, and each is given its
// analysis's steps on top of the budget.
func assertSameOutcome(t *testing.T, fast, general string, limits Limits) {
	t.Helper()
	fa, ga := analysisSteps(t, fast), analysisSteps(t, general)
	fl, gl := limits, limits
	if limits.MaxSteps > 0 {
		fl.MaxSteps, gl.MaxSteps = limits.MaxSteps+fa, limits.MaxSteps+ga
	}
	f := run(t, fast, Env{Limits: fl})
	g := run(t, general, Env{Limits: gl})
	if Repr(f.Value) != Repr(g.Value) || f.Steps-fa != g.Steps-ga || f.AllocBytes != g.AllocBytes {
		t.Errorf("%s: value %s, %d steps, %d bytes; general path: %s, %d steps, %d bytes",
			fast, Repr(f.Value), f.Steps-fa, f.AllocBytes, Repr(g.Value), g.Steps-ga, g.AllocBytes)
	}
	switch {
	case (f.Err == nil) != (g.Err == nil):
		t.Errorf("%s: error %v; general path: %v", fast, f.Err, g.Err)
	case f.Err != nil && f.Err.Kind == stepLimit && g.Err.Kind == stepLimit:
		// Their messages name their budgets, which differ by the analyses.
	case f.Err != nil && (f.Err.Kind != g.Err.Kind || f.Err.Message != g.Err.Message || f.Err.Hint != g.Err.Hint):
		t.Errorf("%s: error %v; general path: %v", fast, f.Err, g.Err)
	}
}

// analysisSteps is what reading and analyzing src is charged.
func analysisSteps(t *testing.T, src string) int64 {
	t.Helper()
	th := newThread(context.Background(), Limits{MaxSteps: Unlimited})
	read, err := readProgram(src, 0, th)
	if err != nil {
		t.Fatal(err)
	}
	user := map[string]bool{}
	definedNames(read.forms, user)
	c := newCompiler(&names{user: user}, th, 0)
	for _, f := range read.forms {
		if _, err := c.compile(f, false); err != nil {
			t.Fatal(err)
		}
	}
	return th.steps
}

// TestHigherOrderCallsThroughFastPaths covers builtins calling closures,
// keywords and the arithmetic builtins without an argument slice.
func TestHigherOrderCallsThroughFastPaths(t *testing.T) {
	cases := []struct{ src, want, errKind string }{
		{`(reduce + 0 [1 2 3])`, "6", ""},
		{`(reduce + 0 [1 nil])`, "nil", string(typeError)},
		{`(reduce + [9223372036854775807 1])`, "nil", string(arithmeticError)},
		{`(reduce max [3 9 2])`, "9", ""},
		{`(map + [1 2] [10 20 30])`, "[11 22]", ""},
		{`(map (fn [a b] [a b]) [1 2] [:x :y])`, "[[1 :x] [2 :y]]", ""},
		{`(map :a [{:a 1} {:b 2} nil])`, "[1 nil nil]", ""},
		{`(filter #(= (:s %) "on") [{:s "on" :n 1} {:s "off" :n 2} {:s "on" :n 3}])`, `[{:s "on", :n 1} {:s "on", :n 3}]`, ""},
		{`(map (fn [x] (:a x 0)) [{:a 1} {}])`, "[1 0]", ""},
		{`(map (fn [] 1) [1])`, "nil", string(arityErrorKind)},
	}
	for _, c := range cases {
		res := run(t, c.src, Env{})
		if Repr(res.Value) != c.want || (res.Err == nil) != (c.errKind == "") || (res.Err != nil && string(res.Err.Kind) != c.errKind) {
			t.Errorf("%s = %s (%v), want %s (%s)", c.src, Repr(res.Value), res.Err, c.want, c.errKind)
		}
	}
	l := DefaultLimits()
	l.MaxDepth = 20
	res := run(t, `(defn deep [n] (if (= n 0) 0 (reduce (fn [a x] (+ a (deep (dec n)))) 0 [1]))) (deep 50)`, Env{Limits: l})
	if res.Err == nil || res.Err.Kind != depthLimit {
		t.Errorf("recursion through reduce: %v, want a depth_limit error", res.Err)
	}
}

// TestGroupByGroupsStayApart checks that the groups of group-by, laid out
// in one array, never see each other's elements when extended.
func TestGroupByGroupsStayApart(t *testing.T) {
	res := run(t, `(let [g (group-by odd? [1 2 3 4 5 6])
      odds (get g true) evens (get g false)]
  [(conj odds 99) evens (conj evens 100) odds (into evens [8 10])])`, Env{})
	if want := "[[1 3 5 99] [2 4 6] [2 4 6 100] [1 3 5] [2 4 6 8 10]]"; res.Err != nil || Repr(res.Value) != want {
		t.Fatalf("got %s (%v), want %s", Repr(res.Value), res.Err, want)
	}
}

// TestMapEntriesStayApart checks that the [key value] pairs a map is
// iterated as, allocated together, never see each other when extended.
func TestMapEntriesStayApart(t *testing.T) {
	res := run(t, `(let [es (vec {:a 1 :b 2 :c 3})]
  [(conj (first es) :x) (second es) (map #(conj % 0) es) es])`, Env{})
	if want := "[[:a 1 :x] [:b 2] [[:a 1 0] [:b 2 0] [:c 3 0]] [[:a 1] [:b 2] [:c 3]]]"; res.Err != nil || Repr(res.Value) != want {
		t.Fatalf("got %s (%v), want %s", Repr(res.Value), res.Err, want)
	}
}

func TestHasTypeLabel(t *testing.T) {
	values := []Value{Int(1), String("s"), Nil, NewVector([]Value{Int(1), Int(2)}), emptyVector,
		NewVector(make([]Value, 12)), mustEDN("{:a 1}"), mustEDN("#{1 2 3}"), emptyMap}
	labels := []string{"", "integer", "string", "nil", "list[2]", "list[0]", "list[12]", "list[1]", "list[]",
		"map[1]", "set[3]", "map[0]", "set[1]", "list[2", "map[01]"}
	for _, v := range values {
		for _, l := range labels {
			if got, want := hasTypeLabel(v, l), TypeLabel(v) == l; got != want {
				t.Errorf("hasTypeLabel(%s, %q) = %v, want %v", Repr(v), l, got, want)
			}
		}
	}
}

// TestConcurrentEvalsShareFrozenData runs evaluations at once over one
// frozen data value, as the sidecar does with cached data, through the
// paths that reuse frames, scratch stacks and print buffers. Run with
// -race: none may write what another reads, and each gets the same result.
func TestConcurrentEvalsShareFrozenData(t *testing.T) {
	data := Freeze(mustEDN(`{:orders [{:id 1 :region :eu :status :paid :total 10}
  {:id 2 :region :us :status :paid :total 20} {:id 3 :region :eu :status :void :total 5}
  {:id 4 :region :apac :status :paid :total 7}]}`)).(*Map)
	src := `(defn revenue [os] (reduce + 0 (map :total os)))
(def paid (filter #(= (:status %) :paid) data/orders))
(def by-region (group-by :region paid))
(def summary (into {} (map (fn [[r os]] [r {:n (count os) :revenue (revenue os)}]) by-region)))
(def grown (conj (first (vals by-region)) :x))
(println (str "regions " (count summary)))
[summary (mapv (fn [e] (conj e :x)) summary) grown]`
	want := run(t, src, Env{Data: data})
	if want.Err != nil {
		t.Fatal(want.Err)
	}
	const workers = 8
	got := make([]string, workers)
	done := make(chan struct{})
	for w := range workers {
		go func() {
			defer func() { done <- struct{}{} }()
			res, err := Eval(context.Background(), src, Env{Data: data})
			if err != nil {
				got[w] = err.Error()
				return
			}
			got[w] = Repr(res.Value) + " " + sourceText(res.Value)
			for _, b := range res.Memory.Encode() {
				got[w] += " " + b.Value
			}
		}()
	}
	for range workers {
		<-done
	}
	exp := Repr(want.Value) + " " + sourceText(want.Value)
	for _, b := range want.Memory.Encode() {
		exp += " " + b.Value
	}
	for w, g := range got {
		if g != exp {
			t.Errorf("worker %d:\n got %s\nwant %s", w, g, exp)
		}
	}
}
