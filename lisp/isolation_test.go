package lisp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// Programs whose literal collections are built once at analysis and then
// updated by every evaluation: the cases where a cached program's
// constants would leak between callers if conj or assoc grew them in place.
const (
	setConjProgram = `(if false w nil) (let [s #{1 2 3}] (dotimes [i data/n] (contains? s i))
  (let [r (conj s data/v)] (dotimes [i data/k] (contains? s i)) [(contains? r data/v) (count r) r]))`
	mapAssocProgram = `(assoc {:a 1} :b data/v)`
)

// isolationEnv is the environment of caller number i: its own data/v, and
// every seventh caller declares w as a tool instead of a data key, so the
// cached program is analyzed again while the others run it.
func isolationEnv(i, v int) Env {
	b := NewMapBuilder(4)
	b.Set(Keyword("n"), Int(20))
	b.Set(Keyword("k"), Int(20))
	b.Set(Keyword("v"), Int(v))
	env := Env{Data: b.Map()}
	if i%7 == 0 {
		env.Tools = []string{"w"}
	} else {
		b := NewMapBuilder(4)
		b.addAll(env.Data)
		b.Set(Keyword("w"), Int(0))
		env.Data = b.Map()
	}
	return env
}

// TestCachedProgramConcurrentCallersIsolated runs one Program from many
// goroutines, each with its own data/v, and checks every answer holds its
// own value and nobody else's. Under -race it also proves that no
// evaluation writes what another reads.
func TestCachedProgramConcurrentCallersIsolated(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      func(v int) string
	}{
		{"set conj", setConjProgram, func(v int) string { return Repr(mustEDN(fmt.Sprintf("[true 4 #{1 2 3 %d}]", v))) }},
		{"map assoc", mapAssocProgram, func(v int) string { return fmt.Sprintf("{:a 1, :b %d}", v) }},
		{"vector conj", `(conj [1 2 3] data/v)`, func(v int) string { return fmt.Sprintf("[1 2 3 %d]", v) }},
		{"quoted map", `(assoc '{:a [1]} :b (conj (:a '{:a [1]}) data/v))`, func(v int) string { return fmt.Sprintf("{:a [1], :b [1 %d]}", v) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ReadProgram(tc.src, 0)
			if err != nil {
				t.Fatal(err)
			}
			const callers, rounds = 16, 40
			var wg sync.WaitGroup
			for c := range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for r := range rounds {
						v := 1000 + c*rounds + r
						res, err := EvalProgram(context.Background(), p, isolationEnv(c+r, v))
						if err != nil || res.Err != nil {
							t.Errorf("caller %d: %v %v", c, err, res.Err)
							return
						}
						if got, want := Repr(res.Value), tc.want(v); got != want {
							t.Errorf("caller %d round %d: got %s, want %s", c, r, got, want)
							return
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}

// isolationTemplates update literals in the ways a program can: each takes
// data/v and must answer under concurrency exactly what it answers alone.
var isolationTemplates = []string{
	`(conj #{:x "y" [1 2]} data/v)`,
	`(conj (conj #{1 2 3 4 5 6 7 8 9 10} data/v) (inc data/v))`,
	`(assoc {:a 1 :b 2 :c 3 :d 4 :e 5 :f 6 :g 7 :h 8 :i 9} data/v data/v)`,
	`(into [1 2 3] [data/v data/v])`,
	`(into #{[1] [2]} [[data/v]])`,
	`(merge {:a 1} {:b data/v})`,
	`(update {:xs [1 2]} :xs conj data/v)`,
	`(let [m {:k #{1}}] [(update m :k conj data/v) m])`,
	`(reduce conj [0] (range data/v (+ data/v 3)))`,
	`(disj (conj #{1 2} data/v) 1)`,
	`(dissoc (assoc {:a 1 :b 2} :c data/v) :a)`,
	`(assoc-in {:a {:b [1]}} [:a :c] data/v)`,
	`(frequencies (conj [1 1 2] data/v))`,
	`(conj '[a b] data/v)`,
	`(case data/v 1 :one (conj #{:many} data/v))`,
}

// TestLiteralUpdatesSameUnderConcurrency is a property: for random values
// and every template, the answer of a cached program evaluated by many
// goroutines at once equals the answer of a fresh program evaluated alone.
func TestLiteralUpdatesSameUnderConcurrency(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, src := range isolationTemplates {
		p, err := ReadProgram(src, 0)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		const callers = 8
		values := make([][]int, callers)
		want := make([][]string, callers)
		for c := range callers {
			for range 25 {
				v := rng.IntN(50) - 5
				res, err := Eval(context.Background(), src, isolationEnv(1, v))
				if err != nil || res.Err != nil {
					t.Fatalf("%s alone with %d: %v %v", src, v, err, res.Err)
				}
				values[c] = append(values[c], v)
				want[c] = append(want[c], Repr(res.Value))
			}
		}
		var wg sync.WaitGroup
		for c := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i, v := range values[c] {
					res, err := EvalProgram(context.Background(), p, isolationEnv(c+i, v))
					if err != nil || res.Err != nil {
						t.Errorf("%s with %d: %v %v", src, v, err, res.Err)
						return
					}
					if got := Repr(res.Value); got != want[c][i] {
						t.Errorf("%s with %d: got %s under concurrency, %s alone", src, v, got, want[c][i])
						return
					}
				}
			}()
		}
		wg.Wait()
	}
}

// FuzzConcurrentEval: any program, evaluated as one cached Program by
// several goroutines at once, answers each of them exactly what a fresh
// evaluation alone answers. Run it under -race to also catch writes to
// shared state that happen not to change an answer.
func FuzzConcurrentEval(f *testing.F) {
	for _, s := range isolationTemplates {
		f.Add(s)
	}
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	limits := Limits{MaxSteps: 20_000, MaxAllocBytes: 1 << 20, MaxDepth: 50, MaxOutputBytes: 4096, MaxEmitBytes: 1 << 20}
	outcome := func(p *Program, v int) string {
		env := isolationEnv(1, v)
		env.Limits, env.MaxNesting = limits, 100
		res, err := EvalProgram(context.Background(), p, env)
		if err != nil {
			return "suspended: " + err.Error()
		}
		return fmt.Sprintf("%s %v %q %v", Repr(res.Value), res.Err, res.Prints, res.Memory.Encode())
	}
	f.Fuzz(func(t *testing.T, src string) {
		if _, err := ReadProgram(src, 100); err != nil {
			return
		}
		alone := func(v int) string {
			p, _ := ReadProgram(src, 100) // a fresh program: its own literals
			return outcome(p, v)
		}
		shared, _ := ReadProgram(src, 100)
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := range 3 {
					v := 10*g + r
					if got, want := outcome(shared, v), alone(v); got != want {
						t.Errorf("%q with data/v %d: under concurrency %s, alone %s", src, v, got, want)
					}
				}
			}()
		}
		wg.Wait()
	})
}
