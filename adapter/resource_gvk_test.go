package adapter_test

import "testing"

// resources.<name> of a Maestro bundle has apiVersion and kind, as
// hyperfleet-adapter's Maestro client gives them (workToUnstructured):
// read one by one or in one batch, after the create and when unchanged.
func TestResourceVarHasAPIVersionAndKind(t *testing.T) {
	for _, batch := range []bool{false, true} {
		h := newHarness(t, "")
		h.batch = batch
		h.useTask("testdata/task-resource-gvk.yaml")
		for i := 0; i < 2; i++ { // create, then unchanged
			if res := h.event(nil); res.Err() != nil {
				t.Fatalf("batch %v, event %d: %v", batch, i+1, res.Err())
			}
			st := h.lastStatus()
			for field, want := range map[string]string{
				"kind":       "ManifestWork",
				"apiVersion": "work.open-cluster-management.io/v1",
				"json":       `{"apiVersion":"work.open-cluster-management.io/v1","kind":"ManifestWork",`,
			} {
				if st[field] != want {
					t.Errorf("batch %v, event %d: %s = %v, want %v", batch, i+1, field, st[field], want)
				}
			}
		}
	}
}

// On the kubernetes transport resources.<name> is the live object, with its
// apiVersion and kind as the API server serves them (hyperfleet-adapter's
// k8sclient reads it the same way), found by name or by labels.
func TestKubernetesResourceVarHasAPIVersionAndKind(t *testing.T) {
	h := newKubeHarness(t)
	for i := 0; i < 2; i++ { // create, then read back
		if res := h.event(nil); res.Err() != nil {
			t.Fatalf("event %d: %v", i+1, res.Err())
		}
		if got := h.status()["kinds"]; got != "v1/Namespace v1/ConfigMap" {
			t.Errorf("event %d: kinds = %v, want v1/Namespace v1/ConfigMap", i+1, got)
		}
	}
}
