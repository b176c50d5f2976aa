package e2e

import (
	"testing"

	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// hyperfleetAPI is the recording HyperFleet API of a test: it serves the
// clusters the test sets and records every status PUT; it can fail or hold
// PUTs on cue (stacktest.API).
type hyperfleetAPI struct{ *stacktest.API }

// newAPI serves a recording API until the test ends.
func newAPI(t *testing.T) *hyperfleetAPI {
	t.Helper()
	a, err := stacktest.StartAPI(stacktest.APIOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return &hyperfleetAPI{a}
}

// setCluster stores the cluster the API answers for id.
func (a *hyperfleetAPI) setCluster(id string, generation int, extra map[string]any) {
	c := map[string]any{"id": id, "kind": "Cluster", "name": "e2e-" + id, "generation": generation}
	for k, v := range extra {
		c[k] = v
	}
	a.SetCluster(id, c)
}

// condition returns "status/reason" of a condition type in a status.
func condition(status map[string]any, typ string) string {
	conds, _ := status["conditions"].([]any)
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == typ {
			return m["status"].(string) + "/" + m["reason"].(string)
		}
	}
	return ""
}
