package tracing

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

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

// Attributes of the Kubernetes call spans.
const (
	AttrKind         = attribute.Key("bundle_adapter.kubernetes.kind")
	AttrKubeNotFound = attribute.Key("bundle_adapter.kubernetes.not_found")
	AttrKubeOp       = attribute.Key("bundle_adapter.kubernetes.operation")
)

// Maestro wraps m so that every call is a span ("maestro.Get",
// "maestro.Create", "maestro.Update", "maestro.Delete", "maestro.Redelete",
// "maestro.GetBundles"), a child of the span in the call's context, with
// the consumer and the bundle's ManifestWork name as attributes
// (GetBundles: the number of bundles, and their consumer when they share
// one). ErrNotFound is an answer, not a failure: the span says not_found
// and keeps an unset status; any other error sets the span's status to
// Error. A nil tracer returns m itself.
func Maestro(m adapter.Maestro, t trace.Tracer) adapter.Maestro {
	return adapter.InterceptMaestro(m, Interceptor(t))
}

// Kube wraps k as Maestro wraps a Maestro client: every call is a span
// ("kubernetes.Get", "kubernetes.List", "kubernetes.Create",
// "kubernetes.Apply", "kubernetes.Delete") with the object's kind and
// namespace/name. A nil tracer returns k itself.
func Kube(k adapter.Kube, t trace.Tracer) adapter.Kube {
	return adapter.InterceptKube(k, Interceptor(t))
}

// Interceptor is the span of every call of either client (see Maestro and
// Kube); nil for a nil tracer.
func Interceptor(t trace.Tracer) adapter.Interceptor {
	if t == nil {
		return nil
	}
	return func(ctx context.Context, c adapter.Call) (context.Context, func(error)) {
		ctx, span := t.Start(ctx, c.Client+"."+c.Verb, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(callAttributes(c)...))
		notFound := AttrNotFound
		if c.Client == adapter.ClientKubernetes {
			notFound = AttrKubeNotFound
		}
		return ctx, func(err error) { end(span, err, notFound) }
	}
}

// callAttributes are a call's span attributes.
func callAttributes(c adapter.Call) []attribute.KeyValue {
	switch {
	case c.Client == adapter.ClientKubernetes:
		return []attribute.KeyValue{AttrKubeOp.String(c.Verb), AttrKind.String(c.Kind), AttrWork.String(c.Name)}
	case c.Verb == "GetBundles":
		attrs := []attribute.KeyValue{AttrOperation.String(c.Verb), AttrBundles.Int(c.Keys)}
		if c.Consumer != "" {
			attrs = append(attrs, AttrConsumer.String(c.Consumer))
		}
		return attrs
	}
	return []attribute.KeyValue{AttrOperation.String(c.Verb), AttrConsumer.String(c.Consumer), AttrWork.String(c.Name)}
}

// end records err on span (ErrNotFound as the notFound attribute, not a
// failure) and ends it.
func end(span trace.Span, err error, notFound attribute.Key) {
	switch {
	case err == nil:
	case errors.Is(err, adapter.ErrNotFound):
		span.SetAttributes(notFound.Bool(true))
	default:
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}
