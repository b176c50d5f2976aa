package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// MaxPendingKinds bounds the kind label of
// bundle_adapter_oldest_pending_deletion_seconds: the kinds come from
// events, so past this many distinct ones the rest are counted as "other".
const MaxPendingKinds = 16

// otherKind is the kind label past MaxPendingKinds, and of events with no
// data.kind.
const otherKind = "other"

// oldestPending exports, per resource kind of the events (Cluster,
// NodePool), the age in seconds of the oldest bundle deletion or
// recreation this process last saw pending or stalled: the age the
// adapter reported (Outcome.PendingSeconds, from Maestro's deletion time)
// plus the time since it was seen. 0 when none is pending; every kind seen
// keeps its series. Computed at scrape time from the pending set.
type oldestPending struct {
	m    *Metrics
	desc *prometheus.Desc
}

const oldestPendingHelp = "Age of the oldest bundle deletion or recreation still pending (or stalled), by the kind of the event's resource (Cluster, NodePool); 0 when none is."

func newOldestPending(m *Metrics) *oldestPending {
	return &oldestPending{m: m, desc: prometheus.NewDesc("bundle_adapter_oldest_pending_deletion_seconds", oldestPendingHelp, []string{"kind"}, nil)}
}

func (o *oldestPending) help() string { return oldestPendingHelp }

func (o *oldestPending) Describe(ch chan<- *prometheus.Desc) { ch <- o.desc }

func (o *oldestPending) Collect(ch chan<- prometheus.Metric) {
	o.m.mu.Lock()
	ages := o.m.pending.oldest()
	kinds := make([]string, 0, len(o.m.kinds))
	for k := range o.m.kinds {
		kinds = append(kinds, k)
	}
	o.m.mu.Unlock()
	for _, k := range kinds {
		ch <- prometheus.MustNewConstMetric(o.desc, prometheus.GaugeValue, ages[k].Seconds(), k)
	}
}

// kindOf is the event's data.kind, bounded to MaxPendingKinds distinct
// values (otherKind past them). Callers hold m.mu.
func (m *Metrics) kindOf(res *adapter.Result) string {
	k, _ := res.Event.Data["kind"].(string)
	if k == "" {
		k = otherKind
	}
	if _, ok := m.kinds[k]; !ok {
		if len(m.kinds) >= MaxPendingKinds {
			k = otherKind
		}
		m.kinds[k] = struct{}{}
	}
	return k
}
