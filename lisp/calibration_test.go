package lisp

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestHostileWorkEndsByACharge: each kind of work the calibration
// benchmark measures, made large enough to pass the default limits, ends
// by its step or memory charge, at the same step in every run, with the
// clock set far away: its outcome is decided by counted work, so a loaded
// machine cannot turn it into a timeout before its CPU reaches the
// default timeout (BenchmarkCalibration: at most 0.12 s of CPU per
// million steps).
func TestHostileWorkEndsByACharge(t *testing.T) {
	var defmethods strings.Builder
	defmethods.WriteString("(defmulti f :k)\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&defmethods, "(defmethod f %d [x] %d)\n", i, i)
	}
	defmethods.WriteString("(f {:k 19999})")
	programs := []string{
		`(loop [i 0 s 0] (if (< i 2000000) (recur (inc i) (+ s i)) s))`,
		`(count (reduce (fn [v i] (with-meta v {:i i})) [1 2 3] (range 1000000)))`,
		`(count (reduce (fn [v i] (vary-meta v assoc :i i)) [1 2 3] (range 1000000)))`,
		defmethods.String(),
		`(defmulti g :k) (defmethod g :a [x] 1) (reduce (fn [s i] (+ s (g {:k :a}))) 0 (range 1000000))`,
		`(defprotocol P (p [x])) (extend-protocol P Long (p [x] x)) (reduce (fn [s i] (+ s (p i))) 0 (range 1000000))`,
		`(reduce (fn [s i] (+ s (count (re-find #"[0-9]+" (str "ab" i))))) 0 (range 1000000))`,
		`(count (sort (fn [a b] (compare b a)) (range 1000000)))`,
		`(count (mapv #(format "%05d %s %.2f" % "x" 1.5) (range 1000000)))`,
		`(count (frequencies (map #(mod % 1000) (range 2000000))))`,
		`(count (reduce (fn [m i] (assoc m i i)) {} (range 1000000)))`,
		// Views of a set, a padded partition and a partial's fixed
		// arguments: each did work of the set's, the pad's or the fixed
		// arguments' size on every call, which nothing charged.
		`(let [s (set (range 20000))] (reduce (fn [n i] (+ n (first (rest s)))) 0 (range 100000)))`,
		`(let [p (vec (range 200000))] (reduce (fn [n i] (+ n (count (partition 1.5 1 p [1])))) 0 (range 100000)))`,
		`(let [g (apply partial (constantly 1) (range 40000))] (reduce (fn [n i] (+ n (g i))) 0 (range 100000)))`,
		`(reduce + (map (fn [i] (+ (Math/sin i) (Math/pow 1.0001 (+ i 0.5)) (Math/log10 (inc i)) (Math/log (inc i)) (Math/exp (/ i 1e4)))) (range 1000000)))`,
	}
	limits := DefaultLimits()
	limits.Timeout = 10 * time.Minute
	for _, src := range programs {
		var steps int64
		for i := range 2 {
			res := run(t, src, Env{Limits: limits})
			if res.Err == nil || (res.Err.Kind != stepLimit && res.Err.Kind != memoryLimit) {
				t.Fatalf("%.60s: got %v, want step_limit or memory_limit", src, res.Err)
			}
			if i > 0 && res.Steps != steps {
				t.Errorf("%.60s: ended at step %d, then %d", src, steps, res.Steps)
			}
			steps = res.Steps
		}
	}
}
