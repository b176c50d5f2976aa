package adapter_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
)

// hyperfleet-adapter's CEL helpers and template functions run on the
// pipeline's clock (dry-run's --now) and read env by name (issue 12,
// items 3 and 4).
func TestHyperFleetCELHelpersOnThePipelineClock(t *testing.T) {
	t.Setenv("BA_TEST_ZONE", "eu-1")
	task, err := config.LoadTaskConfig("testdata/task-hyperfleet-cel.yaml")
	if err != nil {
		t.Fatal(err)
	}
	api := apistub.New("v1", nil)
	api.Set("GET /api/hyperfleet/v1/clusters/cls-a-b-x", apistub.Response{Status: 200, Body: json.RawMessage(`{
		"id": "cls-a-b-x", "status": {"conditions": [
			{"type": "Ready", "status": "True", "last_transition_time": "2026-11-30T09:58:00Z"}]}}`)})
	now := t0 // 10:00:00Z: Ready for 120 s
	store := memmaestro.New(memmaestro.Options{Clock: func() time.Time { return now }, Consumers: []string{"c1"}})
	p, err := adapter.New(adapter.Options{
		Task: task, Adapter: config.AdapterInfo{Name: "a", Version: "0"},
		Maestro: store, API: api, Clock: func() time.Time { return now },
		LookupEnv: os.LookupEnv, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	res := p.Run(context.Background(), adapter.Event{ID: "e", Type: "t", Source: "s",
		Data: map[string]any{"id": "cls-a-b-x", "kind": "Cluster", "generation": int64(1000000)}})
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	calls := api.Calls()
	body, _ := json.Marshal(calls[len(calls)-1].Body)
	var got map[string]any
	_ = json.Unmarshal(body, &got)
	want := map[string]any{
		"observed_time": "2026-11-30T10:00:00Z", "started_at": "2026-11-30T10:00:00Z",
		"template_time": "2026-11-30T10:00:00Z",
		"zone":          "eu-1-none", "template_zone": "eu-1",
		"name": "a_b_x", "short": "cls-a-b", "gen": "1000000",
		"ready": "True", "ready_age": float64(120), "absent": "Unknown", "absent_age": float64(-1),
		"stable60": true, "stable600": false, "health": "True",
		"dug": "Ready", "dug_missing": true, "feedback": "",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s = %v (%T), want %v (%T)", k, got[k], got[k], w, w)
		}
	}
}

// env.NAME read by CEL or a template must be set: validate (the load)
// and New say so, rather than every event failing. env.?NAME is optional,
// and the whole environment is never exposed.
func TestEnvReadsFailAtLoad(t *testing.T) {
	os.Unsetenv("BA_TEST_ZONE")
	_, err := config.LoadTaskConfig("testdata/task-hyperfleet-cel.yaml")
	if err == nil || !strings.Contains(err.Error(), "env.BA_TEST_ZONE: the environment variable BA_TEST_ZONE is not set") {
		t.Fatalf("load: %v, want the unset variable named", err)
	}
	t.Setenv("BA_TEST_ZONE", "eu-1")
	task, err := config.LoadTaskConfig("testdata/task-hyperfleet-cel.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = adapter.New(adapter.Options{Task: task, Maestro: memmaestro.New(memmaestro.Options{}), API: apistub.New("v1", nil),
		LookupEnv: func(string) (string, bool) { return "", false }})
	if err == nil || !strings.Contains(err.Error(), "env.BA_TEST_ZONE") {
		t.Fatalf("New: %v, want the unset variable named", err)
	}
}
