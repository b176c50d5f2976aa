package tracing

import (
	"context"
	"encoding/json"
	"io"
	"sync"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// jsonExporter writes every span as one JSON object per line: tracing
// enabled without an OTLP endpoint, for local development
// (hyperfleet-adapter writes them to stdout too).
type jsonExporter struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func newJSONExporter(w io.Writer) *jsonExporter { return &jsonExporter{enc: json.NewEncoder(w)} }

func (e *jsonExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, s := range tracetest.SpanStubsFromReadOnlySpans(spans) {
		if err := e.enc.Encode(s); err != nil {
			return err
		}
	}
	return nil
}

func (e *jsonExporter) Shutdown(context.Context) error { return nil }
