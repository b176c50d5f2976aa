// Package metrics holds the adapter's Prometheus metrics and the decorators
// that record them at the boundaries (Maestro, HyperFleet API) and from the
// dispatcher's hooks.
package metrics

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/broker"
)

// Metrics are registered on one registry; every name starts with
// bundle_adapter_.
type Metrics struct {
	Registry *prometheus.Registry

	events          *prometheus.CounterVec
	eventDuration   prometheus.Histogram
	bundleOps       *prometheus.CounterVec
	adopted         *prometheus.CounterVec
	shadow          *prometheus.CounterVec
	pendingDeletion prometheus.Gauge
	stalled         prometheus.Gauge
	maestroRequests *prometheus.CounterVec
	kubeRequests    *prometheus.CounterVec
	apiRequests     *prometheus.CounterVec
	redeliveries    prometheus.Counter
	superseded      prometheus.Counter
	stale           *prometheus.CounterVec
	deadLetters     *prometheus.CounterVec
	viewLookups     *prometheus.CounterVec
	viewList        *viewLists
	eventRequests   *prometheus.HistogramVec
	nullLeaves      *prometheus.CounterVec

	hf *hyperfleet // HyperFleet adapter's names (HyperFleet); nil until registered
	bl *brokerLib  // hyperfleet-broker's names (HyperFleet); nil until registered

	mu      sync.Mutex
	pending *pendingSet         // consumer/work -> pending or stalled, bounded
	kinds   map[string]struct{} // resource kinds seen with bundles (kindOf), bounded
}

// New registers every metric on a fresh registry (plus the Go and process
// collectors).
func New() *Metrics {
	m := &Metrics{Registry: prometheus.NewRegistry(), pending: newPendingSet(), kinds: map[string]struct{}{}}
	f := factory{m.Registry}
	m.events = f.counterVec("events_total", "Events processed, by what was done with the message (acked, retried, dead_lettered, released).", "outcome")
	m.eventDuration = f.histogram("event_duration_seconds", "Time to run one event through the pipeline.")
	m.bundleOps = f.counterVec("bundle_operations_total", "Bundle outcomes by operation (create, update, unchanged, recreate, delete) and state (done, pending, stalled, failed).", "operation", "state")
	m.adopted = f.counterVec("bundles_adopted_total", "Decisions (one per resource per event) that left an object unwritten although it carried no fingerprint, because another writer (hyperfleet-adapter before a cut-over, a person) made it with the content this adapter would write (reason Adopted), by transport (maestro, kubernetes). An adopted object is never stamped, so each of its events counts once.", "transport")
	m.shadow = f.counterVec("shadow_decisions_total", "serve --shadow: what this adapter would have done, per resource (its operation) and per status report (status) or other API write (api), and whether that agrees with what is live (agrees=true: no write for the resource; the same status body as the API holds, times aside), and the class of what differs (field: condition, observed_generation, message, data, other for a status; resource; empty when it agrees).", "operation", "agrees", "field")
	m.pendingDeletion = f.gauge("bundles_pending_deletion", "Bundles this process last saw with a deletion pending or stalled.")
	m.stalled = f.gauge("bundles_deletion_stalled", "Bundles this process last saw with a deletion past its deadline.")
	m.maestroRequests = f.counterVec("maestro_requests_total", "Maestro calls by verb and result code.", "verb", "code")
	m.kubeRequests = f.counterVec("kubernetes_requests_total", "Kubernetes API server calls of the kubernetes transport, by verb and result code.", "verb", "code")
	m.apiRequests = f.counterVec("api_requests_total", "HyperFleet API calls by method and HTTP status (or error).", "method", "code")
	m.redeliveries = f.counter("broker_redeliveries_total", "Messages handed back to the broker for redelivery.")
	m.superseded = f.counter("events_superseded_total", "Redelivered messages acked without running because a newer event of the same resource was taken (acked, or still to run): a retry the newer event made unnecessary.")
	m.stale = f.counterVec("events_stale_total", "Events whose generation was not the one the HyperFleet API answers for their resource, so nothing was written or reported (adapter/stale.go), by verdict: stale (older than the API's: acked) or ahead (above it: redelivered).", "verdict")
	m.deadLetters = f.counterVec("broker_dead_letters_total", "Messages dead-lettered, by kind (malformed, invalid, max_deliveries).", "kind")
	m.viewLookups = f.counterVec("view_lookups_total", "Events whose pre-discovery consulted the bundle view, by result: hit (every bundle served by the view, unchanged, no Maestro request) or miss (Maestro read).", "result")
	m.viewList = newViewLists(f)
	m.nullLeaves = f.counterVec("payload_null_leaves_total", "Payload leaves without a default whose expression failed and that were sent as null (hyperfleet-adapter's rule), by payload.", "payload")
	m.eventRequests = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "bundle_adapter", Name: "event_maestro_requests",
		Help:    "Maestro requests one event made, by whether every bundle of the event was unchanged (unchanged=true). Sum over count of unchanged=\"true\" is the Maestro requests per unchanged event.",
		Buckets: []float64{0, 1, 2, 3, 5, 8}}, []string{"unchanged"})
	m.Registry.MustRegister(m.eventRequests, newOldestPending(m))
	m.Registry.MustRegister(prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	return m
}

type factory struct{ r *prometheus.Registry }

func (f factory) counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "bundle_adapter", Name: name, Help: help}, labels)
	f.r.MustRegister(c)
	return c
}

func (f factory) counter(name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Namespace: "bundle_adapter", Name: name, Help: help})
	f.r.MustRegister(c)
	return c
}

func (f factory) gauge(name, help string) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "bundle_adapter", Name: name, Help: help})
	f.r.MustRegister(g)
	return g
}

func (f factory) histogram(name, help string) prometheus.Histogram {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "bundle_adapter", Name: name, Help: help,
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}})
	f.r.MustRegister(h)
	return h
}

// Hooks returns the dispatcher hooks that record messages received,
// events, bundle outcomes, redeliveries, superseded redeliveries and dead
// letters.
func (m *Metrics) Hooks() broker.Hooks {
	return broker.Hooks{
		Received:     m.received,
		Processed:    m.processed,
		Redelivered:  m.redeliveries.Inc,
		DeadLettered: m.deadLettered,
		Superseded:   m.superseded.Inc,
	}
}

func (m *Metrics) processed(res *adapter.Result, took time.Duration, outcome string) {
	m.events.WithLabelValues(outcome).Inc()
	m.eventDuration.Observe(took.Seconds())
	if hf := m.hyperfleet(); hf != nil {
		hf.processed(res, took)
	}
	if bl := m.brokerLib(); bl != nil {
		bl.processed(took, outcome)
	}
	m.requests(res)
	if v := res.Generation.Verdict; v == adapter.GenerationStale || v == adapter.GenerationAhead {
		m.stale.WithLabelValues(v).Inc()
	}
	for payload, n := range res.NullLeaves {
		m.nullLeaves.WithLabelValues(payload).Add(float64(n))
	}
	for _, b := range res.Bundles {
		if b.Operation == "" {
			continue
		}
		m.bundleOps.WithLabelValues(string(b.Operation), string(b.State)).Inc()
		if b.Reason == adapter.ReasonAdopted {
			m.adopted.WithLabelValues(transportOf(b)).Inc()
		}
		m.track(res, b)
	}
}

// requests records how many Maestro requests the event made and whether
// the view served it.
func (m *Metrics) requests(res *adapter.Result) {
	if res.View != adapter.ViewNone {
		m.viewLookups.WithLabelValues(string(res.View)).Inc()
	}
	unchanged := len(res.Bundles) > 0
	for _, b := range res.Bundles {
		unchanged = unchanged && b.Operation == adapter.OpUnchanged && b.State == adapter.StateDone
	}
	m.eventRequests.WithLabelValues(strconv.FormatBool(unchanged)).Observe(float64(res.MaestroRequests))
}

// track keeps the pending-deletion gauges: a bundle counts from the event
// that saw it pending until one sees it settled, or until it was not seen
// for PendingTTL, and at most MaxTrackedBundles count (see pendingSet).
// Each update costs O(1).
func (m *Metrics) track(res *adapter.Result, b adapter.Outcome) {
	key := b.Consumer + "/" + b.WorkName
	m.mu.Lock()
	defer m.mu.Unlock()
	kind := m.kindOf(res)
	switch b.State {
	case adapter.StatePending, adapter.StateStalled:
		m.pending.set(key, b.State, kind, time.Duration(b.PendingSeconds)*time.Second)
	case adapter.StateDone:
		m.pending.remove(key)
	}
	m.pendingDeletion.Set(float64(m.pending.len()))
	m.stalled.Set(float64(m.pending.stalled))
	if m.hf != nil {
		m.hf.inProgress.WithLabelValues(resourceType).Set(float64(m.pending.len()))
	}
}

func (m *Metrics) deadLettered(reason string) {
	kind := "max_deliveries"
	switch {
	case len(reason) >= 10 && reason[:10] == "malformed:":
		kind = "malformed"
	case len(reason) >= 14 && reason[:14] == "invalid event:":
		kind = "invalid"
	}
	m.deadLetters.WithLabelValues(kind).Inc()
}

// received counts a message taken by the dispatcher in hyperfleet-broker's
// names (once registered by HyperFleet).
func (m *Metrics) received(malformed bool) {
	if bl := m.brokerLib(); bl != nil {
		bl.received(malformed)
	}
}

func (m *Metrics) brokerLib() *brokerLib {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bl
}

func (m *Metrics) hyperfleet() *hyperfleet {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.hf
}

// transportOf names the transport of an outcome: a kubernetes object has
// no consumer.
func transportOf(b adapter.Outcome) string {
	if b.Consumer == "" {
		return "kubernetes"
	}
	return "maestro"
}
