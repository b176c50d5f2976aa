package metrics

import "github.com/prometheus/client_golang/prometheus"

// MaestroSourceClients exports, read at every scrape, how many of the
// Maestro client's gRPC source clients hold their connection and how many
// there are (maestroclient.Pool.SourceClients). Below the total, writes
// through the others are refused until they reconnect: after a Maestro
// restart this is what says when the adapter can write again, whether or
// not events are waiting (the soak times it: issue 48).
func (m *Metrics) MaestroSourceClients(read func() (connected, total int)) {
	f := factory{m.Registry}
	m.Registry.MustRegister(&sourceClientsCollector{read: read,
		connected: f.desc("maestro_source_clients_connected", "Maestro gRPC source clients holding their connection now; below maestro_source_clients, writes through the others are refused until they reconnect."),
		total:     f.desc("maestro_source_clients", "Maestro gRPC source clients of this process (writes are spread over them)."),
	})
}

type sourceClientsCollector struct {
	read             func() (connected, total int)
	connected, total *prometheus.Desc
}

func (c *sourceClientsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.connected
	ch <- c.total
}

func (c *sourceClientsCollector) Collect(ch chan<- prometheus.Metric) {
	connected, total := c.read()
	ch <- prometheus.MustNewConstMetric(c.connected, prometheus.GaugeValue, float64(connected))
	ch <- prometheus.MustNewConstMetric(c.total, prometheus.GaugeValue, float64(total))
}
