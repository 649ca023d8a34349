package lisp

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestArgumentWalkIsChargedByParts: before a builtin that prints,
// compares or hashes runs, the arguments it reads are searched for lazy
// sequences inside them. That search is charged a step per part it
// visits, so a loop of lookups keyed by a large value ends at the step
// limit, whatever the machine's load; and a value known to hold no lazy
// sequence (data built of vectors and scalars, or read from a request)
// is not searched at all, so ordinary programs pay nothing for it.
func TestArgumentWalkIsChargedByParts(t *testing.T) {
	const rows, lookups = 400, 20
	steps := func(build, call string) int64 {
		t.Helper()
		src := fmt.Sprintf("(let [rows %s] (dotimes [_ %d] %s) 1)", build, lookups, call)
		r := run(t, src, Env{Limits: Limits{MaxSteps: 1 << 40}})
		if r.Err != nil {
			t.Fatalf("%s: %v", src, r.Err)
		}
		return r.Steps
	}
	ofMaps := fmt.Sprintf("(mapv (fn [i] {:i i}) (range %d))", rows)
	for _, call := range []string{"(get \"b\" rows)", "(contains? [] rows)", "(= rows rows)", "(hash rows)", "(get-in {} rows)", "(dissoc {} rows)", "(select-keys {} [rows])"} {
		extra := steps(ofMaps, call) - steps(ofMaps, "(contains? #{} 0)")
		// rows and each map in it: a step per entry visited.
		if min := int64(lookups * 2 * rows); extra < min {
			t.Errorf("%s over a vector of %d program-built maps: %d steps for %d lookups, want at least %d (a step per part searched)",
				call, rows, extra, lookups, min)
		}
	}
}

// TestBuiltVectorsAreKnownFreeOfLazySeqs: a vector of scalars and plain
// vectors, however a program builds it, is known to hold no lazy sequence
// without a walk (holdsNoEndingSeq), so the search before a builtin that
// reads it whole costs nothing; one that holds a lazy sequence is not.
func TestBuiltVectorsAreKnownFreeOfLazySeqs(t *testing.T) {
	for _, src := range []string{
		"(mapv (fn [i] [i (str i) [i]]) (range 3))", "(vector 1 [2])", "(vec (range 3))", "(into [] (range 3))",
		"(conj [1] [2])", "(assoc [1 2] 0 [3])", "(update [1 2] 0 inc)", "(subvec [1 [2] 3] 1)", "(pop [[1] 2 3])",
		"(persistent! (conj! (transient []) [1]))", "(reduce conj [] (range 3))", "(list 1 [2])", "(filterv odd? [1 2 3])",
		"(rest [[1] 2 3])", "(map vector [1 2])", "(reverse [[1] 2])", "(sort [2 1])", "(partition 2 [1 2 3 4])",
		"(into [] (map (fn [i] [i])) (range 3))", "(first {:a [1]})",
	} {
		r := run(t, src, Env{})
		if r.Err != nil {
			t.Fatalf("%s: %v", src, r.Err)
		}
		if !holdsNoEndingSeq(r.Value) {
			t.Errorf("%s: not known to hold no lazy sequence; the search before = or get walks it", src)
		}
	}
	for _, src := range []string{"(conj [1] (lazy-seq [1]))", "(assoc [1] 0 (lazy-seq [1]))",
		"(subvec [(lazy-seq [1]) 2] 0 1)", "(vector [(lazy-seq [1])])", "(mapv (fn [i] (lazy-seq [i])) [1])"} {
		r := run(t, "(let [v "+src+"] (def kept v) true)", Env{})
		if r.Err != nil {
			t.Fatalf("%s: %v", src, r.Err)
		}
		if b, _ := r.Memory.lookup("kept"); holdsNoEndingSeq(b.Value) {
			t.Errorf("%s: marked as holding no lazy sequence", src)
		}
	}
}

// TestBuildersHoldLazyArgumentsUnread walks the builtin table: each
// builtin is called with a lazy sequence that may end in each argument
// place, the others filled from a few plain values and a function. A
// builtin whose answer holds, inside a collection or a cell, the list the
// sequence reads as rather than the sequence has read an argument it
// only stores: Clojure stores it unread, so an endless one
// ((defn nat [n] (lazy-seq (cons n (nat (inc n)))))) ends there at a
// limit where Clojure answers. Such a builder belongs in holdsArgs.
func TestBuildersHoldLazyArgumentsUnread(t *testing.T) {
	identity, _ := lookupBuiltin("identity")
	fillers := []Value{Nil, Int(2), emptyVector, emptyMap, Keyword("k"), identity}
	marked := func(th *Thread) Value {
		body := &Builtin{Name: "marked", MaxArgs: 0, Fn: func(*Thread, []Value) (Value, error) {
			return newList([]Value{Keyword("c"), Keyword("b"), Keyword("a")}), nil
		}}
		s, err := lazySeqOf(th, body)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	flagged := map[string]string{}
	for _, b := range Builtins() {
		{
			if b.Fn == nil {
				continue
			}
			for n := max(b.MinArgs, 1); n <= 3 && (b.MaxArgs == variadic || n <= b.MaxArgs); n++ {
				for at := range n {
					eachFilling(fillers, n-1, func(fill []Value) {
						th := newThread(t.Context(), Limits{MaxSteps: 20_000, MaxAllocBytes: 1 << 20})
						args := append(append(append([]Value(nil), fill[:at]...), marked(th)), fill[at:]...)
						got, err := callGuarded(th, b, args)
						if err == nil && holdsReadList(got, 0) {
							flagged[b.Name] = fmt.Sprintf("(%s %s)", b.Name, Repr(NewVector(args)))
						}
					})
				}
			}
		}
	}
	for name, call := range flagged {
		t.Errorf("%s stores a lazy sequence it was given read whole, as a list: %s; keep it unread (holdsArgs)", name, call)
	}
}

// eachFilling calls f with every sequence of n values from fillers.
func eachFilling(fillers []Value, n int, f func([]Value)) {
	fill := make([]Value, n)
	var rec func(i int)
	rec = func(i int) {
		if i == n {
			f(append([]Value(nil), fill...))
			return
		}
		for _, v := range fillers {
			fill[i] = v
			rec(i + 1)
		}
	}
	rec(0)
}

// callGuarded runs b over args, a panic counted as an error.
func callGuarded(th *Thread, b *Builtin, args []Value) (v Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return b.run(th, args)
}

// holdsReadList reports whether v holds, below its top and not as a key,
// the list (:c :b :a) the marked sequence reads as.
func holdsReadList(v Value, depth int) bool {
	if depth > 3 {
		return false
	}
	var parts []Value
	switch c := v.(type) {
	case *Vector:
		if depth > 0 && c.IsList() && Repr(c) == "(:c :b :a)" {
			return true
		}
		parts = c.elems
	case *Map:
		// Keys, and a set's items, are hashed: read whole, as Clojure
		// reads them.
		for _, e := range c.entries {
			parts = append(parts, e.Val)
		}
	case *atom:
		parts = []Value{c.value}
	}
	for _, p := range parts {
		if holdsReadList(p, depth+1) {
			return true
		}
	}
	return false
}

// TestHeldLazySeqsLeaveAsLists: a lazy sequence a collection holds leaves
// the turn as the list it reads as on every path of its answer, as the
// result does: a definition, return and fail. An endless one
// ends at a limit there, charged, as Clojure printing it would not end.
func TestHeldLazySeqsLeaveAsLists(t *testing.T) {
	answer := hostFunc(func(context.Context, string, Value) (Value, error) { return Int(1), nil })
	env := Env{Tools: []string{"t"}, Host: answer}
	const held = "(conj [] (lazy-seq [1 2]))"
	for _, src := range []string{held, "(def kept " + held + ")", "(fail " + held + ")", "(return " + held + ")",
		"(tool/t {:v " + held + "})", "(tool/t (vector (lazy-seq [1 2])))", "(tool/t (list {:a (lazy-seq [1 2])}))"} {
		r := run(t, src, env)
		texts := []string{WireText(r.Value)}
		if b, ok := r.Memory.lookup("kept"); ok {
			texts = append(texts, b.source)
		}
		for _, c := range r.ToolCalls {
			texts = append(texts, c.ArgsText)
		}
		for _, text := range texts {
			if strings.Contains(text, "lazy-seq") {
				t.Errorf("%s: sent back as %s, want the list it reads as, [(1 2)]", src, text)
			}
		}
	}
	const nat = "(defn nat [n] (lazy-seq (cons n (nat (inc n))))) "
	for _, src := range []string{"(def k (conj [] (nat 0)))", "(fail (conj [] (nat 0)))", "(return (conj [] (nat 0)))",
		"(tool/t {:v (vector (nat 0))})", "(tool/t (list (nat 0)))"} {
		if r := run(t, nat+src, env); r.Err == nil || r.Err.Kind != memoryLimit && r.Err.Kind != stepLimit {
			t.Errorf("%s: %v, want a limit", src, r.Err)
		}
	}
	// vector and list hold a lazy argument unread, and ffirst, fnext,
	// nfirst and nnext read no more of one than they need, as Clojure 1.11
	// does: these end there (Clojure's answers).
	for src, want := range map[string]string{
		nat + "(first (first (vector (nat 0))))":         "0",
		nat + "(ffirst (list (nat 0) 1))":                "0",
		nat + "(take 2 (second (vector 1 (nat 5))))":     "[5 6]",
		nat + "(count (vector (nat 0) (nat 1) (nat 2)))": "3",
		nat + "[(ffirst (map vector (range))) (first (fnext (vector 1 (nat 0)))) (first (nfirst (vector (nat 3)))) (first (nnext (nat 0))) (ffirst [(nat 7)]) (take 2 (nfirst (map (fn [i] (nat i)) (range))))]": "[0 0 4 2 7 [1 2]]",
	} {
		if r := run(t, src, env); r.Err != nil || WireText(r.Value) != want {
			t.Errorf("%s: %v %v, want %s", src, WireText(r.Value), r.Err, want)
		}
	}
	// A lazy sequence defined by name is kept unread, as Clojure's def
	// keeps it: fib never ends.
	if r := run(t, "(def fib (lazy-cat [0 1] (map + fib (rest fib)))) (nth fib 10)", env); r.Err != nil || WireText(r.Value) != "55" {
		t.Errorf("fib: %v %v, want 55", WireText(r.Value), r.Err)
	}
}
