package tracing

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

func TestFromEvent(t *testing.T) {
	tests := []struct {
		name, traceparent, tracestate  string
		wantTrace, wantSpan, wantState string
	}{
		{name: "sentinel's", traceparent: "00-830e59a29417ff194f3476029a6bc2b5-3e4d64deda0e891f-01",
			wantTrace: "830e59a29417ff194f3476029a6bc2b5", wantSpan: "3e4d64deda0e891f"},
		{name: "with tracestate", traceparent: "00-830e59a29417ff194f3476029a6bc2b5-3e4d64deda0e891f-01", tracestate: "vendor=v1",
			wantTrace: "830e59a29417ff194f3476029a6bc2b5", wantSpan: "3e4d64deda0e891f", wantState: "vendor=v1"},
		{name: "none"},
		{name: "not W3C", traceparent: "00-1"},
		{name: "all-zero trace id", traceparent: "00-00000000000000000000000000000000-3e4d64deda0e891f-01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := trace.SpanContextFromContext(FromEvent(context.Background(), tt.traceparent, tt.tracestate))
			if tt.wantTrace == "" {
				if sc.IsValid() {
					t.Errorf("span context %v, want none", sc)
				}
				return
			}
			if sc.TraceID().String() != tt.wantTrace || sc.SpanID().String() != tt.wantSpan || !sc.IsRemote() ||
				!sc.IsSampled() || sc.TraceState().String() != tt.wantState {
				t.Errorf("span context %s/%s remote %v sampled %v state %q", sc.TraceID(), sc.SpanID(), sc.IsRemote(), sc.IsSampled(), sc.TraceState())
			}
			if !RemoteParent(tt.traceparent, tt.tracestate).Equal(sc) {
				t.Error("RemoteParent differs from FromEvent")
			}
		})
	}
}
