package e2e

import (
	"fmt"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2/pstest"
)

// Scenario 1 on Pub/Sub: the adapter consumes from a pstest server (the
// real client library against the in-process fake), applies the bundles
// and reports Applied and Available True.
func TestNewClusterOverPubSub(t *testing.T) {
	st := requireStack(t)
	srv := pstest.NewServer()
	t.Cleanup(func() { srv.Close() })
	api := newAPI(t)
	topic := unique("e2e-ps-")
	brokerYAML := fmt.Sprintf(`broker:
  type: googlepubsub
  googlepubsub: {project_id: e2e, endpoint: %q, ack_deadline_seconds: 20, dead_letter_max_attempts: 10}
  delivery: {max_deliveries: 10, min_backoff: 1s, max_backoff: 4s}
subscriber: {parallelism: 4, shutdown_timeout: 20s}
`, srv.Addr)
	dir := newAdapterDir(t, st, api, topic, brokerYAML)
	startAdapter(t, st, dir, topic)

	id := unique("c")
	api.setCluster(id, 1, nil)
	eventually(t, 90*time.Second, "Applied and Available True over Pub/Sub", func() error {
		before := api.StatusCount(id)
		srv.Publish("projects/e2e/topics/"+topic, reconcileEvent(id, 1), nil)
		deadline := time.Now().Add(20 * time.Second)
		for api.StatusCount(id) <= before {
			if time.Now().After(deadline) {
				return fmt.Errorf("no status PUT for the event")
			}
			time.Sleep(100 * time.Millisecond)
		}
		return wantConditions("Applied=True/BundlesApplied", "Available=True/BundlesAvailable")(api.LastStatus(id))
	})
}
