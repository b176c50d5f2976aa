package adapter_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
	"github.com/bundle-adapter/bundle-adapter/tracing"
)

// The onprem example's events, traced: the span tree under the event's
// span (started here, as the dispatcher does) matches the golden file
// testdata/trace/<name>.txt. Every span belongs to the event's trace.
func TestTracedEventSpans(t *testing.T) {
	tests := []struct {
		name string
		// consumers registered in Maestro (nil: every one).
		consumers []string
		// events run before the traced one.
		before int
	}{
		{name: "create"},
		{name: "unchanged", before: 1},
		{name: "consumer-not-registered", consumers: []string{"another-cluster"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			p, ev := tracedPipeline(t, tp.Tracer(tracing.ScopeName), tt.consumers)
			for range tt.before {
				p.Run(context.Background(), ev)
			}
			rec.Reset()
			ctx, root := tp.Tracer("test").Start(context.Background(), "event")
			p.Run(ctx, ev)
			root.End()
			spans := rec.Ended()
			for _, s := range spans {
				if s.SpanContext().TraceID() != root.SpanContext().TraceID() {
					t.Errorf("span %s is in trace %s, not the event's %s", s.Name(), s.SpanContext().TraceID(), root.SpanContext().TraceID())
				}
			}
			golden(t, filepath.Join("testdata", "trace", tt.name+".txt"), spanTree(spans))
		})
	}
}

// Without a tracer, Run starts no span: the context's span (here a
// recording one) gets no child.
func TestUntracedEventStartsNoSpan(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	p, ev := tracedPipeline(t, nil, nil)
	ctx, root := tp.Tracer("test").Start(context.Background(), "event")
	p.Run(ctx, ev)
	root.End()
	if got := len(rec.Ended()); got != 1 {
		t.Errorf("%d spans ended, want only the test's own", got)
	}
}

// tracedPipeline is the onprem example against the in-memory Maestro (its
// calls traced by tracing.Maestro) and the canned API.
func tracedPipeline(t testing.TB, tr trace.Tracer, consumers []string) (*adapter.Pipeline, adapter.Event) {
	t.Helper()
	task, err := config.LoadTaskConfig("../config/examples/onprem/task-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile("../config/examples/onprem/dryrun/api-responses.json")
	if err != nil {
		t.Fatal(err)
	}
	api, err := apistub.Load(bytes.NewReader(body), "v1")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	store := memmaestro.New(memmaestro.Options{Consumers: consumers, Clock: func() time.Time { return now }})
	p, err := adapter.New(adapter.Options{Task: task, Adapter: config.AdapterInfo{Name: "trace-test"},
		Maestro: tracing.Maestro(store, tr), API: api, Tracer: tr, Clock: func() time.Time { return now },
		LookupEnv: func(string) (string, bool) { return "", false }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../config/examples/onprem/dryrun/event.json")
	if err != nil {
		t.Fatal(err)
	}
	ev, err := adapter.DecodeStructured(raw)
	if err != nil {
		t.Fatal(err)
	}
	return p, ev
}

// spanTree renders spans as an indented tree, children in start order,
// each with its attributes (sorted) and an ERROR mark for an Error status.
func spanTree(spans []sdktrace.ReadOnlySpan) string {
	children := map[trace.SpanID][]sdktrace.ReadOnlySpan{}
	ids := map[trace.SpanID]bool{}
	for _, s := range spans {
		ids[s.SpanContext().SpanID()] = true
	}
	var roots []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if parent := s.Parent().SpanID(); ids[parent] {
			children[parent] = append(children[parent], s)
		} else {
			roots = append(roots, s)
		}
	}
	var b strings.Builder
	var walk func(ss []sdktrace.ReadOnlySpan, depth int)
	walk = func(ss []sdktrace.ReadOnlySpan, depth int) {
		slices.SortStableFunc(ss, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
		for _, s := range ss {
			fmt.Fprintf(&b, "%s%s", strings.Repeat("  ", depth), s.Name())
			attrs := s.Attributes()
			slices.SortFunc(attrs, func(a, b attribute.KeyValue) int { return strings.Compare(string(a.Key), string(b.Key)) })
			for _, a := range attrs {
				fmt.Fprintf(&b, " %s=%s", a.Key, a.Value.Emit())
			}
			if s.Status().Code.String() == "Error" {
				b.WriteString(" ERROR")
			}
			b.WriteString("\n")
			walk(children[s.SpanContext().SpanID()], depth+1)
		}
	}
	walk(roots, 0)
	return b.String()
}

// golden compares got with the file; UPDATE_GOLDEN=1 writes it instead.
func golden(t *testing.T, file, got string) {
	t.Helper()
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("spans of %s:\n%s\nwant:\n%s", file, got, want)
	}
}
