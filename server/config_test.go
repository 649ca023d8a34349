package server

import (
	"reflect"
	"strings"
	"testing"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// A zero Config field is its default, whatever the other fields hold.
func TestConfigZeroIsDefault(t *testing.T) {
	defaults := func(edit func(*Config)) Config {
		c := DefaultConfig()
		edit(&c)
		return c
	}
	cases := []struct {
		name string
		in   Config
		want Config
	}{
		{"zero", Config{}, DefaultConfig()},
		{"one field set", Config{MaxTurns: 5}, defaults(func(c *Config) { c.MaxTurns = 5 })},
		{"one limit set", Config{Limits: lisp.Limits{MaxSteps: 9}}, defaults(func(c *Config) { c.Limits.MaxSteps = 9 })},
		{"a limit lifted", Config{Limits: lisp.Limits{MaxSteps: lisp.Unlimited}}, defaults(func(c *Config) { c.Limits.MaxSteps = lisp.Unlimited })},
		// A limit that cannot be none is its default when negative.
		{"a limit that cannot be lifted", Config{Limits: lisp.Limits{MaxAllocBytes: -1}}, DefaultConfig()},
		{"negative where none is not allowed", Config{MaxHistory: -1}, DefaultConfig()},
	}
	for _, c := range cases {
		if got := New(c.in).cfg; got != c.want {
			t.Errorf("%s: config %+v, want %+v", c.name, got, c.want)
		}
	}
}

// Every field of lisp.Limits has its row in sandboxLimits, so a limit added
// to the library cannot be left without a setting and a request field, and
// every row names a field of the wire Limits of the same width.
func TestSandboxLimitsCoverLimits(t *testing.T) {
	var l lisp.Limits
	for i, s := range LimitSettings(&l) {
		s.Value.(limitValue).Put(int64(i + 1))
	}
	v := reflect.ValueOf(l)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("lisp.Limits.%s has no row in sandboxLimits", v.Type().Field(i).Name)
		}
	}
	if n := v.NumField(); n != len(sandboxLimits) {
		t.Errorf("%d rows for %d fields of lisp.Limits", len(sandboxLimits), n)
	}
	for _, row := range sandboxLimits {
		if want := strings.ReplaceAll(row.name, "-", "_"); string(row.wire) != want && !row.millis {
			t.Errorf("setting %s lowers the request field %s, want %s", row.name, row.wire, want)
		}
	}
	wire := (&ptcsidecarv1.Limits{}).ProtoReflect().Descriptor().Fields()
	if n := wire.Len() - 1; n != len(sandboxLimits) { // tool_timeout_ms lowers --tool-timeout
		t.Errorf("the wire Limits has %d sandbox fields, sandboxLimits %d rows", n, len(sandboxLimits))
	}
}

// The messages that name a setting name the flag that sets that field.
func TestFlagOf(t *testing.T) {
	c := DefaultConfig()
	for ptr, want := range map[any]string{
		&c.MaxTurns:            "--max-turns",
		&c.MaxHistory:          "--max-history",
		&c.Limits.MaxToolCalls: "--max-tool-calls",
		&c.ToolTimeout:         "--tool-timeout",
	} {
		if got := c.flagOf(ptr); got != want {
			t.Errorf("flagOf(%T) = %s, want %s", ptr, got, want)
		}
	}
	names := map[string]bool{}
	for _, s := range c.Settings() {
		if names[s.Name] {
			t.Errorf("two settings are named %s", s.Name)
		}
		names[s.Name] = true
	}
}
