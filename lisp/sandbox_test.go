package lisp

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Hostile programs must end with the typed error of the limit they hit,
// inside that limit, and never crash or exhaust the process.
func TestSandboxLimits(t *testing.T) {
	small := Limits{MaxSteps: 100_000, MaxAllocBytes: 1 << 20, MaxDepth: 100, MaxOutputBytes: 1000, MaxToolCalls: 5}
	cases := []struct {
		name string
		src  string
		kind ErrorKind
	}{
		{"infinite loop", "(loop [i 0] (recur (inc i)))", stepLimit},
		{"infinite fn recur", "((fn [x] (recur x)) 1)", stepLimit},
		{"runaway recursion", "(defn f [x] (inc (f x))) (f 1)", depthLimit},
		{"mutual recursion", "(declare g) (defn f [x] (g x)) (defn g [x] (f x)) (f 1)", depthLimit},
		{"anonymous self recursion", "((fn f [x] (f x)) 1)", depthLimit},
		{"exponential string", `(loop [s "ab"] (recur (str s s)))`, memoryLimit},
		{"vector growth", "(loop [v []] (recur (conj v 1 2 3 4 5 6 7 8)))", memoryLimit},
		{"huge range", "(count (range 1e12))", ""},
		{"huge range int", "(count (range 1000000000000))", ""},
		{"println flood", `(loop [] (println "spam spam spam") (recur))`, outputLimit},
		{"tool flood", "(loop [] (tool/echo {}) (recur))", ToolCallLimit},
		{"nested for", "(for [a [1 2 3 4 5 6 7 8 9 10] b [1 2 3 4 5 6 7 8 9 10] c [1 2 3 4 5 6 7 8 9 10] d [1 2 3 4 5 6 7 8 9 10] e [1 2 3 4 5 6 7 8 9 10]] 1)", stepLimit},
		{"exponential sharing", "(loop [v [1] i 0] (if (< i 60) (recur [v v] (inc i)) v))", memoryLimit},
		{"exponential sharing in maps", "(loop [m {:a 1} i 0] (if (< i 60) (recur {:l m :r m} (inc i)) (count (str m))))", memoryLimit},
		{"exponential sharing by conj", "(reduce (fn [acc _] (conj acc acc)) [] (range 60))", memoryLimit},
		{"shared closure captures", "(loop [f (fn [] 1) i 0] (if (< i 60) (recur (let [g f h f] (fn [] [g h])) (inc i)) f))", memoryLimit},
		{"deep nesting in source", strings.Repeat("(", 100_000) + strings.Repeat(")", 100_000), parseError},
		{"deep vectors in source", strings.Repeat("[", 100_000), parseError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, c.src, Env{Limits: small, Tools: []string{"echo"}, Host: echoHost()})
			if res.Err == nil {
				t.Fatalf("succeeded with a %s", TypeLabel(res.Value))
			}
			if c.kind == "" {
				if k := res.Err.Kind; k != stepLimit && k != memoryLimit {
					t.Fatalf("error %v, want step_limit or memory_limit", res.Err)
				}
			} else if res.Err.Kind != c.kind {
				t.Fatalf("error %v, want %s", res.Err, c.kind)
			}
			if res.Err.Hint == "" && res.Err.Kind != parseError {
				t.Errorf("limit error without a hint: %v", res.Err)
			}
			if res.Steps > small.MaxSteps+1 {
				t.Errorf("used %d steps, limit %d", res.Steps, small.MaxSteps)
			}
			if res.AllocBytes > small.MaxAllocBytes+(64<<10) {
				t.Errorf("charged %d bytes, limit %d", res.AllocBytes, small.MaxAllocBytes)
			}
		})
	}
}

// Deep recursion is stopped by the depth budget before the Go stack is at
// risk, even with a generous budget.
func TestDeepRecursionWithLargeDepthLimit(t *testing.T) {
	limits := DefaultLimits()
	limits.MaxDepth = 10_000
	limits.MaxSteps = 10_000_000
	res := run(t, "(defn f [n] (if (< n 1) 0 (inc (f (- n 1))))) (f 9000)", Env{Limits: limits})
	if res.Err != nil || Repr(res.Value) != "9000" {
		t.Fatalf("deep but allowed recursion: %v %v", res.Value, res.Err)
	}
	res = run(t, "(defn f [n] (inc (f n))) (f 1)", Env{Limits: limits})
	if res.Err == nil || res.Err.Kind != depthLimit {
		t.Fatalf("err = %v, want depth_limit", res.Err)
	}
}

func TestTimeoutByContext(t *testing.T) {
	limits := DefaultLimits()
	limits.MaxSteps = Unlimited // only the clock stops it
	limits.Timeout = 50 * time.Millisecond
	res := run(t, "(loop [i 0] (recur (inc i)))", Env{Limits: limits})
	if res.Err == nil || res.Err.Kind != timeout {
		t.Fatalf("err = %v, want timeout", res.Err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	limits.Timeout = Unlimited
	res, err := Eval(ctx, "(loop [i 0] (recur (inc i)))", Env{Limits: limits})
	if err != nil || res.Err == nil || res.Err.Kind != timeout {
		t.Fatalf("cancelled context: %v %v", err, res.Err)
	}
}

func TestLimitErrorsNameTheLimit(t *testing.T) {
	res := run(t, "(loop [] (recur))", Env{Limits: Limits{MaxSteps: 500}})
	if !strings.Contains(res.Err.Message, "500") {
		t.Errorf("message %q does not name the limit", res.Err.Message)
	}
}

// An unlimited or absurd depth budget is capped, so runaway recursion ends
// with depth_limit instead of overflowing the Go stack.
func TestDepthCeiling(t *testing.T) {
	for _, depth := range []int{Unlimited, 1 << 30} {
		limits := Limits{MaxSteps: 50_000_000, MaxDepth: depth}
		res := run(t, "(defn f [x] (inc (f x))) (f 1)", Env{Limits: limits})
		if res.Err == nil || res.Err.Kind != depthLimit || !strings.Contains(res.Err.Message, "10000") {
			t.Errorf("MaxDepth %d: %v", depth, res.Err)
		}
	}
}
