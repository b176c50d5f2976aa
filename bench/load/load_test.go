package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// The harness's task config is the onprem example's with the consumer
// taken from the API's cluster, and it loads.
func TestBenchTaskConfigLoads(t *testing.T) {
	data, err := benchTaskConfig("../../config/examples/onprem/task-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "bundles"), os.DirFS("../../config/examples/onprem/bundles")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "task-config.yaml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	task, err := config.LoadTaskConfig(path)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	last := task.Params[len(task.Params)-1]
	if last.Name != "consumer" || last.Source.Expression == nil {
		t.Errorf("consumer param not replaced: %+v", last)
	}
	if len(task.Resources) != bundlesPerClusterEvt {
		t.Errorf("%d bundles, the harness counts %d", len(task.Resources), bundlesPerClusterEvt)
	}
}

func TestParseStatus(t *testing.T) {
	st := parseStatus([]byte(`{"conditions":[{"type":"Applied","status":"True"},{"type":"Available","status":"False"}],
		"data":{"bundles":{"a":{"operation":"unchanged","state":"done"},"b":{"operation":"create","state":"failed","error":"x"}}}}`))
	if st.operations["a"] != "unchanged/done" || st.operations["b"] != "create/failed" || st.available != "False" || st.bad != "b: x" {
		t.Errorf("got %+v", st)
	}
	if st := parseStatus([]byte(`{}`)); st.bad == "" {
		t.Errorf("a status without bundles must be flagged")
	}
}

func TestScrape(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`# HELP x
bundle_adapter_maestro_requests_total{code="ok",verb="get"} 10
bundle_adapter_maestro_requests_total{code="not_found",verb="get"} 2
bundle_adapter_maestro_requests_total{code="ok",verb="get_bundles"} 5
bundle_adapter_maestro_requests_total{code="ok",verb="create"} 3
bundle_adapter_events_total{outcome="acked"} 7
process_resident_memory_bytes 1.2e+07
`))
	}))
	defer srv.Close()
	s, err := stacktest.Scrape(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	events := s.Sum("bundle_adapter_events_total")
	if s.MaestroReads() != 17 || s.MaestroWrites() != 3 || creates(s) != 3 || events != 7 ||
		s.Sum("process_resident_memory_bytes") != 1.2e7 {
		t.Errorf("reads %v writes %v creates %v events %v", s.MaestroReads(), s.MaestroWrites(), creates(s), events)
	}
}

func TestFloors(t *testing.T) {
	r := &results{Cores: 2, AdapterMode: "binary", BundlesTracked: 20000, AdapterRSSPeakMB: 50, Fingerprint50KBMS: 0.2,
		Phases: []*phase{
			{Name: "create", Events: 100, Seconds: 10, Creates: 1000, BusyCores: 2, OtherCores: 1, Outcomes: map[string]int{"a create/done": 100}},
			{Name: "unchanged", Events: 3000, Seconds: 10, EventsPerS: 300, MaestroReads: 3000, BusyCores: 2, Outcomes: map[string]int{"a unchanged/done": 3000}},
		}}
	r.finish()
	if r.CreatesPerS != 100 || r.MaestroReadsPerEvent != 1 {
		t.Errorf("creates %v, reads %v", r.CreatesPerS, r.MaestroReadsPerEvent)
	}
	for _, f := range r.Floors {
		if f.Verdict != "PASS" {
			t.Errorf("%s: %s", f.Name, f.Verdict)
		}
	}
	if r.UnexpectedOutcomes != 0 {
		t.Errorf("unexpected outcomes %d", r.UnexpectedOutcomes)
	}
}
