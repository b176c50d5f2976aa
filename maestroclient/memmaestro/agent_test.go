package memmaestro

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

func raw(s string) workv1.Manifest {
	return workv1.Manifest{RawExtension: runtime.RawExtension{Raw: []byte(s)}}
}

func TestAutoStatus(t *testing.T) {
	s, clk := newTestStore(Options{AutoStatus: true})
	in := work("w1", "a")
	in.Spec.Workload.Manifests = []workv1.Manifest{
		cm("cfg", "a"),
		raw(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"ns1"}}`),
		raw(`{"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"np","namespace":"ns1"}}`),
		raw(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns1"}}`),
	}
	created := mustCreate(t, s, "c1", in)
	checkApplied(t, created, 1, t0)
	wantMeta := []workv1.ManifestResourceMeta{
		{Ordinal: 0, Version: "v1", Kind: "ConfigMap", Resource: "configmaps", Name: "cfg", Namespace: "default"},
		{Ordinal: 1, Group: "apps", Version: "v1", Kind: "Deployment", Resource: "deployments", Name: "web", Namespace: "ns1"},
		{Ordinal: 2, Group: "networking.k8s.io", Version: "v1", Kind: "NetworkPolicy", Resource: "networkpolicies", Name: "np", Namespace: "ns1"},
		{Ordinal: 3, Version: "v1", Kind: "Namespace", Resource: "namespaces", Name: "ns1"},
	}
	got := created.Status.ResourceStatus.Manifests
	if len(got) != len(wantMeta) {
		t.Fatalf("%d manifest statuses, want %d", len(got), len(wantMeta))
	}
	for i, mc := range got {
		if mc.ResourceMeta != wantMeta[i] {
			t.Errorf("manifest %d resourceMeta = %+v, want %+v", i, mc.ResourceMeta, wantMeta[i])
		}
		for _, typ := range []string{workv1.ManifestApplied, workv1.ManifestAvailable} {
			if !meta.IsStatusConditionTrue(mc.Conditions, typ) {
				t.Errorf("manifest %d condition %s not True: %+v", i, typ, mc.Conditions)
			}
		}
	}

	// Update: conditions observe generation 2 and keep their transition time.
	clk.Advance(time.Minute)
	desired := in.DeepCopy()
	desired.Spec.Workload.Manifests = desired.Spec.Workload.Manifests[:1]
	updated, err := s.Update(context.Background(), "c1", created, desired)
	if err != nil {
		t.Fatal(err)
	}
	checkApplied(t, updated, 2, t0)
	if n := len(updated.Status.ResourceStatus.Manifests); n != 1 {
		t.Errorf("%d manifest statuses after Update, want 1", n)
	}

	// Delete keeps the agent's conditions and adds Deleting.
	mustDelete(t, s, "c1", "w1")
	deleting := mustGet(t, s, "c1", "w1")
	checkApplied(t, deleting, 2, t0)
	if !meta.IsStatusConditionTrue(deleting.Status.Conditions, workv1.WorkDeleting) {
		t.Errorf("Deleting condition missing: %+v", deleting.Status.Conditions)
	}
}

func checkApplied(t *testing.T, w *workv1.ManifestWork, gen int64, since time.Time) {
	t.Helper()
	for _, typ := range []string{workv1.WorkApplied, workv1.WorkAvailable} {
		c := meta.FindStatusCondition(w.Status.Conditions, typ)
		switch {
		case c == nil || c.Status != metav1.ConditionTrue:
			t.Errorf("condition %s = %+v, want True", typ, c)
		case c.ObservedGeneration != gen:
			t.Errorf("condition %s observedGeneration = %d, want %d", typ, c.ObservedGeneration, gen)
		case !c.LastTransitionTime.Time.Equal(since.Truncate(time.Second)):
			t.Errorf("condition %s lastTransitionTime = %v, want %v", typ, c.LastTransitionTime, since)
		}
	}
}

func TestNoAutoStatus(t *testing.T) {
	s, _ := newTestStore(Options{})
	created := mustCreate(t, s, "c1", work("w1", "a"))
	if len(created.Status.Conditions) != 0 || len(created.Status.ResourceStatus.Manifests) != 0 {
		t.Fatalf("status without AutoStatus = %+v, want empty", created.Status)
	}
}

func TestPluralize(t *testing.T) {
	tests := map[string]string{
		"ConfigMap": "configmaps", "Ingress": "ingresses", "NetworkPolicy": "networkpolicies",
		"Gateway": "gateways", "Endpoints": "endpoints", "Mesh": "meshes", "Box": "boxes", "": "",
	}
	for kind, want := range tests {
		if got := pluralize(kind); got != want {
			t.Errorf("pluralize(%q) = %q, want %q", kind, got, want)
		}
	}
}

func TestSetStatus(t *testing.T) {
	s, _ := newTestStore(Options{})
	mustCreate(t, s, "c1", work("w1", "a"))
	failed := workv1.ManifestWorkStatus{Conditions: []metav1.Condition{{
		Type: workv1.WorkApplied, Status: metav1.ConditionFalse, Reason: "AppliedManifestWorkFailed",
		Message: "field is immutable", LastTransitionTime: metav1.NewTime(t0),
	}}}
	if err := s.SetStatus("c1", "w1", failed); err != nil {
		t.Fatal(err)
	}
	failed.Conditions[0].Message = "mutated by caller"
	got := mustGet(t, s, "c1", "w1")
	if c := meta.FindStatusCondition(got.Status.Conditions, workv1.WorkApplied); c == nil || c.Message != "field is immutable" {
		t.Fatalf("Applied condition = %+v, want the status set (deep-copied)", c)
	}

	mustDelete(t, s, "c1", "w1")
	if err := s.SetStatus("c1", "w1", workv1.ManifestWorkStatus{}); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, s, "c1", "w1"); !meta.IsStatusConditionTrue(got.Status.Conditions, workv1.WorkDeleting) {
		t.Fatalf("SetStatus on a deleting work dropped Deleting: %+v", got.Status.Conditions)
	}
	if err := s.SetStatus("c1", "nope", failed); !errors.Is(err, adapter.ErrNotFound) {
		t.Fatalf("SetStatus of a missing work: %v, want ErrNotFound", err)
	}
}
