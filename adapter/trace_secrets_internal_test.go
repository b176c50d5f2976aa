package adapter

import (
	"testing"

	"github.com/bundle-adapter/bundle-adapter/celenv"
	"github.com/bundle-adapter/bundle-adapter/task"
)

// Which params the trace redacts: secrets of the adapter config, env
// variables, files and expressions named like credentials, and what is
// derived from a secret param by path or by name; never event fields or
// API answers.
func TestSecretParams(t *testing.T) {
	env := func(v string) task.ParamSource { return task.ParamSource{Kind: task.PathEnv, Root: v} }
	cfg := func(f string) task.ParamSource { return task.ParamSource{Kind: task.PathConfig, Field: f} }
	expr := func(src string) task.ParamSource { return task.ParamSource{Expression: &celenv.Expr{Src: src}} }
	tests := []struct {
		name   string
		source task.ParamSource
		want   bool
	}{
		{"clusterId", task.ParamSource{Kind: task.PathEvent, Field: "id"}, false},
		{"apiToken", task.ParamSource{Kind: task.PathEvent, Field: "token"}, false}, // the event's data is shown
		{"consumer", env("MAESTRO_CONSUMER"), false},
		{"region", env("API_TOKEN"), true},
		{"dbPassword", env("DB"), true},
		{"auth", cfg("clients.hyperfleet_api.default_headers.Authorization"), true},
		{"apiBase", cfg("clients.hyperfleet_api.base_url"), true},
		{"adapterName", cfg("adapter.name"), false},
		{"caFile", task.ParamSource{File: &task.FileSource{Path: "/var/run/ca.crt"}}, false},
		{"mounted", task.ParamSource{File: &task.FileSource{Path: "/var/run/secrets/token"}}, true},
		{"regionOfToken", task.ParamSource{Kind: task.PathParam, Root: "region", Field: "x"}, true},
		{"bearer", expr(`"Bearer " + region`), true},
		{"fromEnv", expr(`env.SERVICE_KEY`), true},
		{"label", expr(`"cluster-" + clusterId`), false},
		{"clusterName", task.ParamSource{Kind: task.PathParam, Root: "clusterId"}, false},
	}
	tc := &task.TaskConfig{}
	for _, tt := range tests {
		tc.Params = append(tc.Params, task.Param{Name: tt.name, Source: tt.source})
	}
	got := secretParams(tc)
	for i, tt := range tests {
		if got[i] != tt.want {
			t.Errorf("param %s (%+v): secret %v, want %v", tt.name, tt.source, got[i], tt.want)
		}
	}
}

// Scrub replaces every secret value of at least minScrubbed bytes, and the
// trace's values are copied, never changed in place.
func TestTraceScrub(t *testing.T) {
	tr := &EventTrace{secrets: appendStrings(nil, map[string]any{"a": "S3CRET", "b": []any{"tok-123"}, "c": "abc"})}
	payload := map[string]any{"msg": "token S3CRET and tok-123 and abc", "list": []any{"S3CRET"}}
	tr.Payloads = payload
	tr.scrubAll()
	if got := tr.Payloads["msg"]; got != "token REDACTED and REDACTED and abc" {
		t.Errorf("scrubbed message %q", got)
	}
	if got := tr.Payloads["list"].([]any)[0]; got != "REDACTED" {
		t.Errorf("scrubbed list item %q", got)
	}
	if payload["msg"] != "token S3CRET and tok-123 and abc" {
		t.Errorf("the event's payload was changed in place: %v", payload)
	}
}
