package charts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// ruleFile is a Prometheus rule file as the chart renders it (the
// PrometheusRule's spec).
type ruleFile struct {
	Groups []struct {
		Name  string     `yaml:"name"`
		Rules []ruleSpec `yaml:"rules"`
	} `yaml:"groups"`
}

type ruleSpec struct {
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for,omitempty"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations,omitempty"`
}

// renderRules renders the chart's PrometheusRule for release bundle-adapter
// in namespace ci (the release alerts-test.yaml's series name), with the
// extra --set values, and returns its spec as a rule file (raw YAML and
// decoded).
func renderRules(t *testing.T, helm string, set ...string) ([]byte, ruleFile) {
	t.Helper()
	var args []string
	for _, v := range set {
		args = append(args, "--set", v)
	}
	return renderRuleArgs(t, helm, args...)
}

// renderRuleArgs is renderRules with helm template's own arguments
// (--set, --set-string, --set-json, ...).
func renderRuleArgs(t *testing.T, helm string, args ...string) ([]byte, ruleFile) {
	t.Helper()
	extra := append([]string{"--set", "monitoring.prometheusRule.enabled=true", "--api-versions", "monitoring.coreos.com/v1/PrometheusRule"}, args...)
	out, err := Template(helm, "..", "bundle-adapter", "ci", Case{Name: "rules"}, extra...)
	if err != nil {
		t.Fatalf("helm template: %v", err)
	}
	objs, err := Split(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if o.Kind != "PrometheusRule" {
			continue
		}
		var pr struct {
			Spec yaml.Node `yaml:"spec"`
		}
		if err := yaml.Unmarshal(o.Doc, &pr); err != nil {
			t.Fatal(err)
		}
		raw, err := yaml.Marshal(&pr.Spec)
		if err != nil {
			t.Fatal(err)
		}
		var rf ruleFile
		if err := yaml.Unmarshal(raw, &rf); err != nil {
			t.Fatal(err)
		}
		return raw, rf
	}
	t.Fatal("no PrometheusRule rendered")
	return nil, ruleFile{}
}

func (rf ruleFile) alerts() map[string]ruleSpec {
	out := map[string]ruleSpec{}
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			out[r.Alert] = r
		}
	}
	return out
}

// alertTests is testdata/alerts-test.yaml: per alert, whether it has a
// case that fires and one that does not.
func alertTests(t *testing.T) (fires, quiet map[string]bool) {
	t.Helper()
	b, err := os.ReadFile("testdata/alerts-test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Tests []struct {
			AlertRuleTest []struct {
				Alertname string `yaml:"alertname"`
				ExpAlerts []any  `yaml:"exp_alerts"`
			} `yaml:"alert_rule_test"`
		} `yaml:"tests"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	fires, quiet = map[string]bool{}, map[string]bool{}
	for _, tc := range f.Tests {
		for _, a := range tc.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				fires[a.Alertname] = true
			} else {
				quiet[a.Alertname] = true
			}
		}
	}
	return fires, quiet
}

// Every alert the chart renders by default has a promtool case that fires
// and one that does not; none is tested that the chart does not render.
func TestEveryAlertHasPromtoolCases(t *testing.T) {
	helm := helmOrSkip(t)
	_, rf := renderRules(t, helm)
	alerts := rf.alerts()
	fires, quiet := alertTests(t)
	if len(alerts) == 0 {
		t.Fatal("no alert rendered")
	}
	for name := range alerts {
		if !fires[name] {
			t.Errorf("alert %s: no case in testdata/alerts-test.yaml where it fires", name)
		}
		if !quiet[name] {
			t.Errorf("alert %s: no case in testdata/alerts-test.yaml where it does not fire", name)
		}
	}
	for name := range fires {
		if _, ok := alerts[name]; !ok {
			t.Errorf("testdata/alerts-test.yaml tests %s, which the chart does not render", name)
		}
	}
}

// promtoolOrSkip returns the promtool hack/promtool.sh builds, or skips
// (fails when REQUIRE_PROMTOOL=1) when it is not built.
func promtoolOrSkip(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(filepath.Join("..", "hack", "promtool.sh"), "path").Output()
	p := strings.TrimSpace(string(out))
	if fi, serr := os.Stat(p); err != nil || serr != nil || fi.Mode()&0o111 == 0 {
		msg := "no promtool at " + p + ": run hack/promtool.sh build"
		if os.Getenv("REQUIRE_PROMTOOL") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg + " (REQUIRE_PROMTOOL=1 makes this a failure)")
	}
	return p
}

// `promtool test rules` (Prometheus' own rule tester) runs
// testdata/alerts-test.yaml on the rules the chart renders by default:
// every alert fires on its case and stays quiet on the other. Annotations
// are dropped from the rules given to promtool (the cases compare labels;
// TestAlertRules parses the annotations' templates).
func TestAlertsPromtool(t *testing.T) {
	helm := helmOrSkip(t)
	promtool := promtoolOrSkip(t)
	_, rf := renderRules(t, helm)
	for gi := range rf.Groups {
		for ri := range rf.Groups[gi].Rules {
			rf.Groups[gi].Rules[ri].Annotations = nil
		}
	}
	rules, err := yaml.Marshal(rf)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tests, err := os.ReadFile("testdata/alerts-test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"rules.yaml": rules, "alerts-test.yaml": tests} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(promtool, "test", "rules", "alerts-test.yaml")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("promtool test rules: %v\n%s\nrules:\n%s", err, out, rules)
	}
	t.Logf("promtool test rules:\n%s", out)
}

// Each alert's values set its rule: enabled: false leaves it out; threshold,
// for and severity are what the rule says; a key that names no alert fails
// the render naming it.
func TestAlertsAreValues(t *testing.T) {
	helm := helmOrSkip(t)
	_, rf := renderRules(t, helm,
		"monitoring.prometheusRule.rules.PendingTooLong.threshold=600",
		"monitoring.prometheusRule.rules.PendingTooLong.for=2m",
		"monitoring.prometheusRule.rules.PendingTooLong.severity=critical",
		"monitoring.prometheusRule.rules.ShadowDisagreements.enabled=false",
		`monitoring.prometheusRule.targetSelector=job="x"`)
	alerts := rf.alerts()
	if _, ok := alerts["BundleAdapterShadowDisagreements"]; ok {
		t.Error("BundleAdapterShadowDisagreements rendered although disabled")
	}
	r, ok := alerts["BundleAdapterDeletionPendingTooLong"]
	switch {
	case !ok:
		t.Fatal("BundleAdapterDeletionPendingTooLong not rendered")
	case !strings.HasSuffix(strings.TrimSpace(r.Expr), "> 600"):
		t.Errorf("expr %q does not compare with the threshold 600", r.Expr)
	case r.For != "2m":
		t.Errorf("for %q, want 2m", r.For)
	case r.Labels["severity"] != "critical":
		t.Errorf("severity %q, want critical", r.Labels["severity"])
	case !strings.Contains(r.Expr, `{job="x"}`):
		t.Errorf("expr %q does not use the target selector", r.Expr)
	}
	out, err := Template(helm, "..", "bundle-adapter", "ci", Case{Name: "typo"}, "--set", "monitoring.prometheusRule.enabled=true",
		"--api-versions", "monitoring.coreos.com/v1/PrometheusRule", "--set", "monitoring.prometheusRule.rules.PendingToLong.threshold=1")
	if err == nil || !strings.Contains(err.Error(), "PendingToLong") {
		t.Errorf("a misspelt alert key rendered (or failed without naming it): %v\n%s", err, out)
	}
}
