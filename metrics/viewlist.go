package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// viewLists are the metrics of the bundle view's Lists of this source's
// bundles (maestroclient/view Refresher).
type viewLists struct {
	lists    *prometheus.CounterVec
	pages    prometheus.Counter
	bundles  prometheus.Counter
	duration prometheus.Gauge
}

func newViewLists(f factory) *viewLists {
	return &viewLists{
		lists:    f.counterVec("view_lists_total", "Lists of this source's bundles that filled or refreshed the bundle view (one after every status stream (re)subscription, then one every 3/4 max_age), by result (ok, error).", "result"),
		pages:    f.counter("view_list_pages_total", "Pages (Maestro requests) the bundle view's Lists read."),
		bundles:  f.counter("view_listed_bundles_total", "Bundles the bundle view's Lists read."),
		duration: f.gauge("view_list_duration_seconds", "How long the bundle view's last List took, failed or not."),
	}
}

// ViewListed records one List of the bundle view: the pages and bundles
// it read, how long it took, and whether it failed (err not nil). The pages
// also count as Maestro requests (maestro_requests_total{verb="list"}).
func (m *Metrics) ViewListed(pages, bundles int, took time.Duration, err error) {
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.viewList.lists.WithLabelValues(result).Inc()
	// Every page read is a Maestro request; a failed List failed on one more.
	m.maestroRequests.WithLabelValues("list", "ok").Add(float64(pages))
	if err != nil {
		m.maestroRequests.WithLabelValues("list", maestroCode(err)).Inc()
	}
	m.viewList.pages.Add(float64(pages))
	m.viewList.bundles.Add(float64(bundles))
	m.viewList.duration.Set(took.Seconds())
}
