package broker

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/tracing"
)

// SpanEvent is the name of the span of one event's run, hyperfleet-adapter's
// name for it.
const SpanEvent = "Execute"

// Attributes of the event span. The event's are the OpenTelemetry
// semantic conventions' CloudEvents attributes.
const (
	AttrEventID         = attribute.Key("cloudevents.event_id")
	AttrEventType       = attribute.Key("cloudevents.event_type")
	AttrEventSource     = attribute.Key("cloudevents.event_source")
	AttrMessageID       = attribute.Key("messaging.message.id")
	AttrResourceKind    = attribute.Key("bundle_adapter.resource.kind")
	AttrResourceID      = attribute.Key("bundle_adapter.resource.id")
	AttrDeliveryAttempt = attribute.Key("bundle_adapter.delivery_attempt")
	AttrCoalesced       = attribute.Key("bundle_adapter.coalesced")
	AttrExecution       = attribute.Key("bundle_adapter.execution_status")
	AttrSkipReason      = attribute.Key("bundle_adapter.skip_reason")
	AttrSettled         = attribute.Key("bundle_adapter.settled")
)

var noSpan = trace.SpanFromContext(context.Background())

// startEvent starts the span of the run of it (the newest of batch): a
// child of the event's traceparent when it carries one, a root otherwise,
// linked to the traces of the events coalesced into it. Without a tracer it
// returns ctx and a span that records nothing.
func (d *Dispatcher) startEvent(ctx context.Context, it *item, batch []*item) (context.Context, trace.Span) {
	if d.o.Tracer == nil {
		return ctx, noSpan
	}
	ev := it.ev
	kind, _ := ev.Data["kind"].(string)
	id, _ := ev.Data["id"].(string)
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindConsumer), trace.WithAttributes(
		AttrEventID.String(ev.ID), AttrEventType.String(ev.Type), AttrEventSource.String(ev.Source),
		AttrMessageID.String(it.msg.ID()), AttrResourceKind.String(kind), AttrResourceID.String(id),
		AttrDeliveryAttempt.Int(it.msg.Deliveries()), AttrCoalesced.Int(len(batch)))}
	for _, other := range batch {
		if sc := tracing.RemoteParent(other.ev.TraceParent, other.ev.TraceState); other != it && sc.IsValid() {
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: sc}))
		}
	}
	ctx = tracing.FromEvent(ctx, ev.TraceParent, ev.TraceState)
	return d.o.Tracer.Start(ctx, SpanEvent, opts...)
}

// endEvent ends the event span with how the run ended and what was done
// with the message.
func endEvent(span trace.Span, res *adapter.Result, settled string) {
	if span.IsRecording() {
		span.SetAttributes(AttrExecution.String(res.ExecutionStatus), AttrSkipReason.String(res.SkipReason),
			AttrSettled.String(settled))
		if err := res.Err(); err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
	}
	span.End()
}
