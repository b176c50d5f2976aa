package metrics

import (
	"bufio"
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// HyperFleet adapter's metric names and labels are exposed beside ours, each
// line of testdata/hyperfleet.prom exactly, after a success, a skipped event,
// a failure in post, one delete and one bundle left pending deletion.
func TestHyperFleetNames(t *testing.T) {
	m := New()
	m.HyperFleet(BuildInfo{Component: "hyperfleet-adapter-onprem", Version: "1.2.3", Commit: "abc123"})
	h := m.Hooks()
	h.Processed(&adapter.Result{Bundles: []adapter.Outcome{outcome("a", adapter.OpRecreate, adapter.StatePending)}}, time.Millisecond, "acked")
	h.Processed(&adapter.Result{Skipped: true}, time.Millisecond, "acked")
	failed := &adapter.Result{Error: &adapter.PhaseError{Phase: "post", Step: "report", Message: "503"}}
	failed.Errors = []*adapter.PhaseError{failed.Error}
	h.Processed(failed, time.Millisecond, "retried")
	if err := m.Maestro(errMaestro{}).Delete(context.Background(), "c1", "a"); err != nil {
		t.Fatal(err)
	}

	rec := httptest.NewRecorder()
	promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	got := rec.Body.String()
	for _, want := range fixtureLines(t, "testdata/hyperfleet.prom") {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("missing %s", want)
		}
	}
	if !strings.Contains(got, "bundle_adapter_events_total") {
		t.Error("our own metrics are gone")
	}
}

func fixtureLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

func TestAdapterName(t *testing.T) {
	for in, want := range map[string]string{"hyperfleet-adapter-gcp": "gcp", "adapter-validation": "validation", "test-adapter": "test", "standalone": "standalone"} {
		if got := adapterName(in); got != want {
			t.Errorf("adapterName(%q) = %q, want %q", in, got, want)
		}
	}
}
