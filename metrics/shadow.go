package metrics

import "strconv"

// ShadowDecision counts one decision of serve --shadow
// (bundle_adapter_shadow_decisions_total{operation,agrees,field}); it is
// shadow.Options.Count. field is the class of what differs (shadow.Field*;
// "" when it agrees). A query on operation and agrees alone sums over
// field, so dashboards written before the label keep working.
func (m *Metrics) ShadowDecision(operation string, agrees bool, field string) {
	m.shadow.WithLabelValues(operation, strconv.FormatBool(agrees), field).Inc()
}
