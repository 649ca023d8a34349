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
	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// Config is the server-level configuration the RPCs read.
type Config struct {
	// Limits are the sandbox budgets of EvalTurn: the most a request may
	// ask for. A request may lower them, never raise them.
	Limits lisp.Limits
	// MaxValueDepth bounds the nesting of EDN and JSON values in requests;
	// 0 means DefaultMaxValueDepth.
	MaxValueDepth int
	// MaxTurns bounds the turns of a ToMessages request; 0 means
	// DefaultMaxTurns.
	MaxTurns int
	// MaxHistory bounds the chat messages of a ToMessages request; 0 means
	// DefaultMaxHistory.
	MaxHistory int
	// Memo is where decoded values and read programs are remembered
	// between requests; nil remembers nothing.
	Memo *memo.Memo
}

// Defaults of the request size limits that are not byte counts.
const (
	DefaultMaxTurns   = 1000
	DefaultMaxHistory = 10_000
)

// Service implements ptcsidecarv1.SidecarServiceServer. It is stateless and
// safe for concurrent use.
type Service struct {
	// Embedded by value so that an RPC added to the proto but not yet to
	// this type answers UNIMPLEMENTED instead of breaking the build.
	ptcsidecarv1.UnimplementedSidecarServiceServer

	cfg        Config
	limits     *requestLimits
	remembered remembered
}

var _ ptcsidecarv1.SidecarServiceServer = (*Service)(nil)

// New returns a Service with the given configuration.
func New(cfg Config) *Service {
	if cfg.MaxValueDepth <= 0 {
		cfg.MaxValueDepth = DefaultMaxValueDepth
	}
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = DefaultMaxTurns
	}
	if cfg.MaxHistory <= 0 {
		cfg.MaxHistory = DefaultMaxHistory
	}
	return &Service{cfg: cfg, limits: newRequestLimits(cfg), remembered: newRemembered(cfg.Memo)}
}

// WarmUp does before the first request what would otherwise make it slow:
// loading the default tokenizer and counting the built-in system prompt's
// tokens (strategies.Remembered.WarmUp).
func (s *Service) WarmUp() error { return s.remembered.strategies.WarmUp() }
