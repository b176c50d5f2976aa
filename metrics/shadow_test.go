package metrics

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestShadowDecisionCounts(t *testing.T) {
	m := New()
	m.ShadowDecision("unchanged", true)
	m.ShadowDecision("unchanged", true)
	m.ShadowDecision("update", false)
	for _, tt := range []struct {
		op, agrees string
		want       float64
	}{{"unchanged", "true", 2}, {"update", "false", 1}, {"update", "true", 0}} {
		if got := testutil.ToFloat64(m.shadow.WithLabelValues(tt.op, tt.agrees)); got != tt.want {
			t.Errorf("shadow_decisions_total{operation=%q,agrees=%q} = %v, want %v", tt.op, tt.agrees, got, tt.want)
		}
	}
}
