package tracing

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// FromEvent returns ctx carrying the remote span context of a CloudEvent's
// Distributed Tracing extension (traceparent, tracestate in W3C Trace
// Context format, whatever OTEL_PROPAGATORS says: that is the extension's
// format), so the event's span continues the publisher's trace. Without a
// traceparent, or with one that is not valid W3C, ctx is returned as it is
// and the event's span is a root.
func FromEvent(ctx context.Context, traceparent, tracestate string) context.Context {
	if traceparent == "" {
		return ctx
	}
	carrier := propagation.MapCarrier{"traceparent": traceparent}
	if tracestate != "" {
		carrier["tracestate"] = tracestate
	}
	return propagation.TraceContext{}.Extract(ctx, carrier)
}

// RemoteParent is the span context FromEvent would continue, for links
// (an invalid one when there is none).
func RemoteParent(traceparent, tracestate string) trace.SpanContext {
	return trace.SpanContextFromContext(FromEvent(context.Background(), traceparent, tracestate))
}
