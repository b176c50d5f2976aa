package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const apiPrefix = "/api/hyperfleet/v1/clusters/"

// recordingAPI is the HyperFleet API of the run: it answers GET for every
// cluster of the run (placing it on a consumer) and records every status PUT,
// completing the event in flight for that cluster.
type recordingAPI struct {
	srv       *http.Server
	url       string
	consumers []string

	mu       sync.Mutex
	inflight map[string]*inflight // cluster id -> the event awaiting its status
	stray    int                  // status PUTs with no event in flight
	gets     int
	puts     int
	conns    atomic.Int64 // TCP connections the adapter opened to the API
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

func startAPI(consumers []string) (*recordingAPI, error) {
	a := &recordingAPI{consumers: consumers, inflight: map[string]*inflight{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	a.url = "http://" + ln.Addr().String()
	a.srv = &http.Server{Handler: http.HandlerFunc(a.serve), ReadHeaderTimeout: 5 * time.Second,
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				a.conns.Add(1)
			}
		}}
	go func() { _ = a.srv.Serve(ln) }()
	return a, nil
}

func (a *recordingAPI) close() { _ = a.srv.Close() }

func clusterID(i int) string { return fmt.Sprintf("c-%06d", i) }

func clusterIndex(id string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(id, "c-"))
	return n, err == nil && strings.HasPrefix(id, "c-")
}

func (a *recordingAPI) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, apiPrefix)
	if !ok {
		w.WriteHeader(http.StatusOK) // readiness probe of the base URL
		return
	}
	id, sub, _ := strings.Cut(rest, "/")
	switch {
	case r.Method == http.MethodGet && sub == "":
		a.getCluster(w, id)
	case r.Method == http.MethodPut && sub == "statuses":
		a.putStatus(w, r, id)
	default:
		http.NotFound(w, r)
	}
}

// getCluster answers the cluster at generation 1, placed on consumer
// index % consumers.
func (a *recordingAPI) getCluster(w http.ResponseWriter, id string) {
	i, ok := clusterIndex(id)
	a.mu.Lock()
	a.gets++
	a.mu.Unlock()
	if !ok {
		http.Error(w, `{"reason":"not found"}`, http.StatusNotFound)
		return
	}
	body, _ := json.Marshal(map[string]any{
		"id": id, "kind": "Cluster", "name": "bench-" + id, "generation": 1,
		"consumer": a.consumers[i%len(a.consumers)],
		"spec":     map[string]any{"region": "onprem-1"}, "status": map[string]any{"conditions": []any{}},
	})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

func (a *recordingAPI) putStatus(w http.ResponseWriter, r *http.Request, id string) {
	body, err := io.ReadAll(r.Body)
	at := time.Now()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	st := parseStatus(body)
	st.at = at
	a.mu.Lock()
	a.puts++
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
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{}`))
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
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.gets, a.puts, a.stray
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
