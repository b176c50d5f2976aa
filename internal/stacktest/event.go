package stacktest

import (
	"encoding/json"
	"time"
)

// ReconcileType is the CloudEvent type of a cluster reconcile event.
const ReconcileType = "com.redhat.hyperfleet.cluster.reconcile"

// Event is a reconcile event as HyperFleet's Sentinel publishes it for a
// cluster.
type Event struct {
	ID         string    // the CloudEvent id; required
	Source     string    // default "hyperfleet-sentinel"
	Time       time.Time // the time attribute; zero: none
	ClusterID  string    // data.id (data.href is derived from it)
	Generation int       // data.generation
	// TraceParent is the Distributed Tracing extension Sentinel sets
	// (W3C traceparent); empty: none.
	TraceParent string
}

// JSON is the event as a structured-mode CloudEvent (JSON data).
func (e Event) JSON() []byte {
	ev := map[string]any{
		"specversion": "1.0", "id": e.ID, "type": ReconcileType,
		"source": or(e.Source, "hyperfleet-sentinel"), "datacontenttype": "application/json",
		"data": map[string]any{"id": e.ClusterID, "kind": "Cluster", "href": ClustersPath + e.ClusterID, "generation": e.Generation},
	}
	if e.TraceParent != "" {
		ev["traceparent"] = e.TraceParent
	}
	if !e.Time.IsZero() {
		ev["time"] = e.Time.UTC().Format(time.RFC3339Nano)
	}
	b, _ := json.Marshal(ev)
	return b
}
