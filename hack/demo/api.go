package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

const apiPrefix = "/api/hyperfleet/v1/clusters/"

// fakeAPI is the HyperFleet API of the demo: it answers GET
// /api/hyperfleet/v1/clusters/{id} for one sample cluster and hands every
// status PUT for it to the story on puts.
type fakeAPI struct {
	url  string
	srv  *http.Server
	puts chan statusPUT

	mu      sync.Mutex
	cluster map[string]any
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	a := &fakeAPI{
		url:  "http://" + ln.Addr().String(),
		puts: make(chan statusPUT, 256),
		cluster: map[string]any{
			"id": id, "kind": "Cluster", "name": name, "href": apiPrefix + id, "generation": 1,
			"spec": map[string]any{"region": "onprem-1"},
		},
	}
	a.srv = &http.Server{Handler: http.HandlerFunc(a.serve), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = a.srv.Serve(ln) }()
	return a, nil
}

func (a *fakeAPI) close() { _ = a.srv.Close() }

func (a *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, apiPrefix)
	if !ok {
		// The adapter's readiness check GETs the base URL.
		w.WriteHeader(http.StatusOK)
		return
	}
	id, sub, _ := strings.Cut(rest, "/")
	switch {
	case id != a.id():
		writeJSON(w, http.StatusNotFound, map[string]any{"kind": "Error", "reason": "cluster " + id + " not found"})
	case r.Method == http.MethodGet && sub == "":
		a.mu.Lock()
		body, _ := json.Marshal(a.cluster)
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	case r.Method == http.MethodPut && sub == "statuses":
		a.putStatus(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (a *fakeAPI) putStatus(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	p := statusPUT{at: time.Now(), err: err}
	if err == nil {
		p.err = json.Unmarshal(body, &p.status)
	}
	select {
	case a.puts <- p:
	default: // nobody reads (tearing down): drop it
	}
	writeJSON(w, http.StatusOK, map[string]any{})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func (a *fakeAPI) id() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cluster["id"].(string)
}

// generation is the cluster's current generation, as the Sentinel sees it.
func (a *fakeAPI) generation() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cluster["generation"].(int)
}

func (a *fakeAPI) setGeneration(g int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cluster["generation"] = g
}

// markDeleted sets deleted_time, as the API does when a cluster is deleted.
func (a *fakeAPI) markDeleted(at time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cluster["deleted_time"] = at.UTC().Format(time.RFC3339)
}
