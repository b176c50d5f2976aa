package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// hyperfleetAPI is a recording HyperFleet API: it serves clusters from a map
// and records every status PUT. It can fail or hang on cue.
type hyperfleetAPI struct {
	srv *httptest.Server

	mu       sync.Mutex
	clusters map[string]map[string]any
	statuses map[string][]map[string]any
	failPuts int
	hold     chan struct{} // non-nil: status PUTs wait on it
	held     chan struct{} // signalled when a PUT starts waiting
}

func newAPI(t *testing.T) *hyperfleetAPI {
	a := &hyperfleetAPI{clusters: map[string]map[string]any{}, statuses: map[string][]map[string]any{}}
	a.srv = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.srv.Close)
	return a
}

const apiPrefix = "/api/hyperfleet/v1/clusters/"

func (a *hyperfleetAPI) serve(w http.ResponseWriter, r *http.Request) {
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

func (a *hyperfleetAPI) getCluster(w http.ResponseWriter, id string) {
	a.mu.Lock()
	c, ok := a.clusters[id]
	var body []byte
	if ok {
		body, _ = json.Marshal(c)
	}
	a.mu.Unlock()
	if !ok {
		http.Error(w, `{"reason":"not found"}`, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

func (a *hyperfleetAPI) putStatus(w http.ResponseWriter, r *http.Request, id string) {
	body, _ := io.ReadAll(r.Body)
	a.mu.Lock()
	hold, held := a.hold, a.held
	fail := a.failPuts > 0
	if fail {
		a.failPuts--
	}
	a.mu.Unlock()
	if hold != nil {
		select {
		case held <- struct{}{}:
		default:
		}
		<-hold
	}
	if fail {
		http.Error(w, `{"reason":"injected"}`, http.StatusServiceUnavailable)
		return
	}
	var status map[string]any
	if err := json.Unmarshal(body, &status); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	a.statuses[id] = append(a.statuses[id], status)
	a.mu.Unlock()
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(`{}`))
}

// setCluster stores the cluster the API answers for id.
func (a *hyperfleetAPI) setCluster(id string, generation int, extra map[string]any) {
	c := map[string]any{"id": id, "kind": "Cluster", "name": "e2e-" + id, "generation": generation}
	for k, v := range extra {
		c[k] = v
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.clusters[id] = c
}

// statusCount is how many status PUTs were received for id.
func (a *hyperfleetAPI) statusCount(id string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.statuses[id])
}

// lastStatus is the newest status PUT for id (nil if none).
func (a *hyperfleetAPI) lastStatus(id string) map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.statuses[id]
	if len(s) == 0 {
		return nil
	}
	return s[len(s)-1]
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
