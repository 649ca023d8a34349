package strategies

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// firstFreeID is the id rewriting as it was: the first free of id, id_2,
// id_3..., searched from 2 each time; the reference take must agree with.
func firstFreeID(id string, used map[string]bool) string {
	if !used[id] {
		return id
	}
	for n := 2; ; n++ {
		if c := id + "_" + strconv.Itoa(n); !used[c] {
			return c
		}
	}
}

// TestFreeIDsAgreeWithFirstFree: over ids that repeat and that look like
// the renamed ones (a_2, a_2_2), take gives what the search from 2 gave,
// so that every message keeps the form it was sent in.
func TestFreeIDsAgreeWithFirstFree(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	bases := []string{"a", "a_2", "a_3", "a_2_2", "_", "__2", "b_10", "b"}
	for range 200 {
		ids := newFreeIDs()
		used := map[string]bool{}
		for range 300 {
			id := bases[r.IntN(len(bases))]
			if r.IntN(4) == 0 {
				id += "_" + strconv.Itoa(r.IntN(6))
			}
			want := firstFreeID(id, used)
			used[want] = true
			if got := ids.take(id); got != want {
				t.Fatalf("take(%q) = %q, want %q", id, got, want)
			}
		}
	}
}

// TestIDRewritingWorkIsLinear: 8,000 calls whose ids all become "_" are
// renamed _, __2 ... __8000 with two looks at the used ids each at most;
// the search from 2 made 32 million.
func TestIDRewritingWorkIsLinear(t *testing.T) {
	const n = 8000
	calls := make([]ChatToolCall, n)
	h := []ChatMessage{{Role: RoleUser, Content: "go"}, {Role: RoleAssistant}}
	for i := range calls {
		calls[i] = ChatToolCall{ID: string(rune(0x4E00 + i)), Name: "t", Arguments: "{}"}
		h = append(h, ChatMessage{Role: RoleTool, ToolCallID: calls[i].ID, Content: "ok"})
	}
	h[1].ToolCalls = calls
	seq := make([]int, len(h))
	for i := range seq {
		seq[i] = i
	}
	forms := sendableForms(h, seq)
	seen := map[string]bool{}
	for i, c := range forms[1].msg.ToolCalls {
		want := "_"
		if i > 0 {
			want = fmt.Sprintf("__%d", i+1)
		}
		if c.ID != want || seen[c.ID] {
			t.Fatalf("call %d: id %q, want %q", i, c.ID, want)
		}
		seen[c.ID] = true
		if res := forms[2+i].msg; res.ToolCallID != c.ID {
			t.Fatalf("result %d answers %q, its call is %q", i, res.ToolCallID, c.ID)
		}
	}
	ids := newFreeIDs()
	for range n {
		ids.take("_")
	}
	if ids.tries > 2*n {
		t.Errorf("%d ids looked at %d candidates, want at most %d", n, ids.tries, 2*n)
	}
}

// oneLineMemory is a memory of n one-line bindings, all of turn 1.
func oneLineMemory(n int) *Request {
	mem := make([]Binding, n)
	for i := range mem {
		mem[i] = Binding{Name: "b" + strconv.Itoa(i), Value: lisp.Int(i), Turn: 1}
	}
	return &Request{Memory: mem, Options: Options{Strategy: "cache-stable"},
		Turns: []Turn{{Number: 1, Program: "(def b0 0)", Success: true, Result: lisp.Int(0)}}}
}

// allocatedBy is the bytes f allocates.
func allocatedBy(t *testing.T, f func()) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestCacheStableMemoryWorkIsLinear: rendering a memory of 40,000
// one-line bindings allocates about twice what 20,000 do, and at most
// 256 bytes a binding: a line is about 57 bytes, written once in its
// turn's entry and copied once into USER, each in a buffer of its size
// (it was 555 bytes while the buffers grew step by step).
func TestCacheStableMemoryWorkIsLinear(t *testing.T) {
	render := func(n int) uint64 {
		req := oneLineMemory(n)
		return allocatedBy(t, func() {
			if _, err := Render(req); err != nil {
				t.Fatal(err)
			}
		})
	}
	render(100) // the tokenizer's tables, once
	small, large := render(20_000), render(40_000)
	t.Logf("20,000 bindings: %d bytes; 40,000: %d bytes", small, large)
	if ratio := float64(large) / float64(small); ratio > 2.4 {
		t.Errorf("twice the bindings allocate %.2f times as much", ratio)
	}
	if per := large / 40_000; per > 256 {
		t.Errorf("%d bytes allocated a binding, want at most 256", per)
	}
}

// TestBindingsLenIsExactForScalars: the size a list of bindings is built
// in is the length written for values that print without a walk (and
// for hidden names, shown without a value), so that such a list is
// written in one buffer.
func TestBindingsLenIsExactForScalars(t *testing.T) {
	mem := []Binding{
		{Name: "n", Value: lisp.Int(-1234567), Turn: 1},
		{Name: "a-name-longer-than-the-name-column", Value: lisp.Keyword("k/w"), Turn: 1},
		{Name: "flag", Value: lisp.Bool(false), Turn: 2},
		{Name: "nothing", Value: lisp.Nil, Turn: 1},
		{Name: "absent", Turn: 1},
		{Name: "_secret", Value: lisp.Int(7), Turn: 1},
		{Name: "printed", Value: lisp.Int(8), Turn: 3},
		{Name: "empty", Value: lisp.NewVector(nil), Turn: 1},
		{Name: "ünïcödé", Value: lisp.Int(9), Turn: 1},
	}
	o := &Options{SampleLimit: DefaultSampleLimit, SamplePrintableLimit: 80}
	printed := map[int]bool{3: true}
	at := func(i int) *Binding { return &mem[i] }
	var b strings.Builder
	writeBindingsAt(&b, len(mem), at, printed, o)
	if got, want := bindingsLen(len(mem), at, printed, o), b.Len(); got != want {
		t.Errorf("bindingsLen is %d, the text written %d bytes:\n%s", got, want, b.String())
	}
}

// TestStrategiesStopWhenCancelled: every strategy given a request whose
// context has ended stops with its error, having counted the tokens of no
// more than a few hundred chunks of text.
func TestStrategiesStopWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, s := range All() {
		req := historyOf(2000, true)
		if s.Input() == InputTurns {
			req = turnsOf(1000)
			req.Memory = append(req.Memory, oneLineMemory(20_000).Memory...)
		}
		m := memo.New(64 << 20)
		req.Options.Strategy, req.Options.MaxTokens = s.Name(), 20_000
		req.Remembered, req.Context = NewRemembered(m), ctx
		if _, err := Render(req); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", s.Name(), err)
		}
		if n := m.Stats()[0].Entries; n > stopCheckChunks {
			t.Errorf("%s: counted %d texts after the request ended", s.Name(), n)
		}
	}
}
