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
	"github.com/ptc-sidecar/ptc-sidecar/internal/valuecache"
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
	// ValueCacheBytes bounds the memory of decoded wire values remembered
	// between requests (valuecache); 0 means DefaultValueCacheBytes, a
	// negative value turns the cache off.
	ValueCacheBytes int64
}

// Defaults of the request size limits that are not byte counts.
const (
	DefaultMaxTurns   = 1000
	DefaultMaxHistory = 10_000
)

// DefaultValueCacheBytes is the default bound of the decoded-value cache:
// room for the memory and data of a long agent run many times over.
const DefaultValueCacheBytes = 32 << 20

// Service implements ptcsidecarv1.SidecarServiceServer. It is stateless and
// safe for concurrent use.
type Service struct {
	// Embedded by value so that an RPC added to the proto but not yet to
	// this type answers UNIMPLEMENTED instead of breaking the build.
	ptcsidecarv1.UnimplementedSidecarServiceServer

	cfg      Config
	limits   *requestLimits
	values   *valuecache.Cache // nil when turned off
	programs programCache
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
	if cfg.ValueCacheBytes == 0 {
		cfg.ValueCacheBytes = DefaultValueCacheBytes
	}
	values := valuecache.New(cfg.ValueCacheBytes)
	return &Service{cfg: cfg, limits: newRequestLimits(cfg), values: values}
}

// ValueCacheStats reports the decoded-value cache's counters (all zero
// when it is off), for metrics.
func (s *Service) ValueCacheStats() valuecache.Stats { return s.values.Stats() }
