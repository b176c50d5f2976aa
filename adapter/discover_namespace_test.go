package adapter_test

import (
	"testing"
)

// A nested discovery's namespace is a template rendered per event, and "*"
// matches any namespace; a label selector's keys are templates as its
// values are (testdata/task-nested-namespace.yaml).
func TestNestedDiscoveryNamespace(t *testing.T) {
	h := newHarness(t, "")
	h.useTask("testdata/task-nested-namespace.yaml")
	for i := 0; i < 2; i++ { // create, then unchanged (found by pre-discovery)
		if res := h.event(nil); res.Err() != nil {
			t.Fatalf("event %d: %v", i+1, res.Err())
		}
		found, _ := h.lastStatus()["found"].(map[string]any)
		for name, want := range map[string]bool{
			"templatedNamespace": true,
			"anyNamespace":       true,
			"literalNamespace":   true, // the cluster id is "x"
			"otherNamespace":     false,
			"clusterScoped":      true,
			"templatedLabelKey":  true, // its key renders x.io/owner
			"otherLabelKey":      false,
		} {
			if found[name] != want {
				t.Errorf("event %d: resources.%s present = %v, want %v", i+1, name, found[name], want)
			}
		}
	}
}
