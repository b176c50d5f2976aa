package main

import (
	"testing"

	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// The harness's configs load: the onprem example's task config with the
// consumer taken from the API's cluster, and the run's adapter and broker
// configs.
func TestWriteConfigsLoad(t *testing.T) {
	o := &options{example: "../../config/examples/onprem", logLevel: "info", maestroGRPC: "127.0.0.1:1",
		maestroREST: "http://127.0.0.1:2", rabbitURL: "amqp://guest:guest@127.0.0.1:5672/", prefetch: 64, parallelism: 16}
	f, err := writeConfigs(o, t.TempDir(), "http://127.0.0.1:3", "bench1", "bench1")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.Files{Adapter: f.Adapter, Task: f.Task, Broker: f.Broker}, nil)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	last := cfg.Task.Params[len(cfg.Task.Params)-1]
	if last.Name != "consumer" || last.Source.Expression == nil {
		t.Errorf("consumer param not replaced: %+v", last)
	}
	if len(cfg.Task.Resources) != bundlesPerClusterEvt {
		t.Errorf("%d bundles, the harness counts %d", len(cfg.Task.Resources), bundlesPerClusterEvt)
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

// creates counts only the creates Maestro accepted.
func TestCreates(t *testing.T) {
	m := stacktest.Metrics{stacktest.MaestroRequests: {
		{Labels: `{code="ok",verb="create"}`, Value: 3}, {Labels: `{code="error",verb="create"}`, Value: 2},
		{Labels: `{code="ok",verb="get"}`, Value: 10}}}
	if got := creates(m); got != 3 {
		t.Errorf("creates = %v, want 3", got)
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
