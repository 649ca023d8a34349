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
	"sync/atomic"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
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
	// bodies bounds the large request bodies a transport converts before
	// the service sees them (EnterLargeBody).
	bodies *admission
	// calls are the calls in flight, which Shutdown ends (shutdown.go);
	// running counts them.
	calls   callRegistry
	running atomic.Int64
}

var _ ptcsidecarv1.SidecarServiceServer = (*Service)(nil)

// New returns a Service with the given configuration, its zero settings
// at their defaults (DefaultConfig).
func New(cfg Config) *Service {
	cfg = cfg.withDefaults()
	limits := newRequestLimits(&cfg)
	return &Service{cfg: cfg, limits: limits, jsonFields: newJSONFields(limits), remembered: newRemembered(cfg.Memo),
		evals:  newAdmission(cfg.MaxConcurrentEvals, cfg.EvalQueueWait, cfg.LargeRequestBytes),
		bodies: newAdmission(cfg.MaxConcurrentEvals, cfg.EvalQueueWait, cfg.LargeRequestBytes)}
}

// AdmissionStats reports the evaluations (and large requests) running,
// waiting and refused, for metrics.
func (s *Service) AdmissionStats() AdmissionStats { return s.evals.stats() }

// WarmUp does before the first request what would otherwise make it slow:
// loading the default tokenizer and counting the built-in system prompt's
// tokens (strategies.Remembered.WarmUp).
func (s *Service) WarmUp() error { return s.remembered.strategies.WarmUp() }
