package lisp

import "testing"

// TestMultimethods: a defmulti and the defmethods after it dispatch as
// Clojure's do, including :default, a :default option naming another
// value, a repeated dispatch value, multi-arity methods and the error of
// a value no method takes. The values are Clojure 1.11.1's.
func TestMultimethods(t *testing.T) {
	for _, c := range []idiomCase{
		{Program: `(defmulti area :shape) (defmethod area :sq [s] (* (:w s) (:w s))) (area {:shape :sq :w 3})`, Clojure: `9`},
		{Program: `(defmulti fee :tier) (defmethod fee :gold [_] 0) (try (fee {:tier :bronze}) (catch IllegalArgumentException e (ex-message e)))`,
			Clojure: `"No method in multimethod 'fee' for dispatch value: :bronze"`},
		{Program: `(defmulti f (fn [x y] (+ x y)) :default :none) (defmethod f 3 [x y] :three) (defmethod f :none [x y] :other) [(f 1 2) (f 2 2)]`, Clojure: `[:three :other]`},
		{Program: `(defmulti g "doc" {:a 1} identity) (defmethod g "a" [_] 1) (defmethod g "a" [_] 2) (g "a")`, Clojure: `2`},
		{Program: `(defmulti h identity) (defmethod h :x named ([a] 1) ([a b] 2)) (h :x)`, Clojure: `1`},
		{Program: `(defmulti speak :kind) (defmethod speak :dog [a] (str (:name a) " barks")) (defmethod speak :default [a] (str (:name a) " is quiet")) (map speak [{:kind :dog :name "Rex"} {:kind :cat :name "Tom"}])`,
			Clojure: `("Rex barks" "Tom is quiet")`},
		{Program: `(defmulti k (fn [x] (:t x))) (defmethod k [:a 1] [_] :a1) (defmethod k nil [_] :none) [(k {:t [:a 1]}) (k {})]`, Clojure: `[:a1 :none]`},
		{Program: `(defmulti z identity) (try (z 1) (catch IllegalArgumentException e (ex-message e)))`, Clojure: `"No method in multimethod 'z' for dispatch value: 1"`},
		{Program: `(defmulti z identity) (z 1)`, ClojureError: `java.lang.IllegalArgumentException: No method in multimethod 'z' for dispatch value: 1`},
	} {
		c.ID = c.Program
		if outcome, got := idiomOutcome(t, c); outcome != "pass" {
			t.Errorf("%s: %s (%s), Clojure gives %s%s", c.Program, got, outcome, c.Clojure, c.ClojureError)
		}
	}
}

// TestMultimethodKeptBetweenTurns: the function a defmulti makes is
// defined as a defn is, so a later turn calls it.
func TestMultimethodKeptBetweenTurns(t *testing.T) {
	first := run(t, `(defmulti area :shape) (defmethod area :sq [s] (* (:w s) (:w s))) (defmethod area :default [_] 0)`, Env{})
	if first.Err != nil {
		t.Fatal(first.Err)
	}
	second := run(t, `[(area {:shape :sq :w 4}) (area {})]`, Env{Prelude: first.Memory})
	if second.Err != nil {
		t.Fatal(second.Err)
	}
	if got := Repr(second.Value); got != "[16 0]" {
		t.Errorf("second turn gives %s, want [16 0]", got)
	}
}
