package adapter_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bundles"
)

// fingerprintV1 is the fingerprint of the versions before the document
// covered every member of the work: manifests, deleteOption,
// manifestConfigs, labels and annotations only.
func fingerprintV1(t *testing.T, w *workv1.ManifestWork) string {
	t.Helper()
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(w)
	if err != nil {
		t.Fatal(err)
	}
	doc := map[string]any{}
	put := func(k string, v any) {
		switch x := v.(type) {
		case nil:
			return
		case []any:
			if len(x) == 0 {
				return
			}
		case map[string]any:
			if len(x) == 0 {
				return
			}
		}
		doc[k] = v
	}
	meta, _ := u["metadata"].(map[string]any)
	spec, _ := u["spec"].(map[string]any)
	workload, _ := spec["workload"].(map[string]any)
	ann := map[string]any{}
	if a, ok := meta["annotations"].(map[string]any); ok {
		for k, v := range a {
			if k != bundles.FingerprintAnnotation {
				ann[k] = v
			}
		}
	}
	put("manifests", workload["manifests"])
	put("deleteOption", spec["deleteOption"])
	put("manifestConfigs", spec["manifestConfigs"])
	put("labels", meta["labels"])
	put("annotations", ann)
	c, err := bundles.Canonical(doc)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:])
}

// TestFingerprintUpgradeRewritesOnce measures the upgrade to the
// fingerprint that covers every member of the work: a bundle written by the
// previous version (stamped with the v1 fingerprint) is updated once when
// it uses a member v1 left out (spec.executor), then unchanged; a bundle
// that uses none keeps its fingerprint and is not written at all.
func TestFingerprintUpgradeRewritesOnce(t *testing.T) {
	old := newHarness(t, "pending")
	old.useTask("testdata/task_executor.yaml")
	old.event(nil)
	h := newHarness(t, "pending")
	h.useTask("testdata/task_executor.yaml")
	h.reuse = true
	for _, name := range []string{"x-config", "x-job"} {
		w, err := old.store.Get(context.Background(), "c1", name)
		if err != nil {
			t.Fatal(err)
		}
		w = w.DeepCopy()
		w.Annotations[bundles.FingerprintAnnotation] = fingerprintV1(t, w)
		w.ResourceVersion, w.UID, w.Generation = "", "", 0
		w.Status = workv1.ManifestWorkStatus{}
		if _, err := h.store.Create(context.Background(), "c1", w, adapter.Unread); err != nil {
			t.Fatal(err)
		}
	}
	res := h.event(nil)
	wantOutcome(t, outcome(t, res, "config"), adapter.OpUpdate, adapter.StateDone, adapter.ReasonUpdated)
	wantOutcome(t, outcome(t, res, "job"), adapter.OpUnchanged, adapter.StateDone, adapter.ReasonUnchanged)
	if n := h.writes(); n != 1 {
		t.Fatalf("upgrade event: %d writes, want 1 (the bundle with an executor): %v", n, h.calls())
	}
	for i := range 2 {
		res = h.event(nil)
		wantOutcome(t, outcome(t, res, "config"), adapter.OpUnchanged, adapter.StateDone, adapter.ReasonUnchanged)
		if n := h.writes(); n != 0 {
			t.Fatalf("event %d after the upgrade: %d writes, want 0: %v", i+2, n, h.calls())
		}
	}
}

// TestAdoptionRefusesForeignExecutor: a work another writer made with the
// manifests this adapter renders plus an executor (more rights than ours
// would have) is not adopted: it is updated to what this adapter sends.
func TestAdoptionRefusesForeignExecutor(t *testing.T) {
	h := handMade(t, 1)
	w, err := h.store.Get(context.Background(), "c1", "x-config")
	if err != nil {
		t.Fatal(err)
	}
	observed := w
	w = w.DeepCopy()
	w.Spec.Executor = &workv1.ManifestWorkExecutor{Subject: workv1.ManifestWorkExecutorSubject{
		Type:           workv1.ExecutorSubjectTypeServiceAccount,
		ServiceAccount: &workv1.ManifestWorkSubjectServiceAccount{Namespace: "kube-system", Name: "cluster-admin-sa"},
	}}
	if _, err := h.store.Update(context.Background(), "c1", observed, w); err != nil {
		t.Fatal(err)
	}
	res := h.event(nil)
	wantOutcome(t, outcome(t, res, "config"), adapter.OpUpdate, adapter.StateDone, adapter.ReasonUpdated)
	wantOutcome(t, outcome(t, res, "job"), adapter.OpUnchanged, adapter.StateDone, adapter.ReasonAdopted)
	got, err := h.store.Get(context.Background(), "c1", "x-config")
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Executor != nil {
		t.Fatalf("the foreign executor was kept: %+v", got.Spec.Executor)
	}
}
