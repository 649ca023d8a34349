package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// TestReadingIsDecidedByWork: large values of every kind of work the
// reader does (radix literals, 100,000-digit numbers, strings of escapes,
// millions of tiny tokens, nesting to the limit) are refused by their read
// work (lisp.ReadWork, counted from the text before it is read) at the
// same field with the same message in three runs, in every field of
// EvalTurn that carries a value, with the clock ten minutes away: the budget the 1 s
// timeout gives decides, never the clock. A value under the budget reads
// to its value under the same clock.
func TestReadingIsDecidedByWork(t *testing.T) {
	s := New(Config{Limits: lisp.Limits{Timeout: time.Second}, readClock: 10 * time.Minute})
	budget := int64(time.Second.Seconds() * readCostPerSecond)
	vector := func(n int, part string) string { return "[" + strings.Repeat(part+" ", n) + "]" }
	nested := strings.Repeat("[", lisp.DefaultMaxNesting-1) + "1" + strings.Repeat("]", lisp.DefaultMaxNesting-1)
	inputs := map[string]string{
		"10 radix-36 literals of 100,000 digits": vector(10, "36r"+strings.Repeat("Z", 100_000)),
		"10 integers of 100,000 digits":          vector(10, strings.Repeat("7", 100_000)),
		"a 12 MB string of escapes":              `"` + strings.Repeat(`\n\t\u0041\"`, 1_000_000) + `"`,
		"2,000,000 tiny tokens":                  vector(2_000_000, "1"),
		"1,000 values nested to the limit":       vector(1_000, nested),
	}
	limits := &ptcsidecarv1.Limits{TimeoutMs: 1000}
	binding := func(text string) *ptcsidecarv1.Memory {
		return &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "m", Value: edn(text)}}}
	}
	fields := map[string]func(text string) error{
		"data": func(text string) error {
			_, err := s.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: "1", Limits: limits, Data: edn("{:m " + text + "}")})
			return err
		},
		"prelude.bindings[0].value": func(text string) error {
			_, err := s.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: "1", Limits: limits, Prelude: binding(text)})
			return err
		},
		"previous_results[0]": func(text string) error {
			_, err := s.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: "1", Limits: limits, PreviousResults: []*ptcsidecarv1.Value{edn(text)}})
			return err
		},
		"tool_results[0].result": func(text string) error {
			_, err := s.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: "(tool/f {})", Limits: limits,
				ToolResults: []*ptcsidecarv1.ToolResult{{Index: 0, Name: "f", Args: edn("{}"), Result: edn(text)}}})
			return err
		},
	}
	for name, text := range inputs {
		if work := lisp.ReadWork(text, false); work <= budget {
			t.Fatalf("%s: read work %d, not over the %d of a 1 s timeout", name, work, budget)
		}
		for field, send := range fields {
			var first string
			for run := range 3 {
				began := time.Now()
				err := send(text)
				st := status.Convert(err)
				if st.Code() != codes.ResourceExhausted || !strings.HasPrefix(st.Message(), field+": ") || !strings.Contains(st.Message(), "more than the 1s evaluation timeout reads") {
					t.Fatalf("%s in %s, run %d: %v, want RESOURCE_EXHAUSTED by its read work, naming the field", name, field, run+1, err)
				}
				if run == 0 {
					first = st.Message()
				} else if st.Message() != first {
					t.Errorf("%s in %s: run %d ended %q, run 1 %q", name, field, run+1, st.Message(), first)
				}
				if d := time.Since(began); d > 5*time.Second {
					t.Errorf("%s in %s: refused after %v, want before it is read", name, field, d)
				}
			}
		}
	}
	// Under the budget, the same kinds read to their values.
	under := vector(2, "36r"+strings.Repeat("Z", 100_000))
	if work := lisp.ReadWork(under, false); work > budget*3/4 {
		t.Fatalf("2 radix-36 literals of 100,000 digits: read work %d, want well under %d", work, budget)
	}
	resp, err := s.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: "(count *1)",
		Limits: &ptcsidecarv1.Limits{TimeoutMs: 60_000}, PreviousResults: []*ptcsidecarv1.Value{edn(under)}})
	if err != nil || resp.GetTurn().GetResult().GetEdn() != "2" {
		t.Errorf("2 radix-36 literals of 100,000 digits: %v, %v", resp, err)
	}
}
