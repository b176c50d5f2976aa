package adapter_test

import (
	"context"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// discardExporter takes spans and drops them: what "on" costs in the
// adapter, without a collector's cost.
type discardExporter struct{}

func (discardExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardExporter) Shutdown(context.Context) error                             { return nil }

// BenchmarkTracing: the unchanged event of BenchmarkUnchangedEvent (the
// common case) with tracing off (no tracer: what serve runs without
// HYPERFLEET_TRACING_ENABLED; its allocations must equal
// BenchmarkUnchangedEvent's before tracing existed), on but not sampled
// (parentbased_always_off), and on (every span recorded and handed to a
// batch exporter that drops them). "On" includes the event span the
// dispatcher starts.
func BenchmarkTracing(b *testing.B) {
	cases := []struct {
		name    string
		sampler sdktrace.Sampler // nil: tracing off
	}{
		{name: "off"},
		{name: "on-unsampled", sampler: sdktrace.NeverSample()},
		{name: "on", sampler: sdktrace.AlwaysSample()},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var tr trace.Tracer
			if c.sampler != nil {
				tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(c.sampler), sdktrace.WithBatcher(discardExporter{}))
				b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
				tr = tp.Tracer("bench")
			}
			p, ev := tracedPipeline(b, tr, nil)
			if res := p.Run(context.Background(), ev); res.Err() != nil {
				b.Fatal(res.Err())
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ctx, span := context.Background(), trace.Span(nil)
				if tr != nil {
					ctx, span = tr.Start(ctx, "Execute")
				}
				res := p.Run(ctx, ev)
				if span != nil {
					span.End()
				}
				if res.Bundles[0].Operation != adapter.OpUnchanged {
					b.Fatalf("want unchanged, got %+v", res.Bundles[0])
				}
			}
			b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(time.Millisecond), "ms/event")
		})
	}
}
