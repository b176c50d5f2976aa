package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Adoptions are counted by transport; an unchanged bundle that carried its
// fingerprint is not an adoption.
func TestAdoptionsCounted(t *testing.T) {
	m := New()
	adopted := outcome("a", adapter.OpUnchanged, adapter.StateDone)
	adopted.Reason = adapter.ReasonAdopted
	kube := adapter.Outcome{Name: "cm", Operation: adapter.OpUnchanged, State: adapter.StateDone, Reason: adapter.ReasonAdopted}
	plain := outcome("b", adapter.OpUnchanged, adapter.StateDone)
	plain.Reason = adapter.ReasonUnchanged
	m.Hooks().Processed(&adapter.Result{Bundles: []adapter.Outcome{adopted, kube, plain}}, time.Millisecond, "acked")
	for transport, want := range map[string]float64{"maestro": 1, "kubernetes": 1} {
		if got := testutil.ToFloat64(m.adopted.WithLabelValues(transport)); got != want {
			t.Errorf("bundles_adopted_total{transport=%q} = %v, want %v", transport, got, want)
		}
	}
	if got := testutil.ToFloat64(m.bundleOps.WithLabelValues("unchanged", "done")); got != 3 {
		t.Errorf("bundle_operations_total{unchanged,done} = %v, want 3", got)
	}
}
