package tracing

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/credentials"
)

// ScopeName is the instrumentation scope of every span the adapter starts.
const ScopeName = "github.com/bundle-adapter/bundle-adapter"

// ShutdownTimeout bounds Provider.Shutdown: spans still queued after it are
// dropped rather than holding the process (hyperfleet-adapter's 5s).
const ShutdownTimeout = 5 * time.Second

// Provider is the set-up tracing of a process. A Provider from Setup with
// tracing off (or the zero value) has a nil Tracer and a no-op Shutdown.
type Provider struct {
	tp     *sdktrace.TracerProvider
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
}

// Setup builds the tracer provider c describes: an OTLP exporter (grpc or
// http/protobuf; the endpoint, headers and TLS from the standard
// OTEL_EXPORTER_OTLP_* variables) or, without an endpoint, JSON lines on
// stdout; a batch span processor; the sampler; and the resource (service
// name and version, OTEL_RESOURCE_ATTRIBUTES, host, process runtime,
// telemetry SDK). Nothing is set globally. It does not contact the
// collector: export failures are reported later through the OpenTelemetry
// error handler (see LogErrors).
func Setup(ctx context.Context, c Config) (*Provider, error) {
	if !c.Enabled {
		return &Provider{}, nil
	}
	exp, err := exporter(ctx, c, os.Stdout)
	if err != nil {
		return nil, fmt.Errorf("tracing: OTLP exporter (%s): %w", c.Protocol, err)
	}
	res, err := newResource(ctx, c)
	if err != nil {
		_ = exp.Shutdown(ctx)
		return nil, fmt.Errorf("tracing: resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res),
		sdktrace.WithSampler(newSampler(c.Sampler, c.SamplerArg)))
	return NewProvider(tp, c.Propagators), nil
}

// NewProvider wraps a tracer provider (tests use one with a span recorder)
// with the propagators named (see Config.Propagators).
func NewProvider(tp *sdktrace.TracerProvider, propagators []string) *Provider {
	return &Provider{tp: tp, tracer: tp.Tracer(ScopeName), prop: newPropagator(propagators)}
}

// Tracer is the tracer of every span the adapter starts; nil when tracing
// is off or p is nil (callers then start no span).
func (p *Provider) Tracer() trace.Tracer {
	if p == nil {
		return nil
	}
	return p.tracer
}

// Propagator injects the trace context into outgoing HTTP requests
// (OTEL_PROPAGATORS); nil when tracing is off or p is nil.
func (p *Provider) Propagator() propagation.TextMapPropagator {
	if p == nil {
		return nil
	}
	return p.prop
}

// Shutdown exports the spans still queued and stops the exporter, within
// ctx and at most ShutdownTimeout. It is a no-op when tracing is off.
func (p *Provider) Shutdown(ctx context.Context) error {
	if p == nil || p.tp == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, ShutdownTimeout)
	defer cancel()
	return p.tp.Shutdown(ctx)
}

// exporter builds the exporter c describes. For OTLP, the files of the
// FileEnv variables were read by ReadFiles (c.TLS); they are removed from
// the environment before the exporter, which reads its variables when it
// is built, is.
func exporter(ctx context.Context, c Config, stdout io.Writer) (sdktrace.SpanExporter, error) {
	if c.Endpoint.IsZero() {
		return newJSONExporter(stdout), nil
	}
	if !c.FilesRead {
		for _, name := range FileEnv {
			if v, _ := os.LookupEnv(name); v != "" {
				return nil, fmt.Errorf("%s is set and its file was not read through tracing.ReadFiles", name)
			}
		}
	}
	if err := hideFileEnv(); err != nil {
		return nil, err
	}
	if c.Protocol == ProtocolHTTP {
		var opts []otlptracehttp.Option
		if c.TLS != nil {
			opts = append(opts, otlptracehttp.WithTLSClientConfig(c.TLS))
		}
		return otlptracehttp.New(ctx, opts...)
	}
	var opts []otlptracegrpc.Option
	if c.TLS != nil {
		opts = append(opts, otlptracegrpc.WithTLSCredentials(credentials.NewTLS(c.TLS)))
	}
	return otlptracegrpc.New(ctx, opts...)
}

func newResource(ctx context.Context, c Config) (*resource.Resource, error) {
	return resource.New(ctx, resource.WithFromEnv(), resource.WithAttributes(
		attribute.String("service.name", c.ServiceName),
		attribute.String("service.version", c.ServiceVersion)),
		resource.WithProcessRuntimeDescription(), resource.WithTelemetrySDK(), resource.WithHost())
}

// newSampler maps an OTEL_TRACES_SAMPLER value (checked by FromEnv) to a
// sampler; an unknown one is parentbased_always_on.
func newSampler(name string, ratio float64) sdktrace.Sampler {
	switch name {
	case "always_on":
		return sdktrace.AlwaysSample()
	case "always_off":
		return sdktrace.NeverSample()
	case "traceidratio":
		return sdktrace.TraceIDRatioBased(ratio)
	case "parentbased_traceidratio":
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio))
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample())
	default:
		return sdktrace.ParentBased(sdktrace.AlwaysSample())
	}
}

// newPropagator composes the named propagators; "none" (or nothing known)
// propagates nothing.
func newPropagator(names []string) propagation.TextMapPropagator {
	var ps []propagation.TextMapPropagator
	if slices.Contains(names, "tracecontext") {
		ps = append(ps, propagation.TraceContext{})
	}
	if slices.Contains(names, "baggage") {
		ps = append(ps, propagation.Baggage{})
	}
	return propagation.NewCompositeTextMapPropagator(ps...)
}
