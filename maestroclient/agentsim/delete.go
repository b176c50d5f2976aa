package agentsim

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	"open-cluster-management.io/sdk-go/pkg/cloudevents/clients/common"
)

// onDelete reports Deleting once per bundle, then confirms the deletion as
// the DeleteMode says. On the agent side a bundle is named by its uid.
func (a *Agent) onDelete(ctx context.Context, w *workv1.ManifestWork) error {
	id := w.Name
	a.mu.Lock()
	seen, released := a.deleting[id], a.released[id]
	a.mu.Unlock()
	if seen {
		return nil
	}
	if err := a.reportDeleting(ctx, w); err != nil {
		return err
	}
	a.mu.Lock()
	a.deleting[id] = true
	a.mu.Unlock()
	switch {
	case a.opts.Delete == DeleteAtOnce, released:
		return a.confirm(ctx, id)
	case a.opts.Delete == DeleteAfterDelay:
		time.AfterFunc(a.opts.DeleteDelay, func() { a.confirmAndLog(ctx, id) })
	}
	return nil
}

// Release confirms the held deletion of a bundle now, or as soon as it
// arrives if it has not yet. uid is the bundle's metadata.uid as the source
// reads it: Maestro names the agent's copy of a bundle by that id, not by the
// source's name.
func (a *Agent) Release(ctx context.Context, uid string) {
	a.mu.Lock()
	a.released[uid] = true
	seen := a.deleting[uid]
	a.mu.Unlock()
	if seen {
		a.confirmAndLog(ctx, uid)
	}
}

func (a *Agent) reportDeleting(ctx context.Context, w *workv1.ManifestWork) error {
	conditions := append([]metav1.Condition(nil), w.Status.Conditions...)
	meta.SetStatusCondition(&conditions, metav1.Condition{
		Type: workv1.WorkDeleting, Status: metav1.ConditionTrue, Reason: "ManifestWorkDeleting",
		Message: "simulated agent is deleting the manifests", ObservedGeneration: w.Generation,
	})
	if err := a.patchStatus(ctx, w.Name, map[string]any{"status": map[string]any{"conditions": conditions}}); err != nil {
		return fmt.Errorf("report deleting: %w", err)
	}
	return nil
}

func (a *Agent) confirmAndLog(ctx context.Context, id string) {
	if err := a.confirm(ctx, id); err != nil {
		a.log.Error("confirm deletion", "name", id, "error", err)
	}
}

// confirm tells Maestro the manifests are gone, then drops the bundle from
// the agent's cache at once, as a real agent does. The finalizer stays on
// until then: sdk-go's periodic clean-up would otherwise publish a second
// Deleted status, and Maestro deletes whatever bundle holds the id by then,
// a re-created one included.
func (a *Agent) confirm(ctx context.Context, id string) error {
	cur, err := a.works.Get(ctx, id, metav1.GetOptions{})
	if err != nil {
		return err
	}
	conditions := append([]metav1.Condition(nil), cur.Status.Conditions...)
	meta.SetStatusCondition(&conditions, metav1.Condition{
		Type: common.ResourceDeleted, Status: metav1.ConditionTrue, Reason: "ManifestsDeleted",
		Message: "simulated agent deleted the manifests", ObservedGeneration: cur.Generation,
	})
	if err := a.patchStatus(ctx, id, map[string]any{"status": map[string]any{"conditions": conditions}}); err != nil {
		return fmt.Errorf("confirm deletion: %w", err)
	}
	a.mu.Lock()
	delete(a.deleting, id)
	delete(a.released, id)
	a.mu.Unlock()
	if err := a.store.Delete(cur); err != nil {
		return fmt.Errorf("drop deleted bundle from cache: %w", err)
	}
	a.log.Debug("confirmed deletion", "name", id)
	return nil
}
