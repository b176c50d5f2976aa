package charts

import (
	"path/filepath"
	"strings"
	"testing"
)

// Issue 43's own round on the operator features (alerts as values, the
// values schema, rbac): hostile values given as an operator could give
// them (--set, --set-string, --set-json). Each is refused by helm lint
// naming the value, or renders harmless: a threshold or a for that is not
// a number or a duration never reaches a PromQL expression or a rule, and
// a severity or a label cannot add YAML (the rule is built as a dict and
// printed by toYaml).
func TestHostileOperatorValues(t *testing.T) {
	helm := helmOrSkip(t)
	const r = "monitoring.prometheusRule.rules."
	cases := []struct {
		name string
		flag string // --set, --set-string or --set-json
		val  string
		// refused: helm lint fails naming this; "" when the value passes.
		refused string
		// expr, when set, is what the rendered NoEventsProcessed or
		// DeletionStalled expression must end with (a value that passes).
		alert, expr string
	}{
		{"threshold negative", "--set", r + "DeletionStalled.threshold=-1", "threshold", "", ""},
		{"threshold negative string", "--set-string", r + "DeletionStalled.threshold=-1", "threshold", "", ""},
		{"threshold PromQL injection", "--set-string", r + "DeletionStalled.threshold=0 or vector(1)", "threshold", "", ""},
		{"threshold selector injection", "--set-string", r + "DeletionStalled.threshold=0}", "threshold", "", ""},
		{"threshold newline", "--set-json", r + `DeletionStalled.threshold="0\n- alert: X"`, "threshold", "", ""},
		{"threshold word", "--set-string", r + "DeletionStalled.threshold=five", "threshold", "", ""},
		{"threshold empty string", "--set-string", r + "DeletionStalled.threshold=", "threshold", "", ""},
		{"threshold bool", "--set", r + "DeletionStalled.threshold=true", "threshold", "", ""},
		{"threshold list", "--set-json", r + "DeletionStalled.threshold=[1]", "threshold", "", ""},
		{"threshold object", "--set-json", r + `DeletionStalled.threshold={"a":1}`, "threshold", "", ""},
		{"threshold null", "--set-json", r + "DeletionStalled.threshold=null", "threshold", "", ""},
		{"threshold NaN string", "--set-string", r + "DeletionStalled.threshold=NaN", "threshold", "", ""},
		{"threshold Inf string", "--set-string", r + "DeletionStalled.threshold=+Inf", "threshold", "", ""},
		{"threshold huge number", "--set-json", r + "DeletionStalled.threshold=1e300", "", "BundleAdapterDeletionStalled", "> 1e+300"},
		{"threshold numeric string", "--set-string", r + "DeletionStalled.threshold=2.5", "", "BundleAdapterDeletionStalled", "> 2.5"},
		{"threshold zero", "--set", r + "DeletionStalled.threshold=0", "", "BundleAdapterDeletionStalled", "> 0"},
		{"for not a duration", "--set", r + "Down.for=soon", "for", "", ""},
		{"for with newline", "--set-json", r + `Down.for="5m\nseverity: none"`, "for", "", ""},
		{"for negative", "--set-string", r + "Down.for=-5m", "for", "", ""},
		{"for number", "--set", r + "Down.for=5", "for", "", ""},
		{"for empty", "--set-string", r + "Down.for=", "for", "", ""},
		{"severity empty", "--set-string", r + "Down.severity=", "severity", "", ""},
		{"severity list", "--set-json", r + `Down.severity=["a"]`, "severity", "", ""},
		{"enabled as string", "--set-string", r + "Down.enabled=yes", "enabled", "", ""},
		{"unknown alert", "--set", r + "Bogus.enabled=true", "Bogus", "", ""},
		{"unknown key in an alert", "--set", r + "Down.labels=x", "labels", "", ""},
		{"unknown key at the top", "--set", "rbacc.create=true", "rbacc", "", ""},
		{"unknown key under rbac", "--set", "rbac.namespaced=true", "namespaced", "", ""},
		{"rbac.create a string", "--set-string", "rbac.create=true", "create", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := run(helm, "lint", "--strict", filepath.Join("..", ChartDir), "--set", "monitoring.prometheusRule.enabled=true", c.flag, c.val)
			if c.refused != "" {
				if err == nil {
					// helm lint does not know the PrometheusRule API, so a value
					// refused only while the rule renders is tried by helm
					// template with it: refused before anything is installed.
					out, err = Template(helm, "..", "bundle-adapter", "ci", Case{Name: "rules"}, "--set", "monitoring.prometheusRule.enabled=true",
						"--api-versions", "monitoring.coreos.com/v1/PrometheusRule", c.flag, c.val)
				}
				if err == nil {
					t.Fatalf("helm lint and helm template %s %s passed:\n%s", c.flag, c.val, out)
				}
				if !strings.Contains(err.Error(), c.refused) {
					t.Errorf("helm lint %s %s failed without naming %s: %v", c.flag, c.val, c.refused, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("helm lint %s %s: %v", c.flag, c.val, err)
			}
			_, rf := renderRulesWith(t, helm, c.flag, c.val)
			a, ok := rf.alerts()[c.alert]
			if !ok {
				t.Fatalf("no alert %s", c.alert)
			}
			if !strings.HasSuffix(strings.TrimSpace(a.Expr), c.expr) {
				t.Errorf("%s expr %q, want it to end with %q", c.alert, a.Expr, c.expr)
			}
		})
	}
}

// Values that pass and are printed into the rule: a severity, a label or
// a description holding YAML or newlines stays one string value.
func TestHostileOperatorStrings(t *testing.T) {
	helm := helmOrSkip(t)
	const r = "monitoring.prometheusRule.rules."
	cases := []struct{ name, flag, val, severity string }{
		{"severity with newline and YAML", "--set-json", r + `Down.severity="critical\n    team: evil"`, "critical\n    team: evil"},
		{"severity with quotes", "--set-string", r + `Down.severity=cri"ti'cal`, `cri"ti'cal`},
		{"severity with a template", "--set-json", r + `Down.severity="{{ .Release.Name }}"`, "{{ .Release.Name }}"},
		{"severity with spaces and unicode", "--set-string", r + `Down.severity=très grave`, "très grave"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, rf := renderRulesWith(t, helm, c.flag, c.val)
			a := rf.alerts()["BundleAdapterDown"]
			if a.Labels["severity"] != c.severity || len(a.Labels) != 1 {
				t.Errorf("labels %q, want only severity %q", a.Labels, c.severity)
			}
		})
	}
}

// renderRulesWith is renderRules with one value given by flag (--set,
// --set-string or --set-json).
func renderRulesWith(t *testing.T, helm, flag, val string) ([]byte, ruleFile) {
	t.Helper()
	return renderRuleArgs(t, helm, flag, val)
}
