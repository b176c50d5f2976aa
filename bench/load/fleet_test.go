package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/bench/internal/runresults"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// passingFleet is a pooled run whose issue-34 phases meet every floor.
func passingFleet() *results {
	r := passing("pooled", 1000)
	r.OneConsumer = &oneConsumerResult{Clusters: 1000, Agent: "simulated", ApplyRatePerS: 400, CreatesPerS: 120,
		applied: applied{AppliedPerS: 125, AllApplied: true},
		Ceiling: &ceilingResult{Clients: 16, Callers: 48, Creates: 2000, CreatesPerS: 140, applied: applied{AppliedPerS: 140, AllApplied: true},
			AdapterShare: 120.0 / 140}}
	r.Steady = &steadyResult{ViewMaxAgeS: 60, Seconds: 150, ViewMaxAges: 2.5, Events: 15000, Requests: 10,
		RequestsPerEvent: runresults.Measured(10.0 / 15000)}
	r.Restart = &restartResult{RequestsFirstMinute: 90, Bundles: 2000, PageSize: 500, RequestsLimit: restartLimit(2000, 500), P99MS: 200, DownS: 2.5}
	r.Replicas = &replicasResult{OneEventsPerS: 1000, TwoEventsPerS: 1700, Ratio: 1.7, Cores: 2,
		Replicas: []replica{{CPUCores: 0.5}, {CPUCores: 0.5}}}
	return r
}

// TestFleetFloors checks each floor of issue 34 on a run that misses only
// it, when it does not apply, and that a run without those phases has none.
func TestFleetFloors(t *testing.T) {
	fleet := []string{"creates to one consumer", "creates to one consumer, share of Maestro's own limit", "Maestro requests per unchanged event (steady)",
		"Maestro requests in the minute after a restart", "paced latency p99 across a restart", "consuming again after a restart", "two replicas' unchanged events (x one)"}
	cases := []struct {
		name   string
		edit   func(r *results)
		misses []string
		na     []string
		absent []string // floors the run must not have
	}{
		{name: "every fleet floor met", edit: func(*results) {}},
		{name: "no fleet phases run", edit: func(r *results) { *r = *passing("pooled", 1000) }, absent: fleet},
		{name: "slow creates to one consumer", edit: func(r *results) { r.OneConsumer.CreatesPerS, r.OneConsumer.AppliedPerS = 20, 20 },
			misses: []string{"creates to one consumer"}},
		{name: "an agent that did not keep up", edit: func(r *results) { r.OneConsumer.CreatesPerS, r.OneConsumer.AppliedPerS = 20, 10 },
			na: []string{"creates to one consumer"}},
		{name: "a real agent slower than the creates", edit: func(r *results) {
			r.OneConsumer.Agent, r.OneConsumer.CreatesPerS, r.OneConsumer.AppliedPerS = "real", 21, 12
		}, na: []string{"creates to one consumer", "creates to one consumer, share of Maestro's own limit"}},
		{name: "creates to one consumer far below Maestro's own limit", edit: func(r *results) { r.OneConsumer.Ceiling.AdapterShare = 0.5 },
			misses: []string{"creates to one consumer, share of Maestro's own limit"}},
		{name: "Maestro's limit not measured (--ceiling-clients 0)", edit: func(r *results) { r.OneConsumer.Ceiling = nil },
			absent: []string{"creates to one consumer, share of Maestro's own limit"}},
		{name: "Maestro's limit measured with failures", edit: func(r *results) { r.OneConsumer.Ceiling.Failed = 3 },
			na: []string{"creates to one consumer, share of Maestro's own limit"}},
		{name: "Maestro's limit not all delivered", edit: func(r *results) { r.OneConsumer.Ceiling.AllApplied = false },
			na: []string{"creates to one consumer, share of Maestro's own limit"}},
		{name: "stock creates to one consumer", edit: func(r *results) { r.Mode = "stock"; r.OneConsumer.CreatesPerS = 20 },
			na: []string{"creates to one consumer", "bundle creates (pooled)"}},
		{name: "refresh reads in steady state", edit: func(r *results) { r.Steady.RequestsPerEvent.V = 0.033 },
			misses: []string{"Maestro requests per unchanged event (steady)"}},
		{name: "steady requests not measurable", edit: func(r *results) { r.Steady.RequestsPerEvent.OK = false },
			na: []string{"Maestro requests per unchanged event (steady)"}},
		{name: "a restart that reads every bundle", edit: func(r *results) { r.Restart.RequestsFirstMinute = 1000 },
			misses: []string{"Maestro requests in the minute after a restart"}},
		{name: "slow events across a restart", edit: func(r *results) { r.Restart.P99MS = 2500 },
			misses: []string{"paced latency p99 across a restart"}},
		{name: "a restart that waits for a long first List", edit: func(r *results) { r.Restart.DownS = 11.5 },
			misses: []string{"consuming again after a restart"}},
		{name: "two replicas no faster", edit: func(r *results) { r.Replicas.Ratio = 1.1 },
			misses: []string{"two replicas' unchanged events (x one)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := passingFleet()
			c.edit(r)
			r.finish()
			want := map[string]string{}
			for _, n := range fleet {
				want[n] = "PASS"
			}
			for _, n := range c.misses {
				want[n] = "MISS"
			}
			for _, n := range c.na {
				want[n] = "N/A"
			}
			for _, n := range c.absent {
				delete(want, n)
			}
			got := map[string]string{}
			for _, f := range r.Floors {
				got[f.Name] = f.Verdict
				if strings.HasSuffix(f.Limit, ".0") || strings.HasSuffix(f.Limit, " ") {
					t.Errorf("%s: limit %q", f.Name, f.Limit)
				}
			}
			for n, w := range want {
				if _, isFleet := got[n]; !isFleet && !contains(fleet, n) {
					continue
				}
				if got[n] != w {
					t.Errorf("%s: %q, want %s", n, got[n], w)
				}
			}
			for _, n := range c.absent {
				if v, ok := got[n]; ok {
					t.Errorf("%s: %s, want no such floor", n, v)
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// A run without the latency phase (--phases fleet) does not pass its floor
// with a p99 of 0: it is N/A.
func TestLatencyFloorWithoutLatencyPhase(t *testing.T) {
	r := passingFleet()
	r.Phases = r.Phases[:2] // create, unchanged
	r.finish()
	for _, f := range r.Floors {
		if f.Name == "paced latency p99" && (f.Verdict != "N/A" || !strings.Contains(f.Note, "not run")) {
			t.Errorf("paced latency p99 without a latency phase: %s (%s), want N/A, not run", f.Verdict, f.Note)
		}
	}
}

// The restart floor's limit is one paged list of the bundles plus 100.
func TestRestartLimit(t *testing.T) {
	for _, c := range []struct {
		bundles, page int
		want          float64
	}{{2000, 500, 104}, {20000, 500, 140}, {2001, 500, 105}, {0, 500, 100}, {10, 0, 110}} {
		if got := restartLimit(c.bundles, c.page); got != c.want {
			t.Errorf("restartLimit(%d, %d) = %v, want %v", c.bundles, c.page, got, c.want)
		}
	}
}

// The fleet phases' results are in results.json under their own keys, and
// absent from a run that did not run them.
func TestFleetJSON(t *testing.T) {
	r := passingFleet()
	r.finish()
	js, _ := json.Marshal(r)
	for _, k := range []string{`"one_consumer":{`, `"steady":{`, `"restart":{`, `"replicas":{`, `"recovery_s":"n/a"`} {
		if !strings.Contains(string(js), k) {
			t.Errorf("JSON lacks %s", k)
		}
	}
	base := passing("pooled", 1000)
	base.finish()
	js, _ = json.Marshal(base)
	if strings.Contains(string(js), `"one_consumer"`) || strings.Contains(string(js), `"restart"`) {
		t.Errorf("a run without the fleet phases has their keys: %s", js)
	}
}

// The restart's recovery is the first 5-second window, from the adapter's
// return on, whose rate is back within the steady rate (+0.2/s).
func TestRecovery(t *testing.T) {
	tests := []struct {
		name     string
		bySecond []float64
		steady   float64
		from     int
		want     runresults.Maybe
	}{
		{name: "reads until every cluster was seen", bySecond: []float64{0, 0, 100, 100, 50, 0, 0, 0, 0, 0, 0}, from: 2, want: runresults.Measured(5)},
		{name: "quiet while down does not count", bySecond: []float64{0, 0, 0, 0, 0, 0, 9, 9, 9, 9, 9}, from: 6, want: runresults.Maybe{}},
		{name: "steady level above zero", bySecond: []float64{30, 30, 3, 3, 3, 3, 3}, steady: 3, want: runresults.Measured(2)},
		{name: "never back", bySecond: []float64{5, 5, 5, 5, 5, 5}, want: runresults.Maybe{}},
		{name: "too short", bySecond: []float64{0, 0}, want: runresults.Maybe{}},
	}
	for _, tt := range tests {
		if got := recovery(tt.bySecond, tt.steady, tt.from); got != tt.want {
			t.Errorf("%s: recovery = %+v, want %+v", tt.name, got, tt.want)
		}
	}
	if got := perSecond([]float64{0, 10, 10, 25}); !slicesEqual(got, []float64{0, 10, 0, 15}) {
		t.Errorf("perSecond = %v", got)
	}
}

func slicesEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// budgetOf takes the consumer's series, a rate metric first, and is n/a
// when the adapter has no budget metric.
func TestBudgetOf(t *testing.T) {
	m := stacktest.Metrics{
		"bundle_adapter_maestro_write_budget_tokens":      {{Labels: `{consumer="bench-one"}`, Value: 3}},
		"bundle_adapter_maestro_write_budget_rate":        {{Labels: `{consumer="bench-c1"}`, Value: 20}, {Labels: `{consumer="bench-one"}`, Value: 180}},
		"bundle_adapter_maestro_requests_total":           {{Labels: `{verb="create"}`, Value: 9}},
		"bundle_adapter_maestro_write_budget_waits_total": {{Labels: `{consumer="bench-one"}`, Value: 7}},
	}
	if name, v := budgetOf(m, "bundle_adapter_maestro_write_budget", "bench-one"); name != "bundle_adapter_maestro_write_budget_rate" || v != (runresults.Measured(180)) {
		t.Errorf("budgetOf = %s %+v, want the rate metric's 180", name, v)
	}
	// The adaptive budget's metrics are aggregates, without a consumer
	// label: the highest per-consumer rate, which in the one-consumer phase
	// is that consumer's.
	aggregate := stacktest.Metrics{
		"bundle_adapter_maestro_write_budget_outstanding":    {{Value: 40}},
		"bundle_adapter_maestro_write_budget_max_rate":       {{Value: 310}},
		"bundle_adapter_maestro_write_budget_backoffs_total": {{Value: 2}},
	}
	if name, v := budgetOf(aggregate, "bundle_adapter_maestro_write_budget", "bench-one"); name != "bundle_adapter_maestro_write_budget_max_rate" || v != (runresults.Measured(310)) {
		t.Errorf("budgetOf(aggregates) = %s %+v, want the max rate's 310", name, v)
	}
	if _, v := budgetOf(stacktest.Metrics{}, "bundle_adapter_maestro_write_budget", "bench-one"); v.OK {
		t.Errorf("budgetOf without the metric = %+v, want n/a", v)
	}
}

// --phases: fleet is the four issue-34 phases, all adds base; unknown
// names and phases the mode cannot run are refused.
func TestPhases(t *testing.T) {
	tests := []struct {
		in, want string
		edit     func(o *options)
		invalid  string
	}{
		{in: "base", want: "base"},
		{in: "fleet", want: "one-consumer,steady,restart,replicas"},
		{in: "all", want: "base,one-consumer,steady,restart,replicas"},
		{in: "steady, restart", want: "steady,restart"},
		{in: "restart", want: "restart", edit: func(o *options) { o.restartFor = 30 * time.Second }, invalid: "--restart-for"},
		{in: "replicas", want: "replicas", edit: func(o *options) { o.adapterMode = "inproc" }, invalid: "--adapter binary"},
		{in: "one-consumer", want: "one-consumer", edit: func(o *options) { o.oneConsumerAgent = "real" }},
		{in: "one-consumer", want: "one-consumer", edit: func(o *options) { o.oneConsumerAgent = "kind" }, invalid: "simulated or real"},
		{in: "latency", want: "", invalid: "unknown phase"},
	}
	for _, tt := range tests {
		o := &options{clusters: 10, consumers: 1, window: 1, publishers: 1, adapterMode: "binary", adapterBin: "x", agentsMode: "process",
			oneConsumerAgent: "simulated", restartFor: 100 * time.Second, restartAfter: 20 * time.Second, phases: parsePhases(tt.in)}
		if got := o.phases.String(); got != tt.want {
			t.Errorf("%q: phases %q, want %q", tt.in, got, tt.want)
		}
		if tt.edit != nil {
			tt.edit(o)
		}
		err := o.validate()
		if (err != nil) != (tt.invalid != "") || err != nil && !strings.Contains(err.Error(), tt.invalid) {
			t.Errorf("%q: validate() = %v, want error containing %q", tt.in, err, tt.invalid)
		}
		if err == nil && o.oneConsumerClusters != 10 {
			t.Errorf("%q: --one-consumer-clusters defaults to %d, want --clusters", tt.in, o.oneConsumerClusters)
		}
	}
}

// The run's results.md has a row per measure of the fleet phases it ran.
func TestFleetMarkdown(t *testing.T) {
	r := passingFleet()
	r.finish()
	md := r.markdown()
	for _, want := range []string{"| creates to one consumer (1000 clusters", "| steady: Maestro requests per unchanged event",
		"| restart: Maestro requests in the minute after the kill", "| replicas: unchanged events/s one / two (ratio) | 1000 / 1700 (1.70x) |",
		"| two replicas' unchanged events (x one) | 1.70 x | >= 1.6 | PASS"} {
		if !strings.Contains(md, want) {
			t.Errorf("results.md lacks %q:\n%s", want, md)
		}
	}
	base := passing("pooled", 1000)
	base.finish()
	if strings.Contains(base.markdown(), "fleet phase") {
		t.Errorf("a run without the fleet phases has their table")
	}
}

// appliedInMaestro pages through the consumer's bundles and counts those
// whose Applied condition is True.
func TestAppliedInMaestro(t *testing.T) {
	var searches []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		searches = append(searches, r.URL.Query().Get("search"))
		item := func(applied string) string {
			return `{"status":{"conditions":[{"type":"Applied","status":"` + applied + `"},{"type":"Available","status":"True"}]}}`
		}
		var items []string
		switch r.URL.Query().Get("page") {
		case "1":
			for i := range appliedPageSize {
				items = append(items, item(map[bool]string{true: "True", false: "False"}[i%2 == 0]))
			}
		case "2":
			items = []string{item("True"), `{"status":{}}`}
		}
		fmt.Fprintf(w, `{"total": %d, "items": [%s]}`, appliedPageSize+2, strings.Join(items, ","))
	}))
	defer srv.Close()
	n, err := appliedInMaestro(context.Background(), srv.URL, "bench1", "bench-one")
	if err != nil || n != appliedPageSize/2+1 {
		t.Errorf("appliedInMaestro = %d, %v, want %d", n, err, appliedPageSize/2+1)
	}
	if len(searches) != 2 || searches[0] != "source='bench1' and consumer_name='bench-one'" {
		t.Errorf("searches %q, want two pages of the source's bundles on the consumer", searches)
	}
}
