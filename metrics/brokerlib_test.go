package metrics

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"gopkg.in/yaml.v3"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/broker"
)

// brokerLibFixture is testdata/hyperfleet-broker-metrics.yaml.
type brokerLibFixture struct {
	Module               string          `yaml:"module"`
	Version              string          `yaml:"version"`
	Metrics              []brokerLibSpec `yaml:"metrics"`
	SubscriberErrorTypes []string        `yaml:"subscriber_error_types"`
}

type brokerLibSpec struct {
	Name    string    `yaml:"name"`
	Type    string    `yaml:"type"`
	Labels  []string  `yaml:"labels"`
	Buckets []float64 `yaml:"buckets"`
}

func loadBrokerLibFixture(t *testing.T) brokerLibFixture {
	t.Helper()
	b, err := os.ReadFile("testdata/hyperfleet-broker-metrics.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var f brokerLibFixture
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Metrics) == 0 || f.Version == "" {
		t.Fatal("testdata/hyperfleet-broker-metrics.yaml: no metrics or no version")
	}
	return f
}

// Every metric of hyperfleet-broker is exposed under its name, kind, label
// names and buckets, once HyperFleet registered them, and no other
// hyperfleet_broker_ metric is.
func TestBrokerLibMetricsExposed(t *testing.T) {
	f := loadBrokerLibFixture(t)
	m := New()
	m.HyperFleet(BuildInfo{Component: "adapter1", Version: "1.2.3", Commit: "abc", Topic: "clusters"})
	m.Hooks().Processed(&adapter.Result{}, 300*time.Millisecond, broker.SettledAcked)
	fams, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*dto.MetricFamily{}
	for _, fam := range fams {
		if strings.HasPrefix(fam.GetName(), "hyperfleet_broker_") {
			got[fam.GetName()] = fam
		}
	}
	for _, want := range f.Metrics {
		fam, ok := got[want.Name]
		delete(got, want.Name)
		if !ok {
			t.Errorf("%s: not exposed", want.Name)
			continue
		}
		if typ := strings.ToLower(fam.GetType().String()); typ != want.Type {
			t.Errorf("%s: type %s, want %s", want.Name, typ, want.Type)
		}
		if len(fam.Metric) == 0 {
			t.Errorf("%s: no series", want.Name)
			continue
		}
		mt := fam.Metric[0]
		var labels []string
		for _, l := range mt.Label {
			labels = append(labels, l.GetName())
		}
		if !sameSet(labels, want.Labels) {
			t.Errorf("%s: labels %v, want %v", want.Name, labels, want.Labels)
		}
		if want.Type == "histogram" {
			var bounds []float64
			for _, b := range mt.GetHistogram().GetBucket() {
				bounds = append(bounds, b.GetUpperBound())
			}
			if !slices.Equal(bounds, want.Buckets) {
				t.Errorf("%s: buckets %v, want %v", want.Name, bounds, want.Buckets)
			}
		}
	}
	for name := range got {
		t.Errorf("%s: exposed but not one of hyperfleet-broker's metrics", name)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	return slices.Equal(a, b)
}

// Counted where the consumer does what the library's subscriber does: a
// message taken (consumed), one that is not a CloudEvent (conversion), a
// run (duration) and a run not acked (handler).
func TestBrokerLibCounting(t *testing.T) {
	m := New()
	m.HyperFleet(BuildInfo{Component: "adapter1", Version: "1.2.3", Topic: "clusters"})
	h := m.Hooks()
	h.Received(false)
	h.Received(false)
	h.Received(true)
	h.Processed(&adapter.Result{}, 200*time.Millisecond, broker.SettledAcked)
	h.Processed(&adapter.Result{}, 3*time.Second, broker.SettledRetried)
	h.Processed(&adapter.Result{}, time.Second, broker.SettledDeadLettered)
	lv := []string{"clusters", "adapter1", "1.2.3"}
	cases := []struct {
		name string
		got  float64
		want float64
	}{
		{"consumed", counterValue(t, m.bl.consumed.WithLabelValues(lv...)), 3},
		{"conversion errors", counterValue(t, m.bl.errors.WithLabelValues("clusters", brokerErrConversion, "adapter1", "1.2.3")), 1},
		{"handler errors", counterValue(t, m.bl.errors.WithLabelValues("clusters", brokerErrHandler, "adapter1", "1.2.3")), 2},
		{"published", counterValue(t, m.bl.published.WithLabelValues(lv...)), 0},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	var d dto.Metric
	if err := m.bl.duration.WithLabelValues(lv...).(interface{ Write(*dto.Metric) error }).Write(&d); err != nil {
		t.Fatal(err)
	}
	if n := d.GetHistogram().GetSampleCount(); n != 3 {
		t.Errorf("duration observations %d, want 3 (one per run)", n)
	}
}

func counterValue(t *testing.T, c interface{ Write(*dto.Metric) error }) float64 {
	t.Helper()
	var d dto.Metric
	if err := c.Write(&d); err != nil {
		t.Fatal(err)
	}
	return d.GetCounter().GetValue()
}

// The fixture is what the library's source says: its metrics' names,
// kinds, labels and buckets (broker/metrics.go) and its subscriber's error
// types (broker/subscriber.go), read from the module cache at the
// fixture's version (go mod download fetches it through the proxy when
// absent). A rename in the library, at a version written into the
// fixture, fails here. Offline with an empty cache it skips, saying so
// (REQUIRE_BROKER_SOURCE=1 makes that a failure).
func TestBrokerLibMetricsMatchSource(t *testing.T) {
	f := loadBrokerLibFixture(t)
	dir := moduleDir(t, f.Module, f.Version)
	specs, errTypes := parseBrokerLib(t, dir)
	if len(specs) == 0 {
		t.Fatalf("%s: no metric read from broker/metrics.go: this test no longer understands the library's source", dir)
	}
	want := map[string]brokerLibSpec{}
	for _, s := range f.Metrics {
		want[s.Name] = s
	}
	for _, s := range specs {
		w, ok := want[s.Name]
		delete(want, s.Name)
		switch {
		case !ok:
			t.Errorf("the library registers %s (%s %v), which the fixture (and this adapter) lacks", s.Name, s.Type, s.Labels)
		case w.Type != s.Type || !slices.Equal(w.Labels, s.Labels) || !slices.Equal(w.Buckets, s.Buckets):
			t.Errorf("%s: the library has %s %v buckets %v; the fixture %s %v buckets %v", s.Name, s.Type, s.Labels, s.Buckets, w.Type, w.Labels, w.Buckets)
		}
	}
	for name := range want {
		t.Errorf("%s: in the fixture, not in the library's source at %s", name, f.Version)
	}
	if !sameSet(errTypes, f.SubscriberErrorTypes) {
		t.Errorf("the library's subscriber records error_type %v; the fixture %v", errTypes, f.SubscriberErrorTypes)
	}
}

// moduleDir is the module's folder in the Go module cache.
func moduleDir(t *testing.T, module, version string) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", module+"@"+version)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	_ = json.Unmarshal(out, &info)
	if err != nil || info.Dir == "" {
		msg := "go mod download " + module + "@" + version + ": " + strings.TrimSpace(info.Error)
		if err != nil {
			msg += " (" + err.Error() + ")"
		}
		if os.Getenv("REQUIRE_BROKER_SOURCE") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg + "; REQUIRE_BROKER_SOURCE=1 makes this a failure")
	}
	return info.Dir
}

// parseBrokerLib reads every prometheus.New*Vec call of broker/metrics.go
// (the Name and Buckets of its options, its label names) and the
// error_type literals of RecordError calls in broker/subscriber.go.
func parseBrokerLib(t *testing.T, dir string) ([]brokerLibSpec, []string) {
	t.Helper()
	fset := token.NewFileSet()
	mf, err := parser.ParseFile(fset, filepath.Join(dir, "broker", "metrics.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{"NewCounterVec": "counter", "NewHistogramVec": "histogram", "NewGaugeVec": "gauge", "NewSummaryVec": "summary"}
	var specs []brokerLibSpec
	ast.Inspect(mf, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 2 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || kinds[sel.Sel.Name] == "" {
			return true
		}
		s := brokerLibSpec{Type: kinds[sel.Sel.Name], Labels: stringLits(call.Args[1])}
		if opts, ok := call.Args[0].(*ast.CompositeLit); ok {
			for _, el := range opts.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				switch kv.Key.(*ast.Ident).Name {
				case "Name":
					s.Name = stringLit(kv.Value)
				case "Buckets":
					s.Buckets = floatLits(t, kv.Value)
				}
			}
		}
		specs = append(specs, s)
		return true
	})
	sf, err := parser.ParseFile(fset, filepath.Join(dir, "broker", "subscriber.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var errTypes []string
	ast.Inspect(sf, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && len(call.Args) == 2 {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "RecordError" {
				errTypes = append(errTypes, stringLit(call.Args[1]))
			}
		}
		return true
	})
	return specs, errTypes
}

func stringLit(e ast.Expr) string {
	if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
		s, _ := strconv.Unquote(lit.Value)
		return s
	}
	return ""
}

func stringLits(e ast.Expr) []string {
	cl, ok := e.(*ast.CompositeLit)
	if !ok {
		return nil
	}
	var out []string
	for _, el := range cl.Elts {
		out = append(out, stringLit(el))
	}
	return out
}

func floatLits(t *testing.T, e ast.Expr) []float64 {
	t.Helper()
	cl, ok := e.(*ast.CompositeLit)
	if !ok {
		t.Fatalf("Buckets is not a literal list: this test no longer understands the library's source")
	}
	var out []float64
	for _, el := range cl.Elts {
		lit, ok := el.(*ast.BasicLit)
		if !ok {
			t.Fatalf("a bucket is not a literal: this test no longer understands the library's source")
		}
		v, err := strconv.ParseFloat(lit.Value, 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}
