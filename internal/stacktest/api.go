package stacktest

import (
	"encoding/json"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ClustersPath is the path prefix of the HyperFleet API's clusters.
const ClustersPath = "/api/hyperfleet/v1/clusters/"

// APIOptions configure a recording HyperFleet API.
type APIOptions struct {
	// OnStatus, when set, receives every status PUT instead of the API
	// recording it: the cluster id, the raw body and when it was read. It
	// runs on the request's goroutine before the answer (200 {}) is sent,
	// so it must not block for long. Without it, PUTs are decoded and
	// recorded (Statuses), and a body that is not JSON answers 400.
	OnStatus func(id string, body []byte, at time.Time)
	// Token, when set, is the bearer token every request under
	// ClustersPath must carry ("Authorization: Bearer <Token>"); one without
	// it answers 401 and is neither served, counted nor recorded (see
	// Unauthorized). The base URL stays open, as the real API's metadata.
	Token string
	// Addr is the listen address (empty: a free loopback port). A test that
	// hands an address out before the API answers reserves it with
	// FreeAddr and starts the API on it later.
	Addr string
}

// API is a recording HyperFleet API on a loopback port. It serves
//
//	GET <ClustersPath>{id}           the cluster stored by SetCluster, else 404
//	PUT <ClustersPath>{id}/statuses  recorded (or handed to OnStatus), 200 {}
//	GET <ClustersPath>{id}/statuses  {"items": [...]}: the newest status of each
//	                                 adapter (by its "adapter" field), seeded
//	                                 (SeedStatus) or recorded
//	any other path outside ClustersPath: 200 (the adapter's readiness probe)
//
// (with APIOptions.Token, 401 under ClustersPath without the bearer token)
// and 404 for anything else. On cue it fails status PUTs (FailPuts) or
// holds them (HoldPuts). Its methods may be called from any goroutine.
type API struct {
	// URL is the API's base URL (http://127.0.0.1:<port>).
	URL string

	o      APIOptions
	srv    *http.Server
	conns  atomic.Int64
	unauth atomic.Int64

	mu       sync.Mutex
	clusters map[string]map[string]any
	statuses map[string][]map[string]any
	seeded   map[string][]map[string]any
	gets     int
	puts     int
	failPuts int
	hold     chan struct{} // non-nil: status PUTs wait until it is closed
	held     chan struct{} // signalled when a PUT starts waiting
	requests []Request
}

// StartAPI serves a recording API until Close.
func StartAPI(o APIOptions) (*API, error) {
	addr := o.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	a := &API{URL: "http://" + ln.Addr().String(), o: o,
		clusters: map[string]map[string]any{}, statuses: map[string][]map[string]any{}, seeded: map[string][]map[string]any{}}
	a.srv = &http.Server{Handler: http.HandlerFunc(a.serve), ReadHeaderTimeout: 5 * time.Second,
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				a.conns.Add(1)
			}
		}}
	go func() { _ = a.srv.Serve(ln) }()
	return a, nil
}

// Close stops serving and closes every connection.
func (a *API) Close() { _ = a.srv.Close() }

func (a *API) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, ClustersPath)
	if !ok {
		w.WriteHeader(http.StatusOK) // readiness probe of the base URL
		return
	}
	if a.o.Token != "" && r.Header.Get("Authorization") != "Bearer "+a.o.Token {
		a.unauth.Add(1)
		writeJSON(w, http.StatusUnauthorized, `{"kind":"Error","reason":"unauthorized"}`)
		return
	}
	id, sub, _ := strings.Cut(rest, "/")
	a.record(r)
	switch {
	case r.Method == http.MethodGet && sub == "":
		a.getCluster(w, id)
	case r.Method == http.MethodPut && sub == "statuses":
		a.putStatus(w, r, id)
	case r.Method == http.MethodGet && sub == "statuses":
		a.getStatuses(w, id)
	default:
		http.NotFound(w, r)
	}
}

func (a *API) getCluster(w http.ResponseWriter, id string) {
	a.mu.Lock()
	a.gets++
	c, ok := a.clusters[id]
	var body []byte
	if ok {
		body, _ = json.Marshal(c)
	}
	a.mu.Unlock()
	if !ok {
		writeJSON(w, http.StatusNotFound, `{"kind":"Error","reason":"not found"}`)
		return
	}
	writeJSON(w, http.StatusOK, string(body))
}

func (a *API) putStatus(w http.ResponseWriter, r *http.Request, id string) {
	body, err := io.ReadAll(r.Body)
	at := time.Now()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	a.puts++
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
		writeJSON(w, http.StatusServiceUnavailable, `{"reason":"injected"}`)
		return
	}
	if a.o.OnStatus != nil {
		a.o.OnStatus(id, body, at)
	} else {
		var status map[string]any
		if err := json.Unmarshal(body, &status); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		a.mu.Lock()
		a.statuses[id] = append(a.statuses[id], status)
		a.mu.Unlock()
	}
	writeJSON(w, http.StatusOK, `{}`)
}

func writeJSON(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, body)
}

// getStatuses answers the newest status of each adapter for id, seeded or
// recorded, in HyperFleet's list shape.
func (a *API) getStatuses(w http.ResponseWriter, id string) {
	a.mu.Lock()
	newest := map[string]map[string]any{}
	var order []string
	for _, s := range append(slices.Clone(a.seeded[id]), a.statuses[id]...) {
		name, _ := s["adapter"].(string)
		if _, seen := newest[name]; !seen {
			order = append(order, name)
		}
		newest[name] = s
	}
	items := make([]map[string]any, 0, len(order))
	for _, name := range order {
		items = append(items, newest[name])
	}
	body, err := json.Marshal(map[string]any{"items": items})
	a.mu.Unlock()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, http.StatusOK, string(body))
}

// SeedStatus stores a status for id as another adapter instance reported
// it earlier (e.g. hyperfleet-adapter before a cut-over): GET of the
// statuses answers it, but it is neither a PUT (Counts) nor recorded
// (StatusCount, LastStatus).
func (a *API) SeedStatus(id string, status map[string]any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seeded[id] = append(a.seeded[id], maps.Clone(status))
}

// SetCluster stores the cluster GET answers for id (replacing any).
func (a *API) SetCluster(id string, cluster map[string]any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.clusters[id] = maps.Clone(cluster)
}

// UpdateCluster changes the stored cluster of id in place under the API's
// lock (nothing when there is none).
func (a *API) UpdateCluster(id string, change func(cluster map[string]any)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if c, ok := a.clusters[id]; ok {
		change(c)
	}
}

// Cluster is a copy of the stored cluster of id, nil when there is none.
func (a *API) Cluster(id string) map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	return maps.Clone(a.clusters[id])
}

// FailPuts makes the next n status PUTs answer 503 (they are not recorded).
func (a *API) FailPuts(n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.failPuts = n
}

// HoldPuts makes status PUTs wait, once their body is read, until release
// is called; held receives (buffer 1, never blocking the PUT) when one
// starts waiting. After release a held PUT goes on as usual: it is
// recorded even when its client went away meanwhile.
func (a *API) HoldPuts() (held <-chan struct{}, release func()) {
	hold, h := make(chan struct{}), make(chan struct{}, 1)
	a.mu.Lock()
	a.hold, a.held = hold, h
	a.mu.Unlock()
	return h, func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.hold == hold {
			close(hold)
			a.hold = nil
		}
	}
}

// StatusCount is how many status PUTs for id were recorded.
func (a *API) StatusCount(id string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.statuses[id])
}

// LastStatus is the newest status recorded for id, nil if none.
func (a *API) LastStatus(id string) map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.statuses[id]
	if len(s) == 0 {
		return nil
	}
	return s[len(s)-1]
}

// Counts are the cluster GETs and status PUTs received so far, answered
// or not.
func (a *API) Counts() (gets, puts int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.gets, a.puts
}

// Connections is how many TCP connections clients opened to the API.
func (a *API) Connections() int64 { return a.conns.Load() }

// Unauthorized is how many requests were refused for a missing or wrong
// bearer token (APIOptions.Token).
func (a *API) Unauthorized() int64 { return a.unauth.Load() }
