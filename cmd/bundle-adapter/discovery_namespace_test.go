package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// A discovery file's ManifestWork without metadata.namespace is accepted,
// as hyperfleet-adapter's dry-run accepts it (LoadDiscoveryOverrides needs
// only apiVersion and kind): the bundle of that name is found in the
// consumer the task config reads it from, by dry-run --discovery and by
// serve --dry-run-discovery alike.
func TestDiscoveryWorkWithoutNamespace(t *testing.T) {
	const dir = "testdata/envelope-metadata/"
	runs := map[string][]string{
		"dry-run": {"dry-run", "-c", dir + "adapter-config.yaml", "-t", dir + "task-config.yaml",
			"--event", dir + "event.json", "--discovery", dir + "discovery-no-namespace.json", "--output", "json"},
		"serve": {"serve", "-c", dir + "adapter-config.yaml", "-t", dir + "task-config.yaml",
			"--dry-run-event", dir + "event.json", "--dry-run-discovery", dir + "discovery-no-namespace.json", "--dry-run-output", "json"},
	}
	for name, args := range runs {
		t.Run(name, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "state.json")
			if name == "dry-run" {
				args = append(args, "--maestro-state-out", state)
			}
			code, out, errOut := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			r := decodeReport(t, out)
			if b := r.Bundles[0]; b.Consumer != "c1" || b.Operation == "create" || b.State != "done" {
				t.Errorf("bundle %s at %s: %s/%s (%s), want the discovered bundle found at c1", b.Name, b.Consumer, b.Operation, b.State, b.Error)
			}
			if name != "dry-run" {
				return
			}
			data, err := os.ReadFile(state)
			if err != nil {
				t.Fatal(err)
			}
			var st struct {
				Works []struct {
					Metadata struct{ Name, Namespace string } `json:"metadata"`
				} `json:"works"`
			}
			if err := json.Unmarshal(data, &st); err != nil || len(st.Works) != 1 || st.Works[0].Metadata.Namespace != "c1" {
				t.Errorf("state %s (%v): want the one work in namespace c1", data, err)
			}
		})
	}
}
