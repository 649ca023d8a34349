package main

import (
	"flag"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"github.com/ptc-sidecar/ptc-sidecar/server"
)

// serve and eval define the sandbox limits once: the flags they have in
// common are exactly server.LimitSettings, with the same description and
// default.
func TestServeAndEvalShareLimitFlags(t *testing.T) {
	scfg := defaultServeConfig()
	serve := serveFlags(&scfg)
	ecfg := evalConfig{limits: lisp.DefaultLimits()}
	eval := evalFlags(&ecfg)
	var common []string
	serve.VisitAll(func(f *flag.Flag) {
		if e := eval.Lookup(f.Name); e != nil {
			common = append(common, f.Name)
			if e.Usage != f.Usage || e.DefValue != f.DefValue {
				t.Errorf("-%s: serve has %q (default %s), eval %q (default %s)", f.Name, f.Usage, f.DefValue, e.Usage, e.DefValue)
			}
		}
	})
	var table []string
	for _, s := range server.LimitSettings(&lisp.Limits{}) {
		table = append(table, s.Name)
	}
	slices.Sort(common)
	slices.Sort(table)
	if !slices.Equal(common, table) {
		t.Errorf("flags of both serve and eval: %v, want the sandbox limits %v", common, table)
	}
	// And eval has no limit of its own under another name.
	var own []string
	eval.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(table, f.Name) {
			own = append(own, f.Name)
		}
	})
	if want := []string{"data", "e", "json", "prelude", "tools", "turn"}; !slices.Equal(own, want) {
		t.Errorf("eval's flags besides the sandbox limits: %v, want %v", own, want)
	}
}

// The same sandbox arguments and environment give serve and eval the same
// limits: 0 is the default, none lifts a limit, a flag beats its variable.
func TestLimitFlagsZeroRule(t *testing.T) {
	d := lisp.DefaultLimits()
	with := func(edit func(*lisp.Limits)) lisp.Limits {
		l := d
		edit(&l)
		return l
	}
	cases := []struct {
		name string
		args []string
		env  env
		want lisp.Limits
	}{
		{"nothing set", nil, nil, d},
		{"every limit 0", []string{"-max-steps", "0", "-max-alloc-bytes", "0", "-max-depth", "0", "-max-output-bytes", "0", "-max-tool-calls", "0", "-max-emit-bytes", "0", "-eval-timeout", "0s"}, nil, d},
		{"0 beats its variable", []string{"-max-steps", "0"}, env{"PTC_SIDECAR_MAX_STEPS": "7"}, d},
		{"variable", nil, env{"PTC_SIDECAR_MAX_STEPS": "7", "PTC_SIDECAR_EVAL_TIMEOUT": "none"},
			with(func(l *lisp.Limits) { l.MaxSteps, l.Timeout = 7, lisp.Unlimited })},
		{"one set, the others default", []string{"-max-output-bytes", "2KiB"}, nil, with(func(l *lisp.Limits) { l.MaxOutputBytes = 2 << 10 })},
		{"none lifts", []string{"-max-steps", "none", "-max-output-bytes", "none", "-max-tool-calls", "none", "-eval-timeout", "none"}, nil,
			with(func(l *lisp.Limits) {
				l.MaxSteps, l.MaxOutputBytes, l.MaxToolCalls, l.Timeout = lisp.Unlimited, lisp.Unlimited, lisp.Unlimited, lisp.Unlimited
			})},
		{"values", []string{"-max-steps", "10", "-max-alloc-bytes", "1MiB", "-max-depth", "10000", "-max-tool-calls", "2", "-eval-timeout", "1m"}, nil,
			with(func(l *lisp.Limits) {
				l.MaxSteps, l.MaxAllocBytes, l.MaxDepth, l.MaxToolCalls, l.Timeout = 10, 1<<20, 10_000, 2, time.Minute
			})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			scfg, err := parseServeConfig(c.args, c.env.get)
			if err != nil {
				t.Fatalf("serve: %v", err)
			}
			ecfg, _, err := parseEvalConfig(c.args, c.env.get)
			if err != nil {
				t.Fatalf("eval: %v", err)
			}
			if scfg.server.Limits != c.want || ecfg.limits != c.want {
				t.Errorf("serve %+v\neval  %+v\nwant  %+v", scfg.server.Limits, ecfg.limits, c.want)
			}
		})
	}
}

// 0 is the default of every number flag of serve, even over its variable.
func TestServeFlagsZeroIsDefault(t *testing.T) {
	want := defaultServeConfig()
	want.memoryLimit = defaultMemoryLimit
	for _, f := range []struct{ name, other string }{
		{"max-recv-bytes", "1KiB"}, {"max-concurrent-streams", "3"}, {"memory-limit", "1GiB"},
		{"shutdown-timeout", "1s"}, {"max-value-depth", "5"}, {"max-turns", "5"}, {"max-history", "5"},
		{"memo-bytes", "none"}, {"max-concurrent-evals", "7"}, {"eval-queue-wait", "1m"}, {"large-request-bytes", "none"},
		{"tool-timeout", "1s"}, {"stream-start-timeout", "1s"}, {"max-steps", "5"}, {"eval-timeout", "none"},
	} {
		got, err := parseServeConfig([]string{"-" + f.name, "0"}, env{envName(f.name): f.other}.get)
		if err != nil {
			t.Fatalf("-%s 0: %v", f.name, err)
		}
		if got != want {
			t.Errorf("-%s 0 (env %s): %+v\nwant %+v", f.name, f.other, got, want)
		}
	}
}

// Every flag's printed default parses back to the same value, and every
// flag says what it is.
func TestServeFlagDefaultsRoundTrip(t *testing.T) {
	cfg := defaultServeConfig()
	serveFlags(&cfg).VisitAll(func(f *flag.Flag) {
		fresh := defaultServeConfig()
		other := serveFlags(&fresh)
		if err := other.Set(f.Name, f.DefValue); err != nil {
			t.Errorf("-%s: its default %q does not parse: %v", f.Name, f.DefValue, err)
		}
		if fresh != cfg {
			t.Errorf("-%s %s: %+v\nwant %+v", f.Name, f.DefValue, fresh, cfg)
		}
		if f.Usage == "" {
			t.Errorf("-%s: no description", f.Name)
		}
	})
}

// docs/OPERATIONS.md names every serve flag, so that a setting added to a
// table is documented for the people who run the sidecar.
func TestOperationsDocumentsEveryFlag(t *testing.T) {
	doc, err := os.ReadFile("../../docs/OPERATIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	cfg := defaultServeConfig()
	for _, s := range cfg.settings() {
		if !strings.Contains(string(doc), "`"+s.Flag()+"`") {
			t.Errorf("docs/OPERATIONS.md does not document `%s`", s.Flag())
		}
	}
}
