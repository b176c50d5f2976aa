package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
	"github.com/bundle-adapter/bundle-adapter/memrun"
)

// HyperFleet adapter's dry-run command line works as it is: serve with
// --dry-run-event, its responses format (method and regular expression,
// responses in turn) and its discovery file (the bundles that exist, by
// name). A first run creates the bundles; the same run with a discovery
// file holding them finds nothing to write.
func TestServeDryRunFlags(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	base := []string{"serve", "-c", ex + "onprem/adapter-config.yaml", "-t", ex + "onprem/task-config.yaml",
		"--dry-run-event", ex + "onprem/dryrun/event.json",
		"--dry-run-api-responses", "testdata/hyperfleet-dryrun/api-responses.json", "--dry-run-output", "json"}

	code, out, errOut := runCLI(t, base...)
	if code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, errOut)
	}
	first := decodeReport(t, out)
	// The onprem example's precondition needs the cluster GET to answer the
	// event's cluster id: only the pattern's response does (an unmatched call
	// answers 200 {}), so created bundles prove the pattern matched.
	if first.Skipped {
		t.Fatalf("first run skipped the bundles: the cluster GET was not answered from the pattern:\n%s", out)
	}
	for _, b := range first.Bundles {
		if b.Operation != "create" || b.State != "done" {
			t.Errorf("first run: bundle %s %s/%s, want create/done", b.Name, b.Operation, b.State)
		}
	}

	// The state those creates leave, from dry-run itself (which reads the
	// same responses file), written as a discovery file.
	if code, _, errOut := runCLI(t, "dry-run", "-c", ex+"onprem/adapter-config.yaml", "-t", ex+"onprem/task-config.yaml",
		"--event", ex+"onprem/dryrun/event.json", "--api-responses", "testdata/hyperfleet-dryrun/api-responses.json",
		"--maestro-state-out", state); code != 0 {
		t.Fatalf("dry-run: exit %d\n%s", code, errOut)
	}
	discovery := filepath.Join(dir, "discovery.json")
	writeDiscovery(t, state, discovery)
	code, out, errOut = runCLI(t, append(base, "--dry-run-discovery", discovery)...)
	if code != 0 {
		t.Fatalf("second run: exit %d\n%s", code, errOut)
	}
	for _, b := range decodeReport(t, out).Bundles {
		if b.Operation != "unchanged" {
			t.Errorf("with the discovery file: bundle %s %s/%s, want unchanged", b.Name, b.Operation, b.State)
		}
	}
}

func decodeReport(t *testing.T, out string) report {
	t.Helper()
	var r report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not the JSON report: %v\n%s", err, out)
	}
	if len(r.Bundles) == 0 {
		t.Fatalf("no bundles in the report:\n%s", out)
	}
	return r
}

// writeDiscovery turns a Maestro state file into HyperFleet adapter's
// discovery format: the works by name.
func writeDiscovery(t *testing.T, statePath, out string) {
	t.Helper()
	data, err := os.ReadFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	var state struct {
		Works []map[string]any `json:"works"`
	}
	if err := json.Unmarshal(data, &state); err != nil {
		t.Fatal(err)
	}
	byName := map[string]any{}
	for _, w := range state.Works {
		byName[w["metadata"].(map[string]any)["name"].(string)] = w
	}
	b, _ := json.Marshal(byName)
	if err := os.WriteFile(out, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A discovery file's works may carry fields a ManifestWork does not have
// (HyperFleet's examples set spec.deleteOption.gracePeriodSeconds): they are
// dropped, as Maestro drops them, and the work loads.
func TestDiscoveryDropsFieldsMaestroDrops(t *testing.T) {
	const file = `{"k1-mw": {"apiVersion": "work.open-cluster-management.io/v1", "kind": "ManifestWork",
	  "metadata": {"name": "k1-mw", "namespace": "cluster1"},
	  "spec": {"workload": {"manifests": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "default"}}]},
	           "deleteOption": {"propagationPolicy": "Foreground", "gracePeriodSeconds": 30}}}}`
	store, err := memrun.LoadDiscovery(strings.NewReader(file), memmaestro.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := store.Get(context.Background(), "cluster1", "k1-mw")
	if err != nil || w.Spec.DeleteOption == nil || w.Spec.DeleteOption.PropagationPolicy != "Foreground" {
		t.Fatalf("discovered work %+v, %v", w, err)
	}
}
