package metrics

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestShadowDecisionCounts(t *testing.T) {
	m := New()
	m.ShadowDecision("unchanged", true, "")
	m.ShadowDecision("unchanged", true, "")
	m.ShadowDecision("update", false, "resource")
	m.ShadowDecision("status", false, "data")
	for _, tt := range []struct {
		op, agrees, field string
		want              float64
	}{{"unchanged", "true", "", 2}, {"update", "false", "resource", 1}, {"update", "true", "", 0}, {"status", "false", "data", 1}} {
		if got := testutil.ToFloat64(m.shadow.WithLabelValues(tt.op, tt.agrees, tt.field)); got != tt.want {
			t.Errorf("shadow_decisions_total{operation=%q,agrees=%q,field=%q} = %v, want %v", tt.op, tt.agrees, tt.field, got, tt.want)
		}
	}
}
