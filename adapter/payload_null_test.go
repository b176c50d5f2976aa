package adapter_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// A payload leaf without a default whose expression fails (here: the
// bundle is absent, the precondition is not met) is sent as null, as
// hyperfleet-adapter's processValue emits it; the event succeeds, each such
// leaf is logged with the event id and the leaf's path, and counted in
// Result.NullLeaves by payload. A leaf with a default still takes it.
func TestPayloadLeafWithoutDefaultFailingIsNull(t *testing.T) {
	h := newHarness(t, "")
	var logs bytes.Buffer
	h.logs = &logs
	h.useTask("testdata/task-payload-null.yaml")
	res := h.event(nil)
	if res.Err() != nil {
		t.Fatalf("event failed: %v", res.Err())
	}
	got, _ := json.Marshal(h.lastStatus())
	want := `{"nested":{"list":[null,"kept"]},"ok":"x","phase":null,"withDefault":"none"}`
	if string(got) != want {
		t.Errorf("status\n got  %s\n want %s", got, want)
	}
	if !reflect.DeepEqual(res.NullLeaves, map[string]int{"status": 2}) {
		t.Errorf("NullLeaves = %v, want status: 2", res.NullLeaves)
	}
	for _, path := range []string{"post.payloads[0].build.phase.expression", "post.payloads[0].build.nested.list[0].field"} {
		if !strings.Contains(logs.String(), "path="+path) {
			t.Errorf("no log line names the leaf %s:\n%s", path, logs.String())
		}
	}
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "payload leaf") && !strings.Contains(line, "event_id=ev-1") {
			t.Errorf("leaf log line without the event id: %s", line)
		}
	}
}
