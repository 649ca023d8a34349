package lisp

import "testing"

// TestLazySequencesBindAndIterate: the forms that take a value apart or
// walk it themselves, rather than through a builtin (sequential and map
// destructuring in let, fn, loop and letfn, for and doseq), read a lazy
// sequence as Clojure's nth, nthnext and seq do: only the items they
// name, the rest left lazy, so an endless one binds and a :while ends a
// for over it. The answers are Clojure 1.11's, but for the vectors
// sequence functions give where Clojure gives lists.
func TestLazySequencesBindAndIterate(t *testing.T) {
	const nat = `(defn nat [n] (lazy-seq (cons n (nat (inc n))))) `
	values := []srcWant{
		{`(let [[a b] (lazy-seq [1 2])] [a b])`, "[1 2]"},
		{`(let [[a b & r :as all] (range)] [a b (take 3 r) (take 1 all)])`, "[0 1 [2 3 4] [0]]"},
		{`[(let [[a & r] (lazy-seq [1])] [a r]) (let [[a & r] (lazy-seq [])] [a r]) (let [[& r] (lazy-seq [])] r)]`, "[[1 nil] [nil nil] nil]"},
		{nat + `(let [[a b & r] (nat 0)] [a b (take 2 r)])`, "[0 1 [2 3]]"},
		{`[((fn [[a b]] b) (iterate inc 5)) (letfn [(f [[a & r]] (if a (+ a (f r)) 0))] (f (lazy-seq [1 2 3])))]`, "[6 6]"},
		{`(loop [[x & xs] (lazy-seq [1 2 3]) acc 0] (if x (recur xs (+ acc x)) acc))`, "6"},
		{`(let [[a & {:keys [x]}] (lazy-seq [1 :x 2])] [a x])`, "[1 2]"},
		{`(let [{:keys [a]} (lazy-seq [:a 1]) {:keys [b]} (lazy-seq [{:b 3}])] [a b])`, "[1 3]"},
		{`(let [{a 0 b 1 :or {b 9}} [5] {c 1} "xy" {d 0} nil] [a b c d])`, `[5 9 "y" nil]`},
		{`[(for [x (iterate inc 0) :while (< x 3)] x) (for [x (range) :let [y (* x x)] :while (< y 20)] y) (for [x (lazy-seq [1 2])] x)]`, "[[0 1 2] [0 1 4 9 16] [1 2]]"},
		{nat + `(for [x (nat 0) :when (odd? x) :while (< x 9)] x)`, "[1 3 5 7]"},
		{`(with-out-str (doseq [x (concat [1] (lazy-seq [2]))] (print x)))`, `"12"`},
	}
	errs := []srcWant{
		// Nothing ends these: refused at once, not read for ever.
		{`(for [x (range) y [1 2] :while (< x 3)] [x y])`, "for cannot consume (range): it never ends"},
		{`(let [{:keys [a]} (range)] a)`, "destructuring cannot consume (range): it never ends"},
		{`(let [[a & {:keys [x]}] (range)] [a x])`, "destructuring cannot consume (range): it never ends"},
	}
	checkValuesAndErrors(t, values, errs)
}
