package main

import (
	"context"
	"log/slog"
	"runtime/debug"

	grpcprom "github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/recovery"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/selector"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/internal/setting"
	"github.com/ptc-sidecar/ptc-sidecar/server"
)

// grpcMetrics are the per-RPC Prometheus metrics (grpc_server_handled_total
// and friends).
type grpcMetrics = grpcprom.ServerMetrics

func newGRPCMetrics() *grpcMetrics {
	return grpcprom.NewServerMetrics(grpcprom.WithServerHandlingTimeHistogram())
}

// healthServices are the names the health service answers for: "" (the
// whole server) and the product's service.
var healthServices = []string{"", ptcsidecarv1.SidecarService_ServiceDesc.ServiceName}

const servingStatus = healthpb.HealthCheckResponse_SERVING

// newGRPCServer builds the gRPC server with its services and interceptors;
// metrics may be nil (no metrics endpoint). Health starts NOT_SERVING: the
// caller marks it SERVING once the server accepts connections. Successful
// calls are logged to requestLog, everything else to logger (see
// logOutput).
//
// Interceptors run outermost first: metrics see every outcome, the log line
// carries the final code, and recovery sits innermost so that a panic is
// already an INTERNAL status when the others see it.
func newGRPCServer(cfg serveConfig, logger, requestLog *slog.Logger, metrics *grpcMetrics, sidecar *server.Service) (*grpc.Server, *health.Server) {
	var unary []grpc.UnaryServerInterceptor
	var stream []grpc.StreamServerInterceptor
	if metrics != nil {
		unary = append(unary, metrics.UnaryServerInterceptor())
		stream = append(stream, metrics.StreamServerInterceptor())
	}

	// Health probes arrive every few seconds and would drown the request log.
	notHealth := selector.MatchFunc(func(_ context.Context, c interceptors.CallMeta) bool {
		return c.Service != healthpb.Health_ServiceDesc.ServiceName
	})
	callLog := interceptorLogger(logger, requestLog)
	logOpts := []logging.Option{logging.WithLogOnEvents(logging.FinishCall), logging.WithLevels(logLevelOf)}
	unary = append(unary, selector.UnaryServerInterceptor(logging.UnaryServerInterceptor(callLog, logOpts...), notHealth))
	stream = append(stream, selector.StreamServerInterceptor(logging.StreamServerInterceptor(callLog, logOpts...), notHealth))

	// An error's text may quote what the caller sent: cut before it is
	// logged or sent.
	unary = append(unary, server.CutStatusUnary)
	stream = append(stream, server.CutStatusStream)
	// Bytes the health or reflection service cannot decode: the caller's.
	unary = append(unary, server.RefuseUndecodedUnary)
	stream = append(stream, server.RefuseUndecodedStream)

	recoverOpt := recovery.WithRecoveryHandlerContext(panicToInternal(logger))
	unary = append(unary, recovery.UnaryServerInterceptor(recoverOpt))
	stream = append(stream, recovery.StreamServerInterceptor(recoverOpt))

	opts := append(sidecar.ServerOptions(),
		grpc.MaxRecvMsgSize(int(cfg.maxRecvBytes)),
		grpcDecompression(int(cfg.maxRecvBytes)),
		grpc.MaxConcurrentStreams(uint32(cfg.maxStreams)),
		grpc.MaxHeaderListSize(maxHeaderBytes),
		grpc.ChainUnaryInterceptor(unary...),
		grpc.ChainStreamInterceptor(stream...),
	)
	if cfg.creds != nil {
		opts = append(opts, grpc.Creds(cfg.creds))
	}
	if cfg.maxConnectionAge != setting.None {
		opts = append(opts, grpc.KeepaliveParams(keepalive.ServerParameters{
			MaxConnectionAge:      cfg.maxConnectionAge,
			MaxConnectionAgeGrace: cfg.shutdownTimeout,
		}))
	}
	opts = append(opts, cfg.tracing.serverOptions()...)
	srv := grpc.NewServer(opts...)
	ptcsidecarv1.RegisterSidecarServiceServer(srv, sidecar.Wire())

	healthSrv := health.NewServer()
	for _, name := range healthServices {
		healthSrv.SetServingStatus(name, healthpb.HealthCheckResponse_NOT_SERVING)
	}
	healthpb.RegisterHealthServer(srv, healthSrv)
	reflection.Register(srv) // v1 and v1alpha, so grpcurl works without proto files

	if metrics != nil {
		metrics.InitializeMetrics(srv) // every method reports 0 before its first call
	}
	return srv, healthSrv
}

// newSidecar builds the service the configuration describes, with what it
// remembers between requests in m (nil: nothing).
func newSidecar(cfg serveConfig, m *memo.Memo) *server.Service {
	// What a turn sends back must come back in a later request, with room
	// left in it for the data and the program.
	sc := cfg.server
	sc.Limits.MaxEmitBytes = min(sc.Limits.MaxEmitBytes, int64(cfg.maxRecvBytes)/2)
	sc.Memo = m
	return server.New(sc)
}

// interceptorLogger adapts slog to the logging interceptor. The interceptor's
// levels share slog's numbering.
func interceptorLogger(logger, requestLog *slog.Logger) logging.Logger {
	return logging.LoggerFunc(func(ctx context.Context, lvl logging.Level, msg string, fields ...any) {
		l := logger
		if slog.Level(lvl) <= slog.LevelInfo {
			l = requestLog
		}
		l.Log(ctx, slog.Level(lvl), msg, fields...)
	})
}

// logLevelOf is the level of an RPC's log line by its code. UNIMPLEMENTED is
// an RPC whose capability is not built yet, something operators should see
// but not be paged for, so it is a warning rather than the default error.
func logLevelOf(code codes.Code) logging.Level {
	if code == codes.Unimplemented {
		return logging.LevelWarn
	}
	return logging.DefaultServerCodeToLevel(code)
}

// panicToInternal logs a handler's panic with its stack and answers
// INTERNAL. The panic value stays in the log: it may hold request data or
// internals the caller has no use for.
func panicToInternal(logger *slog.Logger) recovery.RecoveryHandlerFuncContext {
	return func(ctx context.Context, p any) error {
		logger.ErrorContext(ctx, "panic in RPC handler", "panic", p, "stack", string(debug.Stack()))
		return status.Error(codes.Internal, "internal error: the server hit a bug and logged it; the request was not applied")
	}
}
