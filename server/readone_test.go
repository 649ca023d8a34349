package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// TestSourceBoundsDoNotDependOnWhatIsRemembered: a value's source is
// refused by what loading it would hold and take (lisp.SourceReadCost and
// SourceReadWork, counted from its text) whether the text is loaded or
// found remembered: it was remembered loaded for a larger request, whose
// bounds let it through. The same request, in every field, gets the same
// answer on a fresh server and after another caller sent the text in a
// request of a megabyte more. Before, a 300 KB quoted vector of 150,000
// symbols (14.4 MB held against the 12 MB its request allows) was
// refused RESOURCE_EXHAUSTED fresh and read after the larger request, in
// every field.
func TestSourceBoundsDoNotDependOnWhatIsRemembered(t *testing.T) {
	text := "{:a (quote [" + strings.Repeat("a ", 150_000) + "])}"
	held := lisp.SourceReadCost(text)
	if allowed, _ := lisp.ReadBounds(len(text)); held <= allowed {
		t.Fatalf("loading the text holds %d, within the %d its request allows", held, allowed)
	}
	v := edn(text)
	fresh, _ := throughEveryField(New(Config{Memo: memo.New(64 << 20)}), v)

	warm := New(Config{Memo: memo.New(64 << 20)})
	larger := &ptcsidecarv1.EvalTurnRequest{Program: "(count (:a (if (map? *1) *1 *2)))",
		PreviousResults: []*ptcsidecarv1.Value{v, edn(`"` + strings.Repeat("x", 1<<20) + `"`)}}
	if resp, err := warm.EvalTurn(context.Background(), larger); err != nil || resp.GetTurn().GetResult().GetEdn() != "150000" {
		t.Fatalf("the text in a request of a megabyte more: %v %v, want 150000", resp.GetTurn().GetResult(), err)
	}
	after, _ := throughEveryField(warm, v)
	for i, a := range fresh {
		if !strings.HasPrefix(a.answer, "ResourceExhausted: loading it would hold about") {
			t.Errorf("%s, fresh: %q, want RESOURCE_EXHAUSTED by what loading it holds", a.field, a.answer)
		}
		if after[i].answer != a.answer {
			t.Errorf("%s: %q once the text was remembered, %q fresh", a.field, after[i].answer, a.answer)
		}
	}
}

// TestEmittedSourceReadsBackAtEverySize: a turn whose result EDN cannot
// spell (symbols, constructed keywords, functions, regexes) is sent as
// the source that builds it, and whatever size it has, it either reads
// back as previous_results and as a turn's result in ToMessages, or the
// turn is refused emit_limit: the emit side checks the text against the
// bounds reading applies (lisp.ReadBounds), one model for both. Before,
// a vector of 64,000 symbols (960 KB of (quote s1) ...) was emitted and
// then refused by ToMessages for its read work (73 MB against 62 MB),
// and 128,000 constructed keywords by every field for what loading them
// would hold.
func TestEmittedSourceReadsBackAtEverySize(t *testing.T) {
	// Room for the program to build the largest values; what it emits is
	// bounded by the default emit limit.
	cfg := DefaultConfig()
	cfg.Limits.MaxSteps, cfg.Limits.MaxAllocBytes = 20_000_000, 1<<30
	s := New(cfg)
	ctx := context.Background()
	for _, kind := range []struct {
		name, build string
		scale       int // regexes compile: fewer of them
	}{
		{"symbols", `(symbol (str "s" i))`, 1},
		{"constructed keywords", `(keyword (str "a b" i))`, 1},
		{"functions", `(fn [] i)`, 1},
		{"regexes", `(re-pattern (str "a" i))`, 16},
	} {
		for i, n := range []int{1_000, 16_000, 64_000, 128_000} {
			n /= kind.scale
			program := fmt.Sprintf("(mapv (fn [i] %s) (range %d))", kind.build, n)
			resp, err := s.EvalTurn(ctx, &ptcsidecarv1.EvalTurnRequest{Program: program})
			if err != nil {
				t.Fatalf("%d %s: %v", n, kind.name, err)
			}
			if e := resp.GetTurn().GetError(); e != nil {
				if e.GetType() != "emit_limit" || i == 0 {
					t.Errorf("%d %s: %s %s, want the value (the smallest) or emit_limit", n, kind.name, e.GetType(), e.GetMessage())
				}
				continue
			}
			v := resp.GetTurn().GetResult()
			if _, err := s.EvalTurn(ctx, &ptcsidecarv1.EvalTurnRequest{Program: "(count *1)", PreviousResults: []*ptcsidecarv1.Value{v}}); err != nil {
				t.Errorf("%d %s, emitted as %d bytes, sent back as previous_results: %v", n, kind.name, len(v.GetEdn()), err)
			}
			if _, err := s.ToMessages(ctx, &ptcsidecarv1.ToMessagesRequest{Turns: []*ptcsidecarv1.Turn{{Number: 1, Program: program, Success: true, Result: v}}}); err != nil {
				t.Errorf("%d %s, emitted as %d bytes, sent back as a turn's result: %v", n, kind.name, len(v.GetEdn()), err)
			}
		}
	}
}
