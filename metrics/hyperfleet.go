package metrics

import (
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// BuildInfo names this process in HyperFleet's metrics: Component is the
// adapter's name, Version and Commit the build's, Topic the broker topic
// it consumes (clients.broker.topic; the topic label of hyperfleet-broker's
// metrics).
type BuildInfo struct {
	Component, Version, Commit, Topic string
}

// hyperfleet is the metric set HyperFleet's adapter exposes, under its names
// and labels (hyperfleet_adapter_*), so the dashboards and alerts a team runs
// today keep working. Each is recorded from the same measurement as ours:
//
//   - events_processed_total{status}: success, failed or skipped per event.
//   - event_processing_duration_seconds: the pipeline time of an event.
//   - errors_total{error_type}: the phase of a failed event
//     (param_extraction, preconditions, resources, post_actions).
//   - resources_deleted_total{resource_type,status} and
//     resource_deletion_duration_seconds{resource_type}: each delete sent to
//     Maestro (resource_type ManifestWork; status success or error).
//   - resource_deletions_in_progress{resource_type}: bundles whose deletion
//     is pending or stalled. HyperFleet's adapter counts deletes it is
//     waiting on; this adapter never waits, and a pending deletion is what
//     that gauge stood for.
//   - build_info{component,version,commit} = 1 and up = 1.
type hyperfleet struct {
	events     *prometheus.CounterVec
	duration   prometheus.Histogram
	errors     *prometheus.CounterVec
	deleted    *prometheus.CounterVec
	deleteTime *prometheus.HistogramVec
	inProgress *prometheus.GaugeVec
}

// resourceType is the resource_type label of this adapter's deletions.
const resourceType = "ManifestWork"

// hyperfleetPhases maps a pipeline phase to HyperFleet's error_type.
var hyperfleetPhases = map[string]string{
	"params": "param_extraction", "preconditions": "preconditions",
	"resources": "resources", "post": "post_actions",
}

// HyperFleet registers HyperFleet adapter's metric names beside ours; call
// it once, before events are processed.
func (m *Metrics) HyperFleet(info BuildInfo) {
	constLabels := prometheus.Labels{"component": info.Component, "version": info.Version, "adapter_name": adapterName(info.Component)}
	buckets := []float64{0.1, 0.5, 1, 2, 5, 10, 30, 60, 120}
	h := &hyperfleet{
		events: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hyperfleet_adapter_events_processed_total",
			Help: "CloudEvents processed, by status (success, failed, skipped).", ConstLabels: constLabels}, []string{"status"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "hyperfleet_adapter_event_processing_duration_seconds",
			Help: "Event processing time in seconds.", Buckets: buckets, ConstLabels: constLabels}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hyperfleet_adapter_errors_total",
			Help: "Failed events by phase (param_extraction, preconditions, resources, post_actions).", ConstLabels: constLabels}, []string{"error_type"}),
		deleted: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hyperfleet_adapter_resources_deleted_total",
			Help: "Deletes sent to Maestro, by resource type and status (success, error).", ConstLabels: constLabels}, []string{"resource_type", "status"}),
		deleteTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hyperfleet_adapter_resource_deletion_duration_seconds",
			Help: "Time of a delete request to Maestro in seconds.", Buckets: buckets, ConstLabels: constLabels}, []string{"resource_type"}),
		inProgress: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hyperfleet_adapter_resource_deletions_in_progress",
			Help: "Bundles whose deletion is pending or stalled.", ConstLabels: constLabels}, []string{"resource_type"}),
	}
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hyperfleet_adapter_build_info", Help: "Build information for the adapter."},
		[]string{"component", "version", "commit"})
	up := prometheus.NewGauge(prometheus.GaugeOpts{Name: "hyperfleet_adapter_up", Help: "Whether the adapter is up and running.",
		ConstLabels: prometheus.Labels{"component": info.Component, "version": info.Version}})
	m.Registry.MustRegister(h.events, h.duration, h.errors, h.deleted, h.deleteTime, h.inProgress, build, up)
	build.WithLabelValues(info.Component, info.Version, info.Commit).Set(1)
	up.Set(1)
	h.inProgress.WithLabelValues(resourceType).Set(0)
	bl := newBrokerLib(info)
	bl.register(m.Registry)
	m.mu.Lock()
	m.hf = h
	m.bl = bl
	m.mu.Unlock()
}

// adapterName is the short name HyperFleet derives from the component:
// without a "hyperfleet-adapter-" or "adapter-" prefix or "-adapter" suffix.
func adapterName(component string) string {
	switch {
	case strings.HasPrefix(component, "hyperfleet-adapter-"):
		return strings.TrimPrefix(component, "hyperfleet-adapter-")
	case strings.HasPrefix(component, "adapter-"):
		return strings.TrimPrefix(component, "adapter-")
	case strings.HasSuffix(component, "-adapter"):
		return strings.TrimSuffix(component, "-adapter")
	}
	return component
}

func (h *hyperfleet) processed(res *adapter.Result, took time.Duration) {
	status := "success"
	switch {
	case res.Err() != nil:
		status = "failed"
		if res.Error != nil {
			if t, ok := hyperfleetPhases[res.Error.Phase]; ok {
				h.errors.WithLabelValues(t).Inc()
			}
		}
	case res.Skipped:
		status = "skipped"
	}
	h.events.WithLabelValues(status).Inc()
	h.duration.Observe(took.Seconds())
}

func (h *hyperfleet) deleteSent(err error, took time.Duration) {
	status := "success"
	if err != nil && !isNotFound(err) {
		status = "error"
	}
	h.deleted.WithLabelValues(resourceType, status).Inc()
	h.deleteTime.WithLabelValues(resourceType).Observe(took.Seconds())
}
