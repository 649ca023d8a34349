package main

import (
	"bytes"
	"errors"
	"flag"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ptc-sidecar/ptc-sidecar/internal/setting"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"github.com/ptc-sidecar/ptc-sidecar/server"
)

// env is a fake environment for parseServeConfig.
type env map[string]string

func (e env) get(name string) string { return e[name] }

func TestServeConfigDefaults(t *testing.T) {
	cfg, err := parseServeConfig(nil, env{}.get)
	if err != nil {
		t.Fatal(err)
	}
	want := serveConfig{
		listen:           listenAddress{network: "tcp", address: "127.0.0.1:50051"},
		logLevel:         slog.LevelInfo,
		maxRecvBytes:     16 << 20,
		shutdownTimeout:  10 * time.Second,
		httpReadTimeout:  10 * time.Second,
		maxStreams:       100,
		memoryLimit:      128 << 20,
		memoBytes:        48 << 20,
		maxConnectionAge: setting.None,
		server: server.Config{
			Limits:             lisp.DefaultLimits(),
			MaxValueDepth:      1000,
			MaxTurns:           1000,
			MaxHistory:         10_000,
			MaxConcurrentEvals: runtime.GOMAXPROCS(0),
			EvalQueueWait:      time.Second,
			LargeRequestBytes:  256 << 10,
			ToolTimeout:        time.Minute,
			StreamStartTimeout: 10 * time.Second,
		},
	}
	if cfg != want {
		t.Errorf("defaults = %+v, want %+v", cfg, want)
	}
}

func TestServeConfigSources(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  env
		want func(*serveConfig)
	}{
		{
			name: "flags",
			args: []string{"--listen", "0.0.0.0:6000", "--log-level=debug", "--metrics-listen", ":9090", "--http-listen", "127.0.0.1:8080", "--max-recv-bytes", "1MiB", "--shutdown-timeout", "2s", "--drain-delay", "5s", "--max-connection-age", "90s", "--max-concurrent-streams", "4", "--memory-limit", "1GiB",
				"--max-steps", "5000", "--max-alloc-bytes", "2MiB", "--max-depth", "40", "--max-output-bytes", "1KiB", "--max-tool-calls", "3", "--eval-timeout", "750ms", "--max-value-depth", "64",
				"--max-turns", "20", "--max-history", "300", "--memo-bytes", "none", "--tls-cert", "c.pem", "--tls-key", "k.pem"},
			want: func(c *serveConfig) {
				c.memoBytes = setting.None
				c.server.Limits = lisp.Limits{MaxSteps: 5000, MaxAllocBytes: 2 << 20, MaxDepth: 40, MaxOutputBytes: 1 << 10, MaxToolCalls: 3,
					MaxEmitBytes: 2 << 20, Timeout: 750 * time.Millisecond}
				c.server.MaxValueDepth = 64
				c.server.MaxTurns, c.server.MaxHistory, c.tlsCert, c.tlsKey = 20, 300, "c.pem", "k.pem"
				c.listen = listenAddress{"tcp", "0.0.0.0:6000"}
				c.logLevel = slog.LevelDebug
				c.metricsListen = ":9090"
				c.httpListen = "127.0.0.1:8080"
				c.maxRecvBytes = 1 << 20
				c.shutdownTimeout = 2 * time.Second
				c.drainDelay = 5 * time.Second
				c.maxConnectionAge = 90 * time.Second
				c.maxStreams = 4
				c.memoryLimit = 1 << 30
			},
		},
		{
			name: "environment",
			env: env{
				"PTC_SIDECAR_LISTEN":                 "unix:/run/ptc.sock",
				"PTC_SIDECAR_LOG_LEVEL":              "WARN",
				"PTC_SIDECAR_METRICS_LISTEN":         "127.0.0.1:9100",
				"PTC_SIDECAR_HTTP_LISTEN":            ":8080",
				"PTC_SIDECAR_MAX_RECV_BYTES":         "4096",
				"PTC_SIDECAR_SHUTDOWN_TIMEOUT":       "0s",
				"PTC_SIDECAR_DRAIN_DELAY":            "250ms",
				"PTC_SIDECAR_MAX_CONNECTION_AGE":     "5m",
				"PTC_SIDECAR_MAX_CONCURRENT_STREAMS": "2",
				"PTC_SIDECAR_MEMO_BYTES":             "1MiB",
				"PTC_SIDECAR_MEMORY_LIMIT":           "none",
				"PTC_SIDECAR_MAX_CONCURRENT_EVALS":   "3",
				"PTC_SIDECAR_EVAL_QUEUE_WAIT":        "250ms",
				"PTC_SIDECAR_TOOL_TIMEOUT":           "2m",
				"PTC_SIDECAR_STREAM_START_TIMEOUT":   "1s",
			},
			want: func(c *serveConfig) {
				c.listen = listenAddress{"unix", "/run/ptc.sock"}
				c.logLevel = slog.LevelWarn
				c.metricsListen = "127.0.0.1:9100"
				c.httpListen = ":8080"
				c.maxRecvBytes = 4096
				c.drainDelay = 250 * time.Millisecond
				c.maxConnectionAge = 5 * time.Minute
				c.maxStreams = 2
				c.memoBytes = 1 << 20
				c.memoryLimit = setting.None
				c.server.MaxConcurrentEvals, c.server.EvalQueueWait = 3, 250*time.Millisecond
				c.server.ToolTimeout, c.server.StreamStartTimeout = 2*time.Minute, time.Second
			},
		},
		{
			name: "GOMEMLIMIT replaces the default memory limit",
			env:  env{"GOMEMLIMIT": "300MiB"},
			want: func(c *serveConfig) { c.memoryLimit = 0 },
		},
		{
			name: "the memory limit flag beats its variable and GOMEMLIMIT",
			args: []string{"--memory-limit", "64MiB"},
			env:  env{"GOMEMLIMIT": "300MiB", "PTC_SIDECAR_MEMORY_LIMIT": "2TiB"},
			want: func(c *serveConfig) { c.memoryLimit = 64 << 20 },
		},
		{
			name: "the memory limit variable beats GOMEMLIMIT",
			env:  env{"GOMEMLIMIT": "300MiB", "PTC_SIDECAR_MEMORY_LIMIT": "2TiB"},
			want: func(c *serveConfig) { c.memoryLimit = 2 << 40 },
		},
		{
			name: "flag beats environment",
			args: []string{"--listen", "127.0.0.1:7000", "--max-recv-bytes", "2KiB"},
			env:  env{"PTC_SIDECAR_LISTEN": "127.0.0.1:8000", "PTC_SIDECAR_MAX_RECV_BYTES": "1GiB", "PTC_SIDECAR_LOG_LEVEL": "error"},
			want: func(c *serveConfig) {
				c.listen = listenAddress{"tcp", "127.0.0.1:7000"}
				c.maxRecvBytes = 2 << 10
				c.logLevel = slog.LevelError
			},
		},
		{
			name: "empty environment variable means unset",
			env:  env{"PTC_SIDECAR_LISTEN": ""},
			want: func(*serveConfig) {},
		},
		{
			name: "port 0",
			args: []string{"-listen", "127.0.0.1:0"},
			want: func(c *serveConfig) { c.listen = listenAddress{"tcp", "127.0.0.1:0"} },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := defaultServeConfig()
			want.memoryLimit = defaultMemoryLimit
			tt.want(&want)
			got, err := parseServeConfig(tt.args, tt.env.get)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestServeConfigErrors(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     env
		wantErr []string // substrings of the error
	}{
		{"listen without port", []string{"--listen", "localhost"}, nil, []string{"-listen", `"localhost"`, "host:port"}},
		{"listen port out of range", []string{"--listen", "127.0.0.1:70000"}, nil, []string{"-listen", "0 to 65535"}},
		{"listen empty", []string{"--listen", ""}, nil, []string{"-listen", "must not be empty"}},
		{"listen unix without path", []string{"--listen", "unix:"}, nil, []string{"-listen", "socket path"}},
		{"log level", []string{"--log-level", "loud"}, nil, []string{"-log-level", `"loud"`}},
		{"metrics listen", []string{"--metrics-listen", "9090"}, nil, []string{"-metrics-listen", "host:port"}},
		{"HTTP listen", []string{"--http-listen", "localhost"}, nil, []string{"-http-listen", "host:port"}},
		{"max recv bytes not a number", []string{"--max-recv-bytes", "lots"}, nil, []string{"-max-recv-bytes", "number of bytes"}},
		{"max recv bytes negative", []string{"--max-recv-bytes", "-1"}, nil, []string{"-max-recv-bytes", "number of bytes"}},
		{"max recv bytes none", []string{"--max-recv-bytes", "none"}, nil, []string{"-max-recv-bytes", "or 0 for the default"}},
		{"max recv bytes too large", []string{"--max-recv-bytes", "2GiB"}, nil, []string{"-max-recv-bytes", "up to 2147483647"}},
		{"memo bytes negative", []string{"--memo-bytes", "-1"}, nil, []string{"-memo-bytes", "or none for nothing remembered"}},
		{"memo bytes not a number", []string{"--memo-bytes", "big"}, nil, []string{"-memo-bytes", "number of bytes"}},
		{"shutdown timeout negative", []string{"--shutdown-timeout", "-1s"}, nil, []string{"-shutdown-timeout", "duration such as 10s"}},
		{"shutdown timeout no unit", []string{"--shutdown-timeout", "10"}, nil, []string{"-shutdown-timeout", "duration"}},
		{"drain delay negative", nil, env{"PTC_SIDECAR_DRAIN_DELAY": "-5s"}, []string{"PTC_SIDECAR_DRAIN_DELAY", `"-5s"`, "duration such as 10s"}},
		{"drain delay none", []string{"--drain-delay", "none"}, nil, []string{"-drain-delay", "cannot be none"}},
		{"max concurrent streams negative", []string{"--max-concurrent-streams=-4"}, nil, []string{"-max-concurrent-streams", "whole number from 1"}},
		{"max concurrent streams too large", []string{"--max-concurrent-streams", "4294967296"}, nil, []string{"-max-concurrent-streams", "2147483647"}},
		{"max concurrent streams environment", nil, env{"PTC_SIDECAR_MAX_CONCURRENT_STREAMS": "-2"}, []string{"PTC_SIDECAR_MAX_CONCURRENT_STREAMS", `"-2"`, "whole number from 1"}},
		{"memory limit too low", []string{"--memory-limit", "16MiB"}, nil, []string{"-memory-limit", "of at least 32MiB", "0 for the default, or none for no limit"}},
		{"memory limit not a number", []string{"--memory-limit", "half"}, nil, []string{"-memory-limit", "TiB suffix, 0 for the default, or none for no limit"}},
		{"memory limit negative", nil, env{"PTC_SIDECAR_MEMORY_LIMIT": "-1"}, []string{"PTC_SIDECAR_MEMORY_LIMIT", `"-1"`, "number of bytes"}},
		{"max steps negative", []string{"--max-steps=-1"}, nil, []string{"-max-steps", "whole number from 1", "or none for no limit"}},
		{"max depth cannot be lifted", []string{"--max-depth", "none"}, nil, []string{"-max-depth", "cannot be none", "from 1 to 10000"}},
		{"max depth above the ceiling", []string{"--max-depth", "10001"}, nil, []string{"-max-depth", "from 1 to 10000"}},
		{"max alloc bytes cannot be lifted", []string{"--max-alloc-bytes", "none"}, nil, []string{"-max-alloc-bytes", "cannot be none"}},
		{"max turns none", []string{"--max-turns", "none"}, nil, []string{"-max-turns", "whole number"}},
		{"eval timeout negative", nil, env{"PTC_SIDECAR_EVAL_TIMEOUT": "-1s"}, []string{"PTC_SIDECAR_EVAL_TIMEOUT", "duration", "none for no limit"}},
		{"max depth not a number", []string{"--max-depth", "deep"}, nil, []string{"-max-depth", "whole number"}},
		{"max alloc bytes bad unit", []string{"--max-alloc-bytes", "10MB"}, nil, []string{"-max-alloc-bytes", "KiB, MiB, GiB or TiB"}},
		{"eval timeout no unit", []string{"--eval-timeout", "5"}, nil, []string{"-eval-timeout", "duration"}},
		{"eval queue wait negative", []string{"--eval-queue-wait", "-1s"}, nil, []string{"-eval-queue-wait", "duration"}},
		{"max history not a number", []string{"--max-history", "long"}, nil, []string{"-max-history", "whole number"}},
		{"tls cert without key", []string{"--tls-cert", "c.pem"}, nil, []string{"-tls-cert and -tls-key go together"}},
		{"tls key without cert", nil, env{"PTC_SIDECAR_TLS_KEY": "k.pem"}, []string{"-tls-cert and -tls-key go together"}},
		{"value depth past what the sandbox walks", []string{"--max-value-depth", "10001"}, nil, []string{"-max-value-depth", "from 1 to 10000"}},
		{"unknown flag", []string{"--listne", "x"}, nil, []string{"listne"}},
		{"positional argument", []string{"extra"}, nil, []string{`unexpected argument "extra"`}},
		{"bad environment variable", nil, env{"PTC_SIDECAR_SHUTDOWN_TIMEOUT": "soon"}, []string{"PTC_SIDECAR_SHUTDOWN_TIMEOUT", `"soon"`, "duration"}},
		// A bad variable is reported even when a flag would override it:
		// a broken deployment setting should not hide behind a flag.
		{"bad environment variable under a flag", []string{"--log-level", "info"}, env{"PTC_SIDECAR_LOG_LEVEL": "chatty"}, []string{"PTC_SIDECAR_LOG_LEVEL", `"chatty"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseServeConfig(tt.args, tt.env.get)
			if err == nil {
				t.Fatal("no error")
			}
			for _, s := range tt.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
		})
	}
}

func TestServeConfigHelp(t *testing.T) {
	if _, err := parseServeConfig([]string{"-h"}, env{}.get); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: err = %v, want flag.ErrHelp", err)
	}
}

// TestCommandExitCodes runs the command dispatcher as main does.
func TestCommandExitCodes(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{name: "version", args: []string{"version"}, wantCode: 0, wantStdout: "ptc-sidecar dev (go"},
		{name: "version with argument", args: []string{"version", "x"}, wantCode: 2, wantStderr: "takes no arguments"},
		{name: "help", args: []string{"help"}, wantCode: 0, wantStdout: "  serve "},
		{name: "--help", args: []string{"--help"}, wantCode: 0, wantStdout: "  version "},
		{name: "unknown command", args: []string{"frobnicate"}, wantCode: 2, wantStderr: `unknown command "frobnicate"`},
		{name: "serve help", args: []string{"serve", "-h"}, wantCode: 0, wantStdout: "PTC_SIDECAR_MAX_RECV_BYTES"},
		{name: "bad flag", args: []string{"serve", "--listen", "nowhere"}, wantCode: 2, wantStderr: `invalid value "nowhere" for flag -listen`},
		{name: "streams negative", args: []string{"serve", "--max-concurrent-streams=-1"}, wantCode: 2, wantStderr: `invalid value "-1" for flag -max-concurrent-streams: want a whole number from 1`},
		{name: "bad flag without command", args: []string{"--max-recv-bytes", "-5"}, wantCode: 2, wantStderr: "-max-recv-bytes"},
		{name: "bad environment", args: []string{"serve"}, env: map[string]string{"PTC_SIDECAR_LISTEN": "unix:"}, wantCode: 2, wantStderr: "PTC_SIDECAR_LISTEN"},
		{name: "listen failure", args: []string{"serve", "--listen", "unix:/nonexistent-dir/ptc.sock"}, wantCode: 1, wantStderr: "listen on unix:/nonexistent-dir/ptc.sock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, &stdout, &stderr)
			}
			if !strings.Contains(stdout.String(), tt.wantStdout) {
				t.Errorf("stdout %q does not contain %q", &stdout, tt.wantStdout)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr %q does not contain %q", &stderr, tt.wantStderr)
			}
		})
	}
}
