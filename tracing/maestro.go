package tracing

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Attributes of the Maestro call spans.
const (
	AttrConsumer  = attribute.Key("bundle_adapter.consumer")
	AttrWork      = attribute.Key("bundle_adapter.work")
	AttrBundles   = attribute.Key("bundle_adapter.bundles")
	AttrNotFound  = attribute.Key("bundle_adapter.maestro.not_found")
	AttrOperation = attribute.Key("bundle_adapter.maestro.operation")
)

// Maestro wraps m so that every call is a span ("maestro.Get",
// "maestro.Create", "maestro.Update", "maestro.Delete",
// "maestro.GetBundles"), a child of the span in the call's context, with
// the consumer and the bundle's ManifestWork name as attributes. ErrNotFound
// is an answer, not a failure: the span says not_found and keeps an unset
// status; any other error sets the span's status to Error. A nil tracer
// returns m itself.
func Maestro(m adapter.Maestro, t trace.Tracer) adapter.Maestro {
	if t == nil {
		return m
	}
	return &tracedMaestro{next: m, t: t}
}

type tracedMaestro struct {
	next adapter.Maestro
	t    trace.Tracer
}

func (m *tracedMaestro) start(ctx context.Context, op, consumer, name string) (context.Context, trace.Span) {
	return m.t.Start(ctx, "maestro."+op, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		AttrOperation.String(op), AttrConsumer.String(consumer), AttrWork.String(name)))
}

func (m *tracedMaestro) Get(ctx context.Context, consumer, name string) (*workv1.ManifestWork, error) {
	ctx, span := m.start(ctx, "Get", consumer, name)
	w, err := m.next.Get(ctx, consumer, name)
	end(span, err)
	return w, err
}

func (m *tracedMaestro) Create(ctx context.Context, consumer string, work *workv1.ManifestWork) (*workv1.ManifestWork, error) {
	ctx, span := m.start(ctx, "Create", consumer, work.Name)
	w, err := m.next.Create(ctx, consumer, work)
	end(span, err)
	return w, err
}

func (m *tracedMaestro) Update(ctx context.Context, consumer string, observed, desired *workv1.ManifestWork) (*workv1.ManifestWork, error) {
	ctx, span := m.start(ctx, "Update", consumer, desired.Name)
	w, err := m.next.Update(ctx, consumer, observed, desired)
	end(span, err)
	return w, err
}

func (m *tracedMaestro) Delete(ctx context.Context, consumer, name string) error {
	ctx, span := m.start(ctx, "Delete", consumer, name)
	err := m.next.Delete(ctx, consumer, name)
	end(span, err)
	return err
}

func (m *tracedMaestro) GetBundles(ctx context.Context, keys []adapter.BundleKey) ([]*workv1.ManifestWork, error) {
	consumer, name := "", ""
	if len(keys) > 0 {
		consumer, name = keys[0].Consumer, keys[0].Name
	}
	ctx, span := m.start(ctx, "GetBundles", consumer, name)
	span.SetAttributes(AttrBundles.Int(len(keys)))
	ws, err := m.next.GetBundles(ctx, keys)
	end(span, err)
	return ws, err
}

// end records err on span (ErrNotFound as an attribute, not a failure) and
// ends it.
func end(span trace.Span, err error) {
	switch {
	case err == nil:
	case errors.Is(err, adapter.ErrNotFound):
		span.SetAttributes(AttrNotFound.Bool(true))
	default:
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}
