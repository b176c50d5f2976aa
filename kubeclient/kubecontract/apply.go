package kubecontract

import (
	"maps"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// applyInPlace: Apply changes a field, drops a field the desired object no
// longer has, moves the fingerprint annotation, and keeps the object (uid).
func applyInPlace(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	name := unique("apply")
	created := mustCreate(t, ctx, h, ConfigMap(h.Namespace, name, "fp-one",
		map[string]string{"revision": "one", "dropped": "soon"}, map[string]string{"tier": "one"}))

	applied, err := h.Kube.Apply(ctx, ConfigMap(h.Namespace, name, "fp-two",
		map[string]string{"revision": "two"}, map[string]string{"tier": "two"}))
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if applied == nil {
		t.Fatal("Apply returned no object and no error")
	}
	got := mustGet(t, ctx, h, RefOf(created))
	for _, c := range []struct {
		what string
		u    *unstructured.Unstructured
	}{{"Apply's result", applied}, {"Get after Apply", got}} {
		what, u := c.what, c.u
		if u.GetUID() != created.GetUID() {
			t.Errorf("%s: uid %q, want the created object's %q", what, u.GetUID(), created.GetUID())
		}
		if want := map[string]string{"revision": "two"}; !maps.Equal(dataOf(u), want) {
			t.Errorf("%s: data %v, want %v (the dropped key removed)", what, dataOf(u), want)
		}
		if fp := fingerprintOf(u); fp != "fp-two" {
			t.Errorf("%s: fingerprint annotation %q, want %q", what, fp, "fp-two")
		}
		if tier := u.GetLabels()["tier"]; tier != "two" {
			t.Errorf("%s: label tier=%q, want two", what, tier)
		}
		if u.GetDeletionTimestamp() != nil {
			t.Errorf("%s: Apply set deletionTimestamp", what)
		}
	}
	if got.GetResourceVersion() == created.GetResourceVersion() {
		t.Errorf("resourceVersion unchanged by Apply (%s)", got.GetResourceVersion())
	}
}

func applyMissing(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	desired := ConfigMap(h.Namespace, unique("apply-missing"), "fp", map[string]string{"revision": "one"}, nil)
	ref := RefOf(desired)
	t.Cleanup(func() { cleanup(t, h, ref) })
	_, err := h.Kube.Apply(ctx, desired)
	wantErr(t, "Apply of an object never created", err, adapter.ErrNotFound)
	obj, err := h.Kube.Get(ctx, ref)
	wantErr(t, "Get after an Apply of a missing object (Apply must never create)", err, adapter.ErrNotFound)
	if obj != nil {
		t.Errorf("Apply created %s", summary(obj))
	}
}

func applyWhileDeleting(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	name := unique("apply-deleting")
	old := mustCreate(t, ctx, h, ConfigMap(h.Namespace, name, "fp-old", map[string]string{"revision": "old"}, nil, Finalizer))
	ref := RefOf(old)
	mustDelete(t, ctx, h, ref, "")
	before := mustBeDeleting(t, ctx, h, ref)

	_, err := h.Kube.Apply(ctx, ConfigMap(h.Namespace, name, "fp-new", map[string]string{"revision": "new"}, nil, Finalizer))
	wantErr(t, "Apply on an object being deleted", err, adapter.ErrUnderDeletion)
	got := mustBeDeleting(t, ctx, h, ref)
	if got.GetUID() != old.GetUID() || dataOf(got)["revision"] != "old" || fingerprintOf(got) != "fp-old" {
		t.Errorf("the refused Apply wrote: %s data %v fingerprint %q", summary(got), dataOf(got), fingerprintOf(got))
	}
	if got.GetResourceVersion() != before.GetResourceVersion() {
		t.Errorf("the refused Apply wrote: resourceVersion %s -> %s", before.GetResourceVersion(), got.GetResourceVersion())
	}
}
