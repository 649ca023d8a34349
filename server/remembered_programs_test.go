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

func TestRememberedProgramsAreReusedAndBounded(t *testing.T) {
	m := memo.New(64 << 10)
	r := rememberedPrograms{newRemembered(m).programs}
	eval := func(src string, nesting int) {
		t.Helper()
		if _, err := lisp.Eval(t.Context(), src, lisp.Env{MaxNesting: nesting, Programs: r}); err != nil {
			t.Fatal(err)
		}
	}
	eval("(+ 1 2)", 10)
	a := r.Program("(+ 1 2)", 10)
	if a == nil {
		t.Fatal("a program evaluated must be remembered")
	}
	eval("(+ 1 2)", 10)
	if r.Program("(+ 1 2)", 10) != a {
		t.Fatal("the second evaluation of the same text must use the remembered program")
	}
	if r.Program("(+ 1 2)", 20) != nil {
		t.Error("a different nesting bound must read the text again")
	}
	eval("(+ 1", 10)
	if r.Program("(+ 1", 10) != nil {
		t.Error("a text that does not read must not be remembered")
	}
	eval(strings.Repeat("1 ", 2_000_000), 10)
	if r.Program(strings.Repeat("1 ", 2_000_000), 10) != nil {
		t.Error("a text whose reading ran past the step budget must not be remembered")
	}
	if n := m.Stats()[1].Entries; n != 1 {
		t.Errorf("remembered %d programs, want 1", n)
	}
	for i := range 1000 {
		eval(fmt.Sprintf("(+ %d 1)", i), 10)
	}
	if r.Program("(+ 1 2)", 10) == a {
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

// TestEvalTurnCachedLiteralsIsolated is the attack on a cached program's
// literals: sixteen callers run a program that conj-es onto a set literal
// or assoc-es onto a map literal, each with its own data/v, every seventh
// declaring w as a tool so that the program is analyzed again meanwhile.
// Each answer must hold its own value; under -race, nothing may be
// written that another caller reads.
func TestEvalTurnCachedLiteralsIsolated(t *testing.T) {
	// The memo is what shares one read program between the callers.
	svc := New(Config{Memo: memo.New(32 << 20)})
	programs := []struct {
		src  string
		want func(v int) string
	}{
		{`(if false w nil) (let [s #{1 2 3}] (dotimes [i data/n] (contains? s i))
  (let [r (conj s data/v)] (dotimes [i data/k] (contains? s i)) [(contains? r data/v) (count r) r]))`,
			func(v int) string { return lisp.Repr(mustParse(t, fmt.Sprintf("[true 4 #{1 2 3 %d}]", v))) }},
		{`(if false w nil) (assoc {:a 1} :b data/v)`, func(v int) string { return fmt.Sprintf("{:a 1, :b %d}", v) }},
	}
	for _, p := range programs {
		var wg sync.WaitGroup
		for c := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := range 30 {
					v := 1000 + 100*c + r
					req := &ptcsidecarv1.EvalTurnRequest{Program: p.src,
						Data: edn(fmt.Sprintf("{:n 30 :k 30 :v %d :w 0}", v))}
					if (c+r)%7 == 0 {
						req.Data = edn(fmt.Sprintf("{:n 30 :k 30 :v %d}", v))
						req.Tools = []*ptcsidecarv1.ToolSpec{{Name: "w"}}
					}
					resp, err := svc.EvalTurn(context.Background(), req)
					if err != nil {
						t.Error(err)
						return
					}
					if got, want := resp.GetTurn().GetResult().GetEdn(), p.want(v); got != want {
						t.Errorf("caller %d: got %s, want %s (error %v)", c, got, want, resp.GetTurn().GetError())
						return
					}
				}
			}()
		}
		wg.Wait()
	}
}

func mustParse(t *testing.T, s string) lisp.Value {
	v, err := lisp.ParseEDN(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
