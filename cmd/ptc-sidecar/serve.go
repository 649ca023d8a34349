package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/server"
)

func init() {
	registerCommand(command{
		name:    "serve",
		summary: "run the gRPC server until SIGTERM or SIGINT (the default command)",
		run:     runServe,
	})
}

func runServe(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseServeConfig(args, os.Getenv)
	if errors.Is(err, flag.ErrHelp) {
		printServeUsage(stdout)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "ptc-sidecar serve: %v\nRun 'ptc-sidecar serve -h' for the flags.\n", err)
		return 2
	}
	if err := cfg.loadTLS(); err != nil {
		fmt.Fprintf(stderr, "ptc-sidecar serve: %v\n", err)
		return 2
	}
	// Nothing the server logs waits for stderr (logOutput): a stream no
	// one reads costs lines, never a call or the shutdown. The last lines
	// get logCloseWait to go out.
	logs := newLogOutput(stderr)
	defer logs.Close(logCloseWait)
	if cfg.tracing, err = tracingFromEnv(context.Background(), os.Getenv, stdout); err != nil {
		fmt.Fprintf(stderr, "ptc-sidecar serve: %v\n", err)
		return 2
	}
	defer flushTraces(cfg.tracing, logs) // before logs.Close: its error is queued with the rest
	logOptions := &slog.HandlerOptions{Level: cfg.logLevel}
	logger := slog.New(slog.NewJSONHandler(logs, logOptions))
	requestLog := slog.New(slog.NewJSONHandler(logs.requests(), logOptions))
	routeLibraryLogs(logs, logger, os.Getenv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(signals)
	go func() {
		select {
		case sig := <-signals:
			// The first signal starts the graceful shutdown. The default
			// handling comes back before it begins, so a second signal
			// ends the process at once.
			signal.Stop(signals)
			logger.Info("signal received", "signal", sig.String())
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := serve(ctx, cfg, logs, logger, requestLog); err != nil {
		logger.Error("server failed", "error", err.Error())
		return 1
	}
	return 0
}

// serve runs the gRPC server (and the metrics endpoint, when configured)
// until ctx is cancelled, then shuts down gracefully. logs is the stream
// logger and requestLog write to, whose dropped lines the metrics count.
func serve(ctx context.Context, cfg serveConfig, logs *logOutput, logger, requestLog *slog.Logger) error {
	memoryLimit := applyMemoryLimit(cfg.memoryLimit)
	lis, err := listen(cfg.listen)
	if err != nil {
		return err
	}
	defer lis.Close() // a no-op after a graceful stop; frees the address on early errors

	var metrics *metricsEndpoint
	if cfg.metricsListen != "" {
		metrics, err = newMetricsEndpoint(string(cfg.metricsListen))
		if err != nil {
			return err
		}
	}
	remembered := memo.New(cfg.memoBytes) // setting.None: nil, nothing remembered
	sidecar := newSidecar(cfg, remembered)
	metrics.watchMemo(remembered)
	metrics.watchAdmission(sidecar.AdmissionStats)
	metrics.watchLogs(logs)
	srv, healthSrv := newGRPCServer(cfg, logger, requestLog, metrics.serverMetrics(), sidecar)
	var web *httpEndpoint
	if cfg.httpListen != "" {
		web, err = newHTTPEndpoint(cfg, srv, sidecar, metrics)
		if err != nil {
			metrics.close()
			return err
		}
	}

	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	if web != nil {
		go web.serve(logger)
		logger.Info("HTTP listening", "addr", web.addr(), "protocols", "connect, grpc-web, grpc")
	}
	if metrics != nil {
		go metrics.serve(logger)
		logger.Info("metrics listening", "addr", metrics.addr())
	}
	// The system prompt's token count would otherwise make the first
	// ToMessages call a few milliseconds slower; readiness waits for it
	// instead. A failure only costs that first call.
	warmStart := time.Now()
	if err := sidecar.WarmUp(); err != nil {
		logger.Warn("tokenizer warm-up failed", "error", err.Error())
	}
	logger.Debug("tokenizer warmed up", "took", time.Since(warmStart).String())
	returnStartupGarbage(logger)
	markServing(healthSrv)
	if cfg.tracing != nil {
		logger.Info("tracing", "exporter", cfg.tracing.exporter)
	}
	logger.Info("serving", "network", cfg.listen.network, "addr", lis.Addr().String(),
		"tls", cfg.creds != nil, "version", binaryVersion(), "max_recv_bytes", cfg.maxRecvBytes,
		"max_concurrent_streams", cfg.maxStreams, "memory_limit", memoryLimit,
		"drain_delay", cfg.drainDelay.String(), "shutdown_timeout", cfg.shutdownTimeout.String(), "max_concurrent_evals", cfg.server.MaxConcurrentEvals)

	select {
	case err := <-served:
		web.close()
		metrics.close()
		return fmt.Errorf("gRPC server stopped: %w", err)
	case <-ctx.Done():
	}

	healthSrv.Shutdown() // every service NOT_SERVING, so probes and load balancers stop sending
	if err := drain(cfg.drainDelay, served, logger); err != nil {
		web.close()
		metrics.close()
		return fmt.Errorf("gRPC server stopped: %w", err)
	}
	logger.Info("shutting down", "timeout", cfg.shutdownTimeout.String())
	err = stopServer(srv, web, sidecar, served, cfg.shutdownTimeout, logger)
	metrics.close()
	if err != nil {
		return fmt.Errorf("gRPC server stopped: %w", err)
	}
	logger.Info("stopped")
	return nil
}

// drain waits delay while the server, its health already NOT_SERVING,
// goes on answering every call, old and new, as before: a replica of a
// pool is still in the addresses its clients resolved, and in the
// endpoints of its Service until the readiness probe or the pod's
// deletion removes it, so calls keep coming for a moment after SIGTERM.
// Clients that watch health (gRPC's client-side health checking) stop
// picking it at once. It returns Serve's error if the server stops by
// itself meanwhile. A second signal still ends the process at once.
func drain(delay time.Duration, served <-chan error, logger *slog.Logger) error {
	if delay <= 0 {
		return nil
	}
	logger.Info("draining: NOT_SERVING, still answering", "delay", delay.String())
	timer := time.NewTimer(delay)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case err := <-served:
		return err
	}
}

// handlerGrace is how long a shutdown goes on past its timeout at most:
// the calls still running are answered, then cut. A handler that does not
// return (an evaluation deep in a builtin that has not yet looked at its
// context) is left behind: the process exits without it. The steps of
// stopServer end by nine tenths of it, leaving the rest for the process's
// exit. Most of it goes to the answers: on a loaded machine a stopped
// call's answer takes several scheduling rounds to reach its socket (its
// handler, the transport's writer, for HTTP the transcoder and the HTTP/2
// writer), and the cut drops whatever has not.
const handlerGrace = 500 * time.Millisecond

// stopServer stops srv, and web when not nil, within timeout plus
// handlerGrace, whatever their handlers do: gracefully first, letting the
// RPCs in flight finish (HTTP calls first, since grpc-go's GracefulStop
// would cut them off). At the timeout the sidecar ends its evaluations,
// and the streams waiting for a tool's answer, each answered UNAVAILABLE
// (server.Service.Shutdown); the answers go out through the graceful stop,
// which ends once they are sent. Whatever still runs a little later is
// cut off. It returns Serve's error (from served), or nil when it gave up
// on handlers that did not return.
func stopServer(srv *grpc.Server, web *httpEndpoint, sidecar *server.Service, served <-chan error, timeout time.Duration, logger *slog.Logger) error {
	stopped := make(chan struct{})
	draining, stopDraining := context.WithCancel(context.Background())
	defer stopDraining()
	go func() {
		web.drain(draining)
		srv.GracefulStop()
		close(stopped)
	}()
	// stoppedBy waits for the stop until deadline, and reports whether it
	// came.
	stoppedBy := func(deadline time.Time) bool {
		timer := time.NewTimer(time.Until(deadline))
		defer timer.Stop()
		select {
		case <-stopped:
			return true
		case <-timer.C:
			return false
		}
	}
	if stoppedBy(time.Now().Add(timeout)) {
		return stopResult(served)
	}
	logger.Warn("shutdown timeout reached; ending the evaluations still running, each answered UNAVAILABLE")
	began := time.Now()
	step := func(tenths time.Duration) time.Time { return began.Add(handlerGrace * tenths / 10) }
	answering, answered := context.WithDeadline(context.Background(), step(5))
	// The HTTP streams' bodies end as soon as every call is stopped, not
	// once every evaluation has returned: an evaluation deep in work that
	// does not look at its context holds Shutdown to its deadline, and the
	// answered streams' answers, which go out only once their bodies end,
	// would then have the least of the grace left to go out on a loaded
	// machine before the cut below.
	sidecar.StopCalls()
	web.endStreams()
	sidecar.Shutdown(answering)
	answered()
	// The HTTP calls' answers first: the graceful stop of the gRPC server
	// would cut them; then the rest go out with that stop.
	web.waitAnswered(step(6))
	stopDraining()
	if stoppedBy(step(8)) {
		return stopResult(served)
	}
	logger.Warn("RPCs still running after their evaluations were ended; cutting them off")
	web.close()
	// Stop cancels the RPCs and closes the connections; GracefulStop (and
	// Serve) return once every handler has.
	go srv.Stop()
	if stoppedBy(step(9)) {
		return stopResult(served)
	}
	logger.Warn("RPCs still running after their cancellation; exiting without them", "waited", time.Since(began).Round(time.Millisecond).String())
	return nil
}

// stopResult is Serve's answer once the server was asked to stop. A
// signal in the first moments of start-up can stop the server before its
// Serve begins, which then returns grpc.ErrServerStopped at once: that is
// the stop asked for, not a failure.
func stopResult(served <-chan error) error {
	if err := <-served; !errors.Is(err, grpc.ErrServerStopped) {
		return err
	}
	return nil
}

// returnStartupGarbage collects what start-up left behind, the tokenizer
// warm-up's garbage most of all, and gives the freed pages back to the OS.
// An idle server would otherwise keep them resident: the next collection
// comes only once the heap has grown by GOGC percent, i.e. under load. It
// runs only when start-up has already needed a collection: before the
// first one, the collector's code and buffers are not yet resident, and
// paging them in would cost more than the small heap could give back. GC
// stats are read with debug.ReadGCStats, not runtime.ReadMemStats or
// runtime/metrics, whose first use alone adds to the RSS. What each of
// these saves is in docs/BENCHMARKS.md ("Measurements behind design
// choices").
func returnStartupGarbage(logger *slog.Logger) {
	var gc debug.GCStats
	debug.ReadGCStats(&gc)
	if gc.NumGC == 0 {
		return
	}
	start := time.Now()
	debug.FreeOSMemory()
	logger.Debug("start-up garbage returned", "took", time.Since(start).String())
}

// listen opens the gRPC listener. A stale unix socket left by a process
// that died is removed first; any other file at that path is an error.
func listen(a listenAddress) (net.Listener, error) {
	if a.network == "unix" {
		if info, err := os.Lstat(a.address); err == nil && info.Mode().Type() == fs.ModeSocket {
			if err := os.Remove(a.address); err != nil {
				return nil, fmt.Errorf("removing stale socket: %w", err)
			}
		}
	}
	lis, err := net.Listen(a.network, a.address)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", a.String(), err)
	}
	return lis, nil
}

// metricsEndpoint serves Prometheus metrics over HTTP at /metrics. A nil
// *metricsEndpoint is the disabled endpoint.
type metricsEndpoint struct {
	lis      net.Listener
	http     *http.Server
	metrics  *grpcMetrics
	registry *prometheus.Registry
}

func newMetricsEndpoint(addr string) (*metricsEndpoint, error) {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics listen on %s: %w", addr, err)
	}
	m := newGRPCMetrics()
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		m,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	return &metricsEndpoint{
		lis:      lis,
		http:     &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second},
		metrics:  m,
		registry: reg,
	}, nil
}

// watchMemo reports the counters of what is remembered between requests,
// one series per table of m (values, programs, token_counts), read at each
// scrape.
func (e *metricsEndpoint) watchMemo(m *memo.Memo) {
	if e == nil {
		return
	}
	e.registry.MustRegister(memoCollector{m})
}

// memoCollector is the Prometheus view of a memo.Memo.
type memoCollector struct{ memo *memo.Memo }

var memoMetrics = struct{ hits, misses, evictions, entries, bytes, budget *prometheus.Desc }{
	hits:      prometheus.NewDesc("ptc_sidecar_memo_hits_total", "Results found remembered, by table.", []string{"table"}, nil),
	misses:    prometheus.NewDesc("ptc_sidecar_memo_misses_total", "Results computed because they were not remembered, by table.", []string{"table"}, nil),
	evictions: prometheus.NewDesc("ptc_sidecar_memo_evictions_total", "Results forgotten to stay within --memo-bytes, by table.", []string{"table"}, nil),
	entries:   prometheus.NewDesc("ptc_sidecar_memo_entries", "Results remembered, by table.", []string{"table"}, nil),
	bytes:     prometheus.NewDesc("ptc_sidecar_memo_bytes", "Estimated bytes of the remembered results and their keys, by table.", []string{"table"}, nil),
	budget:    prometheus.NewDesc("ptc_sidecar_memo_budget_bytes", "The bytes all tables may hold together (--memo-bytes).", nil, nil),
}

func (c memoCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- memoMetrics.hits
	ch <- memoMetrics.misses
	ch <- memoMetrics.evictions
	ch <- memoMetrics.entries
	ch <- memoMetrics.bytes
	ch <- memoMetrics.budget
}

func (c memoCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.memo.Stats() {
		ch <- prometheus.MustNewConstMetric(memoMetrics.hits, prometheus.CounterValue, float64(s.Hits), s.Table)
		ch <- prometheus.MustNewConstMetric(memoMetrics.misses, prometheus.CounterValue, float64(s.Misses), s.Table)
		ch <- prometheus.MustNewConstMetric(memoMetrics.evictions, prometheus.CounterValue, float64(s.Evictions), s.Table)
		ch <- prometheus.MustNewConstMetric(memoMetrics.entries, prometheus.GaugeValue, float64(s.Entries), s.Table)
		ch <- prometheus.MustNewConstMetric(memoMetrics.bytes, prometheus.GaugeValue, float64(s.Bytes), s.Table)
	}
	ch <- prometheus.MustNewConstMetric(memoMetrics.budget, prometheus.GaugeValue, float64(c.memo.Budget()))
}

// watchAdmission reports the evaluation slots (see --max-concurrent-evals
// and --large-request-bytes), read from stats at each scrape.
func (e *metricsEndpoint) watchAdmission(stats func() server.AdmissionStats) {
	if e == nil {
		return
	}
	gauge := func(name, help string, read func(server.AdmissionStats) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ptc_sidecar_evaluations_" + name, Help: help},
			func() float64 { return read(stats()) })
	}
	e.registry.MustRegister(
		gauge("limit", "Most evaluations running at once (--max-concurrent-evals).", func(s server.AdmissionStats) float64 { return float64(s.Limit) }),
		gauge("running", "Evaluations, and large requests, holding a slot; a stream waiting for a tool answer holds none.", func(s server.AdmissionStats) float64 { return float64(s.Running) }),
		gauge("waiting", "Evaluations, and large requests, waiting for a slot (at most --eval-queue-wait).", func(s server.AdmissionStats) float64 { return float64(s.Waiting) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "ptc_sidecar_evaluations_refused_total",
			Help: "Evaluations and large requests refused with RESOURCE_EXHAUSTED after waiting --eval-queue-wait for a slot."},
			func() float64 { return float64(stats().Refused) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "ptc_sidecar_large_requests_total",
			Help: "Requests over --large-request-bytes, of any method, that waited for an evaluation slot before they were decoded."},
			func() float64 { return float64(stats().Large) }),
	)
}

// watchLogs reports the log lines dropped because stderr took none while
// the queue of lines waiting for it was full (logOutput).
func (e *metricsEndpoint) watchLogs(logs *logOutput) {
	if e == nil {
		return
	}
	e.registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "ptc_sidecar_log_lines_dropped_total",
		Help: "Log lines dropped because stderr took no lines while the queue of lines waiting for it (256 KiB) was full."},
		func() float64 { return float64(logs.Dropped()) }))
}

// instrumentHTTP counts the HTTP endpoint's requests by status code,
// those refused before they become a gRPC call (bad JSON, unknown path,
// too large) included; the calls themselves are in the gRPC metrics.
func (e *metricsEndpoint) instrumentHTTP(h http.Handler) http.Handler {
	if e == nil {
		return h
	}
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ptc_sidecar_http_requests_total",
		Help: "Requests to --http-listen by HTTP status (gRPC-Web and streams answer 200 and carry their status in trailers).",
	}, []string{"code"})
	e.registry.MustRegister(requests)
	return promhttp.InstrumentHandlerCounter(requests, h)
}

func (e *metricsEndpoint) serverMetrics() *grpcMetrics {
	if e == nil {
		return nil
	}
	return e.metrics
}

func (e *metricsEndpoint) addr() string { return e.lis.Addr().String() }

func (e *metricsEndpoint) serve(logger *slog.Logger) {
	if err := e.http.Serve(e.lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error("metrics endpoint stopped", "error", err.Error())
	}
}

// close stops the endpoint; scrapes in progress are cut short, which costs
// a scraper one sample at most.
func (e *metricsEndpoint) close() {
	if e != nil {
		e.http.Close()
	}
}

// markServing declares every service ready.
func markServing(h *health.Server) {
	for _, name := range healthServices {
		h.SetServingStatus(name, servingStatus)
	}
}
