// Package server is the gRPC face of ptc-sidecar: it implements
// ptcsidecar.v1.SidecarService by translating wire messages into the domain
// types of strategies/ and lisp/ and back. It holds no product logic of its
// own; a decision made here would be invisible to the CLI and the tests of
// those packages.
//
// Each RPC lives in its own file. An RPC whose capability does not exist yet
// answers UNIMPLEMENTED and says what is missing.
package server

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// Config is the server-level configuration the RPCs read. A zero field
// means its default; a negative one means "none" (no limit)
// where the field says so, and the default elsewhere.
type Config struct {
	// Limits are the sandbox budgets of EvalTurn: the most a request may
	// ask for. A request may lower them, never raise them. Zero fields are
	// lisp.DefaultLimits', lisp.Unlimited lifts a limit (see lisp.Limits).
	Limits lisp.Limits
	// MaxValueDepth bounds the nesting of EDN and JSON values in requests;
	// 0 means DefaultMaxValueDepth. It cannot be lifted.
	MaxValueDepth int
	// MaxTurns bounds the turns of a ToMessages request; 0 means
	// DefaultMaxTurns. It cannot be lifted.
	MaxTurns int
	// MaxHistory bounds the chat messages of a ToMessages request; 0 means
	// DefaultMaxHistory. It cannot be lifted.
	MaxHistory int
	// Memo is where decoded values and read programs are remembered
	// between requests; nil remembers nothing.
	Memo *memo.Memo
	// MaxConcurrentEvals bounds the evaluations of EvalTurn and
	// EvalTurnStream running at once (a stream waiting for a tool's answer
	// holds none); 0 means runtime.GOMAXPROCS(0).
	MaxConcurrentEvals int
	// EvalQueueWait is how long an evaluation waits for one of those
	// before RESOURCE_EXHAUSTED; 0 means DefaultEvalQueueWait.
	EvalQueueWait time.Duration
	// ToolTimeout bounds EvalTurnStream's wait for the answer to each tool
	// call, the most a request's limits.tool_timeout_ms may ask for; 0
	// means DefaultToolTimeout.
	ToolTimeout time.Duration
	// StreamStartTimeout bounds EvalTurnStream's wait for its first
	// message; 0 means DefaultStreamStartTimeout.
	StreamStartTimeout time.Duration
}

// Defaults of the request size limits that are not byte counts.
const (
	DefaultMaxTurns   = 1000
	DefaultMaxHistory = 10_000
)

// Defaults of the evaluation lifecycle bounds. A tool calls real services,
// so its answer may take long; the start message is sent with the stream
// by every client, so its wait is short.
const (
	DefaultEvalQueueWait      = time.Second
	DefaultToolTimeout        = 60 * time.Second
	DefaultStreamStartTimeout = 10 * time.Second
)

// Service implements ptcsidecarv1.SidecarServiceServer. It is stateless and
// safe for concurrent use.
type Service struct {
	// Embedded by value so that an RPC added to the proto but not yet to
	// this type answers UNIMPLEMENTED instead of breaking the build.
	ptcsidecarv1.UnimplementedSidecarServiceServer

	cfg        Config
	limits     *requestLimits
	jsonFields jsonFields // limits' schemas by JSON field name, for CheckJSON
	remembered remembered
	evals      *admission
	// stopping ends with Shutdown (shutdown.go); running counts the
	// calls it ends.
	stopping context.Context
	stop     context.CancelCauseFunc
	running  atomic.Int64
}

var _ ptcsidecarv1.SidecarServiceServer = (*Service)(nil)

// New returns a Service with the given configuration, defaults filled in.
func New(cfg Config) *Service {
	cfg.Limits = cfg.Limits.WithDefaults()
	if cfg.MaxValueDepth <= 0 {
		cfg.MaxValueDepth = DefaultMaxValueDepth
	}
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = DefaultMaxTurns
	}
	if cfg.MaxHistory <= 0 {
		cfg.MaxHistory = DefaultMaxHistory
	}
	if cfg.MaxConcurrentEvals <= 0 {
		cfg.MaxConcurrentEvals = runtime.GOMAXPROCS(0)
	}
	if cfg.EvalQueueWait <= 0 {
		cfg.EvalQueueWait = DefaultEvalQueueWait
	}
	if cfg.ToolTimeout <= 0 {
		cfg.ToolTimeout = DefaultToolTimeout
	}
	if cfg.StreamStartTimeout <= 0 {
		cfg.StreamStartTimeout = DefaultStreamStartTimeout
	}
	limits := newRequestLimits(cfg)
	stopping, stop := context.WithCancelCause(context.Background())
	return &Service{cfg: cfg, limits: limits, jsonFields: newJSONFields(limits), remembered: newRemembered(cfg.Memo),
		evals: newAdmission(cfg.MaxConcurrentEvals, cfg.EvalQueueWait), stopping: stopping, stop: stop}
}

// AdmissionStats reports the evaluations running, waiting and refused,
// for metrics.
func (s *Service) AdmissionStats() AdmissionStats { return s.evals.stats() }

// WarmUp does before the first request what would otherwise make it slow:
// loading the default tokenizer and counting the built-in system prompt's
// tokens (strategies.Remembered.WarmUp).
func (s *Service) WarmUp() error { return s.remembered.strategies.WarmUp() }
