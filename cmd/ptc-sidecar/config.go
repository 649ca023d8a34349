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

	"github.com/ptc-sidecar/ptc-sidecar/internal/setting"
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
// doubling the live heap; under many large requests at once that doubles a
// heap of request buffers, where a limit makes it collect sooner instead
// (docs/BENCHMARKS.md, "Measurements behind design choices"). It is soft: a
// live heap beyond it is not refused, the collector then runs more often
// (the runtime caps it at about half the CPU). The sidecar's own working
// set is small (its idle heap, and at most --memo-bytes remembered between
// requests), so the default leaves room for requests; the Kubernetes
// manifests set GOMEMLIMIT from the container's limit instead.
const defaultMemoryLimit = 128 << 20

// serveConfig is the configuration of the serve command: its own
// settings (where it listens, how it logs, how large a request may be)
// and the service's (server.Config).
type serveConfig struct {
	listen        listenAddress
	logLevel      slog.Level
	metricsListen tcpAddress // empty: no metrics endpoint
	// httpListen serves the same services over HTTP/1.1 and HTTP/2 with
	// the Connect and gRPC-Web protocols; empty: off.
	httpListen tcpAddress
	// httpReadTimeout bounds how long the body of an HTTP call (one the
	// client does not stream) takes to arrive.
	httpReadTimeout time.Duration
	maxRecvBytes    int
	// drainDelay is how long, after SIGTERM or SIGINT, the server goes on
	// taking calls while its health reports NOT_SERVING, so that load
	// balancers stop sending before it stops listening; 0: none.
	drainDelay      time.Duration
	shutdownTimeout time.Duration
	// maxConnectionAge is how long a client connection lives before the
	// server asks the client to reconnect (HTTP/2 GOAWAY), so that clients
	// of a pool resolve its replicas again; setting.None: for ever.
	maxConnectionAge time.Duration
	// maxStreams is the most RPCs one client connection may have in
	// flight at once (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS).
	maxStreams int
	// memoryLimit is the runtime's soft memory limit in bytes;
	// setting.None: none; 0 (after parsing): the one GOMEMLIMIT set.
	memoryLimit int64
	// memoBytes bounds what is remembered between requests (decoded
	// values, read programs, token counts); setting.None: nothing is.
	memoBytes int64

	// server is the service's configuration: the sandbox limits of
	// EvalTurn (the most a request may ask for), request sizes, and how
	// evaluations are admitted and waited for.
	server server.Config

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

// defaultServeConfig is the configuration with nothing set. Its memory
// limit is 0 until parseServeConfig settles it (see memoryLimit).
//
// The memo's default is room for the values, programs and texts of a long
// agent run many times over. An HTTP body has as long to arrive as a
// stream has for its start message (--stream-start-timeout): the largest,
// twice --max-recv-bytes, takes 4 s at 64 Mbit/s.
func defaultServeConfig() serveConfig {
	return serveConfig{
		listen:           listenAddress{network: "tcp", address: "127.0.0.1:50051"},
		logLevel:         slog.LevelInfo,
		maxRecvBytes:     16 << 20,
		shutdownTimeout:  10 * time.Second,
		httpReadTimeout:  10 * time.Second,
		maxStreams:       defaultMaxConcurrentStreams,
		memoBytes:        48 << 20,
		maxConnectionAge: setting.None,
		server:           server.DefaultConfig(),
	}
}

// settings are the serve settings over c, with defaultServeConfig's
// defaults: serve's own, then the service's. Each is a flag and an
// environment variable (serveFlags).
func (c *serveConfig) settings() []setting.Setting {
	d := defaultServeConfig()
	own := []setting.Setting{
		{Name: "listen", Usage: "gRPC listen `address`: host:port, or unix:/path/to.sock; port 0 picks a free port (the bound address is logged)", Value: &c.listen},
		{Name: "log-level", Usage: "log `level`: debug, info, warn or error", Value: levelValue{&c.logLevel}},
		{Name: "http-listen", Usage: "`host:port` to serve the same services over HTTP/1.1 and HTTP/2 with JSON or protobuf bodies (Connect and gRPC-Web protocols), e.g. for curl; empty: off", Value: &c.httpListen},
		{Name: "http-read-timeout", Usage: "--http-listen: most time, a `duration`, the body of a call (all but EvalTurnStream) may take to arrive before the call ends with DEADLINE_EXCEEDED, and its answer to be taken once it begins before the call is cut",
			Value: setting.NewDuration(&c.httpReadTimeout, d.httpReadTimeout)},
		{Name: "metrics-listen", Usage: "`host:port` to serve Prometheus metrics at /metrics; empty: no metrics endpoint", Value: &c.metricsListen},
		{Name: "max-recv-bytes", Usage: "largest request message accepted, in `bytes`; larger requests get RESOURCE_EXHAUSTED",
			Value: setting.NewBytes(&c.maxRecvBytes, d.maxRecvBytes, 1, math.MaxInt32)},
		{Name: "max-concurrent-streams", Usage: "most `RPCs` one client connection may have in flight at once; a client over the limit waits (within its deadline) for one to finish, it is not refused",
			Value: setting.NewCount(&c.maxStreams, d.maxStreams, 1, math.MaxInt32)},
		{Name: "memory-limit", Usage: "soft limit of the Go runtime's memory, in `bytes`: the collector works harder as the heap nears it; default: GOMEMLIMIT when that is set, else 128MiB",
			Value: setting.NewBytes(&c.memoryLimit, 0, minMemoryLimit, math.MaxInt64).OrNone("no limit")},
		{Name: "drain-delay", Usage: "on SIGTERM or SIGINT, the `duration` the server goes on taking calls while its health reports NOT_SERVING, so that load balancers in front of a pool stop sending to it, before it stops listening and --shutdown-timeout begins",
			Value: setting.NewDuration(&c.drainDelay, d.drainDelay)},
		{Name: "max-connection-age", Usage: "the `duration` a client connection lives before the server asks the client to reconnect (HTTP/2 GOAWAY; calls in flight get --shutdown-timeout to finish), so that the clients of a pool resolve its replicas again and reach new ones; none: connections live as long as their clients keep them",
			Value: setting.NewDuration(&c.maxConnectionAge, d.maxConnectionAge).OrNone("connections live as long as their clients keep them")},
		{Name: "shutdown-timeout", Usage: "on SIGTERM or SIGINT, the `duration` in-flight RPCs may run before they are cancelled",
			Value: setting.NewDuration(&c.shutdownTimeout, d.shutdownTimeout)},
		{Name: "memo-bytes", Usage: "`bytes` of what is remembered between requests (decoded values, read programs, token counts), so that what an agent resends is read once",
			Value: setting.NewBytes(&c.memoBytes, d.memoBytes, 1, math.MaxInt32).OrNone("nothing remembered")},
		{Name: "tls-cert", Usage: "serve TLS with this PEM certificate `file` (chain first); needs --tls-key; empty: plaintext", Value: (*textValue)(&c.tlsCert)},
		{Name: "tls-key", Usage: "PEM private key `file` of --tls-cert", Value: (*textValue)(&c.tlsKey)},
	}
	return append(own, c.server.Settings()...)
}

// serveFlags defines the serve flags over cfg, whose values are the
// defaults.
func serveFlags(cfg *serveConfig) *flag.FlagSet {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, by the caller
	defineFlags(fs, cfg.settings())
	return fs
}

// defineFlags defines a flag on fs for each setting, its environment
// variable named in its help.
func defineFlags(fs *flag.FlagSet, settings []setting.Setting) {
	for _, s := range settings {
		fs.Var(s.Value, s.Name, s.Help()+" (env "+envName(s.Name)+")")
	}
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
	if err := setFromEnv(fs, cfg.settings(), getenv); err != nil {
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
	if (cfg.tlsCert == "") != (cfg.tlsKey == "") {
		return cfg, errors.New("-tls-cert and -tls-key go together: set both, or neither for plaintext")
	}
	return cfg, nil
}

// setFromEnv sets the flags of fs of the settings from their environment
// variables, where those are not empty.
func setFromEnv(fs *flag.FlagSet, settings []setting.Setting, getenv func(string) string) error {
	for _, s := range settings {
		name := envName(s.Name)
		v := getenv(name)
		if v == "" {
			continue
		}
		if err := fs.Set(s.Name, v); err != nil {
			return fmt.Errorf("environment variable %s=%q: %v", name, v, err)
		}
	}
	return nil
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
	for _, s := range server.LimitSettings(&lisp.Limits{}) {
		limits = append(limits, "-"+s.Name)
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

// levelValue is a log level as a flag value.
type levelValue struct{ p *slog.Level }

func (v levelValue) String() string {
	if v.p == nil { // flag.PrintDefaults probes a zero value
		return ""
	}
	return v.p.String()
}

func (v levelValue) Set(s string) error { return v.p.UnmarshalText([]byte(s)) }

// textValue is a string flag value.
type textValue string

func (t *textValue) String() string { return string(*t) }

func (t *textValue) Set(s string) error {
	*t = textValue(s)
	return nil
}

// minMemoryLimit is the lowest memory limit accepted: the server's idle
// heap is a few MiB, and a limit near it would keep the collector running.
const minMemoryLimit = 32 << 20

// applyMemoryLimit sets the runtime's soft memory limit to limit (0 leaves
// GOMEMLIMIT's, setting.None lifts it) and returns it in bytes, 0 for none.
func applyMemoryLimit(limit int64) int64 {
	switch {
	case limit == setting.None:
		debug.SetMemoryLimit(math.MaxInt64)
	case limit > 0:
		debug.SetMemoryLimit(limit)
	}
	if limit := debug.SetMemoryLimit(-1); limit != math.MaxInt64 { // -1 reads it
		return limit
	}
	return 0
}
