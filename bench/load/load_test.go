package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/config"
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

// passing is a run that meets every floor of issue 17.
func passing(mode string, clusters int) *results {
	return &results{Cores: 2, AdapterMode: "binary", Mode: mode, Clusters: clusters, BundlesTracked: 2 * clusters,
		AdapterRSSPeakMB: 50, Fingerprint50KBMS: 0.2,
		Phases: []*phase{
			{Name: "create", Events: 100, Seconds: 1, Creates: 200, Outcomes: map[string]int{"a create/done": 100}},
			{Name: "unchanged", Events: 20000, Seconds: 10, EventsPerS: 2000, MaestroRequestsSeen: true,
				Outcomes: map[string]int{"a unchanged/done": 20000}},
			{Name: "after-creates", Events: 100, Seconds: 0.1, MaestroRequests: 1, MaestroRequestsSeen: true,
				Outcomes: map[string]int{"a unchanged/done": 100}},
			{Name: "latency", Events: 100, P50MS: 3, P99MS: 20, Outcomes: map[string]int{"a unchanged/done": 100}},
		}}
}

// TestFloors checks each floor of issue 17 on a run that misses only it
// (a pooled run at 50,000 clusters meets them all), and which floors do not
// apply to which run.
func TestFloors(t *testing.T) {
	cases := []struct {
		name   string
		edit   func(r *results)
		misses []string // floors that must MISS; every other PASS or N/A
		na     []string // floors that must be N/A
	}{
		{name: "pooled at 50,000 clusters", edit: func(*results) {}},
		{name: "stock below 50,000 bundles", edit: func(r *results) { *r = *passing("stock", 1000) },
			na: []string{"bundle creates (pooled)", "adapter RSS with 50,000 bundles tracked"}},
		{name: "slow unchanged", edit: func(r *results) { r.Phases[1].EventsPerS = 999 },
			misses: []string{"unchanged events"}},
		{name: "one Maestro read per unchanged event", edit: func(r *results) { r.Phases[1].MaestroRequests = 20000 },
			misses: []string{"Maestro requests per unchanged event"}},
		{name: "requests not measurable", edit: func(r *results) { r.Phases[1].MaestroRequestsSeen = false },
			na: []string{"Maestro requests per unchanged event"}},
		{name: "the round after the creates reads", edit: func(r *results) { r.phase("after-creates").MaestroRequests = 50 },
			misses: []string{"Maestro requests per event in the round after the creates"}},
		{name: "the round after the creates not measured", edit: func(r *results) { r.phase("after-creates").Events = 0 },
			na: []string{"Maestro requests per event in the round after the creates"}},
		{name: "slow pooled creates", edit: func(r *results) { r.Phases[0].Creates = 99 },
			misses: []string{"bundle creates (pooled)"}},
		{name: "slow stock creates do not count", edit: func(r *results) { *r = *passing("stock", 25000); r.Phases[0].Creates = 10 },
			na: []string{"bundle creates (pooled)"}},
		{name: "RSS over 200 MB at 50,000 bundles", edit: func(r *results) { *r = *passing("stock", 25000); r.AdapterRSSPeakMB = 201 },
			misses: []string{"adapter RSS with 50,000 bundles tracked"}, na: []string{"bundle creates (pooled)"}},
		{name: "paced p99 over 50 ms", edit: func(r *results) { r.phase("latency").P99MS = 50.5 },
			misses: []string{"paced latency p99"}},
		{name: "slow fingerprint", edit: func(r *results) { r.Fingerprint50KBMS = 1.2 },
			misses: []string{"fingerprint of a 50 KB bundle"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := passing("pooled", 50000)
			c.edit(r)
			r.finish()
			want := map[string]string{}
			for _, n := range c.misses {
				want[n] = "MISS"
			}
			for _, n := range c.na {
				want[n] = "N/A"
			}
			for _, f := range r.Floors {
				w := want[f.Name]
				if w == "" {
					w = "PASS"
				}
				if f.Verdict != w {
					t.Errorf("%s: %s (%v %s), want %s", f.Name, f.Verdict, f.Measured, f.Unit, w)
				}
				if !strings.HasPrefix(f.Limit, "<= ") && !strings.HasPrefix(f.Limit, ">= ") && f.Limit != "= 0" ||
					strings.HasSuffix(f.Limit, ".0") {
					t.Errorf("%s: limit %q, want it as the README writes it (<= 50, >= 1000)", f.Name, f.Limit)
				}
				delete(want, f.Name)
			}
			for n := range want {
				t.Errorf("no floor %q", n)
			}
		})
	}
}

// The requests per unchanged event are a number, or "n/a" when the adapter
// exposes no Maestro request counter.
func TestRequestsPerUnchangedJSON(t *testing.T) {
	for _, c := range []struct {
		seen bool
		want string
	}{{true, `"maestro_requests_per_unchanged_event": 0.5`}, {false, `"maestro_requests_per_unchanged_event": "n/a"`}} {
		r := passing("stock", 1000)
		r.Phases[1].MaestroRequests, r.Phases[1].MaestroRequestsSeen = 10000, c.seen
		r.finish()
		js, err := json.MarshalIndent(r, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(js), c.want) {
			t.Errorf("seen=%v: JSON lacks %s", c.seen, c.want)
		}
	}
}

func TestParseLoads(t *testing.T) {
	tests := []struct {
		in      string
		want    int
		invalid bool
	}{
		{"", 0, false},
		{"0.6,0.4", 2, false},
		{" 0.5 ", 1, false},
		{"0", 1, true},
		{"1.5", 1, true},
		{"half", 1, true},
	}
	for _, tt := range tests {
		o := &options{clusters: 1, consumers: 1, window: 1, publishers: 1, adapterMode: "inproc", agentsMode: "process",
			latencyLoads: parseLoads(tt.in)}
		if len(o.latencyLoads) != tt.want {
			t.Errorf("%q: %d loads, want %d", tt.in, len(o.latencyLoads), tt.want)
		}
		if err := o.validate(); (err != nil) != tt.invalid {
			t.Errorf("%q: validate() = %v, want invalid %t", tt.in, err, tt.invalid)
		}
	}
}
