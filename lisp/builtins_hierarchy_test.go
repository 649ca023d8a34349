package lisp

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestHierarchies: derive, isa? and the relatives functions, and
// multimethods dispatching through them, give Clojure 1.11's answers
// (recorded with clojure -e; the coverage table checks more against the
// oracle).
func TestHierarchies(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`(derive ::dog ::animal) (derive ::cat ::animal)
		  (defmulti speak :kind)
		  (defmethod speak ::animal [_] "generic sound")
		  (defmethod speak ::dog [_] "woof")
		  (mapv speak [{:kind ::dog} {:kind ::cat}])`, `["woof" "generic sound"]`},
		{`(derive ::b ::a) (derive ::c ::b) [(parents ::c) (ancestors ::c) (descendants ::a) (parents ::a)]`,
			`[#{:user/b} #{:user/a :user/b} #{:user/b :user/c} nil]`},
		{`(def h (-> (make-hierarchy) (derive :square :rect) (derive :rect :shape)))
		  [(isa? h :square :shape) (isa? h :shape :square) (isa? h [:square :rect] [:shape :shape]) (isa? h [:square] [:shape :rect])]`,
			`[true false true false]`},
		{`(-> (make-hierarchy) (derive :a :b) (derive :b :c))`,
			`{:parents {:a #{:b}, :b #{:c}}, :ancestors {:a #{:b :c}, :b #{:c}}, :descendants {:b #{:a}, :c #{:a :b}}}`},
		{`(-> (make-hierarchy) (derive :a :b) (derive :b :c) (derive :d :b) (underive :a :b))`,
			`{:parents {:b #{:c}, :d #{:b}}, :ancestors {:b #{:c}, :d #{:b :c}}, :descendants {:c #{:b :d}, :b #{:d}}}`},
		{`(try (derive :dog :animal) (catch AssertionError e (ex-message e)))`, `"Assert failed: (namespace parent)"`},
		{`(try (-> (make-hierarchy) (derive :a :b) (derive :b :a)) (catch Exception e (ex-message e)))`,
			`"Cyclic derivation: :a has :b as ancestor"`},
		{`[(isa? Long Number) (isa? String Number) (isa? 1 1)]`, `[true false true]`},
		// The most specific method wins; a preference settles a tie.
		{`(derive ::sq ::rect) (derive ::rect ::shape)
		  (defmulti area :t)
		  (defmethod area ::shape [_] :shape)
		  (defmethod area ::rect [_] :rect)
		  [(area {:t ::sq}) (area {:t ::shape})]`, `[:rect :shape]`},
		{`(derive ::a ::base1) (derive ::a ::base2)
		  (defmulti f identity)
		  (defmethod f ::base1 [_] :one)
		  (defmethod f ::base2 [_] :two)
		  (prefer-method f ::base2 ::base1)
		  (f ::a)`, `:two`},
		{`(derive ::a ::b1) (derive ::a ::b2)
		  (defmulti f identity)
		  (defmethod f ::b1 [_] 1)
		  (defmethod f ::b2 [_] 2)
		  (try (f ::a) (catch IllegalArgumentException e (ex-message e)))`,
			`"Multiple methods in multimethod 'f' match dispatch value: :user/a -> :user/b1 and :user/b2, and neither is preferred"`},
		{`(def hh (-> (make-hierarchy) (derive :kid :adult)))
		  (defmulti greet identity :hierarchy #'hh)
		  (defmethod greet :adult [_] :hi)
		  (defmethod greet :default [_] :who)
		  [(greet :kid) (greet :cat)]`, `[:hi :who]`},
		{`(derive ::p ::q)
		  (defmulti vv (fn [a b] [a b]))
		  (defmethod vv [::q ::q] [_ _] :qq)
		  (defmethod vv :default [_ _] :other)
		  [(vv ::p ::p) (vv ::p ::z)]`, `[:qq :other]`},
	} {
		res := run(t, tc.src, Env{})
		if res.Err != nil {
			t.Errorf("%s: %v", tc.src, res.Err)
			continue
		}
		if got := Repr(res.Value); got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

// TestGlobalHierarchyIsPerEvaluation: what one evaluation derives, the
// next does not see, and evaluations running at once do not share it.
func TestGlobalHierarchyIsPerEvaluation(t *testing.T) {
	if res := run(t, `(derive ::x ::y) (isa? ::x ::y)`, Env{}); res.Err != nil || res.Value != Bool(true) {
		t.Fatalf("first evaluation: %v %v", res.Value, res.Err)
	}
	if res := run(t, `[(isa? ::x ::y) (parents ::x)]`, Env{}); res.Err != nil || Repr(res.Value) != "[false nil]" {
		t.Fatalf("a later evaluation sees the first one's hierarchy: %v %v", res.Value, res.Err)
	}
	done := make(chan string)
	for i := range 4 {
		go func() {
			tag := string(rune('a' + i))
			res, err := Eval(context.Background(), `(derive ::`+tag+` ::top) (descendants ::top)`, Env{})
			if err != nil || res.Err != nil {
				done <- "error"
				return
			}
			done <- Repr(res.Value)
		}()
	}
	for range 4 {
		if got := <-done; strings.Count(got, ":user/") != 1 {
			t.Errorf("an evaluation sees another's derivations: %s", got)
		}
	}
}

// TestHierarchyIsCharged: a hierarchy is data the program builds, so a
// deep chain ends in a budget rather than growing without one.
func TestHierarchyIsCharged(t *testing.T) {
	small := Limits{MaxSteps: 200_000, MaxAllocBytes: 2 << 20, Timeout: time.Minute}
	src := `(reduce (fn [h i] (derive h (keyword "k" (str (inc i))) (keyword "k" (str i)))) (make-hierarchy) (range 5000))`
	res, err := Eval(context.Background(), src, Env{Limits: small})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err == nil || (res.Err.Kind != memoryLimit && res.Err.Kind != stepLimit) {
		t.Fatalf("a 5,000-deep chain gave %v, want a budget error", res.Err)
	}
}

// BenchmarkMultimethodDispatch: 1,000 calls of a four-method multimethod,
// half of them to a method of the dispatch value itself and half to none
// (the :default method), and the same through a hierarchy.
func BenchmarkMultimethodDispatch(b *testing.B) {
	methods := `(defmulti area identity) (defmethod area ::sq [s] 1) (defmethod area ::circle [s] 2) (defmethod area ::tri [s] 3) (defmethod area :default [s] 0) `
	b.Run("exact-or-default", func(b *testing.B) {
		benchEval(b, methods+`(loop [i 0 acc 0] (if (< i 1000) (recur (inc i) (+ acc (area (if (even? i) ::tri ::hex)))) acc))`, nil)
	})
	b.Run("derived", func(b *testing.B) {
		benchEval(b, `(derive ::eq ::tri) (derive ::iso ::tri) `+methods+`(loop [i 0 acc 0] (if (< i 1000) (recur (inc i) (+ acc (area (if (even? i) ::eq ::iso)))) acc))`, nil)
	})
}
