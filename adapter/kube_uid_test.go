package adapter_test

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bundles"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/memkube"
)

// A delete decided on an observed object names that object's uid, so that
// a replica that recreated the object meanwhile keeps its fresh one (the
// API server refuses a delete whose uid precondition does not match).
func TestKubernetesDeleteNamesTheObservedUID(t *testing.T) {
	h := newKubeHarness(t)
	old := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": "ns-x", "annotations": map[string]any{bundles.FingerprintAnnotation: "stale"}},
	}}
	if err := h.kube.Seed(old); err != nil {
		t.Fatal(err)
	}
	seen, err := h.kube.Get(context.Background(), nsRef)
	if err != nil || seen.GetUID() == "" {
		t.Fatalf("seeded namespace: %v (uid %q)", err, seen.GetUID())
	}
	h.event(map[string]any{"recreate": true})
	var deletes []adapter.KubeRef
	for _, c := range h.kube.Calls() {
		if c.Verb == memkube.VerbDelete {
			deletes = append(deletes, c.Ref)
		}
	}
	if len(deletes) != 1 || deletes[0].UID != string(seen.GetUID()) {
		t.Errorf("deletes %+v, want one naming uid %s", deletes, seen.GetUID())
	}
}
