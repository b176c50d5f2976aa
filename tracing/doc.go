// Package tracing sets up OpenTelemetry tracing from the environment, as
// hyperfleet-adapter does (HYPERFLEET_TRACING_ENABLED and the standard
// OTEL_* variables), and holds what the rest of the adapter needs to trace
// an event: the CloudEvents traceparent/tracestate extension turned into a
// parent context (FromEvent) and a tracing decorator of adapter.Maestro.
//
// Tracing is off unless asked for. Off, Setup returns a Provider whose
// Tracer is nil: callers then start no span at all, so an event costs what
// it costs without tracing (no allocation, no context value).
package tracing
