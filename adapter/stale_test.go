package adapter_test

import (
	"encoding/json"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
)

// The stale guard (issue 41): the event's generation against the one the
// API answers for the event's resource, whichever param or precondition
// read it; what each verdict writes, reports and does with the message.
func TestStaleGuard(t *testing.T) {
	const (
		owner   = "GET /api/hyperfleet/v1/owners/o1"
		cluster = "GET /api/hyperfleet/v1/clusters/x"
		view    = "GET /api/hyperfleet/v1/clusters/x/status-view"
	)
	tests := []struct {
		name        string
		eventGen    any // nil: the event has none
		answers     map[string]string
		want        adapter.GenerationCheck
		disposition adapter.Disposition
		writes      bool // Maestro writes and the status PUT
	}{
		{"current", int64(2), map[string]string{cluster: `{"id":"x","generation":2}`},
			adapter.GenerationCheck{Event: 2, API: 2, APIFrom: "cluster", Verdict: adapter.GenerationCurrent}, adapter.Ack, true},
		{"stale", int64(1), map[string]string{cluster: `{"id":"x","generation":2}`},
			adapter.GenerationCheck{Event: 1, API: 2, APIFrom: "cluster", Verdict: adapter.GenerationStale}, adapter.Ack, false},
		{"ahead", int64(3), map[string]string{cluster: `{"id":"x","generation":2}`},
			adapter.GenerationCheck{Event: 3, API: 2, APIFrom: "cluster", Verdict: adapter.GenerationAhead}, adapter.Retry, false},
		{"forged 2^63-1", float64(1 << 62), map[string]string{cluster: `{"id":"x","generation":2}`},
			adapter.GenerationCheck{Event: 1 << 62, API: 2, APIFrom: "cluster", Verdict: adapter.GenerationAhead}, adapter.Retry, false},
		{"the API's generation as a string (HyperFleet's dry-run fixtures)", int64(1), map[string]string{cluster: `{"id":"x","generation":"77"}`},
			adapter.GenerationCheck{Event: 1, API: 77, APIFrom: "cluster", Verdict: adapter.GenerationStale}, adapter.Ack, false},
		{"another resource's generation is not the event's", int64(1), map[string]string{
			owner: `{"id":"o1","generation":9}`, cluster: `{"id":"x","name":"no generation"}`},
			adapter.GenerationCheck{Event: 1}, adapter.Ack, true},
		{"an answer with another id is not the event's resource", int64(1), map[string]string{cluster: `{"id":"y","generation":9}`},
			adapter.GenerationCheck{Event: 1}, adapter.Ack, true},
		{"read by a precondition", int64(1), map[string]string{cluster: `{"id":"x"}`, view: `{"id":"x","generation":4}`},
			adapter.GenerationCheck{Event: 1, API: 4, APIFrom: "clusterStatus", Verdict: adapter.GenerationStale}, adapter.Ack, false},
		{"the first answer of the resource wins", int64(2), map[string]string{cluster: `{"id":"x","generation":2}`, view: `{"id":"x","generation":4}`},
			adapter.GenerationCheck{Event: 2, API: 2, APIFrom: "cluster", Verdict: adapter.GenerationCurrent}, adapter.Ack, true},
		{"an event without a generation", nil, map[string]string{cluster: `{"id":"x","generation":2}`},
			adapter.GenerationCheck{API: 2, APIFrom: "cluster"}, adapter.Ack, true},
		{"a generation that is not a number", int64(1), map[string]string{cluster: `{"id":"x","generation":true}`},
			adapter.GenerationCheck{Event: 1}, adapter.Ack, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "pending")
			h.useTask("testdata/task-stale.yaml")
			for _, k := range []string{owner, cluster, view} {
				body := `{"id":"other"}`
				if a, ok := tt.answers[k]; ok {
					body = a
				}
				h.api.Set(k, apistub.Response{Status: 200, Body: json.RawMessage(body)})
			}
			h.api.Set("PUT /api/hyperfleet/v1/clusters/x/statuses", apistub.Response{Status: 200})
			fields := map[string]any{"generation": tt.eventGen}
			if tt.eventGen == nil {
				fields = map[string]any{"generation": nil}
			}
			res := h.event(fields)
			if res.Generation != tt.want {
				t.Errorf("generation check %+v, want %+v", res.Generation, tt.want)
			}
			if got := res.Disposition(); got != tt.disposition {
				t.Errorf("disposition %v, want %v (error %v)", got, tt.disposition, res.Err())
			}
			puts := 0
			for _, c := range h.api.Calls() {
				if c.Method == "PUT" {
					puts++
				}
			}
			if wrote := h.writes() > 0 || puts > 0; wrote != tt.writes {
				t.Errorf("Maestro writes %v, status PUTs %d; want writes %v", h.calls(), puts, tt.writes)
			}
			if tt.want.Verdict == adapter.GenerationStale && (!res.Skipped || res.SkipReason != adapter.ReasonStaleGeneration) {
				t.Errorf("skipped %v %q, want skipped %s", res.Skipped, res.SkipReason, adapter.ReasonStaleGeneration)
			}
		})
	}
}
