package adapter_test

import (
	"encoding/json"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
)

// {field: p, default: d} and {expression: e, default: d} leaves: the value
// when there is one, else the default (a missing field, a CEL error, null),
// as hyperfleet-adapter builds them; never the literal mapping.
func TestPayloadLeafDefaults(t *testing.T) {
	h := newHarness(t, "")
	h.useTask("testdata/task-payload-defaults.yaml")
	h.api.Set("GET /api/hyperfleet/v1/clusters/x", apistub.Response{Status: 200, Body: json.RawMessage(`{"name":"c-x","nodes":3,"spec":{}}`)})
	res := h.event(nil)
	if res.Error != nil {
		t.Fatalf("event failed: %v", res.Error)
	}
	got := h.lastStatus()
	want := map[string]any{"name": "c-x", "region": "us-east-1", "nullValue": "none", "failing": float64(0), "present": float64(3)}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %#v, want %#v", k, got[k], v)
		}
	}
	if n, _ := got["nested"].(map[string]any); n == nil || n["reason"] != "" {
		t.Errorf("nested = %#v, want reason \"\"", got["nested"])
	}
}
