package adapter

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"
)

// decodeRendered gives decodeWork's work and error (nil or not, same
// message) for the trees an event renders: valid, with fields the type
// lacks, and with a value of the wrong type.
func TestDecodeRenderedIsDecodeWork(t *testing.T) {
	manifest := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c", "namespace": "ns"}, "data": map[string]any{"k": "v"}, "n": int64(3)}
	work := func(spec map[string]any, meta map[string]any) map[string]any {
		return map[string]any{"apiVersion": "work.open-cluster-management.io/v1", "kind": "ManifestWork",
			"metadata": meta, "spec": spec}
	}
	meta := map[string]any{"name": "w", "namespace": "cluster1", "labels": map[string]any{"a": "b"},
		"annotations": map[string]any{"bundle-adapter.io/fingerprint": "fp"}}
	trees := map[string]map[string]any{
		"valid": work(map[string]any{"workload": map[string]any{"manifests": []any{manifest}},
			"deleteOption": map[string]any{"propagationPolicy": "Foreground"},
			"manifestConfigs": []any{map[string]any{"resourceIdentifier": map[string]any{"resource": "configmaps", "name": "c", "namespace": "ns"},
				"feedbackRules": []any{map[string]any{"type": "WellKnownStatus"}}}}}, meta),
		"unknown fields": work(map[string]any{"workload": map[string]any{"manifests": []any{manifest}, "extra": true},
			"deleteOption": map[string]any{"propagationPolicy": "Foreground", "gracePeriodSeconds": int64(30)}}, meta),
		"wrong type": work(map[string]any{"workload": map[string]any{"manifests": "not a list"}}, meta),
		"wrong label": work(map[string]any{"workload": map[string]any{"manifests": []any{manifest}}},
			map[string]any{"name": "w", "labels": map[string]any{"a": int64(1)}}),
		"no spec": work(nil, meta),
	}
	for name, tree := range trees {
		want, _, wantErr := decodeWork(tree)
		got, gotErr := decodeRendered(tree)
		if (gotErr != nil) != (wantErr != nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Errorf("%s: error %v, decodeWork %v", name, gotErr, wantErr)
			continue
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: work\n%+v\ndecodeWork\n%+v", name, got, want)
		}
	}
}

// A view hit's observation (work with metadata only, the object whole)
// gives an update the whole work back.
func TestFullWorkOfAViewObservation(t *testing.T) {
	manifest, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c", "namespace": "ns"}, "data": map[string]any{"k": "v"}})
	ts := metav1.NewTime(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
	work := &workv1.ManifestWork{
		TypeMeta: metav1.TypeMeta{APIVersion: "work.open-cluster-management.io/v1", Kind: "ManifestWork"},
		ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "cluster1", UID: "u1", ResourceVersion: "7", Generation: 2,
			Annotations: map[string]string{"bundle-adapter.io/fingerprint": "fp"}, CreationTimestamp: ts},
		Spec: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{Manifests: []workv1.Manifest{
			{RawExtension: runtime.RawExtension{Raw: manifest}}}}},
		Status: workv1.ManifestWorkStatus{Conditions: []metav1.Condition{{Type: "Applied", Status: "True",
			Reason: "AppliedManifestWorkComplete", ObservedGeneration: 2, LastTransitionTime: ts}}},
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(work)
	if err != nil {
		t.Fatal(err)
	}
	metaOnly := &workv1.ManifestWork{TypeMeta: work.TypeMeta, ObjectMeta: work.ObjectMeta}
	got, err := observation{work: metaOnly, viewObj: obj}.fullWork()
	if err != nil {
		t.Fatal(err)
	}
	if !apiequality.Semantic.DeepEqual(got, work) { // times compare by instant, not location
		t.Errorf("fullWork\n%+v\nwant\n%+v", got, work)
	}
	if got, _ := (observation{work: work}).fullWork(); got != work {
		t.Error("a read's observation must give its own work")
	}
}
