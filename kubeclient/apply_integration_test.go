package kubeclient_test

import (
	"context"
	"encoding/json"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestServerSideApplyUIDPrecondition pins down the API server behaviour
// Client.Apply relies on to never create: a server-side apply carrying a
// metadata.uid is refused with 409 Conflict when no object of that name
// exists, and nothing is created; the same apply without a uid creates the
// object. If a future API server changes this, Apply's godoc is wrong.
func TestServerSideApplyUIDPrecondition(t *testing.T) {
	s := requireAPIServer(t)
	ns := s.namespace(t, "ssa-precondition")
	ctx := context.Background()
	res := s.dyn.Resource(configMapsGVR).Namespace(ns)
	force := true
	apply := func(name, uid string) error {
		meta := map[string]any{"name": name, "namespace": ns}
		if uid != "" {
			meta["uid"] = uid
			meta["resourceVersion"] = "1"
		}
		body, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": map[string]any{"a": "1"}})
		_, err := res.Patch(ctx, name, types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: "measure", Force: &force})
		return err
	}

	err := apply("with-uid", "0b7c3a4e-0000-4000-8000-000000000000")
	if !apierrors.IsConflict(err) {
		t.Errorf("apply with a uid onto a missing object: %v, want 409 Conflict", err)
	}
	if _, err := res.Get(ctx, "with-uid", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("after the refused apply, Get: %v, want 404 (nothing created)", err)
	}

	if err := apply("without-uid", ""); err != nil {
		t.Fatalf("apply without a uid: %v", err)
	}
	if _, err := res.Get(ctx, "without-uid", metav1.GetOptions{}); err != nil {
		t.Errorf("apply without a uid did not create the object: %v (then Apply's read is the only guard needed)", err)
	}
}
