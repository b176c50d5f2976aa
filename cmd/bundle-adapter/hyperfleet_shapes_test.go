package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// shapeStep is one dry-run of a chain: the event and responses files (in
// the shape's folder; responses optional) and every bundle's outcome as
// "name:operation/state", in config order.
type shapeStep struct {
	event, responses, want string
}

// HyperFleet adapter's task and adapter configs in their published shapes
// pass validate unchanged and run as a chain of dry-runs, each starting from
// the Maestro state the previous one left. Our own fixtures under
// testdata/hyperfleet-shapes, written in the same shapes:
//   - maestro: its Maestro chart example (params by dotted path, an absolute
//     ref into the chart's /etc/adapter, nested discoveries, a delete rule,
//     its responses file format);
//   - two-resources: its two-bundle example (two absolute refs, camelCase
//     propagationPolicy, a dropped deleteOption field, ordered deletion);
//   - features: lifecycle.create, recreate_on_change and a templated
//     discovery.namespace together.
func TestHyperFleetShapesValidateAndChain(t *testing.T) {
	shapes := []struct {
		name, adapterConfig string
		warns               []string // what validate must warn about
		steps               []shapeStep
	}{
		{"maestro", "adapter-config.yaml", []string{"clients.maestro.client_id: has no effect"}, []shapeStep{
			{"event.json", "api-responses.json", "shapeWork:create/done"},
			{"event.json", "api-responses.json", "shapeWork:unchanged/done"},
			// The API holds generation 4 now: the generation-3 event is stale
			// and writes and reports nothing (adapter/stale.go).
			{"event.json", "api-responses-delete.json", "shapeWork:/"},
			{"event-delete.json", "api-responses-delete.json", "shapeWork:delete/pending"},
		}},
		{"two-resources", "adapter-config.yaml", []string{
			"field spec.deleteOption.gracePeriodSeconds is not part of a ManifestWork",
			"resources[1].lifecycle.delete.propagation_policy: has no effect on a Maestro bundle",
		}, []shapeStep{
			{"event.json", "api-responses.json", "settingsWork:create/done namespaceWork:create/done"},
			{"event.json", "api-responses.json", "settingsWork:unchanged/done namespaceWork:unchanged/done"},
			{"event-delete.json", "api-responses-delete.json", "settingsWork:delete/pending namespaceWork:unchanged/done"},
		}},
		{"features", "../../../" + ex + "onprem/adapter-config.yaml", nil, []shapeStep{
			{"event.json", "", "mw:create/done gated:skip/done job:create/done"},
			{"event.json", "", "mw:unchanged/done gated:skip/done job:unchanged/done"},
			{"event-delete.json", "", "mw:delete/pending gated:skip/done job:recreate/pending"},
		}},
	}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			dir := filepath.Join("testdata", "hyperfleet-shapes", sh.name)
			files := []string{"-c", filepath.Join(dir, sh.adapterConfig), "-t", filepath.Join(dir, "task-config.yaml")}
			validateShape(t, files, sh.warns)
			state := t.TempDir()
			for i, st := range sh.steps {
				args := append([]string{"dry-run"}, files...)
				args = append(args, "--event", filepath.Join(dir, st.event), "--now", "2026-11-30T10:00:00Z",
					"--output", "json", "--maestro-state-out", filepath.Join(state, stateFile(i+1)))
				if st.responses != "" {
					args = append(args, "--api-responses", filepath.Join(dir, st.responses))
				}
				if i > 0 {
					args = append(args, "--maestro-state", filepath.Join(state, stateFile(i)))
				}
				code, out, errOut := runCLI(t, args...)
				if code != 0 {
					t.Fatalf("step %d: exit %d\n%s", i+1, code, errOut)
				}
				if got := outcomes(decodeReport(t, out)); got != st.want {
					t.Errorf("step %d (%s): %s, want %s", i+1, st.event, got, st.want)
				}
			}
		})
	}
}

func stateFile(i int) string { return "state-" + string(rune('0'+i)) + ".json" }

func outcomes(r report) string {
	s := make([]string, len(r.Bundles))
	for i, b := range r.Bundles {
		s[i] = b.Name + ":" + b.Operation + "/" + b.State
	}
	return strings.Join(s, " ")
}

// validateShape runs validate on a shape's configs: it must pass and print
// every warning named.
func validateShape(t *testing.T, files, warns []string) {
	t.Helper()
	code, out, errOut := runCLI(t, append([]string{"validate"}, files...)...)
	if code != 0 || !strings.HasPrefix(out, "valid: ") {
		t.Fatalf("validate: exit %d\n%s%s", code, out, errOut)
	}
	for _, w := range warns {
		if !strings.Contains(errOut, w) {
			t.Errorf("validate does not warn %q:\n%s", w, errOut)
		}
	}
}
