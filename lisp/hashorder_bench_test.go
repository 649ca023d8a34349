package lisp

import (
	"strconv"
	"testing"
)

// Iterating large hash maps and sets, whose order (hashorder.go) is
// computed once per value, and many small array maps, which need no
// ordering work. Figures are in docs/BENCHMARKS.md.

func BenchmarkHashMapIterate(b *testing.B) {
	benchEval(b, `(let [m (zipmap (map str (range 10000)) (range))]
  [(count (keys m)) (reduce + (vals m)) (reduce-kv (fn [a k v] (+ a v)) 0 m) (first (first m))])`, benchData(1))
}

func BenchmarkHashSetIterate(b *testing.B) {
	benchEval(b, `(let [s (set (map str (range 10000)))]
  [(count (vec s)) (count (filter #(= 4 (count %)) s)) (first (seq s))])`, benchData(1))
}

func BenchmarkSmallMapIterate(b *testing.B) {
	benchEval(b, `(reduce + (map (fn [o] (count (keys o))) data/orders))`, benchData(1000))
}

// BenchmarkHashOrder is the ordering work alone: the hash trie's order
// of a set of 10,000 strings, computed afresh each time.
func BenchmarkHashOrder(b *testing.B) {
	elems := make([]Value, 10000)
	for i := range elems {
		elems[i] = String(strconv.Itoa(i))
	}
	s := NewSet(elems)
	for b.Loop() {
		fresh := &Set{elems: s.elems}
		if _, err := fresh.seqElems(nil); err != nil {
			b.Fatal(err)
		}
	}
}
