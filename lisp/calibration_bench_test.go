package lisp

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// calibrationPrograms each do much of one kind of work, far below the
// default limits when lifted, so that their time per charged step and per
// charged byte can be compared: a kind of work much dearer per step than
// plain arithmetic can outlast the clock before its step charge ends it
// on a loaded machine.
func calibrationPrograms() []struct{ name, src string } {
	var defmethods strings.Builder
	defmethods.WriteString("(defmulti f :k)\n")
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&defmethods, "(defmethod f %d [x] %d)\n", i, i)
	}
	defmethods.WriteString("(f {:k 4999})")
	return []struct{ name, src string }{
		{"arithmetic loop", `(loop [i 0 s 0] (if (< i 200000) (recur (inc i) (+ s i)) s))`},
		{"with-meta chain", `(count (reduce (fn [v i] (with-meta v {:i i})) [1 2 3] (range 50000)))`},
		{"vary-meta chain", `(count (reduce (fn [v i] (vary-meta v assoc :i i)) [1 2 3] (range 50000)))`},
		{"5,000 defmethods", defmethods.String()},
		{"multimethod dispatch", `(defmulti g :k) (defmethod g :a [x] 1) (defmethod g :b [x] 2) (reduce (fn [s i] (+ s (g {:k :a}))) 0 (range 50000))`},
		{"protocol dispatch", `(defprotocol P (p [x])) (extend-protocol P Long (p [x] x)) (reduce (fn [s i] (+ s (p i))) 0 (range 50000))`},
		{"regex re-seq", `(count (re-seq #"a+b" (apply str (repeat 50000 "aab"))))`},
		{"regex in a loop", `(reduce (fn [s i] (+ s (count (re-find #"[0-9]+" (str "ab" i))))) 0 (range 50000))`},
		{"sort with a comparator", `(count (sort (fn [a b] (compare b a)) (range 50000)))`},
		{"sort-by", `(count (sort-by - (range 50000)))`},
		{"str building", `(count (apply str (range 100000)))`},
		{"format", `(count (mapv #(format "%05d %s %.2f" % "x" 1.5) (range 20000)))`},
		{"frequencies", `(count (frequencies (map #(mod % 1000) (range 100000))))`},
		{"group-by", `(count (group-by #(mod % 1000) (range 100000)))`},
		{"assoc in a loop", `(count (reduce (fn [m i] (assoc m i i)) {} (range 50000)))`},
		{"string split", `(count (clojure.string/split (apply str (repeat 50000 "a,b")) #","))`},
		{"extended-precision math", `(reduce + (map (fn [i] (+ (Math/sin i) (Math/pow 1.0001 (+ i 0.5)) (Math/log10 (inc i)) (Math/log (inc i)) (Math/exp (/ i 1e4)))) (range 500)))`},
	}
}

// processCPU is the CPU time the process has used, in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkCalibration reports each program's time per charged step and
// per charged byte (docs/BENCHMARKS.md, "Step calibration").
func BenchmarkCalibration(b *testing.B) {
	env := Env{Limits: Limits{MaxSteps: 1 << 40, MaxAllocBytes: 1 << 40, Timeout: time.Minute}}
	for _, p := range calibrationPrograms() {
		b.Run(p.name, func(b *testing.B) {
			var steps, alloc int64
			cpu := processCPU()
			for b.Loop() {
				res, err := Eval(context.Background(), p.src, env)
				if err != nil || res.Err != nil {
					b.Fatalf("%v %v", err, res.Err)
				}
				steps, alloc = res.Steps, res.AllocBytes
			}
			// The process's CPU time (the collector's included), not the
			// wall clock, which a shared machine stretches several times.
			perRun := float64(processCPU()-cpu) / float64(b.N)
			b.ReportMetric(perRun/float64(max(steps, 1)), "cpu-ns/step")
			b.ReportMetric(perRun/float64(max(alloc, 1)), "cpu-ns/charged-byte")
			b.ReportMetric(float64(steps), "steps")
		})
	}
}
