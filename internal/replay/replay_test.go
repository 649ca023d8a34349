package replay

import (
	"context"
	"errors"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

func TestHostReplaysThenSuspends(t *testing.T) {
	h := NewHost([]Answer{{Index: 0, Name: "a", Args: lisp.Int(1), Result: lisp.String("one")}})
	v, err := h.CallTool(context.Background(), "a", lisp.Int(1))
	if err != nil || v != lisp.String("one") {
		t.Fatalf("replayed call = %v, %v", v, err)
	}
	if _, err := h.CallTool(context.Background(), "b", lisp.Nil); !errors.Is(err, lisp.ErrSuspend) {
		t.Fatalf("unanswered call: err = %v, want ErrSuspend", err)
	}
	if p := h.Pending(); p == nil || p.Index != 1 || p.Name != "b" {
		t.Errorf("pending = %+v", p)
	}
	if err := h.Check(); err != nil {
		t.Errorf("Check = %v", err)
	}
}

func TestHostMismatch(t *testing.T) {
	for name, call := range map[string]struct {
		tool string
		args lisp.Value
	}{"name": {"b", lisp.Int(1)}, "args": {"a", lisp.Int(2)}, "args type": {"a", lisp.Float(1)}} {
		h := NewHost([]Answer{{Index: 0, Name: "a", Args: lisp.Int(1), Result: lisp.Nil}})
		if _, err := h.CallTool(context.Background(), call.tool, call.args); !errors.Is(err, lisp.ErrSuspend) {
			t.Errorf("%s: err = %v, want the evaluation stopped", name, err)
		}
		var m *MismatchError
		if err := h.Check(); !errors.As(err, &m) || m.Index != 0 {
			t.Errorf("%s: Check = %v, want a mismatch at 0", name, err)
		}
		if h.Pending() != nil {
			t.Errorf("%s: a mismatch is not a pending call", name)
		}
	}
}

func TestHostToolError(t *testing.T) {
	h := NewHost([]Answer{{Index: 0, Name: "a", Args: lisp.Nil, Error: "down"}})
	_, err := h.CallTool(context.Background(), "a", lisp.Nil)
	if err == nil || errors.Is(err, lisp.ErrSuspend) || err.Error() != "down" {
		t.Errorf("err = %v, want the caller's tool error", err)
	}
}

func TestHostLeftoverAnswers(t *testing.T) {
	h := NewHost([]Answer{{Index: 0, Name: "a", Args: lisp.Nil, Result: lisp.Nil}, {Index: 1, Name: "a", Args: lisp.Nil, Result: lisp.Nil}})
	if _, err := h.CallTool(context.Background(), "a", lisp.Nil); err != nil {
		t.Fatal(err)
	}
	var m *MismatchError
	if err := h.Check(); !errors.As(err, &m) || m.Index != 1 {
		t.Errorf("Check = %v, want answers left over from index 1", err)
	}
}

// TestReplayIsDeterministic evaluates a program that calls tools in a loop
// by replay and checks that every round reaches the same calls.
func TestReplayIsDeterministic(t *testing.T) {
	src := `(def xs (for [i (range 3)] (tool/double {:n i}))) (reduce + (map :v xs))`
	var answers []Answer
	for round := 0; round < 10; round++ {
		h := NewHost(answers)
		res, err := lisp.Eval(context.Background(), src, lisp.Env{Host: h, Tools: []string{"double"}, Limits: lisp.DefaultLimits()})
		if cerr := h.Check(); cerr != nil {
			t.Fatalf("round %d: %v", round, cerr)
		}
		if err == nil {
			if !res.OK() || lisp.Repr(res.Value) != "6" || len(res.ToolCalls) != 3 {
				t.Fatalf("result = %v err=%v calls=%d", lisp.Repr(res.Value), res.Err, len(res.ToolCalls))
			}
			return
		}
		p := h.Pending()
		n, _ := p.Args.(*lisp.Map).Get(lisp.Keyword("n"))
		b := lisp.NewMapBuilder(1)
		b.Set(lisp.Keyword("v"), lisp.Int(2*n.(lisp.Int)))
		answers = append(answers, Answer{Index: p.Index, Name: p.Name, Args: p.Args, Result: b.Map()})
	}
	t.Fatal("no result after 10 rounds")
}
