package lisp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// fakeHost answers tool calls from a table and records what it was asked.
type fakeHost struct {
	answers map[string]func(args Value) (Value, error)
	calls   []string
}

func (h *fakeHost) CallTool(_ context.Context, name string, args Value) (Value, error) {
	h.calls = append(h.calls, name+" "+Repr(args))
	f, ok := h.answers[name]
	if !ok {
		return nil, fmt.Errorf("unknown tool %s", name)
	}
	return f(args)
}

func echoHost() *fakeHost {
	return &fakeHost{answers: map[string]func(Value) (Value, error){
		"echo":   func(a Value) (Value, error) { return a, nil },
		"search": func(a Value) (Value, error) { return mustEDN(`[{:id 1 :name "a"} {:id 2 :name "b"}]`), nil },
		"broken": func(a Value) (Value, error) { return nil, errors.New("backend unavailable") },
		"later":  func(a Value) (Value, error) { return nil, fmt.Errorf("waiting: %w", ErrSuspend) },
	}}
}

func mustEDN(s string) Value {
	v, err := ParseEDN(s, 0)
	if err != nil {
		panic(err)
	}
	return v
}

func TestToolArguments(t *testing.T) {
	h := echoHost()
	res := run(t, `[(tool/echo) (tool/echo {:id 1}) (tool/echo 1 2) (tool/echo "admin")]`,
		Env{Tools: []string{"echo"}, Host: h})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	want := `[nil {:id 1} {:args [1 2]} {:args ["admin"]}]`
	if got := Repr(res.Value); got != want {
		t.Errorf("tool args = %s, want %s", got, want)
	}
	if len(res.ToolCalls) != 4 || res.ToolCalls[2].Index != 2 || res.ToolCalls[2].Name != "echo" ||
		Repr(res.ToolCalls[2].Args) != "{:args [1 2]}" || Repr(res.ToolCalls[2].Result) != "{:args [1 2]}" {
		t.Errorf("tool call records = %+v", res.ToolCalls)
	}
}

func TestToolOrderAndShortCircuit(t *testing.T) {
	h := echoHost()
	run(t, `(let [a (tool/echo {:n 1}) b (tool/echo {:n 2})] (and false (tool/echo {:n 3})) (or true (tool/echo {:n 4})) [a b])`,
		Env{Tools: []string{"echo"}, Host: h})
	if got := strings.Join(h.calls, "; "); got != "echo {:n 1}; echo {:n 2}" {
		t.Errorf("calls = %s", got)
	}
}

func TestToolErrors(t *testing.T) {
	h := echoHost()
	res := run(t, `(def x 1) (tool/broken {:q 1})`, Env{Tools: []string{"broken"}, Host: h})
	if res.Err == nil || res.Err.Kind != toolError || !strings.Contains(res.Err.Message, "backend unavailable") {
		t.Fatalf("err = %v", res.Err)
	}
	if len(res.ToolCalls) != 1 || res.ToolCalls[0].Err != "backend unavailable" || res.Memory.len() != 0 {
		t.Errorf("failed call: records %+v, memory %d", res.ToolCalls, res.Memory.len())
	}
	res = run(t, `(tool/nope)`, Env{Tools: []string{"search", "echo"}, Host: h})
	if res.Err == nil || !strings.Contains(res.Err.Hint, "tool/echo, tool/search") {
		t.Errorf("undeclared tool: %v", res.Err)
	}
}

func TestToolSuspend(t *testing.T) {
	h := echoHost()
	res, err := Eval(context.Background(), `(println "before") (tool/echo {:a 1}) (tool/later {:b 2}) (println "never")`,
		Env{Tools: []string{"echo", "later"}, Host: h, Limits: DefaultLimits()})
	if !errors.Is(err, ErrSuspend) {
		t.Fatalf("err = %v, want ErrSuspend", err)
	}
	if len(res.ToolCalls) != 2 || res.ToolCalls[1].Name != "later" || Repr(res.ToolCalls[1].Args) != "{:b 2}" {
		t.Errorf("pending call not reported: %+v", res.ToolCalls)
	}
	if len(res.Prints) != 1 {
		t.Errorf("prints = %q", res.Prints)
	}
}

func TestNamespaceResolution(t *testing.T) {
	data := mustEDN(`{:products [1 2 3] :search "data-search" :limit 5}`).(*Map)
	env := Env{Data: data, Tools: []string{"search", "fetch"}, Host: echoHost()}
	cases := []struct{ src, want string }{
		{"data/products", "[1 2 3]"},
		{"products", "[1 2 3]"},                         // NS-005
		{"(let [products 1] products)", "1"},            // NS-006
		{"(let [products 1] data/products)", "[1 2 3]"}, // NS-009
		{"(def limit 7) [limit data/limit]", "[7 5]"},   // user definition precedes data
		{"data/missing", "nil"},
		{"(tool/search {:q 1})", `[{:id 1, :name "a"} {:id 2, :name "b"}]`},
		{"data/search", `"data-search"`},
	}
	for _, c := range cases {
		res := run(t, c.src, env)
		if res.Err != nil {
			t.Errorf("%s: %v", c.src, res.Err)
			continue
		}
		if got := Repr(res.Value); got != c.want {
			t.Errorf("%s = %s, want %s", c.src, got, c.want)
		}
	}
	// NS-004: a bare tool name calls the tool.
	h := echoHost()
	h.answers["fetch"] = func(a Value) (Value, error) { return Int(7), nil }
	env.Host = h
	if res := run(t, "(fetch {:id 1})", env); res.Err != nil || Repr(res.Value) != "7" {
		t.Errorf("bare tool call: %v %v", res.Value, res.Err)
	}
	// NS-007: both a tool and a data key.
	res := run(t, "(search {:q 1})", env)
	if res.Err == nil || res.Err.Kind != ambiguousReference ||
		!strings.Contains(res.Err.Hint, "tool/search") || !strings.Contains(res.Err.Hint, "data/search") {
		t.Errorf("ambiguous reference: %v", res.Err)
	}
	// A user definition of the name removes the ambiguity.
	if res := run(t, "(defn search [q] :mine) (search 1)", env); res.Err != nil || Repr(res.Value) != ":mine" {
		t.Errorf("user definition over fallback: %v %v", res.Value, res.Err)
	}
}

func TestPreviousResults(t *testing.T) {
	res := run(t, "[*1 *2 *3]", Env{PreviousResults: []Value{Int(3), String("two")}})
	if got := Repr(res.Value); got != `[3 "two" nil]` {
		t.Errorf("*1 *2 *3 = %s", got)
	}
}

func TestDefinedAndTurns(t *testing.T) {
	res := run(t, `(def a 1) (defn f "doc" [x] x) (def a 2) (f 1)`, Env{TurnNumber: 4})
	if got := strings.Join(res.Defined, ","); got != "a,f" {
		t.Errorf("defined = %s", got)
	}
	b, _ := res.Memory.lookup("f")
	if b.Docstring != "doc" || b.Turn != 4 || b.ReturnType != "integer" || !b.IsFn() || strings.Join(b.Params(), " ") != "x" {
		t.Errorf("binding f = %+v", b)
	}
	a, _ := res.Memory.lookup("a")
	if Repr(a.Value) != "2" {
		t.Errorf("a = %s", Repr(a.Value))
	}
}

func TestDeterminism(t *testing.T) {
	src := `(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))
(def xs (map (fn [i] {:i i :f (fib i)}) [1 2 3 4 5 6 7 8 9 10]))
(println (count xs))
(filter (where :f > 10) xs)`
	first := run(t, src, Env{})
	for i := 0; i < 5; i++ {
		again := run(t, src, Env{})
		if Repr(again.Value) != Repr(first.Value) || again.Steps != first.Steps || again.AllocBytes != first.AllocBytes {
			t.Fatalf("run %d differs: %s/%d/%d vs %s/%d/%d", i, Repr(again.Value), again.Steps, again.AllocBytes,
				Repr(first.Value), first.Steps, first.AllocBytes)
		}
	}
	if first.Steps == 0 {
		t.Error("no steps were charged")
	}
}
