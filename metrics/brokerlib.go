package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bundle-adapter/bundle-adapter/broker"
)

// brokerLib is the metric set of the hyperfleet-broker library
// (broker/metrics.go, MetricsRecorder), under its names, labels and
// buckets, so that hyperfleet-adapter's HyperFleetBrokerErrors alert and
// the dashboards built on them keep working. Each is counted where this
// adapter's consumer does what the library's subscriber does:
//
//   - messages_consumed_total: every message the dispatcher takes
//     (Hooks.Received), decoded or not;
//   - errors_total{error_type="conversion"}: a message that is not a
//     CloudEvent (dead-lettered as malformed);
//   - message_duration_seconds: one pipeline run (Hooks.Processed);
//   - errors_total{error_type="handler"}: a run whose message was not acked
//     (redelivered or dead-lettered), as the library's handler error;
//   - messages_published_total: registered at 0; the adapter publishes
//     nothing (the library's "publish" and publisher-side "conversion"
//     errors never occur here).
//
// Labels: topic is clients.broker.topic, component the adapter's name,
// version the build's, as hyperfleet-adapter passes them to the library.
type brokerLib struct {
	topic, component, version string

	consumed  *prometheus.CounterVec
	published *prometheus.CounterVec
	errors    *prometheus.CounterVec
	duration  *prometheus.HistogramVec
}

// The error_type values of hyperfleet_broker_errors_total this adapter
// records (the library's subscriber's).
const (
	brokerErrConversion = "conversion"
	brokerErrHandler    = "handler"
)

// brokerLibBuckets are the library's message_duration_seconds buckets
// (HyperFleet Metrics Standard event processing buckets).
var brokerLibBuckets = []float64{0.1, 0.5, 1, 2, 5, 10, 30, 60, 120}

func newBrokerLib(info BuildInfo) *brokerLib {
	labels := []string{"topic", "component", "version"}
	return &brokerLib{
		topic: info.Topic, component: info.Component, version: info.Version,
		consumed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hyperfleet_broker_messages_consumed_total",
			Help: "Total number of messages consumed from the broker."}, labels),
		published: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hyperfleet_broker_messages_published_total",
			Help: "Total number of messages published to the broker (always 0: the adapter publishes nothing)."}, labels),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hyperfleet_broker_errors_total",
			Help: "Total number of message processing errors (conversion: not a CloudEvent; handler: the event failed)."},
			[]string{"topic", "error_type", "component", "version"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hyperfleet_broker_message_duration_seconds",
			Help: "Duration of message processing in seconds.", Buckets: brokerLibBuckets}, labels),
	}
}

func (b *brokerLib) register(r prometheus.Registerer) {
	r.MustRegister(b.consumed, b.published, b.errors, b.duration)
	// Present from the start, as series a dashboard or alert can read.
	b.consumed.WithLabelValues(b.topic, b.component, b.version)
	b.published.WithLabelValues(b.topic, b.component, b.version)
	for _, t := range []string{brokerErrConversion, brokerErrHandler} {
		b.errors.WithLabelValues(b.topic, t, b.component, b.version)
	}
}

func (b *brokerLib) received(malformed bool) {
	b.consumed.WithLabelValues(b.topic, b.component, b.version).Inc()
	if malformed {
		b.errors.WithLabelValues(b.topic, brokerErrConversion, b.component, b.version).Inc()
	}
}

func (b *brokerLib) processed(took time.Duration, outcome string) {
	b.duration.WithLabelValues(b.topic, b.component, b.version).Observe(took.Seconds())
	if outcome == broker.SettledRetried || outcome == broker.SettledDeadLettered {
		b.errors.WithLabelValues(b.topic, brokerErrHandler, b.component, b.version).Inc()
	}
}
