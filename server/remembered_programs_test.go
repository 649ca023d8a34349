package server

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

func TestRememberedProgramsAreReusedAndBounded(t *testing.T) {
	m := memo.New(64 << 10)
	r := newRemembered(m)
	a := r.program("(+ 1 2)", 10)
	if a == nil || r.program("(+ 1 2)", 10) != a {
		t.Fatal("the second read of the same text must return the remembered program")
	}
	if r.program("(+ 1 2)", 20) == a {
		t.Error("a different nesting bound must read the text again")
	}
	if r.program("(+ 1", 10) != nil {
		t.Error("a text that does not read must return nil")
	}
	if n := m.Stats()[1].Entries; n != 2 {
		t.Errorf("remembered %d programs, want 2 (parse errors are not remembered)", n)
	}
	for i := range 1000 {
		r.program(fmt.Sprintf("(+ %d 1)", i), 10)
	}
	if r.program("(+ 1 2)", 10) == a {
		t.Error("the oldest program must have been forgotten")
	}
	if s := m.Stats()[1]; s.Bytes > m.Budget() || s.Evictions == 0 {
		t.Errorf("programs hold %d bytes of a %d budget, %d forgotten", s.Bytes, m.Budget(), s.Evictions)
	}
}

// TestEvalTurnCachedProgramConcurrently replays one program from many
// callers at once; under -race it proves the shared read forms are safe.
func TestEvalTurnCachedProgramConcurrently(t *testing.T) {
	svc := New(Config{Memo: memo.New(1 << 20)})
	req := &ptcsidecarv1.EvalTurnRequest{
		Program: `(def xs (conj [1 2 3] (tool/lookup {:k [:a "b"]})))
(println "n" (count xs) (count '(a b)))
(->> xs (map inc) (reduce +))`,
		Tools:       []*ptcsidecarv1.ToolSpec{{Name: "lookup"}},
		ToolResults: []*ptcsidecarv1.ToolResult{{Index: 0, Name: "lookup", Args: edn(`{:k [:a "b"]}`), Result: edn("4")}},
	}
	want, err := svc.EvalTurn(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got := want.GetTurn().GetResult().GetEdn(); got != "14" {
		t.Fatalf("result %q, want 14", got)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				got, err := svc.EvalTurn(context.Background(), req)
				if err != nil {
					t.Error(err)
					return
				}
				got.GetTurn().DurationMs = want.GetTurn().GetDurationMs()
				if !proto.Equal(got, want) {
					t.Errorf("got %v, want %v", got, want)
				}
			}
		}()
	}
	wg.Wait()
}

func TestEvalTurnParseErrorUnchangedByCache(t *testing.T) {
	svc := New(Config{Memo: memo.New(1 << 20)})
	req := &ptcsidecarv1.EvalTurnRequest{Program: "(println \"a\")\n(+ 1"}
	want, _ := lisp.Eval(context.Background(), req.GetProgram(), lisp.Env{})
	for range 2 {
		resp, err := svc.EvalTurn(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		e := resp.GetTurn().GetError()
		if e.GetType() != "parse_error" || e.GetMessage() != want.Err.Message || e.GetHint() != want.Err.Hint {
			t.Errorf("error %v, want %v", e, want.Err)
		}
	}
}
