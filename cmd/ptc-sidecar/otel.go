package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/stats"

	"github.com/ptc-sidecar/ptc-sidecar/server"
)

// tracing exports a span per RPC through OpenTelemetry. A nil *tracing is
// tracing turned off: no stats handler, nothing recorded.
type tracing struct {
	exporter string // for the log
	provider *sdktrace.TracerProvider
}

// tracingFromEnv reads the standard OpenTelemetry variables through getenv.
// Tracing is off unless OTEL_TRACES_EXPORTER names an exporter, "otlp" or
// "console" (spans as JSON lines on stdout), or an OTLP endpoint is set
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, whose
// exporter is OTLP); "none" or OTEL_SDK_DISABLED=true turn it off. The
// OTLP exporters read their own variables (endpoint, headers, timeout,
// certificates); OTEL_EXPORTER_OTLP_PROTOCOL (or its _TRACES_ form) picks
// "http/protobuf", the default, or "grpc". The SDK reads the sampler
// (OTEL_TRACES_SAMPLER, default parentbased_always_on) and the batch
// settings (OTEL_BSP_*); OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
// name the resource, "ptc-sidecar" by default.
//
// The SDK's usual default exporter is OTLP even with nothing set; here
// nothing set means no tracing, so that a sidecar started without
// configuration never tries to reach a collector that is not there.
func tracingFromEnv(ctx context.Context, getenv func(string) string, stdout io.Writer) (*tracing, error) {
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return nil, nil
	}
	exporterName := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER"))
	if exporterName == "" && (getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "") {
		exporterName = "otlp"
	}
	var exporter sdktrace.SpanExporter
	var err error
	switch exporterName {
	case "", "none":
		return nil, nil
	case "console":
		exporter, err = stdouttrace.New(stdouttrace.WithWriter(stdout))
	case "otlp":
		protocol := getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
		if protocol == "" {
			protocol = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
		}
		switch protocol {
		case "", "http/protobuf":
			exporter, err = otlptracehttp.New(ctx)
		case "grpc":
			exporter, err = otlptracegrpc.New(ctx)
		default:
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%q: want http/protobuf or grpc", protocol)
		}
	default:
		return nil, fmt.Errorf("OTEL_TRACES_EXPORTER=%q: want otlp, console or none", exporterName)
	}
	if err != nil {
		return nil, fmt.Errorf("OpenTelemetry %s exporter: %w", exporterName, err)
	}
	// Later sources win: the defaults, then what the environment says.
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "ptc-sidecar"), attribute.String("service.version", binaryVersion())),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(),
	)
	if err != nil {
		return nil, fmt.Errorf("OpenTelemetry resource (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES): %w", err)
	}
	t := newTracing(sdktrace.NewBatchSpanProcessor(exporter), res)
	t.exporter = exporterName
	return t, nil
}

// newTracing records spans into processor. Every attribute of every span
// is cut to server.MaxSpanText (or the smaller
// OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT): the SDK's default keeps a text
// whole, and the texts of a call may be the caller's.
func newTracing(processor sdktrace.SpanProcessor, res *resource.Resource) *tracing {
	limits := sdktrace.NewSpanLimits()
	if limits.AttributeValueLengthLimit < 0 || limits.AttributeValueLengthLimit > server.MaxSpanText {
		limits.AttributeValueLengthLimit = server.MaxSpanText
	}
	return &tracing{provider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(processor), sdktrace.WithResource(res),
		sdktrace.WithRawSpanLimits(limits))}
}

// serverOptions are the gRPC server's options for tracing: the otelgrpc
// stats handler opens a span per RPC (the HTTP endpoint's calls included,
// as they go through the same server), continuing the caller's trace from
// its W3C traceparent header. Health checks are left out: probes every few
// seconds would outnumber the calls worth looking at.
func (t *tracing) serverOptions() []grpc.ServerOption {
	if t == nil {
		return nil
	}
	return []grpc.ServerOption{grpc.StatsHandler(otelgrpc.NewServerHandler(
		otelgrpc.WithTracerProvider(t.provider),
		otelgrpc.WithMeterProvider(metricnoop.NewMeterProvider()), // metrics come from Prometheus
		otelgrpc.WithPropagators(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})),
		otelgrpc.WithFilter(func(info *stats.RPCTagInfo) bool {
			return !strings.HasPrefix(info.FullMethodName, "/"+healthpb.Health_ServiceDesc.ServiceName+"/")
		}),
	))}
}

// shutdown exports the spans still buffered, within ctx.
func (t *tracing) shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.provider.Shutdown(ctx)
}

// flushTraces exports the spans still buffered at exit, giving up after
// traceFlushTimeout: a collector that is down must not hold the exit.
func flushTraces(t *tracing, stderr io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), traceFlushTimeout)
	defer cancel()
	if err := t.shutdown(ctx); err != nil {
		fmt.Fprintf(stderr, "ptc-sidecar serve: exporting the last spans: %v\n", err)
	}
}

const traceFlushTimeout = 5 * time.Second
