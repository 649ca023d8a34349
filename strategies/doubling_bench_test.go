package strategies

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// Request-sized inputs of n parts, for the doubling benchmark: each
// strategy's time and allocation per part should stay flat as n doubles.

// turnsOf is a run of n turns, each with two tool calls, a print, a
// definition and a result, with the memory they made.
func turnsOf(n int) *Request {
	req := &Request{}
	for i := range n {
		t := Turn{Number: i + 1, Program: fmt.Sprintf("(def v%d (tool/get {:i %d}))\n(println \"got\" %d)", i, i, i), Success: i%9 != 4,
			Prints: []string{"got " + strconv.Itoa(i)}, Defined: []string{"v" + strconv.Itoa(i)}}
		for j := range 2 {
			t.ToolCalls = append(t.ToolCalls, ToolCall{Index: j, Name: "get", Args: lisp.Int(i), Result: lisp.String("item " + strconv.Itoa(i))})
		}
		if t.Success {
			t.Result = lisp.Int(i)
			req.Memory = append(req.Memory, Binding{Name: "v" + strconv.Itoa(i), Value: lisp.Int(i), Turn: i + 1})
		} else {
			t.Error = &TurnError{Type: "type_error", Message: "not a number"}
		}
		req.Turns = append(req.Turns, t)
	}
	return req
}

// historyOf is a chat of n tool loops: a request, a call and its result,
// an answer; with sameIDs every call's id becomes "_" when made sendable.
func historyOf(n int, sameIDs bool) *Request {
	h := []ChatMessage{{Role: RoleSystem, Content: "You help."}}
	for i := range n {
		id := "call_" + strconv.Itoa(i)
		if sameIDs {
			id = string(rune(0x4E00 + i%20000))
		}
		h = append(h,
			ChatMessage{Role: RoleUser, Source: SourceDirect, Content: "look up item " + strconv.Itoa(i)},
			ChatMessage{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: id, Name: "get", Arguments: `{"i": ` + strconv.Itoa(i) + `}`}}},
			ChatMessage{Role: RoleTool, ToolCallID: id, Content: "item " + strconv.Itoa(i)},
			ChatMessage{Role: RoleAssistant, Content: "found item " + strconv.Itoa(i)})
	}
	return &Request{History: h}
}

// BenchmarkStrategiesDoubling renders every strategy over inputs of
// doubling size; docs/BENCHMARKS.md has the figures and how to run it.
func BenchmarkStrategiesDoubling(b *testing.B) {
	shapes := []struct {
		name  string
		input Input
		make  func(n int) *Request
		sizes []int
	}{
		{"turns", InputTurns, turnsOf, []int{250, 500, 1000}},
		{"memory", InputTurns, func(n int) *Request { return oneLineMemory(n) }, []int{10_000, 20_000, 40_000}},
		{"history", InputHistory, func(n int) *Request { return historyOf(n, false) }, []int{500, 1000, 2000}},
		{"same-ids", InputHistory, func(n int) *Request { return historyOf(n, true) }, []int{2000, 4000, 8000}},
	}
	for _, s := range All() {
		for _, shape := range shapes {
			if s.Input() != shape.input {
				continue
			}
			for _, n := range shape.sizes {
				b.Run(fmt.Sprintf("%s/%s/%d", s.Name(), shape.name, n), func(b *testing.B) {
					req := shape.make(n)
					req.Options.Strategy = s.Name()
					if s.Name() == "token-budget" {
						req.Options.MaxTokens = 20_000
					}
					b.ReportAllocs()
					for b.Loop() {
						if _, err := Render(req); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/part")
				})
			}
		}
	}
}
