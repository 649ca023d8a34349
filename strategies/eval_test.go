package strategies

import (
	"context"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// reviewHost answers tool/search-reviews.
type reviewHost struct{}

func (reviewHost) CallTool(_ context.Context, name string, args lisp.Value) (lisp.Value, error) {
	return lisp.String("Customer Review Summary for " + lisp.Str(args)), nil
}

// TestRenderEvaluatedTurns runs real programs through the interpreter and
// renders what they produced: the turn records and memory that EvalTurn
// returns are exactly what the renderer reads.
func TestRenderEvaluatedTurns(t *testing.T) {
	data, err := lisp.ParseEDN(`{:products [{:name "Laptop" :price 1200 :category "Electronics"}
	                                        {:name "Mouse" :price 25 :category "Electronics"}
	                                        {:name "Desk" :price 300 :category "Furniture"}]}`, 0)
	if err != nil {
		t.Fatal(err)
	}
	programs := []string{
		`(defn by-category "Products of one category; case matters" [cat & _]
		   (filter (fn [p] (= (:category p) cat)) data/products))
		 (def electronics (by-category "Electronics"))
		 (def reviews (tool/search-reviews "Electronics"))`,
		`(println "cheapest:" (:name (first (sort-by :price electronics))))
		 (def total (reduce + (map :price electronics)))`,
		`(undefined-helper total)`,
	}
	opts, err := Normalize(RawOptions{Mission: "Find well-reviewed electronics.", SystemPrompt: "s", Data: data,
		Tools: []ToolSpec{{Name: "search-reviews", Signature: "(query :string) -> :string"}}})
	if err != nil {
		t.Fatal(err)
	}
	req := &Request{Options: opts}
	var memory *lisp.Memory
	for i, src := range programs {
		res, err := lisp.Eval(context.Background(), src, lisp.Env{
			Prelude: memory, Data: opts.Data, Tools: []string{"search-reviews"}, Host: reviewHost{},
			Limits: lisp.DefaultLimits(), TurnNumber: i + 1,
		})
		if err != nil {
			t.Fatal(err)
		}
		turn := Turn{Number: i + 1, Program: src, Result: res.Value, Prints: res.Prints, Success: res.Err == nil}
		if res.Err != nil {
			turn.Error = &TurnError{Type: string(res.Err.Kind), Message: res.Err.Message}
		}
		for _, c := range res.ToolCalls {
			turn.ToolCalls = append(turn.ToolCalls, ToolCall{Index: c.Index, Name: c.Name, Args: c.Args, Result: c.Result})
		}
		req.Turns = append(req.Turns, turn)
		memory = res.Memory
	}
	req.Memory = nil
	for _, b := range memory.Bindings() {
		bd := Binding{Name: b.Name, Turn: b.Turn}
		if b.IsFn() {
			bd.Fn = &Function{Params: b.Params(), Docstring: b.Docstring, ReturnType: b.ReturnType}
		} else {
			bd.Value = b.Value
		}
		req.Memory = append(req.Memory, bd)
	}
	resp, err := coalesced{}.Render(req)
	if err != nil {
		t.Fatal(err)
	}
	want := `Find well-reviewed electronics.

;; === tool/ ===
tool/search-reviews(query string) -> string

;; === data/ ===
data/products                 ; list[3], sample: [{:category "Electronics" :name "Laptop" ...} {:category "Electronics" :name "Mouse" ...} {:category "Furniture" :name "Desk" ...}]

;; === user/ (your prelude) ===
(by-category [cat & _])       ; "Products of one category case matters" -> list[2]
electronics                   ; = list[2], sample: [{:category "Electronics" :name "Laptop" ...} {:category "Electronics" :name "Mouse" ...}]
reviews                       ; = string, sample: "Customer Review Summary for {:args [\"Electronics\"]}"
total                         ; = integer

;; Tool calls made:
;   search-reviews("Electronics")

;; Output:
cheapest: Mouse

---
Your previous attempt:
` + "```clojure\n(undefined-helper total)\n```" + `

Error: undefined-helper is not defined
---

Turns left: 2`
	if got := resp.Messages[1].Content; got != want {
		t.Errorf("USER:\n%s\n--- want ---\n%s", got, want)
	}
}
