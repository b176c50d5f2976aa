package adapter_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
)

// Param sources as hyperfleet-adapter resolves them: a dotted path into an
// earlier (api_call) param, a bare event path, config.adapter.* and
// adapter.*, a default for an empty string, and a name defined twice.
func TestParamSourcesByDottedPath(t *testing.T) {
	h := newHarness(t, "")
	h.useTask("testdata/task-param-sources.yaml")
	h.api.Set("GET /api/hyperfleet/v1/clusters/x", apistub.Response{Status: 200, Body: json.RawMessage(
		`{"name":"c-x","generation":7,"nodes":{"compute":3},"spec":{},"empty":""}`)})
	res := h.event(nil)
	if res.Error != nil {
		t.Fatalf("event failed: %v", res.Error)
	}
	got := h.lastStatus()
	want := map[string]any{
		"clusterName": "c-x", "computeNodes": float64(3), "region": "us-east-1", "kind": "Cluster",
		"adapterName": "test-adapter", "adapterVersion": "0", "generation": float64(7), "empty": "filled",
		"reconciled": "False", "noValue": nil, "crossesScalar": "none",
	}
	for k, v := range want {
		if got[k] != v || v == nil && !hasKey(got, k) {
			t.Errorf("%s = %v (%T), want %v", k, got[k], got[k], v)
		}
	}
}

// A file source is read on every event (bounded, trimmed by default).
func TestParamFileSource(t *testing.T) {
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("  s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	task := writeTask(t, `params:
  - {name: clusterId, source: event.id, required: true}
  - {name: token, source: {file: {path: `+token+`}}, required: true}
  - {name: raw, source: {file: {path: `+token+`, trim: false}}}
post:
  payloads:
    - name: status
      build: {token: "{{ .token }}", raw: {expression: raw}}
  post_actions:
    - name: report
      api_call: {method: PUT, url: "/clusters/{{ .clusterId }}/statuses", body: "{{ .status }}"}
`)
	h := newHarness(t, "")
	h.useTask(task)
	if res := h.event(nil); res.Error != nil {
		t.Fatalf("event failed: %v", res.Error)
	}
	if got := h.lastStatus(); got["token"] != "s3cret" || got["raw"] != "  s3cret\n" {
		t.Errorf("file sources: %v", got)
	}
}

// Sources a param cannot read are refused at load, naming the line.
func TestParamSourceErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"capturedName.x", `starts with capture of precondition pre "capturedName", which is bound after the params`},
		{"pre.name", `starts with precondition "pre"`},
		{"config.params.x", "the adapter config has adapter, clients, debug_config, log"},
		{"event..id", "not a dotted path"},
		{"{file: {path: relative/token}}", "must be an absolute path"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			file := writeTask(t, "params:\n  - {name: p, source: "+tt.src+"}\npreconditions:\n  - name: pre\n    api_call: {url: /x}\n    capture: [{name: capturedName, field: name}]\n")
			_, err := config.LoadTaskConfig(file)
			if err == nil || !strings.Contains(err.Error(), "task.yaml:2: params[0].source") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want params[0].source at line 2: %s", err, tt.want)
			}
		})
	}
}

func hasKey(m map[string]any, k string) bool { _, ok := m[k]; return ok }

// writeTask writes a task config into a fresh folder and returns its path.
func writeTask(t *testing.T, doc string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "task.yaml")
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// A required param whose expression cannot be evaluated still fails the
// event (retried), unlike an optional one.
func TestRequiredParamExpressionErrorFails(t *testing.T) {
	file := writeTask(t, `params:
  - {name: clusterId, source: event.id, required: true}
  - {name: phase, source: {expression: event.status.phase}, required: true, default: x}
post:
  post_actions:
    - name: report
      api_call: {method: PUT, url: "/clusters/{{ .clusterId }}/statuses", body: "{}"}
`)
	h := newHarness(t, "")
	h.useTask(file)
	res := h.event(nil)
	if res.Error == nil || res.Error.Phase != "params" || res.Error.Step != "phase" || res.Disposition() != adapter.Retry {
		t.Fatalf("want a params failure (retried), got %+v %v", res.Error, res.Disposition())
	}
}

// config.<path> reads the adapter config as serve and dry-run pass it
// (AdapterConfig.Values, after env overrides).
func TestParamConfigSource(t *testing.T) {
	t.Setenv("HYPERFLEET_API_BASE_URL", "http://api.example:8000")
	cfg, err := config.LoadAdapterConfig("../config/testdata/hyperfleet/api-client-keys-ok.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	file := writeTask(t, `params:
  - {name: clusterId, source: event.id, required: true}
  - {name: baseURL, source: config.clients.hyperfleet_api.base_url}
  - {name: sourceID, source: config.clients.maestro.source_id}
  - {name: name, source: config.adapter.name}
  - {name: missing, source: config.clients.maestro.nope, default: d}
post:
  payloads:
    - name: status
      build: {baseURL: {expression: baseURL}, sourceID: {expression: sourceID}, name: {expression: name}, missing: {expression: missing}}
  post_actions:
    - name: report
      api_call: {method: PUT, url: "/clusters/{{ .clusterId }}/statuses", body: "{{ .status }}"}
`)
	h := newHarness(t, "")
	h.useTask(file)
	h.config = cfg.Values()
	if res := h.event(nil); res.Error != nil {
		t.Fatalf("event failed: %v", res.Error)
	}
	got := h.lastStatus()
	want := map[string]any{"baseURL": "http://api.example:8000", "sourceID": "api-keys", "name": "api-keys", "missing": "d"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %#v, want %#v", k, got[k], v)
		}
	}
}
