package agentsim

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	workv1 "open-cluster-management.io/api/work/v1"
)

// onApply reports a bundle applied and available, once per generation, and
// puts the agent's finalizer on it so a deletion waits for this agent; with
// Options.ApplyRate it first waits for its slot.
func (a *Agent) onApply(ctx context.Context, w *workv1.ManifestWork) error {
	if cond := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkApplied); cond != nil &&
		cond.ObservedGeneration == w.Generation {
		return nil
	}
	if err := a.pace.wait(ctx); err != nil {
		return err
	}
	status := workv1.ManifestWorkStatus{
		Conditions: []metav1.Condition{
			condition(workv1.WorkApplied, "AppliedManifestWorkComplete", w.Generation),
			condition(workv1.WorkAvailable, "ResourcesAvailable", w.Generation),
		},
		ResourceStatus: workv1.ManifestResourceStatus{Manifests: a.manifestConditions(w)},
	}
	patch := map[string]any{
		"metadata": map[string]any{"finalizers": []string{workv1.ManifestWorkFinalizer}},
		"status":   status,
	}
	if err := a.patchStatus(ctx, w.Name, patch); err != nil {
		return fmt.Errorf("report applied: %w", err)
	}
	a.applied.Add(1)
	a.log.Debug("reported applied", "name", w.Name, "generation", w.Generation)
	return nil
}

// manifestConditions reports every manifest applied and available, with the
// configured feedback values.
func (a *Agent) manifestConditions(w *workv1.ManifestWork) []workv1.ManifestCondition {
	out := make([]workv1.ManifestCondition, 0, len(w.Spec.Workload.Manifests))
	for i, m := range w.Spec.Workload.Manifests {
		out = append(out, workv1.ManifestCondition{
			ResourceMeta:    resourceMeta(int32(i), m.Raw),
			StatusFeedbacks: workv1.StatusFeedbackResult{Values: a.opts.Feedback},
			Conditions: []metav1.Condition{
				condition(workv1.ManifestApplied, "AppliedManifestComplete", w.Generation),
				condition(workv1.ManifestAvailable, "ResourceAvailable", w.Generation),
			},
		})
	}
	return out
}

func resourceMeta(ordinal int32, raw []byte) workv1.ManifestResourceMeta {
	var obj struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(raw, &obj) // a manifest Maestro accepted is valid JSON
	gv, _ := schema.ParseGroupVersion(obj.APIVersion)
	return workv1.ManifestResourceMeta{
		Ordinal: ordinal, Group: gv.Group, Version: gv.Version, Kind: obj.Kind,
		Name: obj.Metadata.Name, Namespace: obj.Metadata.Namespace,
	}
}

func condition(kind, reason string, generation int64) metav1.Condition {
	return metav1.Condition{
		Type: kind, Status: metav1.ConditionTrue, Reason: reason,
		ObservedGeneration: generation, LastTransitionTime: metav1.Now(),
	}
}

// patchStatus merges patch into the bundle and publishes its status.
func (a *Agent) patchStatus(ctx context.Context, name string, patch map[string]any) error {
	data, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	_, err = a.works.Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{}, "status")
	if apierrors.IsConflict(err) {
		// The status went out; only the local cache raced with an event.
		a.log.Debug("status published, local cache not updated", "name", name, "error", err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("patch status of %s: %w", name, err)
	}
	return nil
}
