package configtest

import (
	"strings"
	"testing"
)

// An invalid test file is exit 2, and each problem names the file, the
// line and the field.
func TestInvalidFilesNameFileLineAndField(t *testing.T) {
	const head = "adapter_config: ONPREM/adapter-config.yaml\ntask_config: ONPREM/task-config.yaml\ndefaults: {event: ONPREM/dryrun/event.json}\n"
	tests := []struct {
		name, text string
		want       string // after "<file>:"
	}{
		{"unknown key", head + "cases:\n  - name: a\n    expect:\n      resource: {}\n",
			`7: cases[0].expect.resource: unknown field "resource"; did you mean "resources"?`},
		{"wrong type", head + "cases:\n  - name: a\n    expect:\n      resources: [clusterSetup]\n",
			"7: cases[0].expect.resources: must be a mapping, not a list"},
		{"wrong type of a scalar", head + "cases:\n  - name: a\n    confirm_deletions: maybe\n    expect: {}\n",
			`6: cases[0].confirm_deletions: must be true or false, not "maybe"`},
		{"missing adapter config", "adapter_config: ONPREM/no-such.yaml\ntask_config: ONPREM/task-config.yaml\ncases: [{name: a, expect: {}}]\n",
			"1: adapter_config: cannot read " + "ONPREM/no-such.yaml: no such file or directory"},
		{"missing task config", "adapter_config: ONPREM/adapter-config.yaml\ncases: [{name: a, expect: {}}]\n",
			"1: task_config: is required"},
		{"missing event file", "adapter_config: ONPREM/adapter-config.yaml\ntask_config: ONPREM/task-config.yaml\ndefaults:\n  event: no-event.json\ncases: [{name: a, expect: {}}]\n",
			"4: defaults.event: cannot read "},
		{"bad regexp", head + "cases:\n  - name: a\n    expect:\n      conditions:\n        Applied: {message_regexp: 'create/(done'}\n",
			"8: cases[0].expect.conditions.Applied.message_regexp: not a regular expression: error parsing regexp: missing closing ): `create/(done`"},
		{"bad path", head + "cases:\n  - name: a\n    expect:\n      data:\n        bundles[x].state: done\n",
			`8: cases[0].expect.data.bundles[x].state: path "bundles[x].state": [x]: an index is a whole number; quote a key: ["x"]`},
		{"bad object path", head + "cases:\n  - name: a\n    expect:\n      objects:\n        clusterSetup:\n          metadata..name: x\n",
			`9: cases[0].expect.objects.clusterSetup.metadata..name: path "metadata..name": empty key`},
		{"bad operation", head + "cases:\n  - name: a\n    expect:\n      resources:\n        clusterSetup: {operation: created}\n",
			`8: cases[0].expect.resources.clusterSetup.operation: must be one of create, update, unchanged, recreate, delete, skip, "", not "created"`},
		{"bad now", head + "cases:\n  - name: a\n    now: yesterday\n    expect: {}\n",
			`6: cases[0].now: must be an RFC 3339 time such as 2026-01-02T15:04:05Z, not "yesterday"`},
		{"no expect", head + "cases:\n  - name: a\n    now: \"2026-01-01T00:00:00Z\"\n",
			"5: cases[0]: expect is required"},
		{"steps and inline", head + "cases:\n  - name: a\n    expect: {}\n    steps: [{expect: {}}]\n",
			"5: cases[0]: give either steps or one step's fields"},
		{"duplicate case", head + "cases:\n  - {name: a, expect: {}}\n  - {name: a, expect: {}}\n",
			`6: cases[1].name: case name "a" is already used at cases[0]`},
		{"no cases", head,
			"1: cases: at least one case is required"},
		{"not a CloudEvent", "adapter_config: ONPREM/adapter-config.yaml\ntask_config: ONPREM/task-config.yaml\ncases:\n  - name: a\n    event: {id: e1}\n    expect: {}\n",
			"5: cases[0].event: not a CloudEvent: invalid event: not a structured-mode CloudEvent: specversion: no specversion"},
		{"unknown payload", head + "status_payload: report\ncases: [{name: a, expect: {}}]\n",
			`4: status_payload: must be one of status, not "report"`},
		{"unknown resource", head + "cases:\n  - name: a\n    steps:\n      - expect:\n          objects:\n            clusterSetup: null\n            clustersetup: null\n",
			`10: cases[0].steps[0].expect.objects.clustersetup: the task config has no resource "clustersetup" (its resources: clusterSetup, validationJob)`},
		{"no event", "adapter_config: ONPREM/adapter-config.yaml\ntask_config: ONPREM/task-config.yaml\ncases:\n  - name: a\n    expect: {}\n",
			"4: cases[0].event: the step has no event: give one here, in an earlier step or in defaults"},
		{"invalid state file", head + "cases:\n  - name: a\n    maestro_state: {workz: []}\n    expect: {}\n",
			`6: cases[0].maestro_state: memmaestro: state file: unknown field(s) "workz"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTest(t, "x_test.yaml", tt.text)
			code, out, errOut := runTests(t, Options{}, path)
			want := path + ":" + strings.ReplaceAll(tt.want, "ONPREM", onprem(t))
			if code != ExitInvalid || !strings.Contains(errOut, want) {
				t.Errorf("exit %d, want %d; stderr lacks %q\nstdout:\n%s\nstderr:\n%s", code, ExitInvalid, want, out, errOut)
			}
		})
	}
}

// An invalid config named by a test file is exit 2 with the config's own
// file:line errors.
func TestInvalidConfigIsExit2(t *testing.T) {
	path := writeTest(t, "x_test.yaml", "adapter_config: ONPREM/adapter-config.yaml\ntask_config: "+absTestdata(t)+"/../../config/testdata/broken/unknown-key.yaml\ncases: [{name: a, expect: {}}]\n")
	code, _, errOut := runTests(t, Options{}, path)
	if code != ExitInvalid || !strings.Contains(errOut, `unknown-key.yaml:7: resources[0].discovry: unknown field "discovry"`) {
		t.Errorf("exit %d\n%s", code, errOut)
	}
}

func absTestdata(t *testing.T) string {
	t.Helper()
	return strings.TrimSuffix(onprem(t), "/config/examples/onprem") + "/configtest/testdata"
}
