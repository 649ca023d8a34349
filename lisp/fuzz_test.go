package lisp

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fuzzSeeds are the spec examples plus programs that exercise every
// special form, so the fuzzers start from valid PTC-Lisp.
func fuzzSeeds(t interface{ Helper() }) []string {
	seeds := []string{
		"(let [{:keys [a b] :or {b 2} :as m} {:a 1}] [a b m])",
		"(loop [[x & xs] [1 2 3] acc 0] (if x (recur xs (+ acc x)) acc))",
		"(for [x [1 2 3] :let [y (* x x)] :when (odd? y) :while (< y 50)] {:x x :y y})",
		"(defn f \"doc\" [a & {:keys [k]}] (cond-> a k inc)) (f 1 :k true)",
		"(->> data/items (filter (where :price > 10)) (map :name) (sort))",
		"(some-> {:a {:b 1}} :a :b inc) (as-> 1 $ [$ $]) (case 1 (1 2) :x :y) (condp < 3 1 :a :b)",
		`(println "x" #{1 2} \a ##NaN) (fail {:why "no"})`,
		"#(+ %1 %2 (count %&)) #'x '(a b) #_ignored (comment 1)",
		"(tool/echo {:q 1}) (echo 1 2)",
		`(let [m (sorted-map-by > 3 :c 1 :a)] [(assoc m 2 :b) (subseq m > 1) (rseq m) (into (sorted-set) (keys m))])`,
		`(def t [(type {}) (instance? String "s") (class (sorted-set 1))]) (sort [nil 2 nil 1])`,
		"(letfn [(f [n] (if (pos? n) (g (dec n)) :f)) (g [n] (f n))] (def h f) (h 3))",
		`(clojure.walk/keywordize-keys {"a" #{{"b" 1}}}) (partition 2 1 [1 2 3]) (re-seq #"(\d)" "a1b2")`,
		`[1.5M 1e3M -0.00M 99999999999999999999N] (with-precision 3 :rounding HALF_EVEN (/ 1M 3)) (.setScale 2.345M 2 RoundingMode/HALF_UP)`,
	}
	f, err := os.Open(filepath.Join("testdata", "spec_examples.jsonl"))
	if err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var ex specExample
			if json.Unmarshal(sc.Bytes(), &ex) == nil {
				seeds = append(seeds, ex.Code)
			}
		}
	}
	return seeds
}

func FuzzRead(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		forms, err := read(src, 100)
		if err != nil {
			if asError(err).Kind != parseError {
				t.Fatalf("Read(%q) error kind %v", src, err)
			}
			return
		}
		// What the reader accepts prints back to text it accepts again.
		var b strings.Builder
		for _, form := range forms {
			WriteRepr(&b, form)
			b.WriteByte(' ')
		}
		if _, err := read(b.String(), 200); err != nil {
			t.Fatalf("printed forms %q of %q do not read back: %v", b.String(), src, err)
		}
		_, _ = ParseEDN(src, 100)
	})
}

// ownCPUTime is the CPU time this process has used, user and system.
func ownCPUTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func FuzzEval(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	data := mustEDN(`{:items [{:name "a" :price 12} {:name "b" :price 5}] :n 3}`).(*Map)
	limits := Limits{MaxSteps: 20_000, MaxAllocBytes: 1 << 20, MaxDepth: 50, MaxOutputBytes: 4096, MaxToolCalls: 3,
		Timeout: 2 * time.Second}
	f.Fuzz(func(t *testing.T, src string) {
		env := Env{Data: data, Tools: []string{"echo"}, Host: echoHost(), Limits: limits, MaxNesting: 100}
		start, cpu := time.Now(), ownCPUTime(t)
		res, err := Eval(context.Background(), src, env)
		if err != nil {
			t.Fatalf("Go error %v", err)
		}
		// Past its 2 s timeout on the wall clock, which a busy machine
		// stretches, an evaluation fails only if this process also spent
		// that much CPU time: it ran on rather than waited for a core.
		if d, c := time.Since(start), ownCPUTime(t)-cpu; d > 3*time.Second && c > 3*time.Second {
			t.Fatalf("%q took %v, %v of CPU time", src, d, c)
		}
		if res.Err != nil && strings.Contains(res.Err.Message, "internal interpreter error") {
			t.Fatalf("%q reached the panic safety net: %v", src, res.Err)
		}
		if res.Err == nil {
			// Memory a program produces always survives the wire.
			if _, err := DecodeMemory(context.Background(), res.Memory.Encode()); err != nil {
				t.Fatalf("memory of %q does not round-trip: %v", src, err)
			}
		}
	})
}

// TestFuzzSeedsNeverPanic runs the fuzz corpus as a plain test: nothing in
// it may reach Eval's panic safety net.
func TestFuzzSeedsNeverPanic(t *testing.T) {
	for _, s := range fuzzSeeds(t) {
		res := run(t, s, Env{Tools: []string{"echo"}, Host: echoHost()})
		if res.Err != nil && strings.Contains(res.Err.Message, "internal interpreter error") {
			t.Errorf("%q reached the panic safety net: %v", s, res.Err)
		}
	}
}
