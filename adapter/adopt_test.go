package adapter_test

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bundles"
)

// handMade is a harness whose Maestro holds the bundles another writer made
// from the same templates for cluster x at generation gen: what an event
// of this adapter would create, without its fingerprint annotation (as
// hyperfleet-adapter creates them).
func handMade(t *testing.T, gen int64) *harness {
	t.Helper()
	made := newHarness(t, "pending")
	made.event(map[string]any{"generation": gen})
	h := newHarness(t, "pending")
	for _, name := range []string{"x-config", "x-job"} {
		w, err := made.store.Get(context.Background(), "c1", name)
		if err != nil {
			t.Fatal(err)
		}
		w = w.DeepCopy()
		delete(w.Annotations, bundles.FingerprintAnnotation)
		w.ResourceVersion, w.UID, w.Generation = "", "", 0
		w.Status = workv1.ManifestWorkStatus{}
		if _, err := h.store.Create(context.Background(), "c1", w, adapter.Unread); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func TestAdoptionWritesNothingWhenContentMatches(t *testing.T) {
	for _, reuse := range []bool{false, true} {
		h := handMade(t, 1)
		h.reuse = reuse
		for i := range 3 {
			res := h.event(nil)
			wantOutcome(t, outcome(t, res, "config"), adapter.OpUnchanged, adapter.StateDone, adapter.ReasonAdopted)
			wantOutcome(t, outcome(t, res, "job"), adapter.OpUnchanged, adapter.StateDone, adapter.ReasonAdopted)
			if n := h.writes(); n != 0 {
				t.Fatalf("reuse %v, event %d: %d Maestro writes to adopt matching bundles, want 0: %v", reuse, i, n, h.calls())
			}
		}
	}
}

// A bundle whose content differs from the desired one is written once (and
// stamped); the next event compares fingerprints as usual.
func TestAdoptionWritesOnceWhenContentDiffers(t *testing.T) {
	h := handMade(t, 1)
	h.reuse = true
	res := h.event(map[string]any{"generation": int64(2)})
	// Both bundles render the generation: each is written once.
	wantOutcome(t, outcome(t, res, "config"), adapter.OpUpdate, adapter.StateDone, adapter.ReasonUpdated)
	wantOutcome(t, outcome(t, res, "job"), adapter.OpUpdate, adapter.StateDone, adapter.ReasonUpdated)
	if n := h.writes(); n != 2 {
		t.Fatalf("%d writes, want 2 (one update each): %v", n, h.calls())
	}
	res = h.event(map[string]any{"generation": int64(2)})
	wantOutcome(t, outcome(t, res, "config"), adapter.OpUnchanged, adapter.StateDone, adapter.ReasonUnchanged)
	wantOutcome(t, outcome(t, res, "job"), adapter.OpUnchanged, adapter.StateDone, adapter.ReasonUnchanged)
	if n := h.writes(); n != 0 {
		t.Fatalf("after the update: %d writes, want 0: %v", n, h.calls())
	}
}

// The recreate rule is never evaluated for an adopted bundle: adoption is
// the fingerprint-equal row, which comes first.
func TestAdoptionBeforeRecreate(t *testing.T) {
	h := handMade(t, 1)
	res := h.event(map[string]any{"failRecreate": true})
	wantOutcome(t, outcome(t, res, "job"), adapter.OpUnchanged, adapter.StateDone, adapter.ReasonAdopted)
}

// A bundle being deleted is never adopted; another writer's bundle with
// extra labels is not adopted either (written once).
func TestAdoptionNeedsTheSameBundle(t *testing.T) {
	h := handMade(t, 1)
	w, err := h.store.Get(context.Background(), "c1", "x-config")
	if err != nil {
		t.Fatal(err)
	}
	d := w.DeepCopy()
	d.Labels = map[string]string{"owner": "someone"}
	if _, err := h.store.Update(context.Background(), "c1", w, d); err != nil {
		t.Fatal(err)
	}
	res := h.event(nil)
	wantOutcome(t, outcome(t, res, "config"), adapter.OpUpdate, adapter.StateDone, adapter.ReasonUpdated)
	wantOutcome(t, outcome(t, res, "job"), adapter.OpUnchanged, adapter.StateDone, adapter.ReasonAdopted)
}

// kubeMade seeds the in-memory API server with the objects another writer
// made as this adapter would render them for cluster x, without the
// fingerprint annotation, plus what the API server adds (a status, a
// default the template does not set).
func kubeMade(t *testing.T, rev string) *kubeHarness {
	t.Helper()
	h := newKubeHarness(t)
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": "ns-x", "labels": map[string]any{"cluster": "x", "kubernetes.io/metadata.name": "ns-x"}},
		"spec":     map[string]any{"finalizers": []any{"kubernetes"}}, "status": map[string]any{"phase": "Active"}}}
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "settings", "namespace": "ns-x", "labels": map[string]any{"app": "settings", "cluster": "x"},
			"annotations": map[string]any{"note": "made by hand"}},
		"data": map[string]any{"rev": rev}}}
	if err := h.kube.Seed(ns, cm); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestKubernetesAdoptionIgnoresWhatTheServerAdds(t *testing.T) {
	h := kubeMade(t, "1")
	for i := range 2 {
		res := h.event(nil)
		wantOutcome(t, outcome(t, res, "ns"), adapter.OpUnchanged, adapter.StateDone, adapter.ReasonAdopted)
		wantOutcome(t, outcome(t, res, "cfg"), adapter.OpUnchanged, adapter.StateDone, adapter.ReasonAdopted)
		for _, c := range h.calls() {
			if !strings.HasPrefix(c, "get ") && !strings.HasPrefix(c, "list ") {
				t.Fatalf("event %d: a write to adopt matching objects: %v", i, h.calls())
			}
		}
	}
}

func TestKubernetesAdoptionWritesOnceWhenContentDiffers(t *testing.T) {
	h := kubeMade(t, "1")
	res := h.event(map[string]any{"rev": "2"})
	wantOutcome(t, outcome(t, res, "ns"), adapter.OpUnchanged, adapter.StateDone, adapter.ReasonAdopted)
	wantOutcome(t, outcome(t, res, "cfg"), adapter.OpUpdate, adapter.StateDone, adapter.ReasonUpdated)
	res = h.event(map[string]any{"rev": "2"})
	wantOutcome(t, outcome(t, res, "cfg"), adapter.OpUnchanged, adapter.StateDone, adapter.ReasonUnchanged)
}
