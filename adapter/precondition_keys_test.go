package adapter_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
)

// capture default (absent field), condition values (an in list) and log
// actions at their levels, as hyperfleet-adapter runs them.
func TestPreconditionCompatKeys(t *testing.T) {
	h := newHarness(t, "")
	h.useTask("testdata/task-precondition-keys.yaml")
	var logs bytes.Buffer
	h.logs = &logs
	h.api.Set("GET /api/hyperfleet/v1/clusters/x", apistub.Response{Status: 200, Body: json.RawMessage(`{"spec":{"region":"eu-west-1"},"status":{}}`)})
	res := h.event(nil)
	if res.Error != nil || res.Skipped {
		t.Fatalf("event: error %v skipped %q", res.Error, res.SkipReason)
	}
	if got := h.lastStatus(); got["phase"] != "Pending" || got["region"] != "eu-west-1" {
		t.Errorf("captures: %v, want phase Pending (default) and region eu-west-1", got)
	}
	for _, want := range [][2]string{
		{`level=DEBUG msg="[config] checking cluster x"`, "precondition=clusterStatus"},
		{`level=WARN msg="[config] cluster x in eu-west-1"`, "precondition=warned"},
		{`level=ERROR msg="[config] reporting Pending"`, "action=note"},
		{`level=INFO msg="[config] report sent for x"`, "action=report"},
	} {
		found := false
		for _, line := range strings.Split(logs.String(), "\n") {
			found = found || strings.Contains(line, want[0]) && strings.HasSuffix(line, want[1])
		}
		if !found {
			t.Errorf("log lacks %s ... %s:\n%s", want[0], want[1], logs.String())
		}
	}
}
