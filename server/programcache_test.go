package server

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

func TestProgramCacheReusesAndBounds(t *testing.T) {
	var c programCache
	a := c.read("(+ 1 2)", 10)
	if a == nil || c.read("(+ 1 2)", 10) != a {
		t.Fatal("the second read of the same text must return the cached program")
	}
	if c.read("(+ 1 2)", 20) == a {
		t.Error("a different nesting bound must read the text again")
	}
	if c.read("(+ 1", 10) != nil {
		t.Error("a text that does not read must return nil")
	}
	if len(c.programs) != 2 {
		t.Errorf("cached %d programs, want 2 (parse errors are not cached)", len(c.programs))
	}
	long := "(str \"" + strings.Repeat("x", maxCachedProgramLength) + "\")"
	if c.read(long, 10) == nil || len(c.programs) != 2 {
		t.Error("a program over the length bound must be read but not cached")
	}
	for i := range 2 * maxCachedPrograms {
		c.read(fmt.Sprintf("(+ %d 1)", i), 10)
	}
	if len(c.programs) != maxCachedPrograms || len(c.order) != maxCachedPrograms {
		t.Errorf("cache holds %d programs (%d in order), want %d", len(c.programs), len(c.order), maxCachedPrograms)
	}
	if c.read("(+ 1 2)", 10) == a {
		t.Error("the oldest program must have been forgotten")
	}
	big := strings.Repeat(" ", maxCachedProgramLength-10) + "(+ 1 2)"
	for i := range 2 * maxCachedProgramBytes / len(big) {
		c.read(big+strings.Repeat(" ", i), 10)
	}
	if c.bytes > maxCachedProgramBytes {
		t.Errorf("cache holds %d bytes of text, bound is %d", c.bytes, maxCachedProgramBytes)
	}
	total := 0
	for k := range c.programs {
		total += len(k.text)
	}
	if total != c.bytes {
		t.Errorf("byte count %d, texts hold %d", c.bytes, total)
	}
}

// TestEvalTurnCachedProgramConcurrently replays one program from many
// callers at once; under -race it proves the shared read forms are safe.
func TestEvalTurnCachedProgramConcurrently(t *testing.T) {
	svc := New(Config{})
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
	svc := New(Config{})
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
	svc := New(Config{})
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
