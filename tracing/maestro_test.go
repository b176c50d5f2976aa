package tracing

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"go.opentelemetry.io/otel/codes"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/memkube"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
)

// A 404 is an answer (not_found, no error status); any other error marks
// the span failed. Without a tracer the Maestro is not wrapped.
func TestMaestroSpans(t *testing.T) {
	store := memmaestro.New(memmaestro.Options{Consumers: []string{"cluster1"}})
	if Maestro(store, nil) != adapter.Maestro(store) {
		t.Error("a nil tracer wraps the Maestro")
	}
	tests := []struct {
		name      string
		call      func(m adapter.Maestro) error
		wantSpan  string
		wantAttrs map[string]string
		wantError bool
	}{
		{name: "get of a missing bundle", wantSpan: "maestro.Get",
			call: func(m adapter.Maestro) error { _, err := m.Get(context.Background(), "cluster1", "w1"); return err },
			wantAttrs: map[string]string{"bundle_adapter.consumer": "cluster1", "bundle_adapter.work": "w1",
				"bundle_adapter.maestro.operation": "Get", "bundle_adapter.maestro.not_found": "true"}},
		{name: "create for an unregistered consumer", wantSpan: "maestro.Create", wantError: true,
			call: func(m adapter.Maestro) error {
				_, err := m.Create(context.Background(), "cluster9", &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Name: "w2", Namespace: "cluster9"}}, adapter.Unread)
				return err
			},
			wantAttrs: map[string]string{"bundle_adapter.consumer": "cluster9", "bundle_adapter.work": "w2", "bundle_adapter.maestro.operation": "Create"}},
		{name: "batched read of two consumers", wantSpan: "maestro.GetBundles",
			call: func(m adapter.Maestro) error {
				_, err := m.GetBundles(context.Background(), []adapter.BundleKey{{Consumer: "cluster1", Name: "a"}, {Consumer: "cluster2", Name: "b"}})
				return err
			},
			wantAttrs: map[string]string{"bundle_adapter.bundles": "2", "bundle_adapter.maestro.operation": "GetBundles"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			_ = tt.call(Maestro(store, tp.Tracer("test")))
			spans := rec.Ended()
			if len(spans) != 1 || spans[0].Name() != tt.wantSpan {
				t.Fatalf("%d spans, want one %s", len(spans), tt.wantSpan)
			}
			got := map[string]string{}
			for _, a := range spans[0].Attributes() {
				got[string(a.Key)] = a.Value.Emit()
			}
			if len(got) != len(tt.wantAttrs) {
				t.Errorf("attributes %v, want %v", got, tt.wantAttrs)
			}
			for k, v := range tt.wantAttrs {
				if got[k] != v {
					t.Errorf("attribute %s = %q, want %q", k, got[k], v)
				}
			}
			if isErr := spans[0].Status().Code.String() == "Error"; isErr != tt.wantError {
				t.Errorf("status %v, want error %v", spans[0].Status(), tt.wantError)
			}
		})
	}
}

// A Kubernetes call is a span through the same interceptor as a Maestro
// call: "kubernetes.<Verb>" with the object's kind and name, and a 404 an
// answer, not a failure.
func TestKubeSpans(t *testing.T) {
	store := memkube.New(memkube.Options{})
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	k := Kube(store, tp.Tracer("test"))
	_, err := k.Get(context.Background(), adapter.KubeRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "cm"})
	if !errors.Is(err, adapter.ErrNotFound) {
		t.Fatalf("get: %v", err)
	}
	spans := rec.Ended()
	if len(spans) != 1 || spans[0].Name() != "kubernetes.Get" {
		t.Fatalf("spans %v, want one kubernetes.Get", spans)
	}
	got := map[string]string{}
	for _, a := range spans[0].Attributes() {
		got[string(a.Key)] = a.Value.Emit()
	}
	want := map[string]string{"bundle_adapter.kubernetes.operation": "Get", "bundle_adapter.kubernetes.kind": "v1/ConfigMap",
		"bundle_adapter.work": "ns/cm", "bundle_adapter.kubernetes.not_found": "true"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("attributes %v, want %v", got, want)
	}
	if spans[0].Status().Code != codes.Unset {
		t.Errorf("status %v: a 404 is an answer, not a failure", spans[0].Status())
	}
}
