package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/credentials"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"github.com/ptc-sidecar/ptc-sidecar/server"
)

// envPrefix starts the environment variable of every serve flag: --max-recv-bytes
// falls back to PTC_SIDECAR_MAX_RECV_BYTES. A flag given on the command line
// beats its variable, which beats the default.
const envPrefix = "PTC_SIDECAR_"

// defaultMaxConcurrentStreams bounds the RPCs one connection runs at once:
// the least HTTP/2 advises a server to allow (RFC 9113, 6.5.2). A lower
// limit makes callers beyond it wait on the client for a stream, and
// grpc-go's client does not hand freed streams out in arrival order, so
// the calls that wait longest wait several turns; memory is bounded by
// the soft memory limit instead (defaultMemoryLimit). Health probes come
// on connections of their own and never queue behind it.
const defaultMaxConcurrentStreams = 100

// defaultMemoryLimit is the Go runtime's soft memory limit unless
// GOMEMLIMIT or the flag sets another. The collector paces itself by
// doubling the live heap; under many large requests at once that doubled
// a heap of request buffers to 210-300 MB, where a limit makes it collect
// sooner instead (measured: 64 callers of the 20-turn ToMessages peak at
// 140-148 MB). It is soft: a live heap beyond it is not refused, the
// collector then runs more often (the runtime caps it at about half the
// CPU). The sidecar's own working set is small (idle 19 MB, value cache
// 32 MiB), so half of the example pod's 256Mi limit leaves room.
const defaultMemoryLimit = 128 << 20

// serveConfig is the configuration of the serve command.
type serveConfig struct {
	listen          listenAddress
	logLevel        slog.Level
	metricsListen   tcpAddress // empty: no metrics endpoint
	maxRecvBytes    byteSize
	shutdownTimeout nonNegativeDuration
	// maxStreams is the most RPCs one client connection may have in
	// flight at once (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS).
	maxStreams positiveInt
	// memoryLimit is the runtime's soft memory limit in bytes; 0: none;
	// fromGOMEMLIMIT: the one GOMEMLIMIT set.
	memoryLimit memoryLimit

	// Sandbox budgets of EvalTurn: the most a request may ask for.
	maxSteps       positiveInt
	maxAllocBytes  byteSize
	maxDepth       positiveInt
	maxOutputBytes byteSize
	maxToolCalls   positiveInt
	evalTimeout    nonNegativeDuration
	maxValueDepth  positiveInt

	// Request size limits of ToMessages besides the byte count.
	maxTurns   positiveInt
	maxHistory positiveInt

	// valueCacheBytes bounds the decoded values remembered between
	// requests; 0: none are.
	valueCacheBytes optionalByteSize

	// TLS key pair files; both empty: plaintext.
	tlsCert, tlsKey string
	// creds are the transport credentials loaded from the TLS files by
	// loadTLS; nil: plaintext.
	creds credentials.TransportCredentials
}

// defaultServeConfig is the configuration with nothing set.
func defaultServeConfig() serveConfig {
	limits := lisp.DefaultLimits()
	return serveConfig{
		listen:          listenAddress{network: "tcp", address: "127.0.0.1:50051"},
		logLevel:        slog.LevelInfo,
		maxRecvBytes:    16 << 20,
		shutdownTimeout: nonNegativeDuration(10 * time.Second),
		maxStreams:      defaultMaxConcurrentStreams,
		memoryLimit:     defaultMemoryLimit,
		maxSteps:        positiveInt(limits.MaxSteps),
		maxAllocBytes:   byteSize(limits.MaxAllocBytes),
		maxDepth:        positiveInt(limits.MaxDepth),
		maxOutputBytes:  byteSize(limits.MaxOutputBytes),
		maxToolCalls:    positiveInt(limits.MaxToolCalls),
		evalTimeout:     nonNegativeDuration(limits.Timeout),
		maxValueDepth:   positiveInt(server.DefaultMaxValueDepth),
		maxTurns:        positiveInt(server.DefaultMaxTurns),
		maxHistory:      positiveInt(server.DefaultMaxHistory),
		valueCacheBytes: server.DefaultValueCacheBytes,
	}
}

// serveFlags defines the serve flags over cfg, whose values are the defaults.
func serveFlags(cfg *serveConfig) *flag.FlagSet {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, by the caller
	fs.Var(&cfg.listen, "listen", "gRPC listen `address`: host:port, or unix:/path/to.sock; port 0 picks a free port (the bound address is logged)")
	fs.TextVar(&cfg.logLevel, "log-level", cfg.logLevel, "log `level`: debug, info, warn or error")
	fs.Var(&cfg.metricsListen, "metrics-listen", "`host:port` to serve Prometheus metrics at /metrics; empty: no metrics endpoint")
	fs.Var(&cfg.maxRecvBytes, "max-recv-bytes", "largest request message accepted, in `bytes` (suffixes KiB, MiB, GiB allowed); larger requests get RESOURCE_EXHAUSTED")
	fs.Var(&cfg.maxStreams, "max-concurrent-streams", "most `RPCs` one client connection may have in flight at once; a client over the limit waits (within its deadline) for one to finish, it is not refused")
	fs.Var(&cfg.memoryLimit, "memory-limit", "soft limit of the Go runtime's memory, in `bytes` (suffixes KiB, MiB, GiB, TiB allowed): the collector works harder as the heap nears it; 0: none; default: GOMEMLIMIT when that is set, else 128MiB")
	fs.Var(&cfg.shutdownTimeout, "shutdown-timeout", "on SIGTERM or SIGINT, the `duration` in-flight RPCs may run before they are cancelled")
	fs.Var(&cfg.maxSteps, "max-steps", "EvalTurn: most evaluation `steps` a program may take; requests may lower it")
	fs.Var(&cfg.maxAllocBytes, "max-alloc-bytes", "EvalTurn: most `bytes` of strings and collections a program may build; requests may lower it")
	fs.Var(&cfg.maxDepth, "max-depth", "EvalTurn: deepest nesting of function `calls`; requests may lower it")
	fs.Var(&cfg.maxOutputBytes, "max-output-bytes", "EvalTurn: most println output in `bytes`; requests may lower it")
	fs.Var(&cfg.maxToolCalls, "max-tool-calls", "EvalTurn: most tool `calls` per program; requests may lower it")
	fs.Var(&cfg.evalTimeout, "eval-timeout", "EvalTurn: wall-clock backstop per evaluation, a `duration` (0: none); steps and bytes are the deterministic limits")
	fs.Var(&cfg.maxValueDepth, "max-value-depth", "deepest nesting of EDN or JSON `values` accepted in a request")
	fs.Var(&cfg.maxTurns, "max-turns", "ToMessages: most `turns` in a request; more get INVALID_ARGUMENT")
	fs.Var(&cfg.maxHistory, "max-history", "ToMessages: most chat `messages` in a request's history; more get INVALID_ARGUMENT")
	fs.Var(&cfg.valueCacheBytes, "value-cache-bytes", "`bytes` of decoded request values (memory, data, tool results) remembered between requests, so that what an agent resends is read once (suffixes KiB, MiB, GiB allowed); 0: off")
	fs.StringVar(&cfg.tlsCert, "tls-cert", cfg.tlsCert, "serve TLS with this PEM certificate `file` (chain first); needs --tls-key; empty: plaintext")
	fs.StringVar(&cfg.tlsKey, "tls-key", cfg.tlsKey, "PEM private key `file` of --tls-cert")
	fs.VisitAll(func(f *flag.Flag) { f.Usage += " (env " + envName(f.Name) + ")" })
	return fs
}

// envName is the environment variable that a flag falls back to.
func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// parseServeConfig reads the serve configuration from the environment
// (through getenv) and the command-line arguments. It returns flag.ErrHelp
// when the arguments ask for help.
func parseServeConfig(args []string, getenv func(string) string) (serveConfig, error) {
	cfg := defaultServeConfig()
	fs := serveFlags(&cfg)
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		name := envName(f.Name)
		v := getenv(name)
		if v == "" || envErr != nil {
			return
		}
		if err := fs.Set(f.Name, v); err != nil {
			envErr = fmt.Errorf("environment variable %s=%q: %v", name, v, err)
		}
	})
	if envErr != nil {
		return cfg, envErr
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if getenv("GOMEMLIMIT") != "" && !isSet(fs, "memory-limit") {
		cfg.memoryLimit = fromGOMEMLIMIT // the runtime has read it already
	}
	if (cfg.tlsCert == "") != (cfg.tlsKey == "") {
		return cfg, errors.New("-tls-cert and -tls-key go together: set both, or neither for plaintext")
	}
	return cfg, nil
}

// isSet reports whether the flag was given, on the command line or by its
// environment variable.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// loadTLS reads the TLS key pair, when configured, into cfg.creds. Only
// TLS 1.3 is offered: both ends are deployed together, so there is no old
// client to accommodate.
func (c *serveConfig) loadTLS() error {
	if c.tlsCert == "" {
		return nil
	}
	pair, err := tls.LoadX509KeyPair(c.tlsCert, c.tlsKey)
	if err != nil {
		return fmt.Errorf("-tls-cert %s, -tls-key %s: %v", c.tlsCert, c.tlsKey, err)
	}
	c.creds = credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS13})
	return nil
}

// printServeUsage writes the serve flags with their defaults.
func printServeUsage(w io.Writer) {
	cfg := defaultServeConfig()
	fs := serveFlags(&cfg)
	fmt.Fprintf(w, "Usage: ptc-sidecar serve [flags]\n\nRuns the gRPC server until SIGTERM or SIGINT.\n\nFlags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// listenAddress is where the gRPC server listens: TCP host:port or a unix
// socket path.
type listenAddress struct {
	network string // "tcp" or "unix"
	address string
}

func (a *listenAddress) String() string {
	if a.network == "unix" {
		return "unix:" + a.address
	}
	return a.address
}

func (a *listenAddress) Set(s string) error {
	if path, ok := strings.CutPrefix(s, "unix:"); ok {
		if path == "" {
			return errors.New("unix: needs a socket path, e.g. unix:/run/ptc-sidecar.sock")
		}
		*a = listenAddress{network: "unix", address: path}
		return nil
	}
	var tcp tcpAddress
	if err := tcp.Set(s); err != nil {
		return err
	}
	if tcp == "" {
		return errors.New("must not be empty")
	}
	*a = listenAddress{network: "tcp", address: string(tcp)}
	return nil
}

// tcpAddress is a host:port, or empty for "off".
type tcpAddress string

func (a *tcpAddress) String() string { return string(*a) }

func (a *tcpAddress) Set(s string) error {
	if s == "" {
		*a = ""
		return nil
	}
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return fmt.Errorf("want host:port (e.g. 127.0.0.1:50051): %v", err)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > math.MaxUint16 {
		return fmt.Errorf("port %q is not a number from 0 to 65535", port)
	}
	*a = tcpAddress(s)
	return nil
}

// byteSize is a positive number of bytes that fits gRPC's int32 message
// size limit.
type byteSize int

func (b *byteSize) String() string { return strconv.Itoa(int(*b)) }

func (b *byteSize) Set(s string) error {
	n, ok := parseBytes(s)
	if !ok {
		return fmt.Errorf("want a number of bytes, optionally with a KiB, MiB or GiB suffix")
	}
	if n <= 0 || n > math.MaxInt32 {
		return fmt.Errorf("must be from 1 byte to 2GiB-1")
	}
	*b = byteSize(n)
	return nil
}

// parseBytes reads a whole number of bytes, optionally with a KiB, MiB,
// GiB or TiB suffix.
func parseBytes(s string) (int64, bool) {
	digits, unit := s, int64(1)
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}} {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			digits, unit = rest, u.size
			break
		}
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/unit {
		return 0, false
	}
	return n * unit, true
}

// memoryLimit is the runtime's soft memory limit: bytes, 0 for none, or
// fromGOMEMLIMIT.
type memoryLimit int64

// fromGOMEMLIMIT leaves the limit GOMEMLIMIT gave the runtime.
const fromGOMEMLIMIT memoryLimit = -1

// minMemoryLimit is the lowest limit accepted: the server's idle heap is
// a few MiB, and a limit near it would keep the collector running.
const minMemoryLimit = 32 << 20

func (m *memoryLimit) String() string { return strconv.FormatInt(int64(*m), 10) }

func (m *memoryLimit) Set(s string) error {
	n, ok := parseBytes(s)
	if !ok {
		return fmt.Errorf("want a number of bytes, optionally with a KiB, MiB, GiB or TiB suffix, or 0 for none")
	}
	if n != 0 && n < minMemoryLimit {
		return fmt.Errorf("must be at least 32MiB, or 0 for none")
	}
	*m = memoryLimit(n)
	return nil
}

// apply sets the runtime's soft memory limit and returns it in bytes, 0
// for none.
func (m memoryLimit) apply() int64 {
	switch {
	case m == 0:
		debug.SetMemoryLimit(math.MaxInt64)
	case m > 0:
		debug.SetMemoryLimit(int64(m))
	}
	if limit := debug.SetMemoryLimit(-1); limit != math.MaxInt64 { // -1 reads it
		return limit
	}
	return 0
}

// optionalByteSize is a byteSize that may also be 0, for "off".
type optionalByteSize int64

func (b *optionalByteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

func (b *optionalByteSize) Set(s string) error {
	if s == "0" {
		*b = 0
		return nil
	}
	var n byteSize
	if err := n.Set(s); err != nil {
		return fmt.Errorf("%v, or 0 for off", err)
	}
	*b = optionalByteSize(n)
	return nil
}

// positiveInt is a whole number of at least 1.
type positiveInt int64

func (n *positiveInt) String() string { return strconv.FormatInt(int64(*n), 10) }

func (n *positiveInt) Set(s string) error {
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil || v < 1 {
		return fmt.Errorf("want a whole number from 1 to %d", math.MaxInt32)
	}
	*n = positiveInt(v)
	return nil
}

// sandboxLimits are the EvalTurn budgets the flags configure.
func (c serveConfig) sandboxLimits() lisp.Limits {
	return lisp.Limits{
		MaxSteps:       int64(c.maxSteps),
		MaxAllocBytes:  int64(c.maxAllocBytes),
		MaxDepth:       int(c.maxDepth),
		MaxOutputBytes: int(c.maxOutputBytes),
		MaxToolCalls:   int(c.maxToolCalls),
		Timeout:        time.Duration(c.evalTimeout),
		// What a turn sends back must come back in a later request, with
		// room left in it for the data and the program.
		MaxEmitBytes: min(lisp.DefaultLimits().MaxEmitBytes, int64(c.maxRecvBytes)/2),
	}
}

// nonNegativeDuration is a time.Duration of at least zero.
type nonNegativeDuration time.Duration

func (d *nonNegativeDuration) String() string { return time.Duration(*d).String() }

func (d *nonNegativeDuration) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration such as 10s or 500ms")
	}
	if v < 0 {
		return fmt.Errorf("must not be negative")
	}
	*d = nonNegativeDuration(v)
	return nil
}
