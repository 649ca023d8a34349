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
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/credentials"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"github.com/ptc-sidecar/ptc-sidecar/server"
)

// envPrefix starts the environment variable of every serve flag (and of
// eval's sandbox limit flags): --max-recv-bytes falls back to
// PTC_SIDECAR_MAX_RECV_BYTES. A flag given on the command line beats its
// variable, which beats the default.
//
// One rule for every number a flag takes: 0 means the flag's default, and
// where "no limit" (or "no cache") is allowed at all, the word none says so.
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
// CPU). The sidecar's own working set is small (idle 19 MB, what it
// remembers between requests at most --memo-bytes, 48 MiB), so 128 MiB
// leaves room for requests; the example pod sets GOMEMLIMIT to about 80% of
// its container limit instead.
const defaultMemoryLimit = 128 << 20

// serveConfig is the configuration of the serve command.
type serveConfig struct {
	listen        listenAddress
	logLevel      slog.Level
	metricsListen tcpAddress // empty: no metrics endpoint
	// httpListen serves the same services over HTTP/1.1 and HTTP/2 with
	// the Connect and gRPC-Web protocols; empty: off.
	httpListen tcpAddress
	// httpReadTimeout bounds how long the body of an HTTP call (one the
	// client does not stream) takes to arrive.
	httpReadTimeout nonNegativeDuration
	maxRecvBytes    byteSize
	shutdownTimeout nonNegativeDuration
	// maxStreams is the most RPCs one client connection may have in
	// flight at once (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS).
	maxStreams positiveInt
	// memoryLimit is the runtime's soft memory limit in bytes;
	// noMemoryLimit: none; 0 (after parsing): the one GOMEMLIMIT set.
	memoryLimit memoryLimit

	// limits are the sandbox budgets of EvalTurn (sandboxLimitFlags): the
	// most a request may ask for.
	limits        lisp.Limits
	maxValueDepth positiveInt

	// Request size limits of ToMessages besides the byte count.
	maxTurns   positiveInt
	maxHistory positiveInt

	// The lifecycle of evaluations: how many run at once, how long one
	// waits to start, and the stream's waits for its caller.
	maxConcurrentEvals positiveInt
	evalQueueWait      nonNegativeDuration
	toolTimeout        nonNegativeDuration
	streamStartTimeout nonNegativeDuration

	// memoBytes bounds what is remembered between requests (decoded
	// values, read programs, token counts); noMemo: nothing is.
	memoBytes optionalByteSize

	// TLS key pair files; both empty: plaintext.
	tlsCert, tlsKey string
	// creds are the transport credentials loaded from the TLS files by
	// loadTLS, and tlsConfig the same for the HTTP endpoint; nil: plaintext.
	creds     credentials.TransportCredentials
	tlsConfig *tls.Config
	// tracing is the OpenTelemetry tracing the OTEL_* variables configure;
	// nil: off.
	tracing *tracing
}

// defaultHTTPReadTimeout is the default --http-read-timeout, as long as
// a stream may wait for its start message (--stream-start-timeout): the
// largest body, twice --max-recv-bytes, takes 4 s at 64 Mbit/s.
const defaultHTTPReadTimeout = 10 * time.Second

// defaultMemoBytes is the default budget of what is remembered between
// requests: room for the values, programs and texts of a long agent run
// many times over.
const defaultMemoBytes = 48 << 20

// defaultServeConfig is the configuration with nothing set. Its memory
// limit is 0 until parseServeConfig settles it (see memoryLimit).
func defaultServeConfig() serveConfig {
	return serveConfig{
		listen:          listenAddress{network: "tcp", address: "127.0.0.1:50051"},
		logLevel:        slog.LevelInfo,
		maxRecvBytes:    16 << 20,
		shutdownTimeout: nonNegativeDuration(10 * time.Second),
		httpReadTimeout: nonNegativeDuration(defaultHTTPReadTimeout),
		maxStreams:      defaultMaxConcurrentStreams,
		limits:          lisp.DefaultLimits(),
		maxValueDepth:   positiveInt(server.DefaultMaxValueDepth),
		maxTurns:        positiveInt(server.DefaultMaxTurns),
		maxHistory:      positiveInt(server.DefaultMaxHistory),
		memoBytes:       defaultMemoBytes,

		maxConcurrentEvals: positiveInt(runtime.GOMAXPROCS(0)),
		evalQueueWait:      nonNegativeDuration(server.DefaultEvalQueueWait),
		toolTimeout:        nonNegativeDuration(server.DefaultToolTimeout),
		streamStartTimeout: nonNegativeDuration(server.DefaultStreamStartTimeout),
	}
}

// serveFlags defines the serve flags over cfg, whose values are the defaults.
// The sandbox limits (sandboxLimitFlags) bound EvalTurn; a request may
// lower them.
func serveFlags(cfg *serveConfig) *flag.FlagSet {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, by the caller
	fs.Var(&cfg.listen, "listen", "gRPC listen `address`: host:port, or unix:/path/to.sock; port 0 picks a free port (the bound address is logged)")
	fs.TextVar(&cfg.logLevel, "log-level", cfg.logLevel, "log `level`: debug, info, warn or error")
	fs.Var(&cfg.httpListen, "http-listen", "`host:port` to serve the same services over HTTP/1.1 and HTTP/2 with JSON or protobuf bodies (Connect and gRPC-Web protocols), e.g. for curl; empty: off")
	fs.Var(orDefault(&cfg.httpReadTimeout), "http-read-timeout", "--http-listen: most time, a `duration`, the body of a call (all but EvalTurnStream) may take to arrive before the call ends with DEADLINE_EXCEEDED; 0: the default")
	fs.Var(&cfg.metricsListen, "metrics-listen", "`host:port` to serve Prometheus metrics at /metrics; empty: no metrics endpoint")
	fs.Var(orDefault(&cfg.maxRecvBytes), "max-recv-bytes", "largest request message accepted, in `bytes` (suffixes KiB, MiB, GiB allowed); larger requests get RESOURCE_EXHAUSTED; 0: the default")
	fs.Var(orDefault(&cfg.maxStreams), "max-concurrent-streams", "most `RPCs` one client connection may have in flight at once; a client over the limit waits (within its deadline) for one to finish, it is not refused; 0: the default")
	fs.Var(&cfg.memoryLimit, "memory-limit", "soft limit of the Go runtime's memory, in `bytes` (suffixes KiB, MiB, GiB, TiB allowed): the collector works harder as the heap nears it; 0: the default, GOMEMLIMIT when that is set, else 128MiB; none: no limit")
	fs.Var(orDefault(&cfg.shutdownTimeout), "shutdown-timeout", "on SIGTERM or SIGINT, the `duration` in-flight RPCs may run before they are cancelled; 0: the default")
	registerLimitFlags(fs, &cfg.limits)
	fs.Var(orDefault(&cfg.maxConcurrentEvals), "max-concurrent-evals", "EvalTurn, EvalTurnStream: most `evaluations` running at once, server-wide (a stream waiting for a tool answer holds none); default: GOMAXPROCS, the processors the runtime uses; 0: the default")
	fs.Var(orDefault(&cfg.evalQueueWait), "eval-queue-wait", "EvalTurn, EvalTurnStream: how long an evaluation waits, a `duration`, for one of the --max-concurrent-evals to finish before it is refused with RESOURCE_EXHAUSTED; its timeout starts once it runs; 0: the default")
	fs.Var(orDefault(&cfg.toolTimeout), "tool-timeout", "EvalTurnStream: most time, a `duration`, waited for the answer to each tool call before the turn ends with a tool_timeout error; not counted in --eval-timeout; requests may lower it (limits.tool_timeout_ms); 0: the default")
	fs.Var(orDefault(&cfg.streamStartTimeout), "stream-start-timeout", "EvalTurnStream: most time, a `duration`, a stream may stay open without its start message before it ends with DEADLINE_EXCEEDED; 0: the default")
	fs.Var(orDefault(&cfg.maxValueDepth), "max-value-depth", "deepest nesting of EDN or JSON `values` accepted in a request; 0: the default")
	fs.Var(orDefault(&cfg.maxTurns), "max-turns", "ToMessages: most `turns` in a request; more get INVALID_ARGUMENT; 0: the default")
	fs.Var(orDefault(&cfg.maxHistory), "max-history", "ToMessages: most chat `messages` in a request's history; more get INVALID_ARGUMENT; 0: the default")
	fs.Var(orDefault(&cfg.memoBytes), "memo-bytes", "`bytes` of what is remembered between requests (decoded values, read programs, token counts), so that what an agent resends is read once (suffixes KiB, MiB, GiB allowed); 0: the default; none: nothing is")
	fs.StringVar(&cfg.tlsCert, "tls-cert", cfg.tlsCert, "serve TLS with this PEM certificate `file` (chain first); needs --tls-key; empty: plaintext")
	fs.StringVar(&cfg.tlsKey, "tls-key", cfg.tlsKey, "PEM private key `file` of --tls-cert")
	fs.VisitAll(func(f *flag.Flag) { f.Usage += " (env " + envName(f.Name) + ")" })
	return fs
}

// defaultedValue is a flag value whose zero means the flag's default: the
// value it held when registered.
type defaultedValue[T comparable, P interface {
	*T
	flag.Value
}] struct {
	p   P
	def T
}

// orDefault wraps the flag value at p, which holds the default, so that
// setting it to zero sets the default.
func orDefault[T comparable, P interface {
	*T
	flag.Value
}](p P) *defaultedValue[T, P] {
	return &defaultedValue[T, P]{p: p, def: *p}
}

func (d *defaultedValue[T, P]) String() string {
	if d == nil || d.p == nil { // flag.PrintDefaults probes a zero value
		return ""
	}
	return d.p.String()
}

func (d *defaultedValue[T, P]) Set(s string) error {
	var v, zero T
	if err := P(&v).Set(s); err != nil {
		return err
	}
	if v == zero {
		v = d.def
	}
	*d.p = v
	return nil
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
	if err := setFromEnv(fs, getenv, func(string) bool { return true }); err != nil {
		return cfg, err
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if cfg.memoryLimit == 0 && getenv("GOMEMLIMIT") == "" {
		cfg.memoryLimit = defaultMemoryLimit // else the runtime has read GOMEMLIMIT
	}
	if cfg.maxValueDepth > lisp.MaxValueNesting {
		return cfg, fmt.Errorf("-max-value-depth: at most %d, the deepest a value may nest in the sandbox", lisp.MaxValueNesting)
	}
	if (cfg.tlsCert == "") != (cfg.tlsKey == "") {
		return cfg, errors.New("-tls-cert and -tls-key go together: set both, or neither for plaintext")
	}
	return cfg, nil
}

// setFromEnv sets the flags of fs that pass only from their environment
// variables, where those are not empty.
func setFromEnv(fs *flag.FlagSet, getenv func(string) string, only func(flagName string) bool) error {
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		name := envName(f.Name)
		v := getenv(name)
		if v == "" || envErr != nil || !only(f.Name) {
			return
		}
		if err := fs.Set(f.Name, v); err != nil {
			envErr = fmt.Errorf("environment variable %s=%q: %v", name, v, err)
		}
	})
	return envErr
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
	c.tlsConfig = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS13}
	c.creds = credentials.NewTLS(c.tlsConfig)
	return nil
}

// printServeUsage writes the serve flags with their defaults.
func printServeUsage(w io.Writer) {
	cfg := defaultServeConfig()
	fs := serveFlags(&cfg)
	var limits []string
	for _, row := range sandboxLimitFlags {
		limits = append(limits, "-"+row.name)
	}
	fmt.Fprintf(w, "Usage: ptc-sidecar serve [flags]\n\nRuns the gRPC server until SIGTERM or SIGINT.\n"+
		"The sandbox limits (%s) bound every EvalTurn;\n"+
		"a request's limits may lower them, never raise them.\n"+
		"A number flag set to 0 takes its default; none, where allowed, means no limit.\n\nFlags:\n",
		strings.Join(limits, ", "))
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

// byteSize is a number of bytes that fits gRPC's int32 message size
// limit; 0 is the flag's default (orDefault).
type byteSize int

func (b *byteSize) String() string { return formatBytes(int64(*b)) }

func (b *byteSize) Set(s string) error {
	n, ok := parseBytes(s)
	if !ok {
		return fmt.Errorf("want a number of bytes, optionally with a KiB, MiB or GiB suffix, or 0 for the default")
	}
	if n > math.MaxInt32 {
		return fmt.Errorf("must be from 1 byte to 2GiB-1, or 0 for the default")
	}
	*b = byteSize(n)
	return nil
}

// byteUnits are the suffixes of byte counts, largest first.
var byteUnits = []struct {
	suffix string
	size   int64
}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}

// parseBytes reads a whole number of bytes, optionally with a KiB, MiB,
// GiB or TiB suffix.
func parseBytes(s string) (int64, bool) {
	digits, unit := s, int64(1)
	for _, u := range byteUnits {
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

// memoryLimit is the runtime's soft memory limit: bytes, noMemoryLimit,
// or 0 for the default. parseServeConfig makes the default
// defaultMemoryLimit unless GOMEMLIMIT is set: then 0 leaves the limit
// GOMEMLIMIT gave the runtime.
type memoryLimit int64

// noMemoryLimit is the memory limit "none".
const noMemoryLimit memoryLimit = -1

// minMemoryLimit is the lowest limit accepted: the server's idle heap is
// a few MiB, and a limit near it would keep the collector running.
const minMemoryLimit = 32 << 20

func (m *memoryLimit) String() string {
	if *m == noMemoryLimit {
		return "none"
	}
	return formatBytes(int64(*m))
}

func (m *memoryLimit) Set(s string) error {
	if s == "none" {
		*m = noMemoryLimit
		return nil
	}
	n, ok := parseBytes(s)
	if !ok {
		return fmt.Errorf("want a number of bytes, optionally with a KiB, MiB, GiB or TiB suffix, 0 for the default, or none for no limit")
	}
	if n != 0 && n < minMemoryLimit {
		return fmt.Errorf("must be at least 32MiB, 0 for the default, or none for no limit")
	}
	*m = memoryLimit(n)
	return nil
}

// apply sets the runtime's soft memory limit (0 leaves GOMEMLIMIT's) and
// returns it in bytes, 0 for none.
func (m memoryLimit) apply() int64 {
	switch {
	case m == noMemoryLimit:
		debug.SetMemoryLimit(math.MaxInt64)
	case m > 0:
		debug.SetMemoryLimit(int64(m))
	}
	if limit := debug.SetMemoryLimit(-1); limit != math.MaxInt64 { // -1 reads it
		return limit
	}
	return 0
}

// optionalByteSize is a byteSize, or noMemo for "none".
type optionalByteSize int64

// noMemo, as --memo-bytes, remembers nothing between requests.
const noMemo = -1

func (b *optionalByteSize) String() string {
	if *b < 0 {
		return "none"
	}
	return formatBytes(int64(*b))
}

func (b *optionalByteSize) Set(s string) error {
	if s == "none" {
		*b = noMemo
		return nil
	}
	var n byteSize
	if err := n.Set(s); err != nil {
		return fmt.Errorf("%v; none to remember nothing", err)
	}
	*b = optionalByteSize(n)
	return nil
}

// positiveInt is a whole number of at least 1, or 0 for the flag's
// default (orDefault).
type positiveInt int64

func (n *positiveInt) String() string { return strconv.FormatInt(int64(*n), 10) }

func (n *positiveInt) Set(s string) error {
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil || v < 0 {
		return fmt.Errorf("want a whole number from 1 to %d, or 0 for the default", math.MaxInt32)
	}
	*n = positiveInt(v)
	return nil
}

// nonNegativeDuration is a time.Duration of at least zero; 0 is the
// flag's default (orDefault).
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
