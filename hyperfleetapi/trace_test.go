package hyperfleetapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// seen is one request as the server received it.
type seen struct{ traceparent, uri, body string }

// Every attempt of a traced call is an "HTTP <METHOD>" span, child of the
// caller's span, and its request carries that span's traceparent; the URL
// and body are those of an untraced request. Untraced, or with no
// propagator, no traceparent is sent.
func TestTracedRequestsCarryTraceparent(t *testing.T) {
	tests := []struct {
		name       string
		traced     bool
		propagator propagation.TextMapPropagator
		method     string
		body       string
		statuses   []int
		// wantStatus are the span attributes http.response.status_code, one per attempt.
		wantStatus []int64
	}{
		{name: "GET retried", traced: true, propagator: propagation.TraceContext{}, method: "GET",
			statuses: []int{503, 200}, wantStatus: []int64{503, 200}},
		{name: "PUT with a body", traced: true, propagator: propagation.TraceContext{}, method: "PUT",
			body: `{"conditions":[]}`, statuses: []int{200}, wantStatus: []int64{200}},
		{name: "no propagator", traced: true, method: "GET", statuses: []int{200}, wantStatus: []int64{200}},
		{name: "untraced", method: "PUT", body: `{"a":1}`, statuses: []int{200}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var got []seen
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				defer mu.Unlock()
				got = append(got, seen{r.Header.Get("traceparent"), r.RequestURI, string(b)})
				w.WriteHeader(tt.statuses[len(got)-1])
			}))
			defer srv.Close()
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			o := Options{BaseURL: srv.URL, BaseDelay: time.Millisecond}
			if tt.traced {
				o.Tracer, o.Propagator = tp.Tracer("test"), tt.propagator
			}
			ctx, parent := tp.Tracer("test").Start(context.Background(), "caller")
			_, err := New(o).Do(ctx, adapter.APIRequest{Method: tt.method, URL: "/clusters/c1?x=1", Body: []byte(tt.body)})
			parent.End()
			if err != nil {
				t.Fatal(err)
			}
			var spans []sdktrace.ReadOnlySpan
			for _, s := range rec.Ended() {
				if s.Name() != "caller" {
					spans = append(spans, s)
				}
			}
			if len(spans) != len(tt.wantStatus) || len(got) != len(tt.statuses) {
				t.Fatalf("%d spans for %d requests, want %d spans for %d", len(spans), len(got), len(tt.wantStatus), len(tt.statuses))
			}
			for i, r := range got {
				if r.uri != "/api/hyperfleet/v1/clusters/c1?x=1" || r.body != tt.body {
					t.Errorf("request %d: %s %q, want the untraced URL and body", i, r.uri, r.body)
				}
				want := ""
				if tt.traced && tt.propagator != nil {
					sc := spans[i].SpanContext()
					want = fmt.Sprintf("00-%s-%s-01", sc.TraceID(), sc.SpanID())
				}
				if r.traceparent != want {
					t.Errorf("request %d: traceparent %q, want %q", i, r.traceparent, want)
				}
			}
			for i, s := range spans {
				checkHTTPSpan(t, s, parent.SpanContext().SpanID().String(), tt.method, srv.URL, tt.wantStatus[i], i)
			}
		})
	}
}

func checkHTTPSpan(t *testing.T, s sdktrace.ReadOnlySpan, parent, method, base string, status int64, attempt int) {
	t.Helper()
	if s.Name() != "HTTP "+method || s.Parent().SpanID().String() != parent {
		t.Errorf("span %q with parent %s, want HTTP %s under %s", s.Name(), s.Parent().SpanID(), method, parent)
	}
	attrs := map[string]string{}
	for _, a := range s.Attributes() {
		attrs[string(a.Key)] = a.Value.Emit()
	}
	want := map[string]string{"http.request.method": method, "url.full": base + "/api/hyperfleet/v1/clusters/c1?x=1",
		"http.response.status_code": fmt.Sprint(status)}
	if attempt > 0 {
		want["http.request.resend_count"] = fmt.Sprint(attempt)
	}
	if fmt.Sprint(attrs) != fmt.Sprint(want) {
		t.Errorf("span %d attributes %v, want %v", attempt, attrs, want)
	}
	if isErr := s.Status().Code.String() == "Error"; isErr != (status >= 400) {
		t.Errorf("span %d status %v for HTTP %d", attempt, s.Status(), status)
	}
}
