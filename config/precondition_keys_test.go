package config

import (
	"strings"
	"testing"
)

// capture default, condition values and log actions load; misuse is named.
func TestPreconditionKeysLoad(t *testing.T) {
	const f = "testdata/hyperfleet/precondition-keys.yaml"
	_, err := LoadTaskConfig(f)
	assertErrors(t, err, []string{
		`precondition-keys.yaml:5: preconditions[0].log.level: must be one of "", debug, info, warn, warning, error, not "loud"`,
		`precondition-keys.yaml:11: preconditions[0].conditions[0]: set value or values, not both`,
		`precondition-keys.yaml:15: post.post_actions[0].log.message: is required`,
		`post.post_actions[1].api_call: is required (or log)`,
	})
	task, _ := LoadTaskConfig(f)
	if len(task.Warnings) != 1 || !strings.Contains(task.Warnings[0].Error(), "precondition-keys.yaml:9: preconditions[0].capture[1].default: has no effect on an expression capture") {
		t.Errorf("warnings = %v", task.Warnings)
	}
}
