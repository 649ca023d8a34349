package lisp

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// hostFunc is a Host made of a function.
type hostFunc func(ctx context.Context, name string, args Value) (Value, error)

func (f hostFunc) CallTool(ctx context.Context, name string, args Value) (Value, error) {
	return f(ctx, name, args)
}

func limitsWithTimeout(d time.Duration) Limits {
	l := DefaultLimits()
	l.MaxSteps = Unlimited // the clock, not the budget, must end the busy programs
	l.Timeout = d
	return l
}

// TestToolTimeDoesNotCountAgainstTheTimeout: three tools that each take
// longer than the whole timeout leave the evaluation its own time.
func TestToolTimeDoesNotCountAgainstTheTimeout(t *testing.T) {
	slow := hostFunc(func(ctx context.Context, _ string, _ Value) (Value, error) {
		select {
		case <-time.After(250 * time.Millisecond):
			return Int(1), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	env := Env{Tools: []string{"slow"}, Host: slow, Limits: limitsWithTimeout(200 * time.Millisecond)}
	res, err := Eval(context.Background(), "(+ (tool/slow {}) (tool/slow {}) (tool/slow {}))", env)
	if err != nil || res.Err != nil {
		t.Fatalf("Eval = %v, %v; want 3", res.Err, err)
	}
	if !Equal(res.Value, Int(3)) {
		t.Errorf("result %s, want 3", Repr(res.Value))
	}
}

// TestOwnTimeStillBounded: the clock runs again after a tool answers, and
// the time before the call counts with the time after it.
func TestOwnTimeStillBounded(t *testing.T) {
	instant := hostFunc(func(context.Context, string, Value) (Value, error) { return Int(1), nil })
	env := Env{Tools: []string{"t"}, Host: instant, Limits: limitsWithTimeout(50 * time.Millisecond)}
	// The context's deadline only guards a hang, and must not be what
	// ended the program: its own 50ms must, however busy the machine.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Eval(ctx, "(tool/t {}) (loop [i 0] (recur (inc i)))", env)
	if err != nil || res.Err == nil || res.Err.Kind != timeout {
		t.Fatalf("Eval = %v, %v; want a timeout", res.Err, err)
	}
	if ctx.Err() != nil {
		t.Fatal("the program ran until the test's one-minute guard: its own 50ms did not end it")
	}
	if !strings.Contains(res.Err.Message, "50ms") || strings.Contains(res.Err.Message, "context") {
		t.Errorf("message %q should give the timeout and no Go error text", res.Err.Message)
	}
}

// TestHostErrorsReachTheTurnWrittenForTheLLM: a host's typed error keeps
// its kind, and a cancelled request is not reported in Go's words.
func TestHostErrorsReachTheTurnWrittenForTheLLM(t *testing.T) {
	typed := hostFunc(func(context.Context, string, Value) (Value, error) {
		return nil, Errorf(ToolTimeout, "tool/t did not answer within 1s").WithHint("retry")
	})
	res, err := Eval(context.Background(), "(tool/t {})", Env{Tools: []string{"t"}, Host: typed})
	if err != nil || res.Err == nil || res.Err.Kind != ToolTimeout || res.Err.Hint != "retry" {
		t.Fatalf("Eval = %+v, %v; want the host's tool_timeout", res.Err, err)
	}
	if got := res.ToolCalls[0].Err; got != "tool/t did not answer within 1s" {
		t.Errorf("the call's error is %q, want the host's message", got)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancelling := hostFunc(func(context.Context, string, Value) (Value, error) {
		cancel()
		return nil, context.Canceled
	})
	res, err = Eval(ctx, "(tool/t {})", Env{Tools: []string{"t"}, Host: cancelling})
	if err != nil || res.Err == nil || res.Err.Kind != timeout {
		t.Fatalf("Eval = %+v, %v; want a cancelled evaluation", res.Err, err)
	}
	for _, text := range []string{res.Err.Message, res.Err.Hint, res.ToolCalls[0].Err} {
		if strings.Contains(text, context.Canceled.Error()) {
			t.Errorf("Go error text reached the turn: %q", text)
		}
	}

	plain := hostFunc(func(context.Context, string, Value) (Value, error) { return nil, errors.New("no such user") })
	res, _ = Eval(context.Background(), "(tool/t {})", Env{Tools: []string{"t"}, Host: plain})
	if res.Err == nil || res.Err.Kind != toolError || res.ToolCalls[0].Err != "no such user" {
		t.Errorf("a tool's error answer: %+v, call error %q", res.Err, res.ToolCalls[0].Err)
	}
}
