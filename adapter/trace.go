package adapter

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Span names of the pipeline (Options.Tracer). Each is a child of the span
// in Run's context (the broker's event span).
const (
	SpanParams        = "params"        // every param, in config order
	SpanParam         = "param"         // one param read from the HyperFleet API
	SpanPreconditions = "preconditions" // the preconditions
	SpanBundles       = "bundles"       // pre-discovery and every bundle
	SpanBundle        = "bundle"        // one bundle's decision and its writes
	SpanPost          = "post"          // payloads and post actions
)

// Attributes of the pipeline's spans.
const (
	AttrParam          = attribute.Key("bundle_adapter.param")
	AttrBundle         = attribute.Key("bundle_adapter.bundle")
	AttrConsumer       = attribute.Key("bundle_adapter.consumer")
	AttrWork           = attribute.Key("bundle_adapter.work")
	AttrOperation      = attribute.Key("bundle_adapter.operation")
	AttrState          = attribute.Key("bundle_adapter.state")
	AttrReason         = attribute.Key("bundle_adapter.reason")
	AttrPendingSeconds = attribute.Key("bundle_adapter.pending_seconds")
)

// noSpan is what startSpan returns without a tracer: a span that records
// nothing, so tracing off costs no allocation.
var noSpan = trace.SpanFromContext(context.Background())

// startSpan starts a child span of ctx's span, or, without a tracer, returns
// ctx unchanged and noSpan.
func (p *Pipeline) startSpan(ctx context.Context, name string) (context.Context, trace.Span) {
	if p.tracer == nil {
		return ctx, noSpan
	}
	return p.tracer.Start(ctx, name)
}

// phase runs one phase of the event in its own span, whose status is Error
// when the phase failed (added an entry to the event's errors).
func (r *eventRun) phase(ctx context.Context, name string, run func(context.Context) bool) bool {
	ctx, span := r.p.startSpan(ctx, name)
	errs := len(r.result.Errors)
	ok := run(ctx)
	if span.IsRecording() && len(r.result.Errors) > errs {
		failed(span, r.result.Errors[errs])
	}
	span.End()
	return ok
}

// endParam ends the span of a param read from the API.
func endParam(span trace.Span, name string, err error) {
	if span.IsRecording() {
		span.SetAttributes(AttrParam.String(name))
		failed(span, err)
	}
	span.End()
}

// endBundle ends a bundle's span with its outcome.
func endBundle(span trace.Span, o *Outcome) {
	if span.IsRecording() {
		span.SetAttributes(AttrBundle.String(o.Name), AttrConsumer.String(o.Consumer), AttrWork.String(o.WorkName),
			AttrOperation.String(string(o.Operation)), AttrState.String(string(o.State)), AttrReason.String(o.Reason),
			AttrPendingSeconds.Int64(o.PendingSeconds))
		failed(span, o.err)
	}
	span.End()
}

// withTraceID adds the trace and span ids of ctx's span (the event's) to
// the event's logs, as hyperfleet-adapter's trace_id and span_id fields;
// nothing when ctx carries no span.
func (r *eventRun) withTraceID(ctx context.Context) {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.log = r.log.With("trace_id", sc.TraceID().String(), "span_id", sc.SpanID().String())
	}
}

// failed sets span's status to Error with err; nothing for a nil err.
func failed(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
}
