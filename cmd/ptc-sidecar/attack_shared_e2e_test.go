package main_test

// Attacks on what callers share: the server reads a value's text once and
// hands the frozen value to every evaluation that sends the same text
// (server/remembered.go), and keeps the programs it analyzed. Many callers
// send the same value and different programs that try to change or
// realize it (realize a lazy sequence halfway and throw, fill a memoized
// function's cache, derive in a hierarchy, conj onto a sorted collection
// ordered by a function, redefine a record); every answer must be, byte
// for byte, what the same request gets alone, race-free, and a request's
// charges must not depend on what others did before it.

import (
	"fmt"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// sharedValue is a value's text many callers send, and programs that read
// it as v.
type sharedValue struct {
	name, text string
	programs   []string
}

func sharedValues() []sharedValue {
	return []sharedValue{
		{"a lazy sequence that throws at its fourth element",
			`(map (fn [x] (if (= x 3) (throw (ex-info "boom" {:at x})) x)) (range))`,
			[]string{`(take 3 v)`, `(take 5 v)`, `(try (doall (take 5 v)) (catch Exception e [(ex-data e) (take 2 v)]))`,
				`(nth v 2)`, `(try (nth v 4) (catch Exception e (take 3 v)))`}},
		{"a lazy sequence that prints as it is realized",
			`(map (fn [x] (println "at" x) x) (drop 2 (iterate inc 0)))`,
			[]string{`(take 3 v)`, `(nth v 5)`, `(with-out-str (doall (take 2 v)))`, `(do (doall (take 4 v)) (take 2 v))`}},
		{"a memoized function that prints when it computes",
			`(memoize (fn [x] (println "computing" x) (* x x)))`,
			[]string{`(v 3)`, `(mapv v [1 2 1])`, `(with-out-str (v 2) (v 2))`, `(do (v 9) (v 9))`}},
		{"transducers, one of them stateful",
			`(comp (map inc) (take 3) (partition-all 2))`,
			[]string{`(into [] v (range 10))`, `(sequence v [5 5 6 7])`, `(transduce v conj [] (range))`, `(into [] v [])`}},
		{"a sorted set ordered by a function, inside a closure",
			`(let [s (sorted-set-by (fn [a b] (compare b a)) 5 1 3)] (fn [x] (conj s x)))`,
			[]string{`(v 4)`, `(first (v 0))`, `(seq (v 9))`, `(count (reduce (fn [s x] (conj s x)) (v 0) (range 50)))`}},
		{"a hierarchy inside a closure",
			`(let [h (derive (make-hierarchy) :a :b)] (fn [t] (isa? h t :b)))`,
			[]string{`(v :a)`, `(do (derive :c :b) (v :c))`, `(v :c)`, `(let [h (make-hierarchy)] [(v :a) (isa? h :a :b)])`}},
		{"a function given records of two definitions",
			`(fn [x] (assoc x :seen true))`,
			[]string{`(do (defrecord R [a]) (v (->R 1)))`, `(v {:a 1})`, `(do (defrecord R [b]) (v (map->R {:b 2})))`}},
		{"a recursive lazy sequence",
			`((fn step [n] (lazy-seq (cons n (step (inc n))))) 0)`,
			[]string{`(take 3 v)`, `(nth v 100)`, `(take 2 (drop 50 v))`}},
		{"a closure over a lazy sequence",
			`(let [s (map inc (range))] (fn [n] (nth s n)))`,
			[]string{`(v 3)`, `(v 100)`, `(mapv v [5 1 5])`}},
		{"a regex with groups",
			`#"(a+)(b*)"`,
			[]string{`(re-find v "aab")`, `(re-seq v "abaab")`, `(re-matches v "aaabb")`}},
		{"a function holding an atom, refused",
			`(let [a (atom 0)] (fn [] (swap! a inc)))`,
			[]string{`(v)`, `(do (v) (v))`}},
	}
}

// sharedWays are the fields a shared value is sent in, each with how a
// program reads it as v.
var sharedWays = []struct {
	name    string
	request func(text, program string) *ptcsidecarv1.EvalTurnRequest
}{
	{"prelude", func(text, program string) *ptcsidecarv1.EvalTurnRequest {
		return &ptcsidecarv1.EvalTurnRequest{Program: program, Limits: evalLimits(),
			Prelude: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "v", Value: &ptcsidecarv1.Value{Edn: text}}}}}
	}},
	{"previous_results", func(text, program string) *ptcsidecarv1.EvalTurnRequest {
		return &ptcsidecarv1.EvalTurnRequest{Program: "(let [v *1] " + program + ")", Limits: evalLimits(),
			PreviousResults: []*ptcsidecarv1.Value{{Edn: text}}}
	}},
	{"tool_results", func(text, program string) *ptcsidecarv1.EvalTurnRequest {
		return &ptcsidecarv1.EvalTurnRequest{Program: "(let [v (tool/get {})] " + program + ")", Limits: evalLimits(),
			Tools:       []*ptcsidecarv1.ToolSpec{{Name: "get"}},
			ToolResults: []*ptcsidecarv1.ToolResult{{Index: 0, Name: "get", Args: &ptcsidecarv1.Value{Edn: "{}"}, Result: &ptcsidecarv1.Value{Edn: text}}}}
	}},
}

// turnBytes is an answer as its bytes, the turn's duration left out: two
// answers are the same when these are.
func turnBytes(out attackOutcome) string {
	if out.turn == nil {
		return out.got + " " + out.message
	}
	turn := proto.Clone(out.turn).(*ptcsidecarv1.Turn)
	turn.DurationMs = 0
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(turn)
	if err != nil {
		return "unmarshalable " + err.Error()
	}
	return string(b)
}

// TestAttackSharedValuesManyPrograms sends each shared value in each way
// with each of its programs, first alone, then from 48 callers at once
// (every program, both listeners) three times: every answer is the one
// its request got alone, and the race detector sees no race.
func TestAttackSharedValuesManyPrograms(t *testing.T) {
	skipIfShort(t)
	// Under the race detector, whose binary is several times slower, one
	// way in and one round: the race detector looks at the sharing, which
	// every way reaches through the same memo.
	ways, rounds := sharedWays, 3
	if raceSlowdown > 1 {
		ways, rounds = sharedWays[:1], 1
	}
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--max-concurrent-evals", "8")
	for _, s := range sharedValues() {
		for _, way := range ways {
			t.Run(s.name+"/"+way.name, func(t *testing.T) {
				attacks := make([]attack, len(s.programs))
				alone := make([]string, len(s.programs))
				outcomes := make([]string, len(s.programs))
				for i, program := range s.programs {
					attacks[i] = attack{name: program, method: "EvalTurn", req: func() proto.Message { return way.request(s.text, program) }}
					out, _ := sendAttack(t, p, "gRPC", attacks[i])
					alone[i], outcomes[i] = turnBytes(out), out.got
					if again, _ := sendAttack(t, p, "HTTP", attacks[i]); turnBytes(again) != alone[i] {
						t.Errorf("%s: over HTTP %s (%.200s), over gRPC %s (%.200s)", program, again.got, again.message, out.got, out.message)
					}
				}
				t.Logf("alone: %v", outcomes)
				const callers = 48
				for round := range rounds {
					var wg sync.WaitGroup
					var mu sync.Mutex
					wrong := map[string]int{}
					for i := range callers {
						k := i % len(attacks)
						wg.Go(func() {
							out, _ := sendAttack(t, p, []string{"gRPC", "HTTP"}[i%2], attacks[k])
							if turnBytes(out) != alone[k] {
								mu.Lock()
								wrong[fmt.Sprintf("%s: %s %.200s", s.programs[k], out.got, out.message)]++
								mu.Unlock()
							}
						})
					}
					wg.Wait()
					for what, n := range wrong {
						t.Errorf("round %d: %d callers answered otherwise than alone: %s", round, n, what)
					}
				}
			})
		}
	}
	endAliveAndRaceFree(t, p)
}

// TestAttackSharedValueChargesLandOnTheReader: the steps a request is
// charged do not depend on what other callers did with the value it
// shares. For each request, the smallest step limit it runs under is
// found on a server that has seen it; on a fresh server the request, sent
// first, fails one step below that limit and runs at it, and it does the
// same after a crowd realized, called and filled the shared value.
func TestAttackSharedValueChargesLandOnTheReader(t *testing.T) {
	skipIfShort(t)
	lazy := `(map (fn [x] (* x x)) (range))`
	memo := `(memoize (fn [x] (* x x)))`
	cases := []struct {
		name, text, program, others string
	}{
		{"a lazy sequence realized by others first", lazy, `(reduce + (take 20 v))`, `(doall (take 40 v))`},
		{"a memoized function filled by others first", memo, `(reduce + (map v (range 20)))`, `(mapv v (range 40))`},
		{"a program analyzed for others first", `[1 2 3]`, `(reduce + (map inc (range 100)))`, `(reduce + (map inc (range 100)))`},
	}
	limited := func(text, program string, steps int64) attack {
		return attack{name: program, method: "EvalTurn", req: func() proto.Message {
			req := sharedWays[0].request(text, program)
			req.Limits.MaxSteps = steps
			return req
		}}
	}
	args := []string{"--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--max-concurrent-evals", "8"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			warm := start(t, args...)
			sendAttack(t, warm, "gRPC", limited(c.text, c.program, 1_000_000))
			lo, hi := int64(1), int64(1_000_000)
			for lo < hi {
				mid := (lo + hi) / 2
				if out, _ := sendAttack(t, warm, "gRPC", limited(c.text, c.program, mid)); out.got == "ok" {
					hi = mid
				} else {
					lo = mid + 1
				}
			}
			need := lo
			warm.terminate()

			p := start(t, args...)
			check := func(when string) {
				for _, listener := range []string{"gRPC", "HTTP"} {
					if out, _ := sendAttack(t, p, listener, limited(c.text, c.program, need-1)); out.got != "step_limit" {
						t.Errorf("%s, %s, %d steps: %s (%.200s), want step_limit", when, listener, need-1, out.got, out.message)
					}
					if out, _ := sendAttack(t, p, listener, limited(c.text, c.program, need)); out.got != "ok" {
						t.Errorf("%s, %s, %d steps: %s (%.200s), want ok", when, listener, need, out.got, out.message)
					}
				}
			}
			check("first on a fresh server")
			others := attack{name: c.others, method: "EvalTurn", req: func() proto.Message { return sharedWays[0].request(c.text, c.others) }}
			var wg sync.WaitGroup
			for i := range 24 {
				wg.Go(func() { sendAttack(t, p, []string{"gRPC", "HTTP"}[i%2], others) })
			}
			wg.Wait()
			check("after 24 callers used the value")
			t.Logf("%s: %d steps, the same first, again and after others", c.program, need)
			endAliveAndRaceFree(t, p)
		})
	}
}

// TestAttackWhatATurnSendsGoesBack: a fail reason and a tool call's
// arguments travel back as a result does (the turn's result, the
// arguments echoed with the tool's answer), so they are held to what a
// result is: before, (fail (atom 1)) sent back a result of #<atom>, and
// (tool/echo {:a (atom 1)}) arguments of {:a #<atom>}, which no field
// reads back, so the run could not go on. Now each is a validation_error
// naming it, and every turn goes back.
func TestAttackWhatATurnSendsGoesBack(t *testing.T) {
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
	tools := []*ptcsidecarv1.ToolSpec{{Name: "echo"}}
	for _, c := range []struct{ program, expect string }{
		{`(fail (atom 1))`, "validation_error"},
		{`(fail {:why [(volatile! 1)]})`, "validation_error"},
		{`(try (throw (ex-info "no stock" {:sku 1})) (catch Exception e (fail e)))`, "validation_error"},
		{`(fail (cat [1]))`, "validation_error"},
		{`(fail (transient []))`, "validation_error"},
		{`(tool/echo {:a (atom 1)})`, "validation_error"},
		{`(tool/echo {:rf ((map inc) conj)})`, "validation_error"},
		{`(tool/echo {:e (try (/ 1 0) (catch Exception e e))})`, "validation_error"},
		// What reads back still goes: a constructed keyword, a sequence
		// that never ends (sent as its source), a function.
		{`(fail {:why (keyword "a b")})`, "fail"},
		{`(fail (drop 2 (range)))`, "fail"},
		{`(fail {:f (fn [x] x)})`, "fail"},
	} {
		for _, listener := range []string{"gRPC", "HTTP"} {
			a := attack{name: c.program, method: "EvalTurn", req: func() proto.Message {
				return &ptcsidecarv1.EvalTurnRequest{Program: c.program, Tools: tools, Limits: evalLimits()}
			}}
			out, _ := sendAttack(t, p, listener, a)
			if out.got != c.expect {
				t.Errorf("%s over %s: %s (%.200s), want %s", c.program, listener, out.got, out.message, c.expect)
			}
			if out.turn != nil {
				checkTurnGoesBack(t, p, c.program, out.turn)
			}
		}
	}
	endAliveAndRaceFree(t, p)
}

// endAliveAndRaceFree fails t if p died, then stops it and fails t if it
// exits otherwise than cleanly (66: the race detector saw a race).
func endAliveAndRaceFree(t *testing.T, p *process) {
	t.Helper()
	select {
	case <-p.exited:
		t.Fatalf("the server died:\n%s", p.log())
	default:
	}
	if code := p.terminate(); code != 0 {
		t.Errorf("exit code %d\n%s", code, lastLines(p.log(), 40))
	}
}
