package charts

import (
	"path/filepath"
	"strings"
	"testing"
)

// values.schema.json makes helm lint (and install) refuse a misspelt value,
// naming it, where it was silently ignored; the values hyperfleet-infra
// sets (TestHyperFleetInfraAdapters) and the ci/ files (TestChart) pass.
func TestValuesSchemaRefusesTypos(t *testing.T) {
	helm := helmOrSkip(t)
	cases := []struct{ set, names string }{
		{"rbac.resorces={configmaps}", "resorces"},
		{"adapterTaskConfg.create=true", "adapterTaskConfg"},
		{"broker.rabbitmq.exchnage=x", "exchnage"},
		{"monitoring.prometheusRule.rules.Down.treshold=1", "treshold"},
		{"broker.type=kafka", "kafka"},
	}
	for _, c := range cases {
		t.Run(c.names, func(t *testing.T) {
			out, err := run(helm, "lint", "--strict", filepath.Join("..", ChartDir), "--set", c.set)
			if err == nil {
				t.Fatalf("helm lint --set %s passed:\n%s", c.set, out)
			}
			if !strings.Contains(err.Error(), c.names) {
				t.Errorf("helm lint --set %s failed without naming %s: %v", c.set, c.names, err)
			}
		})
	}
}
