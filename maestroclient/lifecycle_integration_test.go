package maestroclient_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/agentsim"
)

var feedback = []workv1.FeedbackValue{
	{Name: "replicas", Value: workv1.FieldValue{Type: workv1.Integer, Integer: ptr(int64(3))}},
	{Name: "phase", Value: workv1.FieldValue{Type: workv1.String, String: ptr("Running")}},
}

func ptr[T any](v T) *T { return &v }

// TestLifecycle walks one bundle through create, status, update, held
// deletion (with the writes it must refuse meanwhile) and release.
func TestLifecycle(t *testing.T) {
	s := requireServer(t)
	ctx := t.Context()
	c := newClient(t, s, nil)
	consumer := register(t, s, "life")
	agent := startAgent(t, s, consumer, func(o *agentsim.Options) {
		o.Delete = agentsim.DeleteOnRelease
		o.Feedback = feedback
	})
	name := unique("b")

	if _, err := c.Create(ctx, consumer, bundle(name, "v1"), adapter.Unread); err != nil {
		t.Fatalf("Create: %v", err)
	}
	observed := waitApplied(t, c, consumer, name, 1)
	checkStatus(t, observed)

	desired := bundle(name, "v2")
	desired.Annotations = map[string]string{"fingerprint": "v2"}
	if _, err := c.Update(ctx, consumer, observed, desired); err != nil {
		t.Fatalf("Update: %v", err)
	}
	observed = waitApplied(t, c, consumer, name, 2)
	if observed.Annotations["fingerprint"] != "v2" {
		t.Fatalf("update not visible: annotations %v", observed.Annotations)
	}

	deleting := deleteAndWaitDeleting(t, c, consumer, name)
	refuseWritesWhileDeleting(t, c, consumer, deleting)

	agent.Release(ctx, string(deleting.UID))
	waitNotFound(t, c, consumer, name)
	if err := c.Delete(ctx, consumer, name); !errors.Is(err, adapter.ErrNotFound) {
		t.Fatalf("Delete of a gone bundle: got %v, want ErrNotFound", err)
	}
	if _, err := c.Create(ctx, consumer, bundle(name, "v3"), adapter.Unread); err != nil {
		t.Fatalf("Create after deletion: %v", err)
	}
	waitApplied(t, c, consumer, name, 1)
}

// waitApplied waits until Maestro reports the bundle applied at generation.
func waitApplied(t *testing.T, c adapter.Maestro, consumer, name string, generation int64) *workv1.ManifestWork {
	t.Helper()
	return waitAppliedAt(t, c, consumer, name, generation, 10*time.Second)
}

func waitAppliedWithin(t *testing.T, c adapter.Maestro, consumer, name string, timeout time.Duration) {
	t.Helper()
	waitAppliedAt(t, c, consumer, name, 1, timeout)
}

func waitAppliedAt(t *testing.T, c adapter.Maestro, consumer, name string, generation int64,
	timeout time.Duration) *workv1.ManifestWork {
	t.Helper()
	var work *workv1.ManifestWork
	eventually(t, timeout, "applied at generation "+fmt.Sprint(generation), func() error {
		w, err := c.Get(t.Context(), consumer, name)
		if err != nil {
			return err
		}
		cond := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkApplied)
		if w.Generation != generation || cond == nil || cond.ObservedGeneration != generation {
			return fmt.Errorf("generation %d, Applied %+v", w.Generation, cond)
		}
		work = w
		return nil
	})
	return work
}

func checkStatus(t *testing.T, w *workv1.ManifestWork) {
	t.Helper()
	if w.Namespace == "" || w.UID == "" || w.CreationTimestamp.IsZero() {
		t.Errorf("metadata incomplete: %+v", w.ObjectMeta)
	}
	if !meta.IsStatusConditionTrue(w.Status.Conditions, workv1.WorkAvailable) {
		t.Errorf("work not Available: %+v", w.Status.Conditions)
	}
	manifests := w.Status.ResourceStatus.Manifests
	if len(manifests) != 1 {
		t.Fatalf("want 1 manifest status, got %+v", manifests)
	}
	m := manifests[0]
	if m.ResourceMeta.Kind != "ConfigMap" || m.ResourceMeta.Name != w.Name ||
		!meta.IsStatusConditionTrue(m.Conditions, workv1.ManifestAvailable) {
		t.Errorf("manifest status: %+v", m)
	}
	got := m.StatusFeedbacks.Values
	if len(got) != 2 || *got[0].Value.Integer != 3 || *got[1].Value.String != "Running" {
		t.Errorf("feedback: %+v", got)
	}
}

// deleteAndWaitDeleting deletes the bundle and waits for the agent's
// Deleting condition; the bundle must stay readable with deletionTimestamp.
func deleteAndWaitDeleting(t *testing.T, c adapter.Maestro, consumer, name string) *workv1.ManifestWork {
	t.Helper()
	if err := c.Delete(t.Context(), consumer, name); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	var work *workv1.ManifestWork
	eventually(t, 10*time.Second, "Deleting condition", func() error {
		w, err := c.Get(t.Context(), consumer, name)
		if err != nil {
			return err
		}
		if w.DeletionTimestamp == nil || !meta.IsStatusConditionTrue(w.Status.Conditions, workv1.WorkDeleting) {
			return fmt.Errorf("deletionTimestamp %v, conditions %+v", w.DeletionTimestamp, w.Status.Conditions)
		}
		work = w
		return nil
	})
	return work
}

// refuseWritesWhileDeleting checks update, create and a second delete of a
// bundle whose deletion is held.
func refuseWritesWhileDeleting(t *testing.T, c adapter.Maestro, consumer string, deleting *workv1.ManifestWork) {
	t.Helper()
	ctx, name := t.Context(), deleting.Name
	if _, err := c.Update(ctx, consumer, deleting, bundle(name, "v9")); !errors.Is(err, adapter.ErrUnderDeletion) {
		t.Errorf("Update of a deleting bundle: got %v, want ErrUnderDeletion", err)
	}
	stale := deleting.DeepCopy()
	stale.DeletionTimestamp = nil // as read before the delete: the server must refuse too
	if _, err := c.Update(ctx, consumer, stale, bundle(name, "v9")); !errors.Is(err, adapter.ErrUnderDeletion) {
		t.Errorf("Update from a pre-delete read: got %v, want ErrUnderDeletion", err)
	}
	if _, err := c.Create(ctx, consumer, bundle(name, "v9"), adapter.Unread); !errors.Is(err, adapter.ErrAlreadyExists) {
		t.Errorf("Create while deleting: got %v, want ErrAlreadyExists", err)
	}
	time.Sleep(1100 * time.Millisecond) // a re-sent delete would move deletionTimestamp
	if err := c.Delete(ctx, consumer, name); err != nil {
		t.Errorf("Delete while deleting: %v", err)
	}
	after, err := c.Get(ctx, consumer, name)
	if err != nil {
		t.Fatalf("Get while deleting: %v", err)
	}
	if after.Generation != deleting.Generation || !after.DeletionTimestamp.Equal(deleting.DeletionTimestamp) {
		t.Errorf("bundle changed while deleting: generation %d -> %d, deletionTimestamp %v -> %v",
			deleting.Generation, after.Generation, deleting.DeletionTimestamp, after.DeletionTimestamp)
	}
}

func waitNotFound(t *testing.T, c adapter.Maestro, consumer, name string) {
	t.Helper()
	eventually(t, 10*time.Second, "404 after deletion", func() error {
		_, err := c.Get(t.Context(), consumer, name)
		if errors.Is(err, adapter.ErrNotFound) {
			return nil
		}
		return fmt.Errorf("Get: %v", err)
	})
}
