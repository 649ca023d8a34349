package server

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// TestRememberedHoldsWhatItCounts: what the service remembers between
// requests holds no more than the memo's budget, however many distinct
// requests fill it. Each case sends requests that each leave a remembered
// entry holding far more than its text: a program whose regex literal
// compiles to 90 KB (RE2's and the backtracking matcher's), a program
// sent as one block of a 1 MB raw response, a prelude function holding
// such a regex, programs of the forms that hold most per byte of text
// (function literals, deep literals: 110-150 bytes a byte, where the memo
// counted eleven). The heap live after all of them is compared with the
// one before: at most the budget plus 4 MiB of what the service builds
// once.
func TestRememberedHoldsWhatItCounts(t *testing.T) {
	const budget = 1 << 20
	cases := []struct {
		name string
		n    int
		req  func(i int) *ptcsidecarv1.EvalTurnRequest
	}{
		{"a program with an RE2 regex literal of 90 KB", 400, func(i int) *ptcsidecarv1.EvalTurnRequest {
			return &ptcsidecarv1.EvalTurnRequest{Program: fmt.Sprintf(`(re-find #"\pL{1000}" "b%d")`, i)}
		}},
		{"a program with a backtracking regex literal", 400, func(i int) *ptcsidecarv1.EvalTurnRequest {
			return &ptcsidecarv1.EvalTurnRequest{Program: fmt.Sprintf(`(re-find #"(?<=a)[\p{L}\p{N}]{1000}" "b%d")`, i)}
		}},
		{"a program in a raw response of 1 MB", 60, func(i int) *ptcsidecarv1.EvalTurnRequest {
			return &ptcsidecarv1.EvalTurnRequest{RawResponse: strings.Repeat("x", 1<<20) + fmt.Sprintf("\n```clojure\n(+ 1 %d 1000000000)\n```\n", i)}
		}},
		{"programs of function literals", 600, func(i int) *ptcsidecarv1.EvalTurnRequest {
			return &ptcsidecarv1.EvalTurnRequest{Program: fmt.Sprintf("(count [%s %d])", strings.Repeat("#(+ %) ", 40), i)}
		}},
		{"programs of nested literals", 600, func(i int) *ptcsidecarv1.EvalTurnRequest {
			return &ptcsidecarv1.EvalTurnRequest{Program: fmt.Sprintf("(count [%d %s%s])", i, strings.Repeat("[", 200), strings.Repeat("]", 200))}
		}},
		{"prelude functions of deep literals", 600, func(i int) *ptcsidecarv1.EvalTurnRequest {
			return &ptcsidecarv1.EvalTurnRequest{Program: "(count (f))", Prelude: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{
				Name: "f", IsFn: true, Value: &ptcsidecarv1.Value{Edn: fmt.Sprintf("(fn [] [%d %s%s])", i, strings.Repeat("[", 200), strings.Repeat("]", 200))}}}}}
		}},
		{"a prelude function holding a regex literal", 400, func(i int) *ptcsidecarv1.EvalTurnRequest {
			return &ptcsidecarv1.EvalTurnRequest{Program: "(f)", Prelude: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{
				Name: "f", IsFn: true, Value: &ptcsidecarv1.Value{Edn: fmt.Sprintf(`(fn [] (re-find #"\pL{1000}" "b%d"))`, i)}}}}}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			svc := New(Config{Limits: lisp.DefaultLimits(), Memo: memo.New(budget)})
			before := liveHeap()
			for i := range c.n {
				resp, err := svc.EvalTurn(t.Context(), c.req(i))
				if err != nil {
					t.Fatal(err)
				}
				if e := resp.GetTurn().GetError(); e != nil {
					t.Fatalf("request %d: %s: %s", i, e.GetType(), e.GetMessage())
				}
			}
			held := liveHeap() - before
			t.Logf("%d requests left %d KiB live", c.n, held>>10)
			if limit := int64(budget + 4<<20); held > limit {
				t.Errorf("%d requests left %d KiB live, over the memo's %d KiB budget plus 4 MiB", c.n, held>>10, budget>>10)
			}
			runtime.KeepAlive(svc)
		})
	}
}

// liveHeap is the heap's live bytes after a full collection.
func liveHeap() int64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
