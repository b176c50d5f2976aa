package main

import (
	"encoding/json"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// fakeAPI is the HyperFleet API of the demo: it answers GET
// /api/hyperfleet/v1/clusters/{id} for one sample cluster and hands every
// status PUT to the story on puts.
type fakeAPI struct {
	*stacktest.API
	clusterID string
	puts      chan statusPUT
}

// statusPUT is one PUT /clusters/{id}/statuses, decoded.
type statusPUT struct {
	at     time.Time
	status status
	err    error // the body did not decode
}

// status is the onprem example's status payload.
type status struct {
	Adapter            string      `json:"adapter"`
	ObservedGeneration int         `json:"observed_generation"`
	Conditions         []condition `json:"conditions"`
	Data               struct {
		Bundles map[string]bundleOutcome `json:"bundles"`
	} `json:"data"`
}

type condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

type bundleOutcome struct {
	Operation      string `json:"operation"`
	State          string `json:"state"`
	Reason         string `json:"reason"`
	Fingerprint    string `json:"fingerprint"`
	PendingSeconds int64  `json:"pendingSeconds"`
	Error          string `json:"error"`
}

// cond is "Status/Reason" of the condition of type typ, "" when absent.
func (s status) cond(typ string) string {
	for _, c := range s.Conditions {
		if c.Type == typ {
			return c.Status + "/" + c.Reason
		}
	}
	return ""
}

// startAPI serves the fake API on a loopback port for cluster id.
func startAPI(id, name string) (*fakeAPI, error) {
	a := &fakeAPI{clusterID: id, puts: make(chan statusPUT, 256)}
	api, err := stacktest.StartAPI(stacktest.APIOptions{OnStatus: a.onStatus})
	if err != nil {
		return nil, err
	}
	a.API = api
	a.SetCluster(id, map[string]any{
		"id": id, "kind": "Cluster", "name": name, "href": stacktest.ClustersPath + id, "generation": 1,
		"spec": map[string]any{"region": "onprem-1"},
	})
	return a, nil
}

func (a *fakeAPI) close() { a.Close() }

// onStatus decodes a status PUT and hands it to the story.
func (a *fakeAPI) onStatus(_ string, body []byte, at time.Time) {
	p := statusPUT{at: at}
	p.err = json.Unmarshal(body, &p.status)
	select {
	case a.puts <- p:
	default: // nobody reads (tearing down): drop it
	}
}

func (a *fakeAPI) id() string { return a.clusterID }

// generation is the cluster's current generation, as the Sentinel sees it.
func (a *fakeAPI) generation() int {
	g, _ := a.Cluster(a.clusterID)["generation"].(int)
	return g
}

func (a *fakeAPI) setGeneration(g int) {
	a.UpdateCluster(a.clusterID, func(c map[string]any) { c["generation"] = g })
}

// markDeleted sets deleted_time, as the API does when a cluster is deleted.
func (a *fakeAPI) markDeleted(at time.Time) {
	a.UpdateCluster(a.clusterID, func(c map[string]any) { c["deleted_time"] = at.UTC().Format(time.RFC3339) })
}
