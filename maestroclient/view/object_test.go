package view_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
)

// LookupObject is exactly what the adapter made of Lookup's work before it
// existed (ToUnstructured): same keys, same Go types (int64 for whole
// numbers, float64 for others, nil for null), status included.
func TestLookupObjectIsLookupsUnstructured(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	store := memmaestro.New(memmaestro.Options{Clock: clock, AutoStatus: true})
	v := view.New(view.Options{Clock: clock, Synced: true})
	m := view.Maestro(store, v)

	w := fixture(t)
	var job map[string]any
	if err := json.Unmarshal([]byte(`{"apiVersion": "batch/v1", "kind": "Job",
		"metadata": {"name": "validate-c1", "namespace": "c1", "labels": {"a": "b"}, "annotations": {}},
		"spec": {"backoffLimit": 3, "ratio": 0.5, "big": 9007199254740993, "neg": -2, "exp": 1e3,
			"flag": false, "none": null, "list": [1, 2.5, "x", [], {}], "empty": ""}}`), &job); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(job)
	w.Spec.Workload.Manifests = append(w.Spec.Workload.Manifests, workv1.Manifest{RawExtension: runtime.RawExtension{Raw: raw}})
	w.Spec.ManifestConfigs = []workv1.ManifestConfigOption{{
		ResourceIdentifier: workv1.ResourceIdentifier{Group: "batch", Resource: "jobs", Name: "validate-c1", Namespace: "c1"},
		FeedbackRules:      []workv1.FeedbackRule{{Type: workv1.WellKnownStatusType}},
	}}
	if _, err := store.Create(ctx, consumer, w, adapter.Unread); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Get(ctx, consumer, name); err != nil {
		t.Fatal(err)
	}
	typed, ok := v.Lookup(consumer, name)
	if !ok {
		t.Fatal("Lookup missed")
	}
	want, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := v.LookupObject(consumer, name)
	if !ok {
		t.Fatal("LookupObject missed where Lookup hit")
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Fatalf("LookupObject differs from ToUnstructured(Lookup):\n got %s\nwant %s\n got %#v\nwant %#v", g, w, got, want)
	}
	if _, ok := v.LookupObject(consumer, "other"); ok {
		t.Error("LookupObject hit a bundle never read")
	}
}
