package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validate --for hyperfleet-adapter lists what hyperfleet-adapter's
// loader (strict, internal/configloader at 3f746a5) refuses or reads
// differently, with file, line and path; a config in its published shape
// lists nothing.
func TestAnchorIncompatible(t *testing.T) {
	dir := t.TempDir()
	own := filepath.Join(dir, "task.yaml")
	if err := os.WriteFile(own, []byte(`params:
  - {name: clusterId, source: event.id}
resources:
  - name: ns
    transport: {client: kubernetes}
    manifest:
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: "x-{{ .clusterId | b64enc }}"}
      data: {all: "{{ toJson .clusterId }}"}
    discovery: {by_name: x}
    lifecycle:
      delete: {when: {expression: "false"}, propagation_policy: Foreground, deletion_deadline: 5m}
post:
  payloads:
    - name: s
      build:
        ok: {expression: "size(bundles) > 0"}
        not: {expression: "resources.?bundles.hasValue()"}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file string
		want []string
	}{
		{"../cmd/bundle-adapter/testdata/hyperfleet-shapes/adapter1/task-config.yaml", nil},
		{"../cmd/bundle-adapter/testdata/hyperfleet-shapes/kubernetes/task-config.yaml", nil},
		{"examples/onprem/task-config.yaml", []string{
			`task-config.yaml:37: resources[1].lifecycle.recreate: hyperfleet-adapter's loader refuses this key`,
			`task-config.yaml:118: post.payloads[0].build.data.bundles.expression: reads bundles`,
		}},
		{"testdata/hyperfleet/task-config.yaml", []string{
			`task-config.yaml:4: the apiVersion/kind/spec envelope`,
			`preconditions[0].apiCall: hyperfleet-adapter's loader refuses this key`,
			`post.postActions: hyperfleet-adapter's loader refuses this key`,
		}},
		{own, []string{
			`task.yaml:9: resources[0].manifest.metadata.name: template function b64enc`,
			`task.yaml:10: resources[0].manifest.data.all: template function toJson`,
			`resources[0].lifecycle.delete.propagation_policy: hyperfleet-adapter's loader refuses this key`,
			`resources[0].lifecycle.delete.deletion_deadline: hyperfleet-adapter's loader refuses this key`,
			`task.yaml:18: post.payloads[0].build.ok.expression: reads bundles`,
		}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(filepath.Dir(tt.file))+"/"+filepath.Base(tt.file), func(t *testing.T) {
			errs, err := AnchorIncompatible(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			got := errs.Error()
			if len(tt.want) == 0 && len(errs) != 0 {
				t.Errorf("a config in hyperfleet-adapter's shape: %s", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in:\n%s", w, got)
				}
			}
			if strings.Contains(got, "build.not.expression") {
				t.Errorf("resources.?bundles is not the bundles variable:\n%s", got)
			}
		})
	}
}
