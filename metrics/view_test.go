package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// The bench reads "Maestro requests per unchanged event" as the sum over
// the count of event_maestro_requests{unchanged="true"}, and the view's
// hit rate from view_lookups_total.
func TestMaestroRequestsPerUnchangedEvent(t *testing.T) {
	unchanged := []adapter.Outcome{outcome("a", adapter.OpUnchanged, adapter.StateDone), outcome("b", adapter.OpUnchanged, adapter.StateDone)}
	events := []struct {
		res adapter.Result
	}{
		{adapter.Result{Bundles: unchanged, MaestroRequests: 0, View: adapter.ViewHit}},
		{adapter.Result{Bundles: unchanged, MaestroRequests: 0, View: adapter.ViewHit}},
		{adapter.Result{Bundles: unchanged, MaestroRequests: 1, View: adapter.ViewMiss}},
		{adapter.Result{Bundles: []adapter.Outcome{outcome("a", adapter.OpCreate, adapter.StateDone)}, MaestroRequests: 2, View: adapter.ViewMiss}},
		{adapter.Result{Bundles: unchanged, MaestroRequests: 1}}, // no view configured
	}
	m := New()
	for _, e := range events {
		m.Hooks().Processed(&e.res, time.Millisecond, "acked")
	}
	want := `
# HELP bundle_adapter_view_lookups_total Events whose pre-discovery consulted the bundle view, by result: hit (every bundle served by the view, unchanged, no Maestro request) or miss (Maestro read).
# TYPE bundle_adapter_view_lookups_total counter
bundle_adapter_view_lookups_total{result="hit"} 2
bundle_adapter_view_lookups_total{result="miss"} 2
`
	if err := testutil.GatherAndCompare(m.Registry, strings.NewReader(want), "bundle_adapter_view_lookups_total"); err != nil {
		t.Error(err)
	}
	sum, count := histogram(t, m, "true")
	if sum != 2 || count != 4 {
		t.Errorf("unchanged events: %v requests over %v events, want 2 over 4", sum, count)
	}
	if sum, count := histogram(t, m, "false"); sum != 2 || count != 1 {
		t.Errorf("other events: %v requests over %v events, want 2 over 1", sum, count)
	}
}

func histogram(t *testing.T, m *Metrics, unchanged string) (sum float64, count uint64) {
	t.Helper()
	mfs, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "bundle_adapter_event_maestro_requests" {
			continue
		}
		for _, mt := range mf.GetMetric() {
			if mt.GetLabel()[0].GetValue() == unchanged {
				return mt.GetHistogram().GetSampleSum(), mt.GetHistogram().GetSampleCount()
			}
		}
	}
	t.Fatalf("no event_maestro_requests{unchanged=%q}", unchanged)
	return 0, 0
}
