package adapter_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
)

// A 404 from the HyperFleet API for the event's resource (the cluster was
// deleted) is acknowledged, as hyperfleet-adapter does, instead of being
// retried and dead-lettered; a 404 that matched no route
// (HYPERFLEET-NTF-000: a wrong URL) stays an error.
func TestResourceNotFoundIsAcked(t *testing.T) {
	const (
		cluster   = "GET /api/hyperfleet/v1/clusters/x"
		nodepools = "GET /api/hyperfleet/v1/clusters/x/nodepools"
		status    = "PUT /api/hyperfleet/v1/clusters/x/statuses"
		events    = "POST /api/hyperfleet/v1/clusters/x/events"
	)
	ok := apistub.Response{Status: 200, Body: json.RawMessage(`{"name":"c-x","total":2}`)}
	gone := apistub.Response{Status: 404, Body: json.RawMessage(`{"code":"HYPERFLEET-NTF-002","detail":"Cluster with id='x' not found"}`)}
	stripped := apistub.Response{Status: 404}
	noRoute := apistub.Response{Status: 404, Body: json.RawMessage(`{"code":"HYPERFLEET-NTF-000","detail":"no route"}`)}
	tests := []struct {
		name      string
		responses map[string]apistub.Response
		want      adapter.Disposition
		skip      string
		calls     []string // API calls after the answers above
		errPhase  string
	}{
		{"param GET 404", map[string]apistub.Response{cluster: gone}, adapter.Ack, "ResourceNotFound",
			[]string{cluster}, ""},
		{"param GET 404 without body", map[string]apistub.Response{cluster: stripped}, adapter.Ack, "ResourceNotFound",
			[]string{cluster}, ""},
		{"precondition GET 404", map[string]apistub.Response{cluster: ok, nodepools: gone}, adapter.Ack, "ResourceNotFound",
			[]string{cluster, nodepools}, ""},
		{"status PUT 404", map[string]apistub.Response{cluster: ok, nodepools: ok, status: gone}, adapter.Ack, "ResourceNotFound",
			[]string{cluster, nodepools, status}, ""},
		{"no route is an error", map[string]apistub.Response{cluster: noRoute}, adapter.Retry, "",
			[]string{cluster, status, events}, "params"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "")
			h.useTask("testdata/task-resource-404.yaml")
			for k, v := range tt.responses {
				h.api.Set(k, v)
			}
			res := h.event(nil)
			if res.Disposition() != tt.want || res.SkipReason != tt.skip {
				t.Errorf("disposition %v skip %q (error %v), want %v skip %q", res.Disposition(), res.SkipReason, res.Error, tt.want, tt.skip)
			}
			if tt.errPhase != "" && (res.Error == nil || res.Error.Phase != tt.errPhase) {
				t.Errorf("error = %v, want one in phase %s", res.Error, tt.errPhase)
			}
			var calls []string
			for _, c := range h.api.Calls() {
				calls = append(calls, c.Method+" "+c.Path)
			}
			if strings.Join(calls, ", ") != strings.Join(tt.calls, ", ") {
				t.Errorf("API calls:\n got  %v\n want %v", calls, tt.calls)
			}
			if tt.skip != "" && tt.name != "status PUT 404" && len(h.calls()) != 0 {
				t.Errorf("a gone resource must not touch Maestro: %v", h.calls())
			}
		})
	}
}
