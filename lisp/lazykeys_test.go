package lisp

import (
	"go/ast"
	"go/token"
	"testing"
)

// TestEveryKeyIsReadBeforeItIsHashed: a lazy sequence inside a key a
// program gives reads as its elements wherever the key is hashed or
// looked up: put into a map by conj or into (with or without a
// transducer), looked up by calling a map or a set, dispatched on by
// case, and in the other lookups and builders that hash what they are
// given. The answers are Clojure 1.11's.
func TestEveryKeyIsReadBeforeItIsHashed(t *testing.T) {
	const defs = `(def x (lazy-seq [1 2])) (def l (list 1 2)) `
	cases := []srcWant{
		{defs + `[(count (into {} [[[x] 1] [[l] 2]])) (count (conj {} [[x] 1] [[l] 2])) (count (conj {[l] 1} [[x] 2]))]`, "[1 1 1]"},
		{defs + `(count (into {} (map (fn [k] [k 1])) [[x] [l]]))`, "1"},
		{defs + `[({[l] 5} [x]) (#{[l]} [x]) ({[l] 5} [x] :no)]`, "[5 [(1 2)] 5]"},
		{defs + `[(case [x] [(1 2)] :a :b) (case (map inc [0 1]) [1 2] :a :b) (case x (1 2) :a :b)]`, "[:a :a :b]"},
		{defs + `[(replace {[l] :r} [[x]]) (clojure.walk/postwalk-replace {[l] :r} [[x]]) (.containsKey {[l] 1} [x]) (.contains #{[l]} [x])]`, "[[:r] [:r] true true]"},
		{defs + `[(into [] (distinct) [[x] [l]]) (into [] (dedupe) [[x] [l]]) (count (update-keys {1 2 3 4} (fn [k] (if (= k 1) [x] [l]))))]`, "[[[(1 2)]] [[(1 2)]] 1]"},
		{defs + `[(count (assoc {} [x] 1 [l] 2 :c 3)) (count (assoc nil [x] 1)) (count (assoc-in {[l] {}} [[x] :a] 1))]`, "[2 1 1]"},
		{defs + `((fn [& {:as m}] (count m)) [x] 1 [l] 2)`, "1"},
	}
	checkValuesAndErrors(t, cases, nil)
}

// keyedAlready are the functions that charge for hashing keys already
// inside a collection, or that read a key first: every other caller of
// chargeKey hashes a key a program gave, and must read it through
// realizedKey, which charges it too.
var keyedAlready = map[string]bool{
	"realizedKey": true, "chargeKeys": true, "chargeMapKeys": true, "chargeHashOrder": true,
	"hashesKeys": true, "hashesValues": true,
	// Equality's look-ups of the keys and elements of the values it
	// compares, and isa?'s of its arguments' parts, read whole before it
	// runs.
	"chargeLookup": true, "inAncestors": true,
}

// TestKeysAreHashedThroughOneEntry walks the package's source: chargeKey,
// the charge of hashing a key, is called only where the key was read
// (realizedKey) or already sits in a collection. A new lookup or builder
// that hashes a key it was given fails here until it reads the key
// through realizedKey, so that a lazy sequence inside the key hashes as
// its elements there too.
func TestKeysAreHashedThroughOneEntry(t *testing.T) {
	forEachSourceFile(t, func(fset *token.FileSet, _ string, _ []byte, f *ast.File) {
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil || keyedAlready[fn.Name.Name] {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "chargeKey" {
						t.Errorf("%s: %s hashes a key it does not read first: call realizedKey", fset.Position(call.Pos()), fn.Name.Name)
					}
				}
				return true
			})
		}
	})
}

// TestHeldArgumentsStayLazy: a lazy sequence given to a builtin that
// only keeps or passes it on (identity, an atom, reset!, swap!'s
// arguments) stays lazy, as in Clojure: one that never ends is read only as
// far as it is used, and one whose body reads an atom reads it when it is
// used, not when it is stored.
func TestHeldArgumentsStayLazy(t *testing.T) {
	const nat = `(defn nat [n] (lazy-seq (cons n (nat (inc n))))) `
	cases := []srcWant{
		{nat + `[(take 3 (identity (nat 0))) (take 3 (-> (nat 0) identity identity)) (take 3 ((comp identity identity) (nat 0)))]`, "[[0 1 2] [0 1 2] [0 1 2]]"},
		{nat + `[(take 3 @(atom (nat 0))) (take 3 @(volatile! (nat 0))) (let [a (atom nil)] (reset! a (nat 0)) (take 3 @a))]`, "[[0 1 2] [0 1 2] [0 1 2]]"},
		{nat + `[(take 3 ((constantly (nat 0)))) (take 3 (if (some? (nat 0)) (nat 0) nil)) (take 3 (if (nil? (nat 0)) nil (nat 0)))]`, "[[0 1 2] [0 1 2] [0 1 2]]"},
		{nat + `[(take 3 (first (map identity [(nat 0)]))) (take 3 (apply identity [(nat 0)])) (take 3 (force (nat 0)))]`, "[[0 1 2] [0 1 2] [0 1 2]]"},
		{nat + `[(take 3 (first (swap! (atom []) conj (nat 0)))) (take 3 (swap! (atom 0) (fn [_ s] s) (nat 0))) (let [v (volatile! nil)] (vreset! v (nat 0)) (take 3 @v))]`, "[[0 1 2] [0 1 2] [0 1 2]]"},
		{`(def a (atom nil)) (reset! a (lazy-seq (cons 1 @a))) (take 3 @a)`, "[1 1 1]"},
		{`(let [b (atom 0) a (atom nil)] (reset! a (lazy-seq [@b])) (reset! b 7) (first @a))`, "7"},
		{`(let [b (atom 0) a (atom (lazy-seq [@b]))] (reset! b 7) (first @a))`, "7"},
	}
	checkValuesAndErrors(t, cases, nil)
	for name := range holdsArgs {
		if builtins.byName[name] == nil {
			t.Errorf("holdsArgs names %s, which is no builtin", name)
		}
	}
}

// TestComparatorAnsweringNilThrows: a comparator that answers nil fails
// as Clojure's does (a NullPointerException: Clojure takes an answer that
// is not a boolean as a number), in every builtin that orders by one.
func TestComparatorAnsweringNilThrows(t *testing.T) {
	const npe = `(fn [f] (try (f) (catch NullPointerException e :npe)))`
	cases := []srcWant{
		{`(let [c (fn [a b] nil) t ` + npe + `] [(t #(sort c [3 1 2])) (t #(sort-by - c [3 1 2])) (t #(into (sorted-set-by c) [3 1 2])) (t #(into (sorted-map-by c) {3 1 1 2}))])`, "[:npe :npe :npe :npe]"},
		{`(let [t ` + npe + `] [(t #(sort (fn [a b] (when (< a b) true)) [3 1 2])) (t #(apply sorted-set-by (fn [a b] nil) [3 1]))])`, "[:npe :npe]"},
		{`[(sort (fn [a b] nil) [3]) (sort (fn [a b] (< a b)) [3 1 2])]`, "[[3] [1 2 3]]"},
	}
	checkValuesAndErrors(t, cases, nil)
}
