package tracing

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/secret"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Off, Setup builds nothing: no tracer, no propagator, nothing to flush.
func TestSetupOff(t *testing.T) {
	p, err := Setup(context.Background(), Config{ServiceName: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Tracer() != nil || p.Propagator() != nil || p.Shutdown(context.Background()) != nil {
		t.Errorf("tracing off: tracer %v, propagator %v", p.Tracer(), p.Propagator())
	}
	var none *Provider
	if none.Tracer() != nil || none.Propagator() != nil || none.Shutdown(context.Background()) != nil {
		t.Error("a nil Provider is not off")
	}
}

// Enabled without an endpoint, spans are JSON lines (hyperfleet-adapter's
// stdout exporter), written by the time Shutdown returns.
func TestSetupWithoutEndpointWritesJSONLines(t *testing.T) {
	var out bytes.Buffer
	exp, err := exporter(context.Background(), Config{Enabled: true}, &out)
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))
	p := NewProvider(tp, []string{"tracecontext"})
	for _, name := range []string{"one", "two"} {
		_, span := p.Tracer().Start(context.Background(), name)
		span.End()
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&out)
	for _, want := range []string{"one", "two"} {
		var s struct{ Name string }
		if err := dec.Decode(&s); err != nil || s.Name != want {
			t.Fatalf("span line %q (%v), want %q", s.Name, err, want)
		}
	}
}

// A collector that cannot be reached never holds shutdown past its
// context: the queued spans are dropped.
func TestShutdownIsBounded(t *testing.T) {
	t.Setenv(EnvEndpoint, "http://127.0.0.1:1")
	p, err := Setup(context.Background(), Config{Enabled: true, Endpoint: secret.NewURL("http://127.0.0.1:1"), Protocol: ProtocolGRPC, ServiceName: "x"})
	if err != nil {
		t.Fatal(err)
	}
	_, span := p.Tracer().Start(context.Background(), "lost")
	span.End()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_ = p.Shutdown(ctx)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Shutdown took %v with a 300ms context", took)
	}
}
