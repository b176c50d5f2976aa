package config

import (
	"strings"
	"testing"
)

// Payload leaves with default: a null default and field+expression are
// errors; keys beside field/expression/default load with a warning.
func TestPayloadLeafDefaultLoad(t *testing.T) {
	const f = "testdata/hyperfleet/payload-defaults.yaml"
	_, err := LoadTaskConfig(f)
	assertErrors(t, err, []string{
		`payload-defaults.yaml:8: post.payloads[0].build.nullDefault.default: must be a value, not null`,
		`payload-defaults.yaml:9: post.payloads[0].build.both: set field or expression, not both`,
	})
	if strings.Contains(err.Error(), "build.ok") {
		t.Errorf("a leaf with a default must load: %v", err)
	}
	task, _ := LoadTaskConfig(f)
	if task == nil || len(task.Warnings) != 1 || !strings.Contains(task.Warnings[0].Error(), "build.extra: expression leaf: [description] ignored") {
		t.Errorf("warnings = %v, want one for build.extra", task.Warnings)
	}
}
