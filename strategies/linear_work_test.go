package strategies

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// workShape is a request that grows along one dimension: options and
// request of size n.
type workShape struct {
	name    string
	input   Input
	options func(n int) RawOptions // nil: the defaults
	request func(n int) *Request
}

// linearWorkShapes are the request's dimensions a caller controls, for
// each input kind: turns, calls and prints in a turn, memory keys,
// defined names, tools, the program's tool-call ids; chat messages, tool
// calls in one message, distinct tool names (and as many excluded and
// snapshot prefixes), parts of one message, bytes of one message, reasoning
// blocks, compactions, images.
func linearWorkShapes() []workShape {
	loop := func(i int, id, name string) []ChatMessage {
		return []ChatMessage{
			{Role: RoleUser, Content: "look up item " + strconv.Itoa(i)},
			{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: id, Name: name, Arguments: `{"i": ` + strconv.Itoa(i) + `}`}}},
			{Role: RoleTool, ToolCallID: id, Content: "item " + strconv.Itoa(i)},
			{Role: RoleAssistant, Content: "found item " + strconv.Itoa(i)}}
	}
	loops := func(n int, f func(i int, m []ChatMessage)) *Request {
		h := []ChatMessage{{Role: RoleSystem, Content: "You help."}}
		for i := range n {
			m := loop(i, "call_"+strconv.Itoa(i), "get")
			if f != nil {
				f(i, m)
			}
			h = append(h, m...)
		}
		return &Request{History: h}
	}
	tools := func(n int, form string) RawOptions {
		ts := make([]ToolSpec, n)
		for j := range ts {
			ts[j] = ToolSpec{Name: "tool_" + strconv.Itoa(j), Signature: "(a :int, b :string) -> {x :int}", Description: "does " + strconv.Itoa(j)}
		}
		return RawOptions{Tools: ts, ProgramForm: form}
	}
	oneTurn := func(t Turn) *Request {
		return &Request{Turns: []Turn{t, {Number: 2, Program: "1", Success: true, Result: lisp.Int(1)}}}
	}
	names := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "tool_" + strconv.Itoa(i)
		}
		return out
	}
	return []workShape{
		{name: "turns", input: InputTurns, request: func(n int) *Request { return turnsOf(n / 4) }},
		{name: "turns, tool-call form, long colliding call ids", input: InputTurns,
			options: func(int) RawOptions { return RawOptions{ProgramForm: ProgramToolCall} },
			request: func(n int) *Request {
				r := turnsOf(n / 4)
				for i := range r.Turns {
					r.Turns[i].ProgramCallID = strings.Repeat("é", 40) + string(rune(0x4E00+i))
					r.Turns[i].RawResponse = "I will look it up."
				}
				return r
			}},
		{name: "tool calls of one turn", input: InputTurns, request: func(n int) *Request {
			t := Turn{Number: 1, Program: "(tool/get 1)", Success: true, Result: lisp.Int(1)}
			for j := range n {
				t.ToolCalls = append(t.ToolCalls, ToolCall{Index: j, Name: "get_" + strconv.Itoa(j), Args: lisp.Int(j), Result: lisp.String("r" + strconv.Itoa(j))})
			}
			return oneTurn(t)
		}},
		{name: "prints of one turn", input: InputTurns, request: func(n int) *Request {
			t := Turn{Number: 1, Program: "(println 1)", Success: true, Result: lisp.Int(1)}
			for j := range n {
				t.Prints = append(t.Prints, "line "+strconv.Itoa(j))
			}
			return oneTurn(t)
		}},
		{name: "memory keys defined by one turn", input: InputTurns, request: func(n int) *Request {
			t := Turn{Number: 1, Program: "(def a 1)", Success: true, Result: lisp.Int(1)}
			var mem []Binding
			for j := range n {
				t.Defined = append(t.Defined, "v"+strconv.Itoa(j))
				mem = append(mem, Binding{Name: "v" + strconv.Itoa(j), Value: lisp.Int(j), Turn: 1})
			}
			r := oneTurn(t)
			r.Memory = mem
			return r
		}},
		{name: "tools", input: InputTurns, options: func(n int) RawOptions { return tools(n/4, ProgramFenced) }, request: func(int) *Request { return turnsOf(2) }},
		{name: "tools, tool-call form", input: InputTurns, options: func(n int) RawOptions { return tools(n/4, ProgramToolCall) }, request: func(int) *Request { return turnsOf(2) }},

		{name: "messages", input: InputHistory, request: func(n int) *Request { return loops(n, nil) }},
		{name: "distinct tool names, each excluded and a snapshot prefix", input: InputHistory,
			options: func(n int) RawOptions { return RawOptions{ExcludeTools: names(n), SnapshotToolPrefixes: names(n)} },
			request: func(n int) *Request {
				return loops(n, func(i int, m []ChatMessage) { m[1].ToolCalls[0].Name = "tool_" + strconv.Itoa(i) })
			}},
		{name: "tool calls of one message", input: InputHistory, request: func(n int) *Request {
			calls := make([]ChatToolCall, n)
			h := []ChatMessage{{Role: RoleUser, Content: "go"}, {Role: RoleAssistant}}
			for i := range calls {
				calls[i] = ChatToolCall{ID: "call_" + strconv.Itoa(i), Name: "get", Arguments: "{}"}
				h = append(h, ChatMessage{Role: RoleTool, ToolCallID: calls[i].ID, Content: "item " + strconv.Itoa(i)})
			}
			h[1].ToolCalls = calls
			return &Request{History: append(h, ChatMessage{Role: RoleAssistant, Content: "done"})}
		}},
		{name: "parts of one message", input: InputHistory, request: func(n int) *Request {
			parts := make([]ContentPart, n)
			for i := range parts {
				parts[i] = NewPart(PartText, "part "+strconv.Itoa(i)+" of /srv/x.go", PartExtra{})
			}
			r := loops(3, nil)
			r.History[1] = ChatMessage{Role: RoleUser, Parts: parts}
			return r
		}},
		{name: "bytes of one message", input: InputHistory, request: func(n int) *Request {
			r := loops(3, nil)
			r.History[3].Content = strings.Repeat("a line of /srv/app/main.go\n", n)
			return r
		}},
		{name: "reasoning blocks, one kept", input: InputHistory,
			options: func(int) RawOptions { one := 1; return RawOptions{KeepThinkingTurns: &one} },
			request: func(n int) *Request {
				return loops(n, func(i int, m []ChatMessage) {
					m[1].Parts = []ContentPart{NewPart(PartThinking, "I think "+strconv.Itoa(i), PartExtra{Signature: "c2ln"})}
				})
			}},
		{name: "compactions", input: InputHistory, request: func(n int) *Request {
			return loops(n, func(i int, m []ChatMessage) {
				m[3].Parts = []ContentPart{NewPart(PartCompaction, "so far "+strconv.Itoa(i), PartExtra{}), NewPart(PartText, m[3].Content, PartExtra{})}
				m[3].Content = ""
			})
		}},
		{name: "images", input: InputHistory, request: func(n int) *Request {
			return loops(n, func(i int, m []ChatMessage) {
				m[0].Parts = []ContentPart{NewPart(PartText, m[0].Content, PartExtra{}), NewPart(PartImage, "", PartExtra{URL: "https://x/" + strconv.Itoa(i), Width: 65536, Height: 65536})}
				m[0].Content = ""
			})
		}},
	}
}

// workRequest is shape sh's request of size n for strategy st. token-budget
// has a budget of 5,000 tokens and the summarizing strategies a trigger of
// 2,000, so that every size used is past them and does their work.
func workRequest(tb testing.TB, st Strategy, sh workShape, n int) *Request {
	raw := RawOptions{}
	if sh.options != nil {
		raw = sh.options(n)
	}
	raw.Strategy = st.Name()
	switch st.Name() {
	case "token-budget":
		budget := 5_000
		raw.MaxTokens = &budget
	case "summarize", "summarize-turns":
		trigger := 2_000
		raw.SummaryTrigger = &trigger
	}
	opts, err := Normalize(raw)
	if err != nil {
		tb.Fatal(err)
	}
	req := sh.request(n)
	req.Options = opts
	return req
}

// TestEveryStrategyWorkIsLinear renders every strategy over every
// dimension of linearWorkShapes at n and 2n and counts the bytes it
// allocates (work, not time): twice the request may cost at most 2.5 times
// as much. A search over cut points, a dedup over the history or a name
// looked up by a scan would cost four times as much.
func TestEveryStrategyWorkIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("renders every strategy over 15 shapes at two sizes")
	}
	const n = 1000
	for _, st := range All() {
		for _, sh := range linearWorkShapes() {
			if st.Input() != sh.input {
				continue
			}
			t.Run(st.Name()+"/"+sh.name, func(t *testing.T) {
				var work [2]uint64
				for k, size := range []int{n, 2 * n} {
					req := workRequest(t, st, sh, size)
					work[k] = allocatedBy(t, func() {
						if _, err := Render(req); err != nil {
							t.Fatal(err)
						}
					})
				}
				ratio := float64(work[1]) / float64(work[0])
				t.Logf("%d: %d bytes; %d: %d bytes (%.2fx)", n, work[0], 2*n, work[1], ratio)
				if ratio > 2.5 {
					t.Errorf("twice the %s allocate %.2f times as much", sh.name, ratio)
				}
			})
		}
	}
}

// BenchmarkEveryStrategyDoubling is TestEveryStrategyWorkIsLinear's shapes
// as a benchmark over three doubling sizes: bytes and time per unit of
// request should stay flat (docs/BENCHMARKS.md).
func BenchmarkEveryStrategyDoubling(b *testing.B) {
	for _, st := range All() {
		for _, sh := range linearWorkShapes() {
			if st.Input() != sh.input {
				continue
			}
			for _, n := range []int{1000, 2000, 4000} {
				b.Run(fmt.Sprintf("%s/%s/%d", st.Name(), sh.name, n), func(b *testing.B) {
					req := workRequest(b, st, sh, n)
					b.ReportAllocs()
					for b.Loop() {
						if _, err := Render(req); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/unit")
				})
			}
		}
	}
}
