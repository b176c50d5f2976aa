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

// Hostile generations and ids (issue 43's round on this surface):
// a value that is not a whole JSON number or decimal string of at least 1,
// on either side, is no generation, so the guard neither skips nor fails
// on it; an answer is the event's resource only when its id is the
// event's id as the same string. None may panic, and the verdict only
// ever says stale or ahead on two real generations.
func TestStaleGuardHostileValues(t *testing.T) {
	const cluster = "GET /api/hyperfleet/v1/clusters/x"
	tests := []struct {
		name     string
		eventGen any
		answer   string
		verdict  string
	}{
		// The event's generation.
		{"event 0", int64(0), `{"id":"x","generation":2}`, adapter.GenerationUnchecked},
		{"event negative", int64(-1), `{"id":"x","generation":2}`, adapter.GenerationUnchecked},
		{"event min int64", int64(-1 << 63), `{"id":"x","generation":2}`, adapter.GenerationUnchecked},
		{"event max int64", int64(1<<63 - 1), `{"id":"x","generation":2}`, adapter.GenerationAhead},
		{"event fraction", 1.5, `{"id":"x","generation":2}`, adapter.GenerationUnchecked},
		{"event float past int64", 1e19, `{"id":"x","generation":2}`, adapter.GenerationUnchecked},
		{"event float 2^63", float64(1 << 63), `{"id":"x","generation":2}`, adapter.GenerationUnchecked},
		{"event whole float", 1.0, `{"id":"x","generation":2}`, adapter.GenerationStale},
		{"event string", "1", `{"id":"x","generation":2}`, adapter.GenerationStale},
		{"event string with space", " 1", `{"id":"x","generation":2}`, adapter.GenerationUnchecked},
		{"event string plus", "+1", `{"id":"x","generation":2}`, adapter.GenerationStale},
		{"event string hex", "0x1", `{"id":"x","generation":2}`, adapter.GenerationUnchecked},
		{"event string exponent", "1e0", `{"id":"x","generation":2}`, adapter.GenerationUnchecked},
		{"event string full-width digit", "１", `{"id":"x","generation":2}`, adapter.GenerationUnchecked},
		{"event string past int64", "9223372036854775808", `{"id":"x","generation":2}`, adapter.GenerationUnchecked},
		{"event string empty", "", `{"id":"x","generation":2}`, adapter.GenerationUnchecked},
		{"event bool", true, `{"id":"x","generation":2}`, adapter.GenerationUnchecked},
		{"event object", map[string]any{"v": int64(1)}, `{"id":"x","generation":2}`, adapter.GenerationUnchecked},
		{"event list", []any{int64(1)}, `{"id":"x","generation":2}`, adapter.GenerationUnchecked},
		// The API's generation.
		{"API 0", int64(1), `{"id":"x","generation":0}`, adapter.GenerationUnchecked},
		{"API negative", int64(1), `{"id":"x","generation":-5}`, adapter.GenerationUnchecked},
		{"API fraction", int64(1), `{"id":"x","generation":2.5}`, adapter.GenerationUnchecked},
		{"API past int64", int64(1), `{"id":"x","generation":1e30}`, adapter.GenerationUnchecked},
		{"API max int64", int64(1), `{"id":"x","generation":9223372036854775807}`, adapter.GenerationStale},
		{"API null", int64(1), `{"id":"x","generation":null}`, adapter.GenerationUnchecked},
		{"API object", int64(1), `{"id":"x","generation":{"value":2}}`, adapter.GenerationUnchecked},
		{"API string with letters", int64(1), `{"id":"x","generation":"2a"}`, adapter.GenerationUnchecked},
		// Which answer is the event's resource.
		{"id as a number", int64(1), `{"id":1,"generation":2}`, adapter.GenerationUnchecked},
		{"id of another case", int64(1), `{"id":"X","generation":2}`, adapter.GenerationUnchecked},
		{"id with a space", int64(1), `{"id":"x ","generation":2}`, adapter.GenerationUnchecked},
		{"id nested", int64(1), `{"cluster":{"id":"x","generation":2}}`, adapter.GenerationUnchecked},
		{"no id", int64(1), `{"generation":2}`, adapter.GenerationUnchecked},
		{"answer a list", int64(1), `[{"id":"x","generation":2}]`, adapter.GenerationUnchecked},
		{"answer a string", int64(1), `"x"`, adapter.GenerationUnchecked},
		{"answer null", int64(1), `null`, adapter.GenerationUnchecked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "pending")
			h.useTask("testdata/task-stale.yaml")
			h.api.Set("GET /api/hyperfleet/v1/owners/o1", apistub.Response{Status: 200, Body: json.RawMessage(`{}`)})
			h.api.Set("GET /api/hyperfleet/v1/clusters/x/status-view", apistub.Response{Status: 200, Body: json.RawMessage(`{}`)})
			h.api.Set(cluster, apistub.Response{Status: 200, Body: json.RawMessage(tt.answer)})
			h.api.Set("PUT /api/hyperfleet/v1/clusters/x/statuses", apistub.Response{Status: 200})
			res := h.event(map[string]any{"generation": tt.eventGen})
			if res.Generation.Verdict != tt.verdict {
				t.Errorf("verdict %q, want %q (%+v; error %v)", res.Generation.Verdict, tt.verdict, res.Generation, res.Err())
			}
			if tt.verdict == adapter.GenerationStale && res.Disposition() != adapter.Ack {
				t.Errorf("a stale event: disposition %v, want ack", res.Disposition())
			}
		})
	}
}
