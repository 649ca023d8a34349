package server

import (
	"runtime"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// A zero Config field is its default, whatever the other fields hold.
func TestConfigZeroIsDefault(t *testing.T) {
	defaults := func(c Config) Config {
		c.MaxValueDepth, c.MaxConcurrentEvals = DefaultMaxValueDepth, runtime.GOMAXPROCS(0)
		c.EvalQueueWait, c.ToolTimeout, c.StreamStartTimeout = DefaultEvalQueueWait, DefaultToolTimeout, DefaultStreamStartTimeout
		if c.MaxTurns == 0 {
			c.MaxTurns = DefaultMaxTurns
		}
		c.MaxHistory = DefaultMaxHistory
		return c
	}
	cases := []struct {
		name string
		in   Config
		want Config
	}{
		{"zero", Config{}, defaults(Config{Limits: lisp.DefaultLimits()})},
		{"one field set", Config{MaxTurns: 5}, defaults(Config{Limits: lisp.DefaultLimits(), MaxTurns: 5})},
		{"one limit set", Config{Limits: lisp.Limits{MaxSteps: 9}}, defaults(Config{Limits: lisp.Limits{MaxSteps: 9}.WithDefaults()})},
	}
	for _, c := range cases {
		if got := New(c.in).cfg; got != c.want {
			t.Errorf("%s: config %+v, want %+v", c.name, got, c.want)
		}
	}
}
