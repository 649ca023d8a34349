package server

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// bigOrders is data whose text is long enough to be remembered.
func bigOrders(n int) string {
	var b strings.Builder
	b.WriteString("{:orders [")
	for i := range n {
		fmt.Fprintf(&b, "{:id %d :total %d :region :eu} ", i, 100+i)
	}
	b.WriteString("] :note \"remembered\"}")
	return b.String()
}

// The remembered values must give the same answers as reading afresh: the
// same request sent again, to a service with and without a memo, gets the
// same bytes back every time.
func TestRememberingChangesNoAnswer(t *testing.T) {
	ctx := context.Background()
	m := memo.New(32 << 20)
	cached := New(Config{Limits: lisp.DefaultLimits(), Memo: m})
	fresh := New(Config{Limits: lisp.DefaultLimits()})

	tm := agentRequest()
	tm.Options.Data = edn(bigOrders(50))
	tm.Memory.Bindings[0].Value = edn(bigOrders(20))
	want, err := fresh.ToMessages(ctx, tm)
	if err != nil {
		t.Fatal(err)
	}
	ev := &ptcsidecarv1.EvalTurnRequest{
		Program: `(def big (filter #(> (:total %) 120) data/orders)) (count big)`,
		Data:    edn(bigOrders(50)),
		Prelude: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "earlier", Value: edn(bigOrders(10)), Turn: 1}}},
	}
	wantTurn, err := fresh.EvalTurn(ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		got, err := cached.ToMessages(ctx, tm)
		if err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(got, want) {
			t.Fatalf("ToMessages call %d with the cache differs from a fresh read", i+1)
		}
		gotTurn, err := cached.EvalTurn(ctx, ev)
		if err != nil {
			t.Fatal(err)
		}
		gotTurn.GetTurn().DurationMs, wantTurn.GetTurn().DurationMs = 0, 0
		if !proto.Equal(gotTurn, wantTurn) {
			t.Fatalf("EvalTurn call %d with the cache differs from a fresh read:\n%v\n%v", i+1, gotTurn, wantTurn)
		}
	}
	if s := m.Stats()[0]; s.Table != "values" || s.Hits == 0 || s.Entries == 0 {
		t.Errorf("the memo was not used: %+v", s)
	}
}

// Concurrent evaluations share the remembered data and prelude and each
// builds on them; none may see another's additions (run with -race).
func TestRememberedValuesSharedByConcurrentEvaluations(t *testing.T) {
	svc := New(Config{Limits: lisp.DefaultLimits(), Memo: memo.New(32 << 20)})
	data := edn(bigOrders(40))
	prelude := &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "seen", Value: edn(bigOrders(12)), Turn: 1}}}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 5 {
				mark := w*100 + round
				program := fmt.Sprintf(`(def mine (conj data/orders {:id %d}))
(def also (assoc seen :mark %d))
[(count mine) (:id (last mine)) (count (:orders seen)) (:mark also) (count data/orders)]`, mark, mark)
				resp, err := svc.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: program, Data: data, Prelude: prelude})
				if err != nil {
					t.Error(err)
					return
				}
				want := fmt.Sprintf("[41 %d 12 %d 40]", mark, mark)
				if got := resp.GetTurn().GetResult().GetEdn(); got != want {
					t.Errorf("worker %d round %d: %s, want %s", w, round, got, want)
				}
			}
		}()
	}
	wg.Wait()
}
