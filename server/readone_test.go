package server

import (
	"context"
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
	if held, allowed := lisp.SourceReadCost(text), lisp.ReadCostPerByte*int64(len(text))+readSlack; held <= allowed {
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
