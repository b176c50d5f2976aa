package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --ref-root (and ADAPTER_REF_ROOT) map the chart's mount folder onto the
// local files, so validate checks a chart's task config on a laptop.
func TestValidateRefRoot(t *testing.T) {
	dir := t.TempDir()
	task := filepath.Join(dir, "task-config.yaml")
	write := func(path, data string) {
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(task, "params:\n  - {name: clusterId, source: event.id, required: true}\nresources:\n  - name: bundle\n"+
		"    transport: {client: maestro, maestro: {target_cluster: c1}}\n    manifest: {ref: /etc/adapter/manifestwork.yaml}\n")
	write(filepath.Join(dir, "adapter-task-resource-manifestwork.yaml"),
		"apiVersion: work.open-cluster-management.io/v1\nkind: ManifestWork\nmetadata: {name: \"{{ .clusterId }}-mw\"}\nspec: {workload: {manifests: []}}\n")
	mapping := "/etc/adapter/manifestwork.yaml=" + filepath.Join(dir, "adapter-task-resource-manifestwork.yaml")
	base := []string{"validate", "--config", ex + "onprem/adapter-config.yaml", "--task-config", task}

	code, _, errOut := runCLI(t, base...)
	if code != 2 || !strings.Contains(errOut, "--ref-root /etc/adapter=<local folder>") {
		t.Errorf("without a mapping: exit %d, stderr:\n%s", code, errOut)
	}
	if code, _, errOut = runCLI(t, append(base, "--ref-root", mapping)...); code != 0 {
		t.Errorf("with --ref-root: exit %d, stderr:\n%s", code, errOut)
	}
	if code, _, errOut = runCLI(t, append(base, "--ref-root", "etc/adapter=x")...); code != 2 || !strings.Contains(errOut, "--ref-root") {
		t.Errorf("a relative FROM: exit %d, stderr:\n%s", code, errOut)
	}
	t.Setenv("ADAPTER_REF_ROOT", mapping)
	if code, _, errOut = runCLI(t, base...); code != 0 {
		t.Errorf("with ADAPTER_REF_ROOT: exit %d, stderr:\n%s", code, errOut)
	}
}
