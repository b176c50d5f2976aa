package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// recordingAPI is the HyperFleet API of the run: it answers GET for every
// cluster of the run (placing it on a consumer) and records every status PUT,
// completing the event in flight for that cluster.
type recordingAPI struct {
	*stacktest.API

	mu       sync.Mutex
	inflight map[string]*inflight // cluster id -> the event awaiting its status
	stray    int                  // status PUTs with no event in flight
	parse    func([]byte) status  // reads a status body; nil: parseStatus
}

// inflight is one published event waiting for its status report.
type inflight struct {
	published time.Time
	done      chan status
}

// status is what the harness checks of a reported status.
type status struct {
	at         time.Time
	operations map[string]string // bundle -> operation/state
	available  string            // status of the Available condition
	bad        string            // why the body was not understood
}

// startAPI serves the clusters 0..n-1 at generation 1, cluster i placed on
// consumer i % len(consumers).
func startAPI(consumers []string, n int) (*recordingAPI, error) {
	a := &recordingAPI{inflight: map[string]*inflight{}}
	api, err := stacktest.StartAPI(stacktest.APIOptions{OnStatus: a.onStatus})
	if err != nil {
		return nil, err
	}
	a.API = api
	for i := range n {
		a.place(i, consumers[i%len(consumers)])
	}
	return a, nil
}

// place serves cluster i, at generation 1, placed on consumer.
func (a *recordingAPI) place(i int, consumer string) {
	id := clusterID(i)
	a.SetCluster(id, map[string]any{
		"id": id, "kind": "Cluster", "name": "bench-" + id, "generation": 1,
		"consumer": consumer,
		"spec":     map[string]any{"region": "onprem-1"}, "status": map[string]any{"conditions": []any{}},
	})
}

func (a *recordingAPI) close() { a.Close() }

func clusterID(i int) string { return fmt.Sprintf("c-%06d", i) }

// onStatus completes the event in flight for cluster id with its status.
func (a *recordingAPI) onStatus(id string, body []byte, at time.Time) {
	parse := a.parse
	if parse == nil {
		parse = parseStatus
	}
	st := parse(body)
	st.at = at
	a.mu.Lock()
	f := a.inflight[id]
	if f != nil {
		delete(a.inflight, id)
	} else {
		a.stray++
	}
	a.mu.Unlock()
	if f != nil {
		f.done <- st
	}
}

// expect registers an event about to be published for cluster id. It fails
// when an event of that cluster is still in flight.
func (a *recordingAPI) expect(id string, published time.Time) (*inflight, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.inflight[id] != nil {
		return nil, errBusy
	}
	f := &inflight{published: published, done: make(chan status, 1)}
	a.inflight[id] = f
	return f, nil
}

var errBusy = errors.New("an event of this cluster is in flight")

// forget drops an event that will not be reported (publish failed, timeout).
func (a *recordingAPI) forget(id string, f *inflight) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.inflight[id] == f {
		delete(a.inflight, id)
	}
}

func (a *recordingAPI) counts() (gets, puts, stray int) {
	gets, puts = a.Counts()
	a.mu.Lock()
	defer a.mu.Unlock()
	return gets, puts, a.stray
}

// parseStatus reads the onprem example's status payload: data.bundles.<name>
// .{operation,state} and the Available condition.
func parseStatus(body []byte) status {
	var p struct {
		Conditions []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
		} `json:"conditions"`
		Data struct {
			Bundles map[string]struct {
				Operation string `json:"operation"`
				State     string `json:"state"`
				Error     string `json:"error"`
			} `json:"bundles"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return status{bad: "status body is not JSON: " + err.Error()}
	}
	st := status{operations: map[string]string{}}
	for name, b := range p.Data.Bundles {
		st.operations[name] = b.Operation + "/" + b.State
		if b.Error != "" && st.bad == "" {
			st.bad = name + ": " + b.Error
		}
	}
	for _, c := range p.Conditions {
		if c.Type == "Available" {
			st.available = c.Status
		}
	}
	if len(st.operations) == 0 && st.bad == "" {
		st.bad = "status reports no bundles"
	}
	return st
}

// parseAnchorStatus reads the status payload of the anchor's maestro
// example (bench/load side-by-side): its Health condition must be True
// (the adapter ran every phase), and Available is kept as reported. It has
// no bundles section.
func parseAnchorStatus(body []byte) status {
	var p struct {
		Conditions []struct {
			Type    string `json:"type"`
			Status  string `json:"status"`
			Reason  string `json:"reason"`
			Message string `json:"message"`
		} `json:"conditions"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return status{bad: "status body is not JSON: " + err.Error()}
	}
	st := status{operations: map[string]string{}, bad: "status reports no Health condition"}
	for _, c := range p.Conditions {
		switch c.Type {
		case "Available":
			st.available = c.Status
		case "Health":
			st.bad = ""
			if c.Status != "True" {
				st.bad = "Health " + c.Status + ": " + c.Reason + ": " + c.Message
			}
		}
	}
	return st
}
