package kubecontract

import (
	"slices"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// deleteHeldByFinalizer: Delete returns while a finalizer holds the object;
// Get shows the deletionTimestamp with the finalizer still there; once the
// finalizer is removed Get answers 404.
func deleteHeldByFinalizer(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	created := mustCreate(t, ctx, h, ConfigMap(h.Namespace, unique("delete-held"), "fp", nil, nil, Finalizer))
	ref := RefOf(created)
	mustDelete(t, ctx, h, ref, "")
	got := mustBeDeleting(t, ctx, h, ref)
	if got.GetUID() != created.GetUID() {
		t.Errorf("deleting object uid %q, want %q", got.GetUID(), created.GetUID())
	}
	if !slices.Contains(got.GetFinalizers(), Finalizer) {
		t.Errorf("finalizers while deleting = %v, want %s kept (nothing but its controller removes it)", got.GetFinalizers(), Finalizer)
	}
	if err := h.RemoveFinalizers(ctx, ref); err != nil {
		t.Fatalf("RemoveFinalizers: %v", err)
	}
	eventuallyGone(t, ctx, h, ref, "deletion released")
}

func deleteMissing(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	ref := RefOf(ConfigMap(h.Namespace, unique("delete-missing"), "fp", nil, nil))
	err := h.Kube.Delete(ctx, ref, "")
	wantErr(t, "Delete of an object never created", err, adapter.ErrNotFound)
}

func deleteWhileDeleting(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	created := mustCreate(t, ctx, h, ConfigMap(h.Namespace, unique("delete-twice"), "fp", nil, nil, Finalizer))
	ref := RefOf(created)
	mustDelete(t, ctx, h, ref, "")
	first := mustBeDeleting(t, ctx, h, ref)
	if err := h.Kube.Delete(ctx, ref, ""); err != nil {
		t.Fatalf("second Delete of an object being deleted: %v, want it accepted", err)
	}
	second := mustBeDeleting(t, ctx, h, ref)
	if second.GetUID() != first.GetUID() {
		t.Errorf("uid changed by the second Delete: %q -> %q", first.GetUID(), second.GetUID())
	}
	if !second.GetDeletionTimestamp().Equal(first.GetDeletionTimestamp()) {
		t.Errorf("second Delete moved deletionTimestamp %v -> %v", first.GetDeletionTimestamp(), second.GetDeletionTimestamp())
	}
}

// deletePropagation: every propagation policy the config may name is
// accepted, and the deletion then finishes by itself (the garbage collector
// removes the orphan and foregroundDeletion finalizers it added).
func deletePropagation(t *testing.T, h Harness) {
	for _, p := range []string{"", "Background", "Foreground", "Orphan"} {
		t.Run("propagation="+p, func(t *testing.T) {
			ctx := testContext(t, h)
			created := mustCreate(t, ctx, h, ConfigMap(h.Namespace, unique("propagation"), "fp", nil, nil))
			ref := RefOf(created)
			mustDelete(t, ctx, h, ref, p)
			eventuallyGone(t, ctx, h, ref, "deletion with propagation "+p)
		})
	}
}

// deleteUnknownPropagation: a propagation policy the API server does not
// know is refused as invalid and deletes nothing.
func deleteUnknownPropagation(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	created := mustCreate(t, ctx, h, ConfigMap(h.Namespace, unique("propagation-bad"), "fp", nil, nil))
	ref := RefOf(created)
	err := h.Kube.Delete(ctx, ref, "Sideways")
	wantErr(t, "Delete with propagation Sideways", err, adapter.ErrInvalid)
	got := mustGet(t, ctx, h, ref)
	if got.GetDeletionTimestamp() != nil {
		t.Errorf("a refused Delete started the deletion: %s", summary(got))
	}
}

// deleteByUID: a Delete decided on an observed object (ref.UID set) never
// deletes a newer object of the same name, which another replica created
// meanwhile: ErrNotFound, and the newer object stays. With the current uid
// the object is deleted.
func deleteByUID(t *testing.T, h Harness) {
	ctx := testContext(t, h)
	name := unique("delete-uid")
	old := mustCreate(t, ctx, h, ConfigMap(h.Namespace, name, "fp-old", nil, nil))
	mustDelete(t, ctx, h, RefOf(old), "")
	eventuallyGone(t, ctx, h, RefOf(old), "the old object's deletion")
	fresh, err := h.Kube.Create(ctx, ConfigMap(h.Namespace, name, "fp-new", nil, nil))
	if err != nil {
		t.Fatalf("Create of the newer object: %v", err)
	}

	stale := RefOf(old)
	stale.UID = string(old.GetUID())
	err = h.Kube.Delete(ctx, stale, "")
	wantErr(t, "Delete with the uid of an object that is gone", err, adapter.ErrNotFound)
	got := mustGet(t, ctx, h, stale)
	if got.GetUID() != fresh.GetUID() || got.GetDeletionTimestamp() != nil {
		t.Fatalf("a Delete with a stale uid touched the newer object: %s", summary(got))
	}

	current := RefOf(fresh)
	current.UID = string(fresh.GetUID())
	mustDelete(t, ctx, h, current, "")
	eventuallyGone(t, ctx, h, current, "deletion with the current uid")
}
