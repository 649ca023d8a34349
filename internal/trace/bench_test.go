package trace

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// longRun is a run of n turns, each defining a value, calling a tool and
// printing, every turn with its memory snapshot, as EvalTurn returns them.
func longRun(b *testing.B, n int) *strategies.Request {
	o, err := strategies.Normalize(strategies.RawOptions{Mission: "Survey the catalogue.", SystemPrompt: "You write PTC-Lisp.", MaxTurns: &n})
	if err != nil {
		b.Fatal(err)
	}
	req := &strategies.Request{Options: o}
	var mem []strategies.Binding
	for i := 1; i <= n; i++ {
		items := lisp.NewVector([]lisp.Value{lisp.Int(i), lisp.String(strings.Repeat("item ", 30)), lisp.Int(i * 2), lisp.Int(i * 3)})
		name := fmt.Sprintf("page-%d", i)
		mem = append(mem[:len(mem):len(mem)], strategies.Binding{Name: name, Value: items, Turn: i})
		req.Turns = append(req.Turns, strategies.Turn{
			Number:    i,
			Program:   fmt.Sprintf("(def %s (tool/list-page {:page %d}))\n(println \"page\" %d \"holds\" (count %s) \"items\")", name, i, i, name),
			Prints:    []string{fmt.Sprintf("page %d holds 4 items", i)},
			ToolCalls: []strategies.ToolCall{{Name: "list-page", Args: lisp.String(name), Result: items}},
			Defined:   []string{name},
			Success:   true,
			Result:    lisp.Nil,
			Memory:    mem,
		})
	}
	req.Memory = mem
	return req
}

func BenchmarkRender(b *testing.B) {
	for _, n := range []int{10, 50} {
		req := longRun(b, n)
		for _, c := range []struct {
			name  string
			view  View
			usage bool
		}{
			{"turns", ViewTurns, false},
			{"turns+usage", ViewTurns, true},
			{"compressed", ViewCompressed, false},
		} {
			b.Run(fmt.Sprintf("%s/%dturns", c.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Render(req, c.view, true, c.usage, Style{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// A long single-line print (a program dumping data) wraps in linear time.
func BenchmarkRenderLongPrint(b *testing.B) {
	o, err := strategies.Normalize(strategies.RawOptions{SystemPrompt: "s"})
	if err != nil {
		b.Fatal(err)
	}
	req := &strategies.Request{Options: o, Turns: []strategies.Turn{{
		Number: 1, Program: "(println data/rows)", Success: true, Result: lisp.Nil,
		Prints: []string{strings.Repeat("[{:id 1 :name \"row\"} ", 50_000)}, // 1 MB
	}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(req, ViewTurns, false, false, Style{}); err != nil {
			b.Fatal(err)
		}
	}
}
