package metrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// The write budget's figures are read at scrape time, one series each.
func TestWriteBudgetMetrics(t *testing.T) {
	m := New()
	stats := WriteBudgetStats{Outstanding: 7, MaxRate: 45, Backoffs: 3}
	m.WriteBudget(func() WriteBudgetStats { return stats })
	want := `
# HELP bundle_adapter_maestro_write_budget_backoffs_total Times a consumer's write rate was lowered because its agent fell behind (writes unreported past 5s, or more than half the window unreported).
# TYPE bundle_adapter_maestro_write_budget_backoffs_total counter
bundle_adapter_maestro_write_budget_backoffs_total 3
# HELP bundle_adapter_maestro_write_budget_max_rate Highest per-consumer write rate the budget allows now, in writes per second (consumer_writes_per_second when no consumer is above it).
# TYPE bundle_adapter_maestro_write_budget_max_rate gauge
bundle_adapter_maestro_write_budget_max_rate 45
# HELP bundle_adapter_maestro_write_budget_outstanding Writes sent to Maestro and not yet reported by their agent on the status stream, over every consumer (adaptive write budget with the view on; 0 otherwise).
# TYPE bundle_adapter_maestro_write_budget_outstanding gauge
bundle_adapter_maestro_write_budget_outstanding 7
`
	names := []string{"bundle_adapter_maestro_write_budget_backoffs_total", "bundle_adapter_maestro_write_budget_max_rate", "bundle_adapter_maestro_write_budget_outstanding"}
	if err := testutil.GatherAndCompare(m.Registry, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
	stats.Outstanding = 0 // every write reported since
	want = strings.Replace(want, "bundle_adapter_maestro_write_budget_outstanding 7", "bundle_adapter_maestro_write_budget_outstanding 0", 1)
	if err := testutil.GatherAndCompare(m.Registry, strings.NewReader(want), names...); err != nil {
		t.Errorf("read again at the next scrape: %v", err)
	}
}
