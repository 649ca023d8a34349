package lisp

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"
)

// TestStepMatchesReference checks step's inlined fast path against the
// plain rule: the charge is added, passing MaxSteps fails with steps left
// at MaxSteps+1, and the context is looked at whenever the count crosses a
// multiple of ctxCheckInterval.
func TestStepMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		maxSteps := int64(r.IntN(5000))
		if maxSteps == 0 {
			maxSteps = Unlimited
		}
		ctx, cancel := context.WithCancel(context.Background())
		th := newThread(ctx, Limits{MaxSteps: maxSteps})
		var ref int64
		cancelAt := int64(r.IntN(6000))
		cancelled := false
		for i := 0; i < 400; i++ {
			n := int64(r.IntN(40))
			if r.IntN(10) == 0 {
				n = int64(r.IntN(3000))
			}
			if !cancelled && ref >= cancelAt {
				cancel()
				cancelled = true
			}
			before := ref
			ref += n
			var want ErrorKind
			switch {
			case maxSteps > 0 && ref > maxSteps:
				ref = maxSteps + 1
				want = stepLimit
			case before/ctxCheckInterval != ref/ctxCheckInterval && cancelled:
				want = timeout
			}
			err := th.step(n)
			var got ErrorKind
			if err != nil {
				got = asError(err).Kind
			}
			if got != want || th.stepsUsed() != ref {
				t.Fatalf("trial %d, charge %d of %d: got %q with %d steps, want %q with %d", trial, i, n, got, th.stepsUsed(), want, ref)
			}
		}
		cancel()
	}
}

// A zero field of Limits is the default whatever the others hold, a
// negative one is Unlimited, and the call depth stays within MaxCallDepth.
func TestLimitsWithDefaults(t *testing.T) {
	d := DefaultLimits()
	with := func(edit func(*Limits)) Limits {
		l := d
		edit(&l)
		return l
	}
	cases := []struct {
		name string
		in   Limits
		want Limits
	}{
		{"zero", Limits{}, d},
		{"one field set", Limits{MaxSteps: 10}, with(func(l *Limits) { l.MaxSteps = 10 })},
		{"all set", Limits{MaxSteps: 1, MaxAllocBytes: 2, MaxDepth: 3, MaxOutputBytes: 4, MaxToolCalls: 5, MaxEmitBytes: 7, Timeout: 6},
			Limits{MaxSteps: 1, MaxAllocBytes: 2, MaxDepth: 3, MaxOutputBytes: 4, MaxToolCalls: 5, MaxEmitBytes: 7, Timeout: 6}},
		{"unlimited", Limits{MaxSteps: Unlimited, MaxAllocBytes: Unlimited, MaxOutputBytes: Unlimited, MaxToolCalls: Unlimited, MaxEmitBytes: Unlimited, Timeout: Unlimited},
			Limits{MaxSteps: Unlimited, MaxAllocBytes: Unlimited, MaxDepth: d.MaxDepth, MaxOutputBytes: Unlimited, MaxToolCalls: Unlimited, MaxEmitBytes: Unlimited, Timeout: Unlimited}},
		{"any negative is unlimited", Limits{MaxSteps: -7, Timeout: -time.Second},
			with(func(l *Limits) { l.MaxSteps, l.Timeout = Unlimited, Unlimited })},
		{"depth unlimited is the ceiling", Limits{MaxDepth: Unlimited}, with(func(l *Limits) { l.MaxDepth = MaxCallDepth })},
		{"depth above the ceiling", Limits{MaxDepth: MaxCallDepth + 1}, with(func(l *Limits) { l.MaxDepth = MaxCallDepth })},
	}
	for _, c := range cases {
		if got := c.in.WithDefaults(); got != c.want {
			t.Errorf("%s: %+v.WithDefaults() = %+v, want %+v", c.name, c.in, got, c.want)
		}
		if got := c.in.WithDefaults().WithDefaults(); got != c.want {
			t.Errorf("%s: WithDefaults is not idempotent: %+v", c.name, got)
		}
	}
}

// What the zero rule means for a program: setting one limit keeps the
// default of every other, and Unlimited lifts exactly the one it is set on.
func TestLimitsZeroFieldIsDefault(t *testing.T) {
	bigSteps := Limits{MaxSteps: 1 << 40}
	tools := func(l Limits) Env { return Env{Limits: l, Tools: []string{"echo"}, Host: echoHost()} }
	cases := []struct {
		name string
		src  string
		env  Env
		kind ErrorKind // "" for success
	}{
		{"memory default kept", `(loop [s "ab"] (recur (str s s)))`, Env{Limits: bigSteps}, memoryLimit},
		{"output default kept", `(loop [] (println "spam spam spam") (recur))`, Env{Limits: bigSteps}, outputLimit},
		{"tool call default kept", "(loop [] (tool/echo {}) (recur))", tools(bigSteps), ToolCallLimit},
		{"step default kept", "(loop [] (recur))", Env{Limits: Limits{MaxOutputBytes: 10}}, stepLimit},
		{"memory unlimited", `(count (loop [s "ab" i 0] (if (< i 23) (recur (str s s) (inc i)) s)))`,
			Env{Limits: Limits{MaxAllocBytes: Unlimited}}, ""},
		{"output unlimited", `(dotimes [_ 2000] (println "0123456789012345678901234567890123456789"))`,
			Env{Limits: Limits{MaxOutputBytes: Unlimited}}, ""},
		{"tool calls unlimited", "(dotimes [_ 60] (tool/echo {}))", tools(Limits{MaxToolCalls: Unlimited}), ""},
		{"memory unlimited keeps the step default", "(loop [] (recur))", Env{Limits: Limits{MaxAllocBytes: Unlimited}}, stepLimit},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, c.src, c.env)
			switch {
			case c.kind == "" && res.Err != nil:
				t.Fatalf("failed: %v", res.Err)
			case c.kind != "" && (res.Err == nil || res.Err.Kind != c.kind):
				t.Fatalf("error %v, want %s", res.Err, c.kind)
			}
		})
	}
}
