package server

import (
	"runtime"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/internal/valuecache"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// A zero Config field is its default, whatever the other fields hold; the
// value cache is off only when asked for by a negative size.
func TestConfigZeroIsDefault(t *testing.T) {
	cases := []struct {
		name    string
		in      Config
		want    Config
		cacheOn bool
	}{
		{"zero", Config{}, Config{Limits: lisp.DefaultLimits(), MaxValueDepth: DefaultMaxValueDepth,
			MaxTurns: DefaultMaxTurns, MaxHistory: DefaultMaxHistory, ValueCacheBytes: DefaultValueCacheBytes, MaxConcurrentEvals: runtime.GOMAXPROCS(0), EvalQueueWait: DefaultEvalQueueWait,
			ToolTimeout: DefaultToolTimeout, StreamStartTimeout: DefaultStreamStartTimeout}, true},
		{"one field set", Config{MaxTurns: 5}, Config{Limits: lisp.DefaultLimits(), MaxValueDepth: DefaultMaxValueDepth,
			MaxTurns: 5, MaxHistory: DefaultMaxHistory, ValueCacheBytes: DefaultValueCacheBytes, MaxConcurrentEvals: runtime.GOMAXPROCS(0), EvalQueueWait: DefaultEvalQueueWait,
			ToolTimeout: DefaultToolTimeout, StreamStartTimeout: DefaultStreamStartTimeout}, true},
		{"one limit set", Config{Limits: lisp.Limits{MaxSteps: 9}, ValueCacheBytes: 1 << 20},
			Config{Limits: lisp.Limits{MaxSteps: 9}.WithDefaults(), MaxValueDepth: DefaultMaxValueDepth,
				MaxTurns: DefaultMaxTurns, MaxHistory: DefaultMaxHistory, ValueCacheBytes: 1 << 20, MaxConcurrentEvals: runtime.GOMAXPROCS(0), EvalQueueWait: DefaultEvalQueueWait,
				ToolTimeout: DefaultToolTimeout, StreamStartTimeout: DefaultStreamStartTimeout}, true},
		{"no value cache", Config{ValueCacheBytes: NoValueCache}, Config{Limits: lisp.DefaultLimits(), MaxValueDepth: DefaultMaxValueDepth,
			MaxTurns: DefaultMaxTurns, MaxHistory: DefaultMaxHistory, ValueCacheBytes: NoValueCache, MaxConcurrentEvals: runtime.GOMAXPROCS(0), EvalQueueWait: DefaultEvalQueueWait,
			ToolTimeout: DefaultToolTimeout, StreamStartTimeout: DefaultStreamStartTimeout}, false},
	}
	for _, c := range cases {
		s := New(c.in)
		if s.cfg != c.want {
			t.Errorf("%s: config %+v, want %+v", c.name, s.cfg, c.want)
		}
		if on := s.values != (*valuecache.Cache)(nil); on != c.cacheOn {
			t.Errorf("%s: value cache on = %v, want %v", c.name, on, c.cacheOn)
		}
	}
}
