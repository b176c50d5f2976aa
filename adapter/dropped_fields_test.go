package adapter_test

import (
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
)

// A ManifestWork field Maestro drops (spec.deleteOption.gracePeriodSeconds)
// loads with a warning that names it, and every event renders the bundle
// without it instead of failing.
func TestFieldsMaestroDropsWarnAndRender(t *testing.T) {
	task, err := config.LoadTaskConfigWith("testdata/dropped/task.yaml", config.TaskOptions{CheckWork: adapter.CheckWork})
	if err != nil {
		t.Fatal(err)
	}
	if len(task.Warnings) != 1 || !strings.Contains(task.Warnings[0].Error(),
		"resources[0].manifest: testdata/dropped/manifestwork.yaml: field spec.deleteOption.gracePeriodSeconds is not part of a ManifestWork: Maestro drops it") {
		t.Errorf("want one warning naming spec.deleteOption.gracePeriodSeconds, got %v", task.Warnings)
	}

	h := newHarness(t, "")
	h.useTask("testdata/dropped/task.yaml")
	for i, want := range []adapter.Operation{adapter.OpCreate, adapter.OpUnchanged} {
		res := h.event(nil)
		wantOutcome(t, outcome(t, res, "bundle"), want, adapter.StateDone, map[adapter.Operation]string{
			adapter.OpCreate: adapter.ReasonCreated, adapter.OpUnchanged: adapter.ReasonUnchanged}[want])
		if res.Err() != nil {
			t.Fatalf("event %d: %v", i+1, res.Err())
		}
	}
	work := h.store.Works()[0]
	if work.Spec.DeleteOption == nil || work.Spec.DeleteOption.PropagationPolicy != "Foreground" {
		t.Errorf("the known deleteOption fields must be kept, got %+v", work.Spec.DeleteOption)
	}
}

func TestCheckWorkReportsOnlyUnknownFields(t *testing.T) {
	tree := map[string]any{
		"apiVersion": "work.open-cluster-management.io/v1", "kind": "ManifestWork",
		"metadata": map[string]any{"name": "x"},
		"spec": map[string]any{
			"deleteOption": map[string]any{"propagationPolicy": "Orphan", "gracePeriodSeconds": int64(3)},
			"workload":     map[string]any{"manifests": []any{map[string]any{"kind": "ConfigMap", "whatever": "kept"}}},
			"typo":         true,
		},
	}
	got := strings.Join(adapter.CheckWork(tree), ",")
	if got != "spec.deleteOption.gracePeriodSeconds,spec.typo" {
		t.Errorf("CheckWork = %q", got)
	}
}
