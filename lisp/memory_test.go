package lisp

import (
	"context"
	"strings"
	"testing"
)

// wireRoundTrip serializes memory as the server would and loads it back.
func wireRoundTrip(t *testing.T, m *Memory) *Memory {
	t.Helper()
	back, err := DecodeMemory(context.Background(), m.Encode())
	if err != nil {
		t.Fatalf("DecodeMemory: %v\nwire: %+v", err, m.Encode())
	}
	return back
}

func TestMemoryRoundTrip(t *testing.T) {
	turn1 := run(t, `
(def rate 3)
(def items [{:id 1 :tags #{:a}} {:id 2 :price 2.5 :note "x\ny"}])
(defn scale "multiply by the rate" [x] (* x rate))
(defn total [xs] (count (map scale xs)))
(defn fact [n] (if (< n 2) 1 (* n (fact (- n 1)))))
(defn pick [{:keys [id]} & more] [id more])
(def adder (let [k 10] (fn [x] (+ k x))))
(def nested (let [k 2] (let [f (fn [y] (* k y))] (fn [z] (f (inc z))))))
(def pred (where :id > 1))
(defn dbl-all [xs] (mapv #(* 2 %) xs))
(defn sum-rest [& xs] (#(apply + %&) 1 2))
(scale 2)
`, Env{TurnNumber: 1})
	if res := turn1.Err; res != nil {
		t.Fatal(res)
	}
	wire := turn1.Memory.Encode()
	var b strings.Builder
	for _, w := range wire {
		b.WriteString(w.Name + " fn=" + boolText(w.IsFn) + " params=" + strings.Join(w.Params, ",") +
			" doc=" + w.Docstring + " ret=" + w.ReturnType + "\n  " + w.Value + "\n")
	}
	golden(t, "memory_wire.golden", b.String())

	mem := wireRoundTrip(t, turn1.Memory)
	turn2 := run(t, `[(scale 5) (total [1 2 3]) (fact 5) (pick {:id 7} 8 9) (adder 1) (nested 4) (count (filter pred items)) rate (dbl-all [1 2]) (sum-rest)]`,
		Env{Prelude: mem, TurnNumber: 2})
	if turn2.Err != nil {
		t.Fatal(turn2.Err)
	}
	if got, want := Repr(turn2.Value), "[15 3 120 [7 [8 9]] 11 10 1 3 [2 4] 3]"; got != want {
		t.Errorf("turn 2 = %s, want %s", got, want)
	}
	// Redefining a value used by a loaded function changes what it computes,
	// as the function refers to the user definition by name.
	turn3 := run(t, `(def rate 100) (scale 1)`, Env{Prelude: wireRoundTrip(t, turn2.Memory), TurnNumber: 3})
	if Repr(turn3.Value) != "100" {
		t.Errorf("turn 3 = %s", Repr(turn3.Value))
	}
	// Order is first definition; a redefinition keeps its place and turn
	// number moves.
	var order []string
	for _, bd := range turn3.Memory.Bindings() {
		order = append(order, bd.Name)
	}
	if strings.Join(order, " ") != "rate items scale total fact pick adder nested pred dbl-all sum-rest" {
		t.Errorf("order = %v", order)
	}
	if bd, _ := turn3.Memory.lookup("rate"); bd.Turn != 3 {
		t.Errorf("rate turn = %d", bd.Turn)
	}
	if bd, _ := turn3.Memory.lookup("items"); bd.Turn != 1 {
		t.Errorf("items turn = %d", bd.Turn)
	}
	if bd, _ := turn3.Memory.lookup("scale"); bd.ReturnType != "integer" || bd.Docstring != "multiply by the rate" {
		t.Errorf("scale binding = %+v", bd)
	}
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func TestMemoryUnchangedFunctionKeepsSource(t *testing.T) {
	wire := []WireBinding{{Name: "f", Value: "(fn [x]   (* x 2))", IsFn: true, Params: []string{"x"}, Turn: 1}}
	m, err := DecodeMemory(context.Background(), wire)
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, "(f 4)", Env{Prelude: m, TurnNumber: 2})
	if Repr(res.Value) != "8" {
		t.Fatalf("f 4 = %s", Repr(res.Value))
	}
	out := res.Memory.Encode()
	if out[0].Value != wire[0].Value || out[0].ReturnType != "integer" || out[0].Turn != 1 {
		t.Errorf("re-encoded = %+v", out[0])
	}
}

func TestFailedProgramKeepsMemory(t *testing.T) {
	m1 := run(t, "(def a 1)", Env{TurnNumber: 1}).Memory
	res := run(t, "(def a 2) (def b 3) (inc nil nil nil)", Env{Prelude: m1, TurnNumber: 2})
	if res.Err == nil {
		t.Fatal("program should fail")
	}
	if res.Memory != m1 {
		t.Error("a failed program returned a different memory")
	}
	if bd, _ := m1.lookup("a"); Repr(bd.Value) != "1" {
		t.Error("the prelude itself was changed")
	}
}

func TestDecodeMemoryRejects(t *testing.T) {
	bad := [][]WireBinding{
		{{Name: "x", Value: "(fn [x]"}},
		{{Name: "map", Value: "1"}},
		{{Name: "a/b", Value: "1"}},
		{{Name: "x", Value: "1"}, {Name: "x", Value: "2"}},
		{{Name: "f", Value: "42", IsFn: true}},
		{{Name: "f", Value: "(def y 1)"}},
		{{Name: "f", Value: "(loop [] (recur))", IsFn: true}},
		{{Name: "f", Value: "(tool/x)"}},
		{{Name: "x", Value: "1 2"}},
	}
	for _, w := range bad {
		if _, err := DecodeMemory(context.Background(), w); err == nil {
			t.Errorf("DecodeMemory(context.Background(), %+v) succeeded", w)
		}
	}
}

func TestDefKeepsValuesWithSource(t *testing.T) {
	// Functions built by combinators keep the call that made them as their
	// source, so they are stored and come back.
	for _, c := range []struct{ def, call, want string }{
		{"(def f (comp inc inc))", "(f 1)", "3"},
		{"(def fs [(partial + 1)])", "((first fs) 1)", "2"},
		{"(def g (let [h (complement even?)] (fn [x] (h x))))", "(g 3)", "true"},
		// with-meta of a builtin or a combined function keeps its metadata.
		{"(def f (with-meta (partial + 1) {:doc \"add one\"}))", "[(f 1) (meta f)]", `[2 {:doc "add one"}]`},
		{"(def f (vary-meta inc assoc :k [1]))", "[(f 1) (meta f) (meta (with-meta f nil))]", "[2 {:k [1]} nil]"},
	} {
		res := run(t, c.def, Env{})
		if res.Err != nil {
			t.Errorf("%s: %v", c.def, res.Err)
			continue
		}
		m := wireRoundTrip(t, res.Memory)
		if res = run(t, c.call, Env{Prelude: m}); res.Err != nil || Repr(res.Value) != c.want {
			t.Errorf("%s then %s = %v %v, want %s", c.def, c.call, res.Value, res.Err, c.want)
		}
	}
	// Within one program such functions work as values.
	if res := run(t, "(let [f (comp inc inc)] (f 1))", Env{}); res.Err != nil || Repr(res.Value) != "3" {
		t.Errorf("comp in let: %v %v", res.Value, res.Err)
	}
	// Regexes and registered builtins are stored and come back.
	res := run(t, `(def re (re-pattern "a\"b+")) (def fs [inc :k #{1}]) (def p (all-of (where :a > 1) :a))`, Env{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	m := wireRoundTrip(t, res.Memory)
	res = run(t, `[(re-find re "xa\"bbb") ((first fs) 1) (p {:a 2})]`, Env{Prelude: m})
	if res.Err != nil || Repr(res.Value) != `["a\"bbb" 2 true]` {
		t.Errorf("stored regex and builtins: %v %v", Repr(res.Value), res.Err)
	}
}
