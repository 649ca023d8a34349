package lisp

import "testing"

// TestCaughtErrorsAreCharged: an interpreter's error that a program
// catches becomes a value, built by the failing call outside any charge;
// a loop of failing calls kept 190,000 of them (+46 MiB of RSS against the
// 10 MiB budget) and ended at the clock or the step limit depending on
// the machine's load. Each caught error is charged what building it
// allocates, so the budget ends such a loop, at the same step every run.
func TestCaughtErrorsAreCharged(t *testing.T) {
	for _, src := range []string{
		`(count (mapv (fn [i] (try (+ "a" i) (catch Exception e e))) (range 190000)))`,
		`(count (mapv (fn [i] (try (Integer/parseInt (str "x" i)) (catch NumberFormatException e e))) (range 150000)))`,
		`(count (mapv (fn [i] (ex-info "a" {})) (range 240000)))`,
	} {
		res, _ := runAttack(t, attack{name: src, src: src}, Env{})
		if k := errKind(res); k != memoryLimit {
			t.Errorf("%s: got %v, want memory_limit", src, res.Err)
		}
	}
	// A few caught errors still run, each charged.
	res := run(t, `(count (mapv (fn [i] (try (inc nil) (catch NullPointerException e (ex-message e)))) (range 1000)))`, Env{})
	if res.Err != nil || Repr(res.Value) != "1000" {
		t.Fatalf("got %v %v", res.Value, res.Err)
	}
	if res.AllocBytes < 1000*heapCaughtError {
		t.Errorf("1,000 caught errors charged %d bytes in all, under %d", res.AllocBytes, 1000*heapCaughtError)
	}
}

// TestKeysHoldingCollectionsAreChargedWhatTheyAllocate: hashing a key that
// holds collections (sets of sets, maps keyed by vectors of sets) walks it
// and orders its sets and maps; it allocated 2.5 to 5.8 times what the
// evaluation was charged (a walk stack per key hashed, a Go map of
// structural hashes per key, the orderings uncharged). The walks now reuse
// their stacks, the hashes of a key sit in a short list, and the orderings
// and deep walks are charged: what Go allocates stays within twice the
// charge.
func TestKeysHoldingCollectionsAreChargedWhatTheyAllocate(t *testing.T) {
	if raceDetector {
		t.Skip("measures allocation, which the race detector changes")
	}
	lifted := Env{Limits: Limits{MaxAllocBytes: 512 << 20, MaxSteps: 100_000_000}}
	for _, src := range []string{
		`(count (distinct (map (fn [i] {[i] #{[i]}}) (range 20000))))`,
		`(count (frequencies (map (fn [i] #{#{i} #{(str i)} {:a [i]}}) (range 20000))))`,
		`(count (into #{} (map (fn [i] #{i (str i) [i]}) (range 20000))))`,
		`(count (set (map (fn [i] #{#{#{#{i}}}}) (range 20000))))`,
		`(count (set (map (fn [i] [[[[[[[[i]]]]]]]]) (range 20000))))`,
		`(count (group-by (fn [i] {#{i} [i]}) (range 20000)))`,
	} {
		res, alloc := runAttack(t, attack{name: src, src: src}, lifted)
		if res.Err != nil {
			t.Fatalf("%s: %v", src, res.Err)
		}
		if alloc > 2*res.AllocBytes+1<<20 {
			t.Errorf("%s: Go allocated %d bytes, charged %d", src, alloc, res.AllocBytes)
		}
	}
}
