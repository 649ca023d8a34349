package starlarkbench

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// The interpreter against starlark-go, the reference embedded language in
// Go, on programs that do the same thing in each language over the same
// data. Both sides read and compile the program on every run, as the
// sidecar does for every turn. The PTC-Lisp side runs under step and
// allocation budgets (raised so that the largest program fits); the
// Starlark side runs without limits, which it mostly lacks.

// interpProgram is one program in both languages. The Starlark program
// leaves its answer in the global "result".
type interpProgram struct {
	name     string
	lisp     string
	starlark string
}

var interpPrograms = []interpProgram{
	{
		name: "fib25",
		lisp: `(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 25)`,
		starlark: `
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)
result = fib(25)
`,
	},
	{
		name: "filter-map-reduce",
		lisp: `(->> data/orders
     (filter (fn [o] (= (:status o) "paid")))
     (map (fn [o] (* 2 (:amount o))))
     (reduce + 0))`,
		starlark: `
def total():
    t = 0
    for x in [o["amount"] * 2 for o in orders if o["status"] == "paid"]:
        t += x
    return t
result = total()
`,
	},
	{
		name: "group-by-frequencies",
		lisp: `{:groups (into {} (map (fn [[c items]] [c {:n (count items) :total (reduce + 0 (map :amount items))}])
                         (group-by :category data/orders)))
 :freq (frequencies (map :status data/orders))}`,
		starlark: `
def summarize():
    by = {}
    for o in orders:
        by.setdefault(o["category"], []).append(o)
    groups = {}
    for c, items in by.items():
        t = 0
        for o in items:
            t += o["amount"]
        groups[c] = {"n": len(items), "total": t}
    freq = {}
    for o in orders:
        freq[o["status"]] = freq.get(o["status"], 0) + 1
    return {"groups": groups, "freq": freq}
result = summarize()
`,
	},
	{
		name: "string-building",
		lisp: `(->> data/orders
     (map (fn [o] (str "#" (:id o) " " (:status o) " for " (:name (:customer o)))))
     (clojure.string/join "\n"))`,
		starlark: `
result = "\n".join(["#%d %s for %s" % (o["id"], o["status"], o["customer"]["name"]) for o in orders])
`,
	},
}

const interpOrders = 10_000

// interpLimits are the budgets of the PTC-Lisp side: the defaults with the
// step budget raised so that fib 25 fits, and room for a 10,000-element
// result built twice.
func interpLimits() lisp.Limits {
	l := lisp.DefaultLimits()
	l.MaxSteps = 20_000_000
	l.MaxAllocBytes = 64 << 20
	return l
}

// orderFields is order i of the data both sides read.
func orderFields(i int) (id int, status, category string, amount int, name, tier string) {
	return i, []string{"open", "paid", "void"}[i%3], []string{"books", "games", "tools", "food"}[i%4],
		i % 250, fmt.Sprintf("c%d", i%50), []string{"gold", "basic"}[i%2]
}

func lispOrders(n int) *lisp.Map {
	elems := make([]lisp.Value, n)
	for i := range elems {
		id, status, category, amount, name, tier := orderFields(i)
		c := lisp.NewMapBuilder(2)
		c.Set(lisp.Keyword("name"), lisp.String(name))
		c.Set(lisp.Keyword("tier"), lisp.String(tier))
		m := lisp.NewMapBuilder(5)
		m.Set(lisp.Keyword("id"), lisp.Int(int64(id)))
		m.Set(lisp.Keyword("status"), lisp.String(status))
		m.Set(lisp.Keyword("category"), lisp.String(category))
		m.Set(lisp.Keyword("amount"), lisp.Int(int64(amount)))
		m.Set(lisp.Keyword("customer"), c.Map())
		elems[i] = m.Map()
	}
	d := lisp.NewMapBuilder(1)
	d.Set(lisp.Keyword("orders"), lisp.NewVector(elems))
	return d.Map()
}

func starlarkOrders(n int) starlark.StringDict {
	elems := make([]starlark.Value, n)
	for i := range elems {
		id, status, category, amount, name, tier := orderFields(i)
		c := starlark.NewDict(2)
		c.SetKey(starlark.String("name"), starlark.String(name))
		c.SetKey(starlark.String("tier"), starlark.String(tier))
		m := starlark.NewDict(5)
		m.SetKey(starlark.String("id"), starlark.MakeInt(id))
		m.SetKey(starlark.String("status"), starlark.String(status))
		m.SetKey(starlark.String("category"), starlark.String(category))
		m.SetKey(starlark.String("amount"), starlark.MakeInt(amount))
		m.SetKey(starlark.String("customer"), c)
		elems[i] = m
	}
	list := starlark.NewList(elems)
	list.Freeze()
	return starlark.StringDict{"orders": list}
}

func runLisp(p interpProgram, data *lisp.Map) (*lisp.Result, error) {
	res, err := lisp.Eval(context.Background(), p.lisp, lisp.Env{Data: data, Limits: interpLimits()})
	if err != nil {
		return nil, err
	}
	if res.Err != nil {
		return nil, res.Err
	}
	return res, nil
}

var starlarkOptions = &syntax.FileOptions{Recursion: true}

func runStarlark(p interpProgram, predeclared starlark.StringDict) (starlark.Value, error) {
	globals, err := starlark.ExecFileOptions(starlarkOptions, &starlark.Thread{Name: p.name}, p.name+".star", p.starlark, predeclared)
	if err != nil {
		return nil, err
	}
	return globals["result"], nil
}

// TestInterpretersAgree checks that each program gives the same answer in
// both languages, so the benchmarks compare equal work.
func TestInterpretersAgree(t *testing.T) {
	data, predeclared := lispOrders(interpOrders), starlarkOrders(interpOrders)
	for _, p := range interpPrograms {
		t.Run(p.name, func(t *testing.T) {
			lres, err := runLisp(p, data)
			if err != nil {
				t.Fatalf("PTC-Lisp: %v", err)
			}
			sres, err := runStarlark(p, predeclared)
			if err != nil {
				t.Fatalf("Starlark: %v", err)
			}
			got, want := fromLisp(t, lres.Value), fromStarlark(t, sres)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("PTC-Lisp gives %.200v\nStarlark gives %.200v", got, want)
			}
		})
	}
}

// fromLisp and fromStarlark turn answers into plain Go values (keyword
// and string keys both become strings) for comparison.
func fromLisp(t *testing.T, v lisp.Value) any {
	switch v := v.(type) {
	case lisp.Int:
		return int64(v)
	case lisp.String:
		return string(v)
	case lisp.Keyword:
		return string(v)
	case *lisp.Map:
		out := map[string]any{}
		for _, e := range v.Entries() {
			out[fromLisp(t, e.Key).(string)] = fromLisp(t, e.Val)
		}
		return out
	}
	t.Fatalf("unexpected PTC-Lisp value %s", lisp.Repr(v))
	return nil
}

func fromStarlark(t *testing.T, v starlark.Value) any {
	switch v := v.(type) {
	case starlark.Int:
		n, ok := v.Int64()
		if !ok {
			t.Fatalf("Starlark integer %v does not fit 64 bits", v)
		}
		return n
	case starlark.String:
		return string(v)
	case *starlark.Dict:
		out := map[string]any{}
		for _, kv := range v.Items() {
			out[fromStarlark(t, kv[0]).(string)] = fromStarlark(t, kv[1])
		}
		return out
	}
	t.Fatalf("unexpected Starlark value %v", v)
	return nil
}

// BenchmarkInterp runs each program in each language; the sub-benchmarks
// of one program sit side by side, so benchstat or a glance gives the
// ratio.
func BenchmarkInterp(b *testing.B) {
	data, predeclared := lispOrders(interpOrders), starlarkOrders(interpOrders)
	for _, p := range interpPrograms {
		b.Run(p.name+"/ptc-lisp", func(b *testing.B) {
			res, err := runLisp(p, data)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := runLisp(p, data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.Steps), "steps/op")
		})
		b.Run(p.name+"/starlark", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := runStarlark(p, predeclared); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
