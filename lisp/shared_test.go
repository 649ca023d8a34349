package lisp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// sharedValues are frozen values of every kind, as the server's memo keeps
// them (decoded data, previous results, the values a remembered function
// captured) and hands to any number of evaluations at once: maps small and
// indexed, with keyword and collection keys; vectors, lists and sets,
// nested; lazy sequences, transducers and memoized functions; and the
// values inside a closure decoded from source, which only a Freeze that
// enters functions freezes, among them sorted collections, one with a
// comparator that assocs onto a map it captured; records, read and made.
func sharedValues(t *testing.T) []Value {
	t.Helper()
	fn, err := ReadValue(context.Background(), `(let [m (reduce (fn [a i] (assoc a [i] i)) {} (range 9))
	                           v (reduce conj [] (range 20))
	                           s (reduce conj #{} (range 12))
	                           x (assoc {} :a 1)
	                           by (sorted-map-by (fn [a b] (count (assoc x :b a)) (compare b a)) 3 :c 1 :a 2 :b)
	                           ss (into (sorted-set) (range 12))]
	                       (fn [] [m v s by ss]))`, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	Freeze(fn)
	held := fn.(*closure).free
	values := []Value{fn}
	values = append(values, held...)
	for _, src := range []string{
		`{:a 1, :b "x", :c [1 2 {:d #{:e}}]}`,
		`[{:id 1, :tags #{"a" "b"}} {:id 2, :tags #{}} [] {}]`,
		`#{[1 2] {:k :v} "s" 3}`,
		`{[1] :one, {:k 2} :two, #{3} :three}`,
		`"a string"`,
		`#user.Order{:id 1, :total 2.5, :tags #{"a"}, :lines [{:sku "x"}]}`,
	} {
		values = append(values, Freeze(mustParse(t, src)))
	}
	// The kinds a program makes that EDN cannot spell, read from the
	// text they travel as (a lazy sequence as the call that makes it), or
	// as a program made them (a sorted collection, which travels as a
	// plain one): lazy sequences (their readers start their own
	// generators), transducers and other made functions, memoized
	// functions (whose cache is the evaluation's), sorted collections
	// and lists. An atom or a reducing function cannot be kept or sent
	// back (TestPerEvaluationStateIsNeverKept).
	for _, src := range []string{
		`(drop 2 (range))`,
		`(map inc (filter odd? (iterate inc 0)))`,
		`(drop-while neg? (drop 1 (cycle [1 2 3])))`,
		`(map inc)`,
		`(comp (drop 1) (take 3) (dedupe))`,
		`(memoize (fn [x] [x x]))`,
		`(sorted-map-by > 1 :a 2 :b 3 :c)`,
		`(sorted-set 3 1 2)`,
		`'(1 [2] {:a 3})`,
		`(defrecord P [x y]) (assoc (->P 1 [2 {:k 3}]) :z #{4})`,
	} {
		values = append(values, readOrMade(t, src))
	}
	m := NewMapBuilder(20)
	for i := range 20 {
		m.Set(Keyword(fmt.Sprintf("k%d", i)), Int(i))
	}
	// A 32-bit float, (float x), which a result kept as a value holds.
	return append(values, Freeze(m.Map()), Int(3), Keyword("a"), Float32(0.1))
}

// readOrMade is src read as the server reads a value (ReadValue), or
// else what a program of src makes, frozen as the server keeps it.
func readOrMade(t *testing.T, src string) Value {
	t.Helper()
	v, err := ReadValue(context.Background(), src, 0, 0)
	if err != nil {
		res, err := Eval(context.Background(), src, Env{})
		if err != nil || res.Err != nil {
			t.Fatalf("%s: %v %v", src, err, res.Err)
		}
		v = res.Value
	}
	return Freeze(v)
}

// newKindValues are frozen values of the kinds the last releases added,
// read as the server reads them or made as a program makes them:
// regexes the backtracking engine runs (lookaround, a backreference),
// whose matcher must keep its state per match; sorted collections ordered
// by a function; lazy sequences over what read-string and edn/read-string
// read; big integers and decimals of many digits; namespaced maps;
// sub-vectors; partials and other made functions; metadata; where
// predicates and predicate combinators; a protocol's function of several
// arities.
func newKindValues(t *testing.T) []Value {
	t.Helper()
	var values []Value
	for _, src := range []string{
		`"abbb aab xx yzzy"`, // the text the regexes below match, a companion of every value here
		`{:a/x 1, :a/y [2 {:b/z #{3}}]}`,
		`123456789012345678901234567890N`,
		`-12345678901234567890123.4567890M`,
		`#"(?<=a)b+(?!c)"`,
		`(re-pattern "(\\w)\\1")`,
		`(sorted-set-by (fn [a b] (compare (str b) (str a))) 3 1 2 "x")`,
		`(sorted-map-by (fn [a b] (compare b a)) [1] :a [2] :b)`,
		`(drop 1 (cycle (read-string "(1 [2] {:a 3})")))`,
		`(map inc (cycle (clojure.edn/read-string "[1 2 3]")))`,
		`(biginteger "98765432109876543210987654321")`,
		`(subvec [1 2 3 4 5] 1 4)`,
		`(partial + 1)`,
		`(comp inc (fn [x] (* 2 x)))`,
		`(with-meta [1 {:b 2}] {:m [1]})`,
		`(where [:a :b] = 1)`,
		`(all-of odd? pos?)`,
		`(defprotocol Area (area [s] [s k])) (extend-type Long Area (area ([s] s) ([s k] (* s k)))) area`,
	} {
		values = append(values, readOrMade(t, src))
	}
	return values
}

// TestEveryBuiltinOnSharedValues calls every builtin on shared frozen
// values from many goroutines at once and checks that each call answers
// as it does alone. Under -race it proves that no builtin writes into a
// value it reads or extends a shared one in place: every conj, assoc,
// merge, hash, print and comparison of a shared value copies first or
// only reads.
func TestEveryBuiltinOnSharedValues(t *testing.T) {
	// The answers come from one copy of the values, the calls at once
	// from another: a call on a value no call touched before is the one
	// that would extend it in place.
	callable := []Value{builtinNamed("vector"), builtinNamed("identity"), Keyword("a")}
	base := append(sharedValues(t), callable...)
	alone := slices.Concat(base, newKindValues(t))
	shared := slices.Concat(sharedValues(t), callable, newKindValues(t))
	type call struct {
		b    *Builtin
		args []int // in the pool of values
		want string
	}
	pick := func(pool []Value, idx []int) []Value {
		args := make([]Value, len(idx))
		for i, j := range idx {
			args[i] = pool[j]
		}
		return args
	}
	var calls []call
	for _, b := range everyBuiltin() {
		if b.Name == "return" || b.Name == "fail" || b.Name == "tree-seq" {
			continue
		}
		found := 0
		for _, idx := range argumentLists(b, len(base)) {
			if found == 12 {
				break
			}
			if v, err := callOnce(b, pick(alone, idx)); err == nil {
				calls = append(calls, call{b, idx, Repr(v)})
				found++
			}
		}
	}
	// And each value of a kind EDN cannot spell (lazy sequences, made
	// functions, sorted collections, lists) in a few calls of every
	// builtin that answers on it, first or last.
	// The values of the newer kinds go only here, each beside the
	// callables and a few plain values (a search of every pair with
	// every builtin would take minutes).
	companions := []int{len(base) - 1, len(base) - 2, len(base) - 3, len(base) - 4, len(base) - 5, 1, 2, len(base)}
	for j, v := range alone {
		var others []int // nil: every value of the pool
		switch {
		case j >= len(base):
			others = companions
		case isLazyOrMade(v), orderOf(v) != nil:
		default:
			if l, ok := v.(*Vector); !ok || !l.IsList() {
				continue
			}
		}
		for _, b := range everyBuiltin() {
			if b.Name == "return" || b.Name == "fail" || b.Name == "tree-seq" {
				continue
			}
			lists := [][]int{{j}}
			for k := range alone {
				if others == nil || slices.Contains(others, k) {
					lists = append(lists, []int{k, j}, []int{j, k})
				}
			}
			found := 0
			for _, idx := range lists {
				if found == 4 {
					break
				}
				if len(idx) < b.MinArgs || b.MaxArgs >= 0 && len(idx) > b.MaxArgs {
					continue
				}
				if v, err := callOnce(b, pick(alone, idx)); err == nil {
					calls = append(calls, call{b, idx, Repr(v)})
					found++
				}
			}
		}
	}
	if len(calls) < 1000 {
		t.Fatalf("only %d calls answered; the shared values no longer fit the builtins", len(calls))
	}
	t.Logf("%d calls answered, over %d values", len(calls), len(alone))
	matched := 0 // calls that run the backtracking engine over a text
	for _, c := range calls {
		args := pick(alone, c.args)
		if slices.ContainsFunc(args, func(v Value) bool { r, ok := v.(*regex); return ok && r.bt != nil }) &&
			slices.ContainsFunc(args, func(v Value) bool { _, ok := v.(String); return ok }) {
			matched++
		}
	}
	if matched < 5 {
		t.Errorf("only %d calls match a backtracking regex against a text", matched)
	}
	t.Logf("%d of them match a backtracking regex against a text", matched)
	used := make([]int, len(alone))
	for _, c := range calls {
		for _, i := range c.args {
			used[i]++
		}
	}
	for i, n := range used {
		if n < 10 {
			t.Errorf("%s is an argument of %d answered calls", Repr(alone[i]), n)
		}
	}
	const workers = 6
	var wg sync.WaitGroup
	errs := make(chan string, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range calls {
				c := calls[(i+w*len(calls)/workers)%len(calls)] // each worker from its own place
				args := pick(shared, c.args)
				v, err := callOnce(c.b, args)
				if err != nil || Repr(v) != c.want {
					errs <- fmt.Sprintf("%s: %v %v, alone %s", callLabel(c.b, args), v, err, c.want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// isLazyOrMade reports whether v is a lazy sequence or a made function.
func isLazyOrMade(v Value) bool {
	switch v.(type) {
	case *infiniteSeq, *combined:
		return true
	}
	return false
}

// callOnce calls b on a fresh thread.
func callOnce(b *Builtin, args []Value) (Value, error) {
	th := newThread(context.Background(), Limits{MaxSteps: 1_000_000, MaxAllocBytes: 16 << 20, MaxDepth: 50})
	th.prog = newProgState(Env{})
	return th.call(b, args)
}

func builtinNamed(name string) Value {
	b, _ := lookupFunction(name)
	return b
}

// argumentLists returns argument lists for b, as indexes in a pool of n
// values: every list of b's smallest arity, then of the next.
func argumentLists(b *Builtin, n int) [][]int {
	var out [][]int
	lo := max(b.MinArgs, 1)
	hi := lo + 1
	if b.MaxArgs >= 0 {
		hi = min(hi, b.MaxArgs)
	}
	for arity := lo; arity <= min(hi, 3); arity++ {
		idx := make([]int, arity)
		for {
			out = append(out, append([]int(nil), idx...))
			i := 0
			for ; i < arity; i++ {
				if idx[i]++; idx[i] < n {
					break
				}
				idx[i] = 0
			}
			if i == arity {
				break
			}
		}
	}
	return out
}

// TestRememberedFunctionSharedByCallers: a previous result that is a
// function holding a map, read once and shared by concurrent evaluations
// that extend and read that map. Freezing used to stop at the function, so
// the callers extended one map in place from several goroutines at once,
// and the process died ("concurrent map read and map write").
func TestRememberedFunctionSharedByCallers(t *testing.T) {
	fn, err := ReadValue(context.Background(), `(let [m (reduce (fn [a i] (assoc a [i] i)) {} (range 9))] (fn [] m))`, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	Freeze(fn)
	const callers, rounds = 8, 50
	var wg sync.WaitGroup
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				src := fmt.Sprintf(`[(count (assoc (*1) [%d %d] 1)) (get (*1) [3]) (count (*1))]`, c, r)
				if c%2 == 1 {
					src = `[(count (reduce (fn [m i] (assoc m [i] i)) (*1) (range 100 120))) (get (*1) [3]) (count (*1))]`
				}
				res, err := Eval(context.Background(), src, Env{PreviousResults: []Value{fn}})
				if err != nil || res.Err != nil {
					t.Errorf("caller %d: %v %v", c, err, res.Err)
					return
				}
				want := "[10 3 9]"
				if c%2 == 1 {
					want = "[29 3 9]"
				}
				if got := Repr(res.Value); got != want {
					t.Errorf("caller %d round %d: %s, want %s", c, r, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestPerEvaluationStateIsNeverKept: the kinds that hold state a second
// reader would see (an atom, a transient, a reducing function a transducer made) live
// only while their evaluation runs: no result, memory binding or
// function kept between turns may hold one.
func TestPerEvaluationStateIsNeverKept(t *testing.T) {
	for _, src := range []string{
		`(atom 1)`,
		`(let [a (atom 0)] (fn [] (swap! a inc)))`,
		`(let [a (atom 0)] [(fn [] a)])`,
		`((take 2) conj)`,
		`(def g (let [rf ((drop 1) conj)] (fn [a x] (rf a x)))) 1`,
		`(transient [1])`,
		`(let [t (transient {})] (fn [k] (assoc! t k 1)))`,
		`(def h (let [t (transient #{})] (fn [x] (conj! t x)))) 1`,
	} {
		res := run(t, src, Env{})
		if res.Err == nil || res.Err.Kind != validationError {
			t.Errorf("%s: %v (value %s), want a validation_error", src, res.Err, formText(res.Value))
		}
	}
}

// TestDefinitionHoldingAnAtomLivesOneEvaluation: a def whose value holds
// an atom another way than (def x (atom ...)) (a closure over one, such
// as an id generator, or a value whose metadata holds one) runs as in
// Clojure, with a warning, and memory keeps neither it nor the atom.
func TestDefinitionHoldingAnAtomLivesOneEvaluation(t *testing.T) {
	for _, c := range []struct{ src, name, want string }{
		{`(def next-id (let [c (atom 0)] (fn [p] (str p "-" (swap! c inc))))) (mapv next-id ["a" "a" "b"])`, "next-id", `["a-1" "a-2" "b-3"]`},
		{`(def calls (atom 0)) (def cfg (delay (swap! calls inc) :loaded)) [@cfg @cfg @calls]`, "cfg", "[:loaded :loaded 1]"},
		{`(def x (with-meta [1] {:counter (atom 0)})) (swap! (:counter (meta x)) inc) (count x)`, "x", "1"},
		{`(def f (let [a (atom 0)] (fn [] (swap! a inc)))) (defn g [] (f)) (g) (g)`, "f", "2"},
	} {
		res := run(t, c.src, Env{})
		if res.Err != nil {
			t.Errorf("%s: %v", c.src, res.Err)
			continue
		}
		if got := Repr(res.Value); got != c.want {
			t.Errorf("%s: %s, want %s", c.src, got, c.want)
		}
		if _, ok := res.Memory.lookup(c.name); ok || slices.Contains(res.Defined, c.name) {
			t.Errorf("%s: memory kept %s, which holds an atom", c.src, c.name)
		}
		if !slices.ContainsFunc(res.Warnings, func(w Warning) bool {
			return w.Type == WarningEvaluationOnly && strings.HasPrefix(w.Message, c.name+" holds an atom")
		}) {
			t.Errorf("%s: warnings %v, want one %s for %s", c.src, res.Warnings, WarningEvaluationOnly, c.name)
		}
	}
}

// TestDefinedAtomLivesOneEvaluation: (def name (atom ...)), a program's
// state that its functions swap!, runs with a warning, and memory keeps
// the functions but not the atom, nor a change to a prelude binding of
// the same name.
func TestDefinedAtomLivesOneEvaluation(t *testing.T) {
	first := run(t, `(def total 7)`, Env{})
	res := run(t, `(def accounts (atom {:a 100 :b 50}))
(def total (atom 0))
(defn deposit! [id amt] (swap! accounts update id + amt) (swap! total + amt))
(deposit! :a 25)
[@accounts @total]`, Env{Prelude: first.Memory})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if got := Repr(res.Value); got != "[{:a 125, :b 50} 25]" {
		t.Errorf("value %s", got)
	}
	if _, ok := res.Memory.lookup("deposit!"); !ok {
		t.Error("memory lost deposit!")
	}
	if _, ok := res.Memory.lookup("accounts"); ok {
		t.Error("memory kept the atom accounts")
	}
	if b, ok := res.Memory.lookup("total"); !ok || Repr(b.Value) != "7" {
		t.Errorf("the prelude's total became %v", b)
	}
	if slices.Contains(res.Defined, "accounts") || slices.Contains(res.Defined, "total") {
		t.Errorf("defined %v names an atom", res.Defined)
	}
	warned := 0
	for _, w := range res.Warnings {
		if w.Type == WarningEvaluationOnly {
			warned++
		}
	}
	if warned != 2 {
		t.Errorf("warnings %v, want one %s for each atom", res.Warnings, WarningEvaluationOnly)
	}
}
