package lisp

import (
	"context"
	"testing"
)

// TestRecordsSurviveMemory defines a record type and records in one
// turn, sends the memory over the wire and uses them in the next: the
// constructors travel as the source that makes them, the records as
// #user.Name{...}, which reads back as a record of that type. (A record
// read back counts every key it has as a field: its text does not tell
// the fields from the keys added to it.)
func TestRecordsSurviveMemory(t *testing.T) {
	turn1 := evalSource(t, `
		(defrecord Order [id total])
		(def o (->Order 1 99.5))
		(def big (map->Order {:id 2 :total 3 :note "x"}))
		(def t (type o))`)
	if turn1.Err != nil {
		t.Fatal(turn1.Err)
	}
	wire := turn1.Memory.Encode()
	texts := map[string]string{}
	for _, w := range wire {
		texts[w.Name] = w.Value
	}
	for name, want := range map[string]string{
		"o":   "#user.Order{:id 1, :total 99.5}",
		"big": `#user.Order{:id 2, :total 3, :note "x"}`,
		"t":   "user.Order",
	} {
		if texts[name] != want {
			t.Errorf("%s travels as %q, want %q", name, texts[name], want)
		}
	}
	mem, err := DecodeMemory(context.Background(), wire)
	if err != nil {
		t.Fatalf("decoding %v: %v", wire, err)
	}
	res, err := Eval(context.Background(), `
		[(= o (->Order 1 99.5)) (record? o) (instance? Order big) (= t Order) (= o {:id 1 :total 99.5})
		 (assoc o :total 10) (dissoc (assoc o :c 1) :c) (dissoc big :id) (map->Order {:id 3})]`,
		Env{Prelude: mem, Limits: DefaultLimits()})
	if err != nil || res.Err != nil {
		t.Fatalf("turn 2: %v %v", err, res.Err)
	}
	want := `[true true true true false #user.Order{:id 1, :total 10} #user.Order{:id 1, :total 99.5} {:total 3, :note "x"} #user.Order{:id 3, :total nil}]`
	if got := Repr(res.Value); got != want {
		t.Errorf("turn 2 = %s, want %s", got, want)
	}
}

// TestRecordsReadBackAsEmitted: a record's text, in a value (EDN) or in a
// program, reads back as a record equal to the one printed, and a map of
// the same entries is not equal to it.
func TestRecordsReadBackAsEmitted(t *testing.T) {
	res := run(t, `(defrecord P [x y])
		[(->P 1 [2 {:k #{3}}]) (assoc (->P nil "s") :z (->P 1 2)) (map->P {}) {:in (->P :a 1.5)}]`, Env{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	for _, v := range res.Value.(*Vector).Elems() {
		text := Repr(v)
		back, err := ParseEDN(text, 0)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if !Equal(v, back) || Repr(back) != text {
			t.Errorf("%s reads back as %s", text, Repr(back))
		}
		prog := run(t, text, Env{})
		if prog.Err != nil || !Equal(v, prog.Value) {
			t.Errorf("%s as a program gives %v %v", text, prog.Err, prog.Value)
		}
	}
	m, err := ParseEDN(`{:x 1, :y 2}`, 0)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseEDN(`#user.P{:x 1, :y 2}`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if Equal(m, r) || Equal(r, m) || hashKey(m) == hashKey(r) {
		t.Errorf("a record equals or hashes as the map of its entries")
	}
}

// TestProtocolMethodsSurviveMemory: a protocol's methods, defined with
// the records that implement them, are kept as the source of their
// dispatch and run in the next turn on records made there.
func TestProtocolMethodsSurviveMemory(t *testing.T) {
	turn1 := evalSource(t, `
		(defprotocol Shape (area [s]) (describe [s unit]))
		(defrecord Rect [w h] Shape (area [_] (* w h)) (describe [r unit] (str (area r) " " unit)))
		(defrecord Circle [r] Shape (area [_] (* 3 r r)) (describe [c unit] (str "circle of " r unit)))
		(area (->Rect 2 3))`)
	if turn1.Err != nil {
		t.Fatal(turn1.Err)
	}
	mem, err := DecodeMemory(context.Background(), turn1.Memory.Encode())
	if err != nil {
		t.Fatal(err)
	}
	res, err := Eval(context.Background(), `[(map area [(->Rect 1 2) (->Circle 1)]) (describe (->Rect 2 2) "m2") (describe (map->Circle {:r 5}) "m")
		(try (area {:w 1}) (catch IllegalArgumentException e (ex-message e)))]`,
		Env{Prelude: mem, Limits: DefaultLimits()})
	if err != nil || res.Err != nil {
		t.Fatalf("turn 2: %v %v", err, res.Err)
	}
	want := `[[2 3] "4 m2" "circle of 5m" "No implementation of method: :area of protocol: #'user/Shape found for class: clojure.lang.PersistentArrayMap"]`
	if got := Repr(res.Value); got != want {
		t.Errorf("turn 2 = %s, want %s", got, want)
	}
}
