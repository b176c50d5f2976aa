package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bundle-adapter/bundle-adapter/bench/soak/check"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// cluster is what the recording API serves for one cluster id.
type cluster struct {
	id, consumer string
	generation   int
	deleted      bool
	// reported is the last status the API accepted (2xx) for it.
	reported reportedStatus
	// touched is when the API last answered a request for it or the
	// publisher last sent its event, whichever is later.
	touched time.Time
}

// reportedStatus is what a status PUT the API accepted said.
type reportedStatus struct {
	ok                 bool // a status was accepted
	generation         int
	applied, finalized string
}

// notReady says whether Sentinel would resend c as not ready: its status
// was reported at its generation but it has not converged (Applied not
// True; Finalized not True for a deleted cluster).
func (c *cluster) notReady() bool {
	r := c.reported
	if !r.ok || r.generation != c.generation {
		return false
	}
	if c.deleted {
		return r.finalized != "True"
	}
	return r.applied != "True"
}

// behind says whether c's newest reported status is older than its
// generation (or none was reported): Sentinel resends such a resource,
// whatever made it fall behind (an event lost, or a stale event that
// reported an older generation over a newer one).
func (c *cluster) behind() bool {
	return !c.reported.ok || c.reported.generation < c.generation
}

// drainQuiet is how long the final drain leaves a cluster that is behind
// its generation to the adapter before it resends its event, counted from
// the cluster's last API request or publication and from the end of the
// last API outage, and how long the API must have been silent for the
// drain to end. It is above the replicas' longest redelivery backoff
// (15 s, writeConfigs), so an event held for redelivery reaches the API
// again first: only what the adapter will not report by itself (an event
// acked unreported, a status regressed by a stale event) is resent, and the
// checker can tell a loss the resend healed (check: lost events).
const drainQuiet = 20 * time.Second

// drainResends are the clusters the final drain resends at now, as
// Sentinel resends them, in order: every one reported not ready (each
// period), and every one behind its generation that has been quiet for
// drainQuiet while the API was up (api.down is the end of the last outage)
// and whose events have all left RabbitMQ: emptied, the last time the
// run's queues (the retry queues too) were seen holding no message, ready
// or unacknowledged, is after the cluster was last touched. Quiet alone
// is not enough: after the last round's API outage the replicas' queue
// ran 30 to 60 s behind (2026-12-07, seed 1: an event published at
// 03:52:56 first reached the API at 03:53:54), and a cluster whose event
// was still queued was resent after 20 s and counted lost when the
// original reported. An event acked unreported still leaves the queues
// empty and its cluster behind, so it is still resent and caught; one
// never consumed stays in the queues to the end (lost events' "held").
func (a *recordingAPI) drainResends(now, emptied time.Time) []cluster {
	a.mu.Lock()
	defer a.mu.Unlock()
	up := now.Sub(time.Unix(0, a.down.Load())) >= drainQuiet
	var out []cluster
	for _, id := range a.order {
		c := a.clusters[id]
		consumed := emptied.After(c.touched)
		if c.notReady() || (c.behind() && up && now.Sub(c.touched) >= drainQuiet && consumed) {
			out = append(out, *c)
		}
	}
	return out
}

// touch records that the publisher sent an event of cluster id at.
func (a *recordingAPI) touch(id string, at time.Time) {
	a.change(id, func(c *cluster) { c.touched = later(c.touched, at) })
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// recordingAPI is the run's HyperFleet API: it serves the clusters, answers
// status PUTs 200 (503 while an outage is on) and records every request it
// answered, with the code, to api.jsonl.
type recordingAPI struct {
	url  string
	srv  *http.Server
	rec  *recorder
	down atomic.Int64 // unix nanos until which status PUTs answer 503
	last atomic.Int64 // unix nanos of the last request answered

	mu       sync.Mutex
	clusters map[string]*cluster
	order    []string // ids in publishing order (new ids appended)
}

func startAPI(rec *recorder) (*recordingAPI, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	a := &recordingAPI{url: "http://" + ln.Addr().String(), rec: rec, clusters: map[string]*cluster{}}
	a.srv = &http.Server{Handler: http.HandlerFunc(a.serve), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = a.srv.Serve(ln) }()
	return a, nil
}

func (a *recordingAPI) close() { _ = a.srv.Close() }

// lastRequest is when the API last answered a request.
func (a *recordingAPI) lastRequest() time.Time { return time.Unix(0, a.last.Load()) }

// outage makes status PUTs answer 503 for d from now.
func (a *recordingAPI) outage(d time.Duration) { a.down.Store(time.Now().Add(d).UnixNano()) }

func (a *recordingAPI) add(c *cluster) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.clusters[c.id] = c
	a.order = append(a.order, c.id)
}

// snapshot is every cluster as published now, in order.
func (a *recordingAPI) snapshot() []cluster {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]cluster, 0, len(a.order))
	for _, id := range a.order {
		out = append(out, *a.clusters[id])
	}
	return out
}

// settled reports whether every cluster is reported ready at its
// generation (nothing for the drain to wait for or resend).
func (a *recordingAPI) settled() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, c := range a.clusters {
		r := c.reported
		if !r.ok || r.generation != c.generation || c.notReady() {
			return false
		}
	}
	return true
}

// change edits cluster id under the lock.
func (a *recordingAPI) change(id string, f func(c *cluster)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if c := a.clusters[id]; c != nil {
		f(c)
	}
}

func (a *recordingAPI) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, stacktest.ClustersPath)
	if !ok {
		w.WriteHeader(http.StatusOK) // the adapter's readiness probe
		return
	}
	id, sub, _ := strings.Cut(rest, "/")
	req := check.APIRequest{Method: r.Method, Cluster: id, TraceID: traceID(r.Header.Get("traceparent"))}
	switch {
	case r.Method == http.MethodGet && sub == "":
		req.Code = a.getCluster(w, id)
	case r.Method == http.MethodPut && sub == "statuses":
		req.Status = true
		req.Code = a.putStatus(w, r, &req)
	default:
		req.Code = http.StatusNotFound
		http.NotFound(w, r)
	}
	req.At = time.Now()
	a.last.Store(req.At.UnixNano())
	a.change(id, func(c *cluster) { c.touched = later(c.touched, req.At) })
	a.rec.add(req)
}

func (a *recordingAPI) getCluster(w http.ResponseWriter, id string) int {
	a.mu.Lock()
	c := a.clusters[id]
	var body []byte
	if c != nil {
		m := map[string]any{"id": c.id, "kind": "Cluster", "name": "soak-" + c.id, "generation": c.generation,
			"consumer": c.consumer, "spec": map[string]any{"region": "onprem-1"}}
		if c.deleted {
			m["deleted_time"] = "2026-12-02T00:00:00Z"
		}
		body, _ = json.Marshal(m)
	}
	a.mu.Unlock()
	if c == nil {
		return writeJSON(w, http.StatusNotFound, `{"kind":"Error","reason":"not found"}`)
	}
	return writeJSON(w, http.StatusOK, string(body))
}

func (a *recordingAPI) putStatus(w http.ResponseWriter, r *http.Request, req *check.APIRequest) int {
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		return writeJSON(w, http.StatusBadRequest, `{}`)
	}
	var st struct {
		Generation int `json:"observed_generation"`
		Conditions []struct {
			Type, Status string
		} `json:"conditions"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		return writeJSON(w, http.StatusBadRequest, `{}`)
	}
	req.Generation = st.Generation
	for _, c := range st.Conditions {
		switch c.Type {
		case "Applied":
			req.Applied = c.Status
		case "Finalized":
			req.Finalized = c.Status
		}
	}
	if time.Now().UnixNano() < a.down.Load() {
		return writeJSON(w, http.StatusServiceUnavailable, `{"reason":"soak: API outage"}`)
	}
	a.change(req.Cluster, func(c *cluster) {
		c.reported = reportedStatus{ok: true, generation: st.Generation, applied: req.Applied, finalized: req.Finalized}
	})
	return writeJSON(w, http.StatusOK, `{}`)
}

func writeJSON(w http.ResponseWriter, code int, body string) int {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, body)
	return code
}

// traceID is the trace id of a W3C traceparent ("" when none).
func traceID(tp string) string {
	f := strings.Split(tp, "-")
	if len(f) != 4 {
		return ""
	}
	return f[1]
}
