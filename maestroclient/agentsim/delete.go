package agentsim

import (
	"context"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	"open-cluster-management.io/sdk-go/pkg/cloudevents/clients/common"
)

// hold is where the deletion of one bundle stands on the agent. Its
// transitions happen under Agent.mu, so a Release racing with the arrival
// of the deletion is never lost and a deletion is confirmed once.
type hold int

const (
	// holdReleased: Release came before the deletion was reported.
	holdReleased hold = iota + 1
	// holdHeld: Deleting was reported; the confirmation waits.
	holdHeld
	// holdConfirming: the confirmation is being published.
	holdConfirming
)

// onDelete reports Deleting once per bundle, then confirms the deletion as
// the DeleteMode says, or at once when Release came first. On the agent side
// a bundle is named by its uid.
func (a *Agent) onDelete(ctx context.Context, w *workv1.ManifestWork) error {
	id := w.Name
	a.mu.Lock()
	state := a.holds[id]
	a.mu.Unlock()
	if state == holdHeld || state == holdConfirming {
		return nil
	}
	if a.opts.NoDeletionSweep && !slices.Contains(w.Finalizers, workv1.ManifestWorkFinalizer) {
		// ocm's finalize controller reports a deletion by removing this
		// finalizer; with none to remove and no sweep, nothing reports it.
		a.log.Debug("deleting bundle without finalizer: not answered", "name", id)
		return nil
	}
	if lost, err := a.lose(w); lost || err != nil {
		return err
	}
	if lost, err := a.loseFinalizer(w); lost || err != nil {
		return err
	}
	if err := a.reportDeleting(ctx, w); err != nil {
		return err
	}
	// Hold the deletion and read whether Release came meanwhile in one step:
	// Release checks for the hold under the same lock.
	a.mu.Lock()
	released := a.holds[id] == holdReleased
	a.holds[id] = holdHeld
	a.mu.Unlock()
	switch {
	case a.opts.Delete == DeleteAtOnce, released:
		a.confirmAndLog(ctx, id)
	case a.opts.Delete == DeleteAfterDelay:
		time.AfterFunc(a.opts.DeleteDelay, func() { a.confirmAndLog(ctx, id) })
	}
	return nil
}

// lose drops this deletion request while fewer than Options.LoseDeletes of
// the bundle's were dropped, as sdk-go's agent store race does: the cached
// work is written back without its deletionTimestamp, so the informer sees
// a live bundle again and nothing is reported to Maestro. It reports whether
// the request was lost.
func (a *Agent) lose(w *workv1.ManifestWork) (bool, error) {
	return a.fault(w, a.lost, a.opts.LoseDeletes, "fault: deletion request lost", func(live *workv1.ManifestWork) {
		live.DeletionTimestamp = nil
	})
}

// loseFinalizer, while fewer than Options.LoseFinalizers of the bundle's
// deletion requests were answered so, writes the cached work back deleting
// and without the agent's finalizer, and reports nothing: the finalizer
// removal that reports a deletion on a real agent has happened, but the
// Deleted status it publishes never went out. It reports whether the
// request was lost.
func (a *Agent) loseFinalizer(w *workv1.ManifestWork) (bool, error) {
	return a.fault(w, a.dropped, a.opts.LoseFinalizers, "fault: finalizer lost, deletion not reported", func(done *workv1.ManifestWork) {
		done.Finalizers = slices.DeleteFunc(done.Finalizers,
			func(f string) bool { return f == workv1.ManifestWorkFinalizer })
	})
}

// fault answers w's deletion request with a fault while fewer than limit of
// the bundle's requests were (counted in count, by name): it writes a copy
// of w changed by change back to the store and reports nothing to Maestro.
// It reports whether the fault happened; a failed store write is an error,
// and the fault happens on the next request instead.
func (a *Agent) fault(w *workv1.ManifestWork, count map[string]int, limit int, what string,
	change func(*workv1.ManifestWork)) (bool, error) {
	a.mu.Lock()
	due := count[w.Name] < limit
	a.mu.Unlock()
	if !due {
		return false, nil
	}
	cached := w.DeepCopy()
	change(cached)
	if err := a.store.forceUpdate(cached); err != nil {
		return false, fmt.Errorf("%s: %w", what, err) // retried: the fault happens next time
	}
	a.mu.Lock()
	count[w.Name]++ // the queue hands one name to one worker at a time
	a.mu.Unlock()
	a.log.Info(what, "name", w.Name)
	return true, nil
}

// Release confirms the held deletion of a bundle now, or as soon as it
// arrives if it has not yet. uid is the bundle's metadata.uid as the source
// reads it: Maestro names the agent's copy of a bundle by that id, not by the
// source's name. Releasing a deletion already being confirmed does nothing;
// releasing one whose confirmation failed tries it again.
func (a *Agent) Release(ctx context.Context, uid string) {
	a.mu.Lock()
	state := a.holds[uid]
	if state == 0 {
		a.holds[uid] = holdReleased
	}
	a.mu.Unlock()
	if state == holdHeld {
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

// confirmAndLog confirms a held deletion; a failure is logged at Error level
// and leaves the deletion held, for a later Release to try again.
func (a *Agent) confirmAndLog(ctx context.Context, id string) {
	if err := a.confirm(ctx, id); err != nil {
		a.log.Error("confirm deletion", "name", id, "error", err)
	}
}

// confirm tells Maestro the manifests are gone, then drops the bundle from
// the agent's cache at once, as a real agent does. The finalizer stays on
// until then: sdk-go's periodic clean-up would otherwise publish a second
// Deleted status, and Maestro deletes whatever bundle holds the id by then,
// a re-created one included. For the same reason confirm publishes only for
// a held deletion, once.
func (a *Agent) confirm(ctx context.Context, id string) error {
	if !a.transition(id, holdHeld, holdConfirming) {
		return nil // confirmed or being confirmed already
	}
	cur, err := a.works.Get(ctx, id, metav1.GetOptions{})
	if err == nil {
		err = a.publishDeleted(ctx, cur)
	}
	if err != nil {
		a.transition(id, holdConfirming, holdHeld)
		return fmt.Errorf("confirm deletion: %w", err)
	}
	err = a.store.Delete(cur)
	a.mu.Lock()
	delete(a.holds, id)
	delete(a.lost, id)
	delete(a.dropped, id)
	a.mu.Unlock()
	if err != nil {
		return fmt.Errorf("drop deleted bundle from cache: %w", err)
	}
	a.log.Debug("confirmed deletion", "name", id)
	return nil
}

func (a *Agent) publishDeleted(ctx context.Context, cur *workv1.ManifestWork) error {
	conditions := append([]metav1.Condition(nil), cur.Status.Conditions...)
	meta.SetStatusCondition(&conditions, metav1.Condition{
		Type: common.ResourceDeleted, Status: metav1.ConditionTrue, Reason: "ManifestsDeleted",
		Message: "simulated agent deleted the manifests", ObservedGeneration: cur.Generation,
	})
	return a.patchStatus(ctx, cur.Name, map[string]any{"status": map[string]any{"conditions": conditions}})
}

// transition moves the deletion of id from one state to another and reports
// whether it was in from.
func (a *Agent) transition(id string, from, to hold) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.holds[id] != from {
		return false
	}
	a.holds[id] = to
	return true
}
