package config

import (
	"bytes"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/bundle-adapter/bundle-adapter/task"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
)

// config dump --task prints the task config as loaded: HyperFleet's
// spelling mapped to ours, string sources as their paths, refs and inline
// manifests as written, the loader's defaults filled in, and literal
// header values of credential headers redacted; the dump is YAML.
func TestDumpTask(t *testing.T) {
	tests := []struct {
		task string
		want []string
	}{
		{"testdata/hyperfleet/task-config.yaml", []string{
			"source: event.id", "source: env.ADAPTER_NAME", "api_call:", "retry_backoff: exponential",
			"name: mw-{{ .clusterId }}", "deletion_deadline: 10m0s", "expression: generation",
			"value: application/json",
		}},
		{"examples/onprem/task-config.yaml", []string{
			"ref: bundles/cluster-setup.yaml", "source: event.generation", "by_name: '{{ .clusterId }}-setup'",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.task, func(t *testing.T) {
			cfg, err := Load(Files{Adapter: "examples/onprem/adapter-config.yaml", Task: tt.task}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := cfg.DumpTask(&b); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("the dump lacks %q:\n%s", w, b.String())
				}
			}
			var back map[string]any
			if err := yaml.Unmarshal(b.Bytes(), &back); err != nil || back["params"] == nil {
				t.Errorf("the dump is not a task config in YAML: %v", err)
			}
		})
	}
}

// A literal value of a credential header never reaches the dump; a
// template and a header that carries none print as written.
func TestDumpTaskRedactsLiteralCredentialHeaders(t *testing.T) {
	for _, tt := range []struct{ name, value, want string }{
		{"Authorization", "Bearer abc123", "REDACTED"},
		{"X-Api-Key", "k-123", "REDACTED"},
		{"Cookie", "session=1", "REDACTED"},
		{"Authorization", "Bearer {{ .token }}", "Bearer {{ .token }}"},
		{"Content-Type", "application/json", "application/json"},
	} {
		h := task.Header{Name: tt.name, Value: tmpl.Text{Src: tt.value}}
		out, err := yaml.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), tt.want) || (tt.want == "REDACTED" && strings.Contains(string(out), tt.value)) {
			t.Errorf("%s: %s: dumped as %s", tt.name, tt.value, out)
		}
	}
}
