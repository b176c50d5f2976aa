package memmaestro

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// ReasonWorkDeleting is the reason of the Deleting condition the agent sets
// on a work whose deletion is pending.
const ReasonWorkDeleting = "WorkDeleting"

// Delete requests the deletion of a work and returns once it is accepted.
// The first Delete stamps metadata.deletionTimestamp and the condition
// Deleting=True (reason ReasonWorkDeleting); the work then stays visible
// until the agent confirms (Confirm, ConfirmAll), or is removed at once under
// DeleteImmediate unless it is marked stuck. Deleting a work already being
// deleted is accepted and changes nothing. Deleting a missing work returns
// adapter.ErrNotFound.
func (s *Store) Delete(ctx context.Context, consumer, name string) error {
	if err := s.begin(ctx, VerbDelete, consumer, name); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key{consumer, name}
	w, ok := s.works[k]
	switch {
	case !ok:
		return callError(VerbDelete, consumer, name, adapter.ErrNotFound, "")
	case w.DeletionTimestamp != nil:
		return nil
	case s.deleteBehavior == DeleteImmediate && !s.stuck[k]:
		delete(s.works, k)
		return nil
	}
	markDeleting(w, s.now())
	return nil
}

// markDeleting stamps w as deleted at now, as Maestro and its agent do.
func markDeleting(w *workv1.ManifestWork, now metav1.Time) {
	w.DeletionTimestamp = &now
	meta.SetStatusCondition(&w.Status.Conditions, metav1.Condition{
		Type:               workv1.WorkDeleting,
		Status:             metav1.ConditionTrue,
		Reason:             ReasonWorkDeleting,
		Message:            "The work is being deleted",
		ObservedGeneration: w.Generation,
		LastTransitionTime: now,
	})
}
