package charts

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	promql "github.com/prometheus/prometheus/promql/parser"
)

const dashboardFile = "bundle-adapter/dashboards/bundle-adapter.json"

// alertOnlyMetrics are the series alerts use that registered() does not
// read from the factory calls of package metrics: Prometheus' own up, the
// scrape-time gauge of metrics/oldest.go and hyperfleet-broker's errors
// (metrics/brokerlib.go; their names are checked against the library by
// metrics/brokerlib_test.go).
var alertOnlyMetrics = map[string][]string{
	"up": nil,
	"bundle_adapter_oldest_pending_deletion_seconds": {"kind"},
	"hyperfleet_broker_errors_total":                 {"topic", "error_type", "component", "version"},
}

// targetLabels are the labels Prometheus adds to every scraped series (and
// le, of histogram buckets): rules and dashboards may group by them.
var targetLabels = map[string]bool{"namespace": true, "job": true, "pod": true, "instance": true, "service": true, "container": true, "le": true}

// registered returns every metric the metrics package registers, with its
// label names, read from its source: each call of a method of its factory
// type (counterVec, counter, gauge, histogram, ...) names the metric (the
// first argument, prefixed with the Namespace that method sets), its help,
// and its labels.
func registered(t *testing.T) map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("../metrics/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var parsed []*ast.File
	factoryMethods := map[string]string{} // method -> the Namespace of the metrics it makes
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, af)
		for _, d := range af.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 {
				continue
			}
			if id, ok := fd.Recv.List[0].Type.(*ast.Ident); ok && id.Name == "factory" {
				ns := "bundle_adapter"
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					if kv, ok := n.(*ast.KeyValueExpr); ok {
						if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Namespace" {
							if lit, ok := kv.Value.(*ast.BasicLit); ok && lit.Kind == token.STRING {
								ns, _ = strconv.Unquote(lit.Value)
							}
						}
					}
					return true
				})
				factoryMethods[fd.Name.Name] = ns
			}
		}
	}
	if len(factoryMethods) == 0 {
		t.Fatal("metrics: no methods of a factory type found; this test reads metric names from calls of them")
	}
	out := map[string][]string{}
	for _, af := range parsed {
		ast.Inspect(af, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			ns, isFactory := factoryMethods[sel.Sel.Name]
			if !isFactory || len(call.Args) < 2 {
				return true
			}
			var strs []string
			for _, a := range call.Args {
				lit, ok := a.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				strs = append(strs, s)
			}
			name := strs[0]
			if ns != "" {
				name = ns + "_" + name
			}
			out[name] = strs[2:]
			if sel.Sel.Name == "histogram" || strings.HasPrefix(sel.Sel.Name, "histogram") {
				for _, s := range []string{"_bucket", "_sum", "_count"} {
					out[name+s] = strs[2:]
				}
			}
			return true
		})
	}
	if len(out) == 0 {
		t.Fatal("metrics: no metric registrations found")
	}
	return out
}

// checkExpr parses a PromQL expression and reports every metric name it
// selects that metrics does not register, and every label it matches or
// groups by that is neither a label of a metric it selects nor a target label.
func checkExpr(t *testing.T, where, expr string, reg map[string][]string) {
	t.Helper()
	e, err := promql.ParseExpr(expr)
	if err != nil {
		t.Errorf("%s: %v\nexpr: %s", where, err, expr)
		return
	}
	known := map[string]bool{}
	for k := range targetLabels {
		known[k] = true
	}
	var names []string
	promql.Inspect(e, func(n promql.Node, _ []promql.Node) error {
		if vs, ok := n.(*promql.VectorSelector); ok {
			names = append(names, vs.Name)
		}
		return nil
	})
	if len(names) == 0 {
		t.Errorf("%s: selects no metric: %s", where, expr)
	}
	for _, name := range names {
		labels, ok := reg[name]
		if !ok {
			t.Errorf("%s: metric %s is not registered by metrics/metrics.go", where, name)
			continue
		}
		for _, l := range labels {
			known[l] = true
		}
	}
	promql.Inspect(e, func(n promql.Node, _ []promql.Node) error {
		var used []string
		switch x := n.(type) {
		case *promql.VectorSelector:
			for _, m := range x.LabelMatchers {
				if m.Name != model.MetricNameLabel {
					used = append(used, m.Name)
				}
			}
		case *promql.AggregateExpr:
			used = append(used, x.Grouping...)
		}
		for _, l := range used {
			if !known[l] {
				t.Errorf("%s: label %q is not a label of %v (nor a target label)", where, l, names)
			}
		}
		return nil
	})
}

// TestAlertRules parses the chart's alert rules, as the PrometheusRule
// renders them with the chart's defaults, with Prometheus' own rule file
// parser (what `promtool check rules` runs: YAML shape, PromQL of every
// expr, Go templates of labels and annotations) and checks every metric and
// label they use against the metrics the adapter registers.
func TestAlertRules(t *testing.T) {
	helm := helmOrSkip(t)
	b, _ := renderRules(t, helm)
	const rulesFile = "the rendered PrometheusRule"
	groups, errs := rulefmt.Parse(b, false, model.UTF8Validation)
	for _, e := range errs {
		t.Errorf("%s: %v", rulesFile, e)
	}
	if groups == nil {
		t.FailNow()
	}
	reg := registered(t)
	for name, labels := range alertOnlyMetrics {
		reg[name] = labels
	}
	alerts := map[string]bool{}
	used := map[string]bool{}
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				t.Errorf("%s: rule %q is not an alert", rulesFile, r.Record)
				continue
			}
			alerts[r.Alert] = true
			if r.Labels["severity"] == "" {
				t.Errorf("%s: alert %s has no severity label", rulesFile, r.Alert)
			}
			if r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("%s: alert %s needs a summary and a description", rulesFile, r.Alert)
			}
			checkExpr(t, rulesFile+": "+r.Alert, r.Expr, reg)
			e, _ := promql.ParseExpr(r.Expr)
			promql.Inspect(e, func(n promql.Node, _ []promql.Node) error {
				if vs, ok := n.(*promql.VectorSelector); ok {
					used[vs.Name] = true
				}
				return nil
			})
		}
	}
	// What the alerts are for (issue 13): each must be covered.
	for _, m := range []string{
		"bundle_adapter_bundles_pending_deletion",
		"bundle_adapter_bundles_deletion_stalled",
		"bundle_adapter_broker_dead_letters_total",
		"bundle_adapter_broker_redeliveries_total",
		"bundle_adapter_maestro_requests_total",
		"bundle_adapter_event_duration_seconds_bucket",
		"bundle_adapter_oldest_pending_deletion_seconds",
		"bundle_adapter_api_requests_total",
		"bundle_adapter_shadow_decisions_total",
		"bundle_adapter_events_total",
		"hyperfleet_broker_errors_total",
		"up",
	} {
		if !used[m] {
			t.Errorf("%s: no alert uses %s", rulesFile, m)
		}
	}
	t.Logf("%d alerts: %v", len(alerts), keys(alerts))
}

// TestDashboard checks the Grafana dashboard: valid JSON, every panel query
// valid PromQL (Grafana's $__rate_interval taken as 5m) over metrics and
// labels metrics/metrics.go registers, and the template variables' queries
// over registered metrics.
func TestDashboard(t *testing.T) {
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		UID    string `json:"uid"`
		Title  string `json:"title"`
		Panels []struct {
			Title   string `json:"title"`
			Type    string `json:"type"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name  string `json:"name"`
				Type  string `json:"type"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	if d.UID == "" || d.Title == "" {
		t.Errorf("%s: needs a uid and a title", dashboardFile)
	}
	reg := registered(t)
	grafana := strings.NewReplacer("$__rate_interval", "5m", "$__interval", "1m", "$__range", "1h")
	queries := 0
	for _, p := range d.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("%s: panel %q has no query", dashboardFile, p.Title)
		}
		for _, tg := range p.Targets {
			queries++
			checkExpr(t, dashboardFile+": panel "+strconv.Quote(p.Title), grafana.Replace(tg.Expr), reg)
		}
	}
	labelValues := regexp.MustCompile(`^label_values\((.*),\s*(\w+)\)$`)
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		q, _ := v.Query.(map[string]any)["query"].(string)
		m := labelValues.FindStringSubmatch(q)
		if m == nil {
			t.Errorf("%s: variable %s: want label_values(SELECTOR, LABEL), got %q", dashboardFile, v.Name, q)
			continue
		}
		checkExpr(t, dashboardFile+": variable "+v.Name, m[1], reg)
		if !targetLabels[m[2]] {
			t.Errorf("%s: variable %s takes values of %q, not a target label", dashboardFile, v.Name, m[2])
		}
	}
	t.Logf("%d panels, %d queries", len(d.Panels), queries)
}

// TestReadmeListsMetrics checks that docs/operations.md's "Health and
// metrics" table names every metric metrics/metrics.go registers.
func TestReadmeListsMetrics(t *testing.T) {
	b, err := os.ReadFile("../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for name := range registered(t) {
		if strings.HasSuffix(name, "_bucket") || strings.HasSuffix(name, "_sum") || strings.HasSuffix(name, "_count") {
			continue
		}
		if !strings.Contains(readme, "`"+name+"`") {
			t.Errorf("README.md does not list metric %s", name)
		}
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
