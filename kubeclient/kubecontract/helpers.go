package kubecontract

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bundles"
)

func testContext(t *testing.T, h Harness) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 4*h.timeout())
	t.Cleanup(cancel)
	return ctx
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: error %v, want one wrapping %q", what, err, want)
	}
}

// mustCreate creates obj and registers a cleanup that removes its finalizers
// and deletes it, whatever the scenario left.
func mustCreate(t *testing.T, ctx context.Context, h Harness, obj *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	created, err := h.Kube.Create(ctx, obj.DeepCopy())
	if err != nil {
		t.Fatalf("Create %s: %v", describe(RefOf(obj)), err)
	}
	if created == nil {
		t.Fatalf("Create %s returned no object and no error", describe(RefOf(obj)))
	}
	ref := RefOf(obj)
	t.Cleanup(func() { cleanup(t, h, ref) })
	return created
}

func cleanup(t *testing.T, h Harness, ref adapter.KubeRef) {
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout())
	defer cancel()
	if err := h.RemoveFinalizers(ctx, ref); err != nil && !errors.Is(err, adapter.ErrNotFound) {
		t.Logf("cleanup: remove finalizers of %s: %v", describe(ref), err)
	}
	if err := h.Kube.Delete(ctx, ref, ""); err != nil && !errors.Is(err, adapter.ErrNotFound) {
		t.Logf("cleanup: delete %s: %v", describe(ref), err)
	}
}

func mustGet(t *testing.T, ctx context.Context, h Harness, ref adapter.KubeRef) *unstructured.Unstructured {
	t.Helper()
	obj, err := h.Kube.Get(ctx, ref)
	if err != nil {
		t.Fatalf("Get %s: %v", describe(ref), err)
	}
	return obj
}

func mustDelete(t *testing.T, ctx context.Context, h Harness, ref adapter.KubeRef, propagation string) {
	t.Helper()
	if err := h.Kube.Delete(ctx, ref, propagation); err != nil {
		t.Fatalf("Delete %s (propagation %q): %v", describe(ref), propagation, err)
	}
}

// mustBeDeleting reads ref and fails unless it is present with a
// deletionTimestamp.
func mustBeDeleting(t *testing.T, ctx context.Context, h Harness, ref adapter.KubeRef) *unstructured.Unstructured {
	t.Helper()
	obj := mustGet(t, ctx, h, ref)
	if obj.GetDeletionTimestamp() == nil {
		t.Fatalf("Get %s after Delete with a finalizer held: no deletionTimestamp", describe(ref))
	}
	return obj
}

// eventuallyGone polls Get until it answers adapter.ErrNotFound.
func eventuallyGone(t *testing.T, ctx context.Context, h Harness, ref adapter.KubeRef, what string) {
	t.Helper()
	deadline := time.Now().Add(h.timeout())
	for {
		obj, err := h.Kube.Get(ctx, ref)
		if errors.Is(err, adapter.ErrNotFound) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s still present after %v (last Get: %s, err %v)", what, describe(ref), h.timeout(), summary(obj), err)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v", what, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func describe(ref adapter.KubeRef) string {
	if ref.Namespace == "" {
		return fmt.Sprintf("%s %s %s", ref.APIVersion, ref.Kind, ref.Name)
	}
	return fmt.Sprintf("%s %s %s/%s", ref.APIVersion, ref.Kind, ref.Namespace, ref.Name)
}

func summary(obj *unstructured.Unstructured) string {
	if obj == nil {
		return "<nil>"
	}
	return fmt.Sprintf("uid=%s resourceVersion=%s deletionTimestamp=%v finalizers=%v",
		obj.GetUID(), obj.GetResourceVersion(), obj.GetDeletionTimestamp(), obj.GetFinalizers())
}

func dataOf(obj *unstructured.Unstructured) map[string]string {
	m, _, _ := unstructured.NestedStringMap(obj.Object, "data")
	return m
}

func fingerprintOf(obj *unstructured.Unstructured) string {
	return obj.GetAnnotations()[bundles.FingerprintAnnotation]
}
