package main

import (
	"strings"
	"testing"
)

// validate shows the ManifestWork fields Maestro drops, which every event
// used to fail on at render.
func TestValidateWarnsAboutDroppedFields(t *testing.T) {
	code, out, errOut := runCLI(t, "validate", "--config", ex+"onprem/adapter-config.yaml",
		"--task-config", "../../adapter/testdata/dropped/task.yaml")
	if code != 0 || !strings.Contains(out, "valid:") ||
		!strings.Contains(errOut, "warning: ../../adapter/testdata/dropped/task.yaml:9: resources[0].manifest: ") ||
		!strings.Contains(errOut, "field spec.deleteOption.gracePeriodSeconds is not part of a ManifestWork") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}
