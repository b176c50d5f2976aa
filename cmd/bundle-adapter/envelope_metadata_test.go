package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// In hyperfleet-adapter v0.1.1's envelope format, .metadata in templates
// is the adapter config's metadata (name and labels): the merged config
// takes the adapter config's (config_loader's Config.Metadata). The task
// config's envelope metadata is not what .metadata reads then.
func TestEnvelopeMetadataIsTheAdapterConfigs(t *testing.T) {
	const dir = "testdata/envelope-metadata/"
	state := filepath.Join(t.TempDir(), "state.json")
	code, _, errOut := runCLI(t, "dry-run", "-c", dir+"adapter-config.yaml", "-t", dir+"task-config.yaml",
		"--event", dir+"event.json", "--maestro-state-out", state)
	if code != 0 {
		t.Fatalf("dry-run: exit %d\n%s", code, errOut)
	}
	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Works []struct {
			Metadata struct {
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
		} `json:"works"`
	}
	if err := json.Unmarshal(data, &st); err != nil || len(st.Works) != 1 {
		t.Fatalf("state %s: %v", data, err)
	}
	labels := st.Works[0].Metadata.Labels
	if labels["adapter-name"] != "dryrun-adapter" || labels["adapter-from"] != "adapter-config" {
		t.Errorf("labels %v, want adapter-name dryrun-adapter and adapter-from adapter-config", labels)
	}
}
