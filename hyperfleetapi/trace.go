package hyperfleetapi

import (
	"context"
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
)

// Attributes of the request spans (OpenTelemetry HTTP client conventions).
const (
	AttrMethod      = attribute.Key("http.request.method")
	AttrURL         = attribute.Key("url.full")
	AttrStatus      = attribute.Key("http.response.status_code")
	AttrResendCount = attribute.Key("http.request.resend_count")
)

// tracedOnce sends one attempt in its own span, "HTTP <METHOD>" as
// hyperfleet-adapter names it, a child of ctx's span: the method, the URL
// (user info redacted), the status code, the attempt's resend count. A
// transport failure or a status of 400 or more sets the span's status to
// Error. Without a tracer it is once.
func (c *Client) tracedOnce(ctx context.Context, attempt int, req adapter.APIRequest, target string, withToken bool) (adapter.APIResponse, error) {
	if c.o.Tracer == nil {
		return c.once(ctx, req, target, withToken)
	}
	ctx, span := c.o.Tracer.Start(ctx, "HTTP "+req.Method, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(AttrMethod.String(req.Method), AttrURL.String(config.RedactURL(target))))
	defer span.End()
	if attempt > 0 {
		span.SetAttributes(AttrResendCount.Int(attempt))
	}
	resp, err := c.once(ctx, req, target, withToken)
	switch {
	case err != nil:
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	case resp.Status >= 400:
		span.SetAttributes(AttrStatus.Int(resp.Status))
		span.SetStatus(codes.Error, strconv.Itoa(resp.Status))
	default:
		span.SetAttributes(AttrStatus.Int(resp.Status))
	}
	return resp, err
}

// inject sets the trace context headers (traceparent, tracestate, baggage:
// Options.Propagator) of ctx's span on h; nothing without a tracer.
func (c *Client) inject(ctx context.Context, h http.Header) {
	if c.o.Tracer == nil || c.o.Propagator == nil {
		return
	}
	c.o.Propagator.Inject(ctx, propagation.HeaderCarrier(h))
}
