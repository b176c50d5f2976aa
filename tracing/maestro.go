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
// "maestro.Create", "maestro.Update", "maestro.Delete", "maestro.Redelete",
// "maestro.GetBundles"), a child of the span in the call's context, with
// the consumer and the bundle's ManifestWork name as attributes
// (GetBundles: the number of bundles, and their consumer when they share
// one). ErrNotFound
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

func (m *tracedMaestro) start(ctx context.Context, op string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	return m.t.Start(ctx, "maestro."+op, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(AttrOperation.String(op)), trace.WithAttributes(attrs...))
}

func (m *tracedMaestro) Get(ctx context.Context, consumer, name string) (*workv1.ManifestWork, error) {
	ctx, span := m.start(ctx, "Get", AttrConsumer.String(consumer), AttrWork.String(name))
	w, err := m.next.Get(ctx, consumer, name)
	end(span, err)
	return w, err
}

func (m *tracedMaestro) Create(ctx context.Context, consumer string, work *workv1.ManifestWork) (*workv1.ManifestWork, error) {
	ctx, span := m.start(ctx, "Create", AttrConsumer.String(consumer), AttrWork.String(work.Name))
	w, err := m.next.Create(ctx, consumer, work)
	end(span, err)
	return w, err
}

func (m *tracedMaestro) Update(ctx context.Context, consumer string, observed, desired *workv1.ManifestWork) (*workv1.ManifestWork, error) {
	ctx, span := m.start(ctx, "Update", AttrConsumer.String(consumer), AttrWork.String(desired.Name))
	w, err := m.next.Update(ctx, consumer, observed, desired)
	end(span, err)
	return w, err
}

func (m *tracedMaestro) Delete(ctx context.Context, consumer, name string) error {
	ctx, span := m.start(ctx, "Delete", AttrConsumer.String(consumer), AttrWork.String(name))
	err := m.next.Delete(ctx, consumer, name)
	end(span, err)
	return err
}

func (m *tracedMaestro) Redelete(ctx context.Context, consumer, name string) error {
	ctx, span := m.start(ctx, "Redelete", AttrConsumer.String(consumer), AttrWork.String(name))
	err := m.next.Redelete(ctx, consumer, name)
	end(span, err)
	return err
}

func (m *tracedMaestro) GetBundles(ctx context.Context, keys []adapter.BundleKey) ([]*workv1.ManifestWork, error) {
	attrs := []attribute.KeyValue{AttrBundles.Int(len(keys))}
	if c, ok := oneConsumer(keys); ok {
		attrs = append(attrs, AttrConsumer.String(c))
	}
	ctx, span := m.start(ctx, "GetBundles", attrs...)
	ws, err := m.next.GetBundles(ctx, keys)
	end(span, err)
	return ws, err
}

// oneConsumer is the consumer of every key, when they share one.
func oneConsumer(keys []adapter.BundleKey) (string, bool) {
	if len(keys) == 0 {
		return "", false
	}
	for _, k := range keys[1:] {
		if k.Consumer != keys[0].Consumer {
			return "", false
		}
	}
	return keys[0].Consumer, true
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
