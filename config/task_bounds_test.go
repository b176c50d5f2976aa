package config

import (
	"testing"
)

// The task config's numbers are bounded at load like the adapter and
// broker configs' (task.taskBounds): an api_call that could wait for days
// and a deletion deadline of months are refused, naming file, line and
// path (issue 28, "bounds are declared once", for every config file).
func TestTaskConfigNumbersBounded(t *testing.T) {
	task := writeTemp(t, `params:
  - {name: clusterId, source: event.id, required: true}
  - name: cluster
    source: {api_call: {method: GET, url: "/clusters/{{ .clusterId }}", timeout: 1000h, retry_attempts: -1}}
resources:
  - name: cm
    transport: {client: kubernetes}
    manifest: {apiVersion: v1, kind: ConfigMap, metadata: {name: "c-{{ .clusterId }}", namespace: default}}
    discovery: {by_name: "c-{{ .clusterId }}"}
    lifecycle:
      delete: {when: {expression: "false"}, deletion_deadline: 2000h, redelete_window: -5s}
`)
	_, err := LoadTaskConfig(task)
	assertErrors(t, err, []string{
		`broker.yaml:4: params[1].source.api_call.retry_attempts: must be between 0 and 20 (config.MaxRetryAttempts), not -1`,
		`broker.yaml:4: params[1].source.api_call.timeout: must be between 0s and 10m0s (task.MaxAPICallTimeout), not 1000h0m0s`,
		`broker.yaml:11: resources[0].lifecycle.delete.deletion_deadline: must be between 0s and 168h0m0s (task.MaxDeletionDeadline), not 2000h0m0s`,
		`broker.yaml:11: resources[0].lifecycle.delete.redelete_window: must not be negative, got -5s`,
	})
}
