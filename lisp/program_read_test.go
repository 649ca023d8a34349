package lisp

import (
	"context"
	"reflect"
	"sync"
	"testing"
)

// readOnceSources exercise every form a program may hand the analyzer:
// literals of each collection kind, quote, threading rewrites,
// destructuring, closures kept in memory, conj onto literals and errors.
var readOnceSources = []string{
	`(defn revenue [orders] (reduce + 0 (map :total orders)))
(def by-kind (group-by :kind data/items))
(def kinds (into {} (map (fn [[k vs]] [k (revenue vs)]) by-kind)))
(println "kinds:" (count kinds))
(return {:kinds kinds :n (count data/items)})`,
	`(def v [1 2 3]) (def w (conj v 4)) (def x (conj v 5)) [v w x '(a b [c d]) #{1 2} {:a [1]}]`,
	`(->> data/items (filter #(= (:kind %) :a)) (map :total) (reduce +))`,
	`(let [{:keys [a b] :or {b 2}} {:a 1}] (conj [a] b))`,
	`(some-> {:a {:b 1}} :a :b inc)`,
	`(defn f [x] (if (> x 2) (fail {:too-big x}) x)) (f 1) (f 3)`,
	`(+ 1 :a)`,
	`(undefined-thing 1)`,
}

func readOnceEnv() Env {
	items := make([]Value, 50)
	for i := range items {
		kind := Keyword("a")
		if i%3 == 0 {
			kind = Keyword("b")
		}
		b := NewMapBuilder(2)
		b.Set(Keyword("kind"), kind)
		b.Set(Keyword("total"), Int(i))
		items[i] = b.Map()
	}
	data := NewMapBuilder(1)
	data.Set(Keyword("items"), NewVector(items))
	return Env{Data: Freeze(data.Map()).(*Map), TurnNumber: 2}
}

// comparable strips what differs between two runs of the same program.
func comparable(r *Result) Result {
	c := *r
	c.Duration = 0
	c.Memory = nil
	return c
}

func TestEvalProgramMatchesEval(t *testing.T) {
	env := readOnceEnv()
	for _, src := range readOnceSources {
		p, err := ReadProgram(src, 0)
		if err != nil {
			t.Fatalf("ReadProgram(%q): %v", src, err)
		}
		for run := 0; run < 2; run++ { // the second run reuses the forms
			want, wantErr := Eval(context.Background(), src, env)
			got, gotErr := EvalProgram(context.Background(), p, env)
			if (wantErr == nil) != (gotErr == nil) {
				t.Fatalf("%q: Eval error %v, EvalProgram error %v", src, wantErr, gotErr)
			}
			if !reflect.DeepEqual(comparable(got), comparable(want)) {
				t.Errorf("%q run %d:\n got %+v\nwant %+v", src, run, comparable(got), comparable(want))
			}
			if !reflect.DeepEqual(got.Memory.Encode(), want.Memory.Encode()) {
				t.Errorf("%q run %d: memory differs:\n got %v\nwant %v", src, run, got.Memory.Encode(), want.Memory.Encode())
			}
		}
	}
}

func TestReadProgramReportsEvalsParseError(t *testing.T) {
	for _, src := range []string{`(+ 1 2`, `"open`, `{:a}`, `)`} {
		_, err := ReadProgram(src, 0)
		res, _ := Eval(context.Background(), src, Env{})
		if err == nil || res.Err == nil {
			t.Fatalf("%q: ReadProgram error %v, Eval error %v", src, err, res.Err)
		}
		if got, want := asError(err), res.Err; !reflect.DeepEqual(got, want) {
			t.Errorf("%q: ReadProgram error %+v, Eval reports %+v", src, got, want)
		}
	}
}

// TestEvalProgramConcurrently runs one read program in many goroutines at
// once; under -race it proves that evaluation writes nothing shared.
func TestEvalProgramConcurrently(t *testing.T) {
	env := readOnceEnv()
	for _, src := range readOnceSources {
		p, err := ReadProgram(src, 0)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := Eval(context.Background(), src, env)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 5 {
					got, _ := EvalProgram(context.Background(), p, env)
					if !Equal(got.Value, want.Value) || !reflect.DeepEqual(got.Prints, want.Prints) || !reflect.DeepEqual(got.Err, want.Err) {
						t.Errorf("%q: got %s %v, want %s %v", src, Repr(got.Value), got.Err, Repr(want.Value), want.Err)
					}
				}
			}()
		}
		wg.Wait()
	}
}

// A read program keeps its analysis for the next evaluation, but only while
// the names it resolved answer alike: the same bare name read as a data
// key, then a prelude binding, a tool, nothing, and a data key again must
// give each time what Eval gives under that evaluation's names.
func TestEvalProgramResolvesNamesAgainWhenTheyChange(t *testing.T) {
	const src = `(def doubled (* 2 (if (fn? limit) 0 limit))) [doubled tool/search]`
	p, err := ReadProgram(src, 0)
	if err != nil {
		t.Fatal(err)
	}
	dataWith := func(v Value) *Map {
		b := NewMapBuilder(1)
		b.Set(Keyword("limit"), v)
		return Freeze(b.Map()).(*Map)
	}
	prelude, err := DecodeMemory(context.Background(), []WireBinding{{Name: "limit", Value: "7", Turn: 1}})
	if err != nil {
		t.Fatal(err)
	}
	envs := []struct {
		name string
		env  Env
	}{
		{"data key", Env{Data: dataWith(Int(3)), Tools: []string{"search"}}},
		{"same names, other data", Env{Data: dataWith(Int(5)), Tools: []string{"search"}}},
		{"prelude binding", Env{Prelude: prelude, Tools: []string{"search"}}},
		{"tool", Env{Tools: []string{"search", "limit"}}},
		{"nothing", Env{Tools: []string{"search"}}},
		{"no tool/search", Env{Data: dataWith(Int(3))}},
		{"data key again", Env{Data: dataWith(Int(4)), Tools: []string{"search"}}},
	}
	for _, e := range envs {
		want, _ := Eval(context.Background(), src, e.env)
		got, _ := EvalProgram(context.Background(), p, e.env)
		if Repr(got.Value) != Repr(want.Value) || !reflect.DeepEqual(got.Err, want.Err) {
			t.Errorf("%s: got %s %v, want %s %v", e.name, Repr(got.Value), got.Err, Repr(want.Value), want.Err)
		}
	}
	first := p.compiled.Load()
	EvalProgram(context.Background(), p, envs[len(envs)-1].env)
	if p.compiled.Load() != first {
		t.Error("a program evaluated again under names that answer alike was analyzed again")
	}
}
