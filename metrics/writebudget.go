package metrics

import "github.com/prometheus/client_golang/prometheus"

// WriteBudgetStats is what the Maestro client's per-consumer write budget
// reports over every consumer (maestroclient.WriteBudgetStats: convert
// one into the other).
type WriteBudgetStats struct {
	Outstanding int
	MaxRate     float64
	Backoffs    uint64
}

// WriteBudget exports the write budget's aggregate figures, read from
// stats at every scrape. Per-consumer figures would be a series per
// cluster, so only sums and the maximum are exported.
func (m *Metrics) WriteBudget(stats func() WriteBudgetStats) {
	f := factory{m.Registry}
	m.Registry.MustRegister(&writeBudgetCollector{stats: stats,
		outstanding: f.desc("maestro_write_budget_outstanding", "Writes sent to Maestro and not yet reported by their agent on the status stream, over every consumer (adaptive write budget with the view on; 0 otherwise)."),
		rate:        f.desc("maestro_write_budget_max_rate", "Highest per-consumer write rate the budget allows now, in writes per second (consumer_writes_per_second when no consumer is above it)."),
		backoffs:    f.desc("maestro_write_budget_backoffs_total", "Times a consumer's write rate was lowered because its agent fell behind (writes unreported past 5s, or more than half the window unreported)."),
	})
}

// desc describes a metric a collector computes at scrape time.
func (f factory) desc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc("bundle_adapter_"+name, help, nil, nil)
}

type writeBudgetCollector struct {
	stats                       func() WriteBudgetStats
	outstanding, rate, backoffs *prometheus.Desc
}

func (c *writeBudgetCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.outstanding
	ch <- c.rate
	ch <- c.backoffs
}

func (c *writeBudgetCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	ch <- prometheus.MustNewConstMetric(c.outstanding, prometheus.GaugeValue, float64(s.Outstanding))
	ch <- prometheus.MustNewConstMetric(c.rate, prometheus.GaugeValue, s.MaxRate)
	ch <- prometheus.MustNewConstMetric(c.backoffs, prometheus.CounterValue, float64(s.Backoffs))
}
