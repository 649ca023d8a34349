package trace

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

func edn(t *testing.T, s string) lisp.Value {
	t.Helper()
	v, err := lisp.ParseEDN(s, 100)
	if err != nil {
		t.Fatalf("fixture %q: %v", s, err)
	}
	return v
}

func normalized(t *testing.T, raw strategies.RawOptions) strategies.Options {
	t.Helper()
	o, err := strategies.Normalize(raw)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// productRun is a three-turn run of a shopping agent: the first turn
// searches and prints, the second fails on a type error, the third recovers
// and returns. It has long lines and large values to show wrapping and
// truncation.
func productRun(t *testing.T) *strategies.Request {
	products := edn(t, `[{:name "Laptop" :price 1200 :_sku "L-1"} {:name "Mouse" :price 25} {:name "Desk" :price 300} {:name "Lamp" :price 40} {:name "Chair" :price 150}]`)
	return &strategies.Request{
		Options: normalized(t, strategies.RawOptions{
			Mission:      "Find the cheapest product that has good reviews and say why.",
			SystemPrompt: "You write PTC-Lisp programs. Reply with one clojure code block.",
			Tools: []strategies.ToolSpec{
				{Name: "search", Signature: "(query :string) -> [:map]", Description: "Product search"},
				{Name: "reviews", Signature: "(name :string) -> :string"},
			},
		}),
		Turns: []strategies.Turn{
			{
				Number:      1,
				RawResponse: "I will search first.\n```clojure\n(def products (tool/search \"desk setup\"))\n(println \"found\" (count products) \"products\")\n```",
				Program:     "(def products (tool/search \"desk setup\"))\n(println \"found\" (count products) \"products\")",
				Prints:      []string{"found 5 products"},
				ToolCalls: []strategies.ToolCall{
					{Index: 0, Name: "search", Args: edn(t, `["desk setup"]`), Result: products, Duration: 84 * time.Millisecond},
				},
				Defined:  []string{"products"},
				Success:  true,
				Result:   lisp.Nil,
				Duration: 91 * time.Millisecond,
				Memory: []strategies.Binding{
					{Name: "products", Value: products, Turn: 1},
				},
			},
			{
				Number:      2,
				RawResponse: "```clojure\n(def cheapest (first (sort-by :price products)))\n(+ (:name cheapest) 1)\n```",
				Program:     "(def cheapest (first (sort-by :price products)))\n(+ (:name cheapest) 1)",
				Success:     false,
				Error:       &strategies.TurnError{Type: "type_error", Message: "+ expects numbers, got string \"Mouse\"", Hint: "use str to join text"},
				Duration:    3 * time.Millisecond,
			},
			{
				Number:  3,
				Program: "(let [cheap (sort-by :price products)\n      top (first cheap)\n      text (tool/reviews (:name top))]\n  (println \"reviews of\" (:name top) \":\" text)\n  (return {:name (:name top) :price (:price top) :why text}))",
				Prints: []string{
					"reviews of Mouse : Customers praise the grip and the battery life; several mention that the scroll wheel is quiet and precise, and that it pairs in seconds.",
				},
				ToolCalls: []strategies.ToolCall{
					{Index: 0, Name: "reviews", Args: edn(t, `["Mouse"]`), Result: lisp.String("Customers praise the grip and the battery life; several mention that the scroll wheel is quiet and precise, and that it pairs in seconds."), Duration: 120 * time.Millisecond},
				},
				Success:  true,
				Returned: true,
				Result:   edn(t, `{:name "Mouse" :price 25 :why "Customers praise the grip and the battery life; several mention that the scroll wheel is quiet and precise, and that it pairs in seconds."}`),
				Duration: 130 * time.Millisecond,
			},
		},
		Memory: []strategies.Binding{
			{Name: "products", Value: products, Turn: 1},
			{Name: "price-of", Fn: &strategies.Function{Params: []string{"p"}, Docstring: "The price of a product", ReturnType: "integer"}, Turn: 1},
			{Name: "_api_key", Value: lisp.String("sk-secret"), Turn: 1},
		},
	}
}

// failingRun ends on a turn that failed: a tool call that errored and a
// program that called fail.
func failingRun(t *testing.T) *strategies.Request {
	return &strategies.Request{
		Options: normalized(t, strategies.RawOptions{
			Mission:      "Book a table for two tonight.",
			SystemPrompt: "You write PTC-Lisp programs.",
			Tools:        []strategies.ToolSpec{{Name: "book", Signature: "(restaurant :string, seats :int) -> :map"}},
		}),
		Turns: []strategies.Turn{{
			Number:  1,
			Program: "(let [r (tool/book \"Chez Lu\" 2)]\n  (if (:ok r) (return r) (fail \"no table at Chez Lu\")))",
			ToolCalls: []strategies.ToolCall{
				{Index: 0, Name: "book", Args: edn(t, `["Chez Lu" 2]`), Error: "restaurant closed on Sundays"},
			},
			Prints:  []string{"line one\n\tindented with a tab\nescape \x1b[31mred\x1b[0m stays visible"},
			Success: false,
			Failed:  true,
			Result:  lisp.String("no table at Chez Lu"),
			Error:   &strategies.TurnError{Type: "fail", Message: "no table at Chez Lu"},
		}},
	}
}

// chatRun is a chat log for the loop-slice strategy.
func chatRun(t *testing.T) *strategies.Request {
	return &strategies.Request{
		Options: normalized(t, strategies.RawOptions{Strategy: "loop-slice"}),
		History: []strategies.ChatMessage{
			{Role: "system", Content: "You pilot a mining ship."},
			{Role: "user", Content: "Mine iron until the hold is full.", Source: "direct", SenderID: "captain"},
			{Role: "assistant", Content: "Checking the hold.", ToolCalls: []strategies.ChatToolCall{{ID: "c1", Name: "get_cargo", Arguments: `{}`}}},
			{Role: "tool", ToolCallID: "c1", Content: `{"used": 10, "capacity": 50}`},
			{Role: "assistant", Content: "Mining.", Reasoning: "The hold has room for 40 more units.", ToolCalls: []strategies.ChatToolCall{{ID: "c2", Name: "mine", Arguments: `{"ore": "iron"}`}}},
			{Role: "tool", ToolCallID: "c2", Content: `{"mined": 5}`},
		},
	}
}

// firstCall is the request before the first turn; its turn numbers are
// left for the trace to count.
func firstCall(t *testing.T) *strategies.Request {
	req := productRun(t)
	req.Turns = nil
	req.Memory = req.Memory[2:]
	return req
}

// unnumbered is a run whose caller did not number its turns.
func unnumbered(t *testing.T) *strategies.Request {
	req := productRun(t)
	req.Memory = nil
	for i := range req.Turns {
		req.Turns[i].Number = 0
		req.Turns[i].Duration = 0
	}
	return req
}

func TestGolden(t *testing.T) {
	cases := []struct {
		name       string
		req        func(*testing.T) *strategies.Request
		view       View
		raw, usage bool
		style      Style
	}{
		{name: "turns", req: productRun, view: ViewTurns},
		{name: "turns_raw", req: productRun, view: ViewTurns, raw: true},
		{name: "turns_usage", req: productRun, view: ViewTurns, usage: true},
		{name: "compressed", req: productRun, view: ViewCompressed},
		{name: "compressed_usage", req: productRun, view: ViewCompressed, usage: true},
		{name: "failed_turn", req: failingRun, view: ViewTurns},
		{name: "failed_turn_compressed", req: failingRun, view: ViewCompressed},
		{name: "color", req: failingRun, view: ViewTurns, usage: true, style: Style{Color: true}},
		{name: "chat_turns", req: chatRun, view: ViewTurns},
		{name: "no_turns_usage", req: firstCall, view: ViewTurns, usage: true},
		{name: "unnumbered", req: unnumbered, view: ViewTurns},
		{name: "chat_compressed_usage", req: chatRun, view: ViewCompressed, usage: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Render(c.req(t), c.view, c.raw, c.usage, c.style)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, c.name, visibleEscapes(got))
			checkLayout(t, got, c.style.Color)
		})
	}
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the output; run with -update and review the diff.\ngot:\n%s", path, got)
	}
}

// checkLayout asserts the invariants of every rendering: no line wider than
// Width, every line inside a box, no control character but the colour codes
// (and those only when asked for).
func checkLayout(t *testing.T, text string, color bool) {
	t.Helper()
	if strings.Contains(text, "\x1b[") != color {
		t.Errorf("colour codes present = %v, want %v", !color, color)
	}
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		visible := stripSGR(line)
		if n := stringWidth(visible); n > Width {
			t.Errorf("line %d is %d columns wide: %q", i+1, n, visible)
		}
		if visible != "" && !strings.ContainsAny(visible[:len("│")], "│┌└") {
			t.Errorf("line %d is outside a box: %q", i+1, visible)
		}
		for _, r := range visible {
			if r < 0x20 || r == 0x7f {
				t.Errorf("line %d holds control character %U: %q", i+1, r, visible)
			}
		}
	}
}

// visibleEscapes writes the escape character as "\e", so that a golden
// file with colour codes reads in an editor.
func visibleEscapes(s string) string { return strings.ReplaceAll(s, "\x1b", `\e`) }

// stripSGR removes the colour sequences this package writes.
func stripSGR(s string) string {
	for _, code := range []string{sgrReset, sgrBold, sgrDim, sgrRed, sgrGreen, sgrCyan} {
		s = strings.ReplaceAll(s, code, "")
	}
	return s
}
