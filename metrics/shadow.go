package metrics

import "strconv"

// ShadowDecision counts one decision of serve --shadow
// (bundle_adapter_shadow_decisions_total{operation,agrees}); it is
// shadow.Options.Count.
func (m *Metrics) ShadowDecision(operation string, agrees bool) {
	m.shadow.WithLabelValues(operation, strconv.FormatBool(agrees)).Inc()
}
