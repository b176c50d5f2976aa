package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// sentinelBody is the CloudEvent of a real Sentinel delivery (its
// traceparent: trace 830e59a29417ff194f3476029a6bc2b5, span
// 3e4d64deda0e891f).
func sentinelBody(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("testdata/sentinel-rabbitmq-message.json")
	if err != nil {
		t.Fatal(err)
	}
	var delivery struct{ Body string }
	if err := json.Unmarshal(raw, &delivery); err != nil {
		t.Fatal(err)
	}
	return delivery.Body
}

// Every event runs in an Execute span: the child of its traceparent when it
// carries a valid one, a root otherwise, with the event's and the
// delivery's attributes and how it ended; Process's context carries it.
func TestEventSpan(t *testing.T) {
	sentinel := sentinelBody(t)
	tests := []struct {
		name       string
		body       string
		fail       bool
		wantTrace  string // "" for a new root trace
		wantParent string
		wantAttrs  map[string]string
	}{
		{name: "sentinel delivery", body: sentinel, wantTrace: "830e59a29417ff194f3476029a6bc2b5", wantParent: "3e4d64deda0e891f",
			wantAttrs: map[string]string{
				"cloudevents.event_id": "01a22c3e-a854-79a4-8306-049052dfaf0a", "cloudevents.event_type": "com.redhat.hyperfleet.cluster.reconcile",
				"cloudevents.event_source": "hyperfleet-sentinel", "messaging.message.id": "m1",
				"bundle_adapter.resource.kind": "Cluster", "bundle_adapter.resource.id": "01a22c3e-7bdd-7720-9eb2-25e022d8985b",
				"bundle_adapter.delivery_attempt": "2", "bundle_adapter.coalesced": "1",
				"bundle_adapter.execution_status": "success", "bundle_adapter.skip_reason": "", "bundle_adapter.settled": "acked"}},
		{name: "no traceparent, failed", fail: true,
			body:      strings.Replace(sentinel, `,"traceparent":"00-830e59a29417ff194f3476029a6bc2b5-3e4d64deda0e891f-01"`, "", 1),
			wantAttrs: map[string]string{"bundle_adapter.execution_status": "failed", "bundle_adapter.settled": "retried"}},
		{name: "traceparent not W3C",
			body:      strings.Replace(sentinel, "00-830e59a29417ff194f3476029a6bc2b5-3e4d64deda0e891f-01", "00-not-a-trace", 1),
			wantAttrs: map[string]string{"bundle_adapter.settled": "acked"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			inProcess := make(chan trace.SpanContext, 1)
			d, err := NewDispatcher(DispatcherOptions{Decode: Decode, Tracer: tp.Tracer("test"),
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
				Process: func(ctx context.Context, ev adapter.Event) *adapter.Result {
					inProcess <- trace.SpanContextFromContext(ctx)
					if tt.fail {
						return result(ev, errors.New("maestro unavailable"), false)
					}
					return result(ev, nil, false)
				}})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { d.Run(ctx); close(done) }()
			defer func() { cancel(); <-done }()
			m := &fakeMessage{id: "m1", body: []byte(tt.body), deliveries: 2, done: make(chan struct{})}
			d.Handle(m)
			m.wait(t)
			waitFor(t, func() bool { return len(rec.Ended()) == 1 })
			s := rec.Ended()[0]
			checkEventSpan(t, s, <-inProcess, tt.wantTrace, tt.wantParent, tt.wantAttrs)
			if isErr := s.Status().Code.String() == "Error"; isErr != tt.fail {
				t.Errorf("span status %v, want an error: %v", s.Status(), tt.fail)
			}
		})
	}
}

func checkEventSpan(t *testing.T, s sdktrace.ReadOnlySpan, inProcess trace.SpanContext, wantTrace, wantParent string, wantAttrs map[string]string) {
	t.Helper()
	if s.Name() != SpanEvent || s.SpanKind() != trace.SpanKindConsumer {
		t.Errorf("span %q kind %v, want %s consumer", s.Name(), s.SpanKind(), SpanEvent)
	}
	if !inProcess.Equal(s.SpanContext()) {
		t.Errorf("Process ran in span %v, not the event's %v", inProcess.SpanID(), s.SpanContext().SpanID())
	}
	switch {
	case wantTrace == "" && s.Parent().IsValid():
		t.Errorf("span has parent %v, want a root", s.Parent())
	case wantTrace != "" && (s.SpanContext().TraceID().String() != wantTrace || s.Parent().SpanID().String() != wantParent || !s.Parent().IsRemote()):
		t.Errorf("span in trace %s under %v, want trace %s under remote span %s", s.SpanContext().TraceID(), s.Parent(), wantTrace, wantParent)
	}
	got := map[string]string{}
	for _, a := range s.Attributes() {
		got[string(a.Key)] = a.Value.Emit()
	}
	for k, v := range wantAttrs {
		if got[k] != v {
			t.Errorf("attribute %s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
}

// The events coalesced into one run are linked to the run's span, so the
// traces Sentinel started for them lead to it.
func TestCoalescedEventsAreLinked(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	d := &Dispatcher{o: DispatcherOptions{Tracer: tp.Tracer("test")}}
	batch := make([]*item, 3)
	for i := range batch {
		tp := fmt.Sprintf("00-%032x-%016x-01", i+1, i+1)
		batch[i] = &item{msg: newMsg(fmt.Sprint("m", i), nil, 1), ev: adapter.Event{ID: fmt.Sprint("e", i), TraceParent: tp}}
	}
	_, span := d.startEvent(context.Background(), batch[2], batch)
	span.End()
	s := rec.Ended()[0]
	var links []string
	for _, l := range s.Links() {
		links = append(links, l.SpanContext.SpanID().String())
	}
	if fmt.Sprint(links) != "[0000000000000001 0000000000000002]" || s.Parent().SpanID().String() != "0000000000000003" {
		t.Errorf("span under %v linked to %v, want under the newest's span 3, linked to 1 and 2", s.Parent().SpanID(), links)
	}
}
