package strategies

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// benchRequest is a long agent run: 20 turns, 100 tool calls, 20 println
// calls, 50 bindings of which 10 are 1,000-element lists of maps.
func benchRequest(b *testing.B) *Request {
	opts, err := Normalize(RawOptions{
		Mission: "Find every well-reviewed product that is in stock and summarize the reviews per category.",
		Tools: []ToolSpec{
			{Name: "search", Signature: "(query :string, limit :int) -> [{id :int, title :string}]", Description: "Full-text search"},
			{Name: "get_inventory", Signature: "() -> {items [{sku :string, count :int}]}"},
			{Name: "notify", Signature: "(to :string, message :string) -> :bool"},
		},
		Data:     benchData(),
		MaxTurns: intp(25),
	})
	if err != nil {
		b.Fatal(err)
	}
	req := &Request{Options: opts}
	for i := range 20 {
		t := Turn{Number: i + 1, Program: fmt.Sprintf("(def step-%d (tool/search {:query \"q%d\" :limit 10}))\n(println \"step\" %d)", i, i, i), Success: i%7 != 3}
		for j := range 5 {
			args := lisp.NewMapBuilder(2)
			args.Set(lisp.Keyword("query"), lisp.String(fmt.Sprintf("products in category %d matching review text %d", i, j)))
			args.Set(lisp.Keyword("limit"), lisp.Int(10))
			t.ToolCalls = append(t.ToolCalls, ToolCall{Index: j, Name: "search", Args: args.Map(), Result: benchList(10)})
		}
		if t.Number%2 == 0 { // bindings of odd turns show samples
			t.Prints = []string{fmt.Sprintf("step %d: found %d items", i, 10*i), fmt.Sprintf("categories: %v", []int{i, i + 1})}
		}
		if t.Success {
			t.Result = benchList(3)
		} else {
			t.Error = &TurnError{Type: "type_error", Message: "first expects a collection, got integer"}
		}
		t.RawResponse = "I will look at step " + fmt.Sprint(i) + ".\n```clojure\n" + t.Program + "\n```"
		req.Turns = append(req.Turns, t)
	}
	for i := range 50 {
		bd := Binding{Name: fmt.Sprintf("binding-%d", i), Turn: 1 + i%20}
		switch {
		case i%5 == 0:
			bd.Value = benchList(1000)
		case i%5 == 1:
			bd.Fn = &Function{Params: []string{"x", "&", "rest"}, Docstring: "Scores a product; higher is better", ReturnType: "float"}
		default:
			bd.Value = lisp.String(strings.Repeat("value ", 10+i))
		}
		req.Memory = append(req.Memory, bd)
	}
	// The snapshot the earlier call is rebuilt from, for the stable prefix.
	req.Turns[18].Memory, req.Turns[18].HasMemory = req.Memory, true
	return req
}

func benchList(n int) *lisp.Vector {
	elems := make([]lisp.Value, n)
	for i := range elems {
		m := lisp.NewMapBuilder(4)
		m.Set(lisp.Keyword("id"), lisp.Int(i))
		m.Set(lisp.Keyword("name"), lisp.String(fmt.Sprintf("Product %d with a long descriptive name", i)))
		m.Set(lisp.Keyword("price"), lisp.Float(float64(i)*1.1))
		m.Set(lisp.Keyword("_internal"), lisp.String("hidden"))
		elems[i] = m.Map()
	}
	return lisp.NewVector(elems)
}

func benchData() *lisp.Map {
	m := lisp.NewMapBuilder(3)
	m.Set(lisp.Keyword("products"), benchList(1000))
	m.Set(lisp.Keyword("threshold"), lisp.Float(4.5))
	m.Set(lisp.Keyword("_token"), lisp.String("secret"))
	return m.Map()
}

// BenchmarkCoalescedRender measures building the [SYSTEM, USER] messages.
func BenchmarkCoalescedRender(b *testing.B) {
	req := benchRequest(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := coalescedMessages(req); err != nil {
			b.Fatal(err)
		}
	}
	msgs, _, _ := coalescedMessages(req)
	b.ReportMetric(float64(len(msgs[1].Content)), "user-bytes")
}

// BenchmarkCacheStableRender measures building the [SYSTEM, USER] messages
// of cache-stable, the replay of its re-base decisions included (token
// counts of the entries remembered, as on a running agent's calls).
func BenchmarkCacheStableRender(b *testing.B) {
	req := benchRequest(b)
	req.Remembered = NewRemembered(memo.New(64 << 20))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := cacheStableMessages(req); err != nil {
			b.Fatal(err)
		}
	}
	msgs, _, _ := cacheStableMessages(req)
	b.ReportMetric(float64(len(msgs[1].Content)), "user-bytes")
}

// BenchmarkFullRender measures building the uncompressed history.
func BenchmarkFullRender(b *testing.B) {
	req := benchRequest(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := fullMessages(req); err != nil {
			b.Fatal(err)
		}
	}
}

// benchCalls numbers the calls of BenchmarkToMessages across its runs, so
// that no USER message repeats.
var benchCalls int64

// BenchmarkToMessages measures the whole strategy call: both renders, the
// earlier call's render and the stable prefix against it, and the
// character and token statistics of before and after, as on the next
// call of a running agent: the SYSTEM prompt and the earlier turns were seen
// before, the USER message is new (a binding changes each iteration, as
// memory does from turn to turn, so the USER count is never remembered).
func BenchmarkToMessages(b *testing.B) {
	req := benchRequest(b)
	req.Remembered = NewRemembered(memo.New(64 << 20))
	b.ReportAllocs()
	for b.Loop() {
		benchCalls++
		req.Memory[2].Value = lisp.Int(benchCalls)
		if _, err := (coalesced{}).Render(req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToMessagesCacheStable is BenchmarkToMessages with cache-stable.
func BenchmarkToMessagesCacheStable(b *testing.B) {
	req := benchRequest(b)
	req.Remembered = NewRemembered(memo.New(64 << 20))
	b.ReportAllocs()
	for b.Loop() {
		benchCalls++
		req.Memory[2].Value = lisp.Int(benchCalls)
		if _, err := (cacheStable{}).Render(req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToMessagesColdTokenCache is BenchmarkToMessages with no token
// count remembered from earlier calls: the first call of an agent run.
func BenchmarkToMessagesColdTokenCache(b *testing.B) {
	req := benchRequest(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (coalesced{}).Render(req); err != nil {
			b.Fatal(err)
		}
	}
}
