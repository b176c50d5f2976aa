package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// kubeStep is one dry-run of a kubernetes chain: the event, responses and
// (first step only, optional) discovery files of the shape's folder, every
// resource's outcome as "name:operation/state" in config order, and
// conditions of the status PUT as "Type=Status" (nil: no status PUT).
type kubeStep struct {
	event, responses, discovery, want string
	conditions                        []string
}

// HyperFleet adapter's kubernetes-transport configs in their published
// shapes pass validate unchanged and run as a chain of dry-runs against the
// in-memory API server, each starting from the state the previous one left
// (--kube-state). Our own fixtures under testdata/hyperfleet-shapes, in the
// shapes of:
//   - kubernetes-chart: charts/examples/kubernetes (a Namespace by name, a
//     Job by label selector from an absolute ref; CEL reads the Job's
//     status as discovered);
//   - kubernetes: test/testdata/dryrun/kubernetes (a precondition, an
//     optional param naming a variable that does not exist, discovery
//     objects without our fingerprint: the Namespace, whose content differs
//     from the rendered one, updated in place; the ConfigMap, whose content
//     is the rendered one, adopted without a write);
//   - kubernetes-delete: test/testdata/dryrun/kubernetes-delete (ordered
//     deletion: the ConfigMap, then the Namespace in the same event once
//     the ConfigMap answers 404).
func TestHyperFleetKubernetesShapesValidateAndChain(t *testing.T) {
	shapes := []struct {
		name, adapterConfig string
		warns               []string
		steps               []kubeStep
	}{
		{"kubernetes-chart", "adapter-config.yaml", nil, []kubeStep{
			{"event.json", "api-responses.json", "", "space:create/done greeterJob:create/done",
				[]string{"Applied=True", "Available=False", "Finalized=False"}},
			{"event.json", "api-responses.json", "", "space:unchanged/done greeterJob:unchanged/done", []string{"Applied=True"}},
			// The API holds generation 7 now: the generation-6 event is stale
			// and writes and reports nothing (adapter/stale.go).
			{"event.json", "api-responses-delete.json", "", "space:/ greeterJob:/", nil},
			{"event-delete.json", "api-responses-delete.json", "", "space:delete/done greeterJob:delete/done",
				[]string{"Applied=False", "Finalized=True"}},
			{"event-delete.json", "api-responses-delete.json", "", "space:delete/done greeterJob:delete/done", []string{"Finalized=True"}},
		}},
		{"kubernetes-chart", "adapter-config.yaml", nil, []kubeStep{
			{"event.json", "api-responses.json", "discovery.json", "space:update/done greeterJob:update/done",
				[]string{"Applied=True", "Available=True"}},
			{"event.json", "api-responses.json", "", "space:unchanged/done greeterJob:unchanged/done", []string{"Available=True"}},
		}},
		{"kubernetes", "adapter-config.yaml", []string{"params[5].source.expression: CEL: 1:1: undeclared reference to 'no_such_variable'"}, []kubeStep{
			{"event.json", "api-responses.json", "discovery.json", "ns0:update/done cm0:unchanged/done",
				[]string{"Applied=True", "Available=True"}},
			{"event.json", "api-responses.json", "", "ns0:unchanged/done cm0:unchanged/done", []string{"Applied=True"}},
		}},
		{"kubernetes-delete", "../kubernetes/adapter-config.yaml", nil, []kubeStep{
			{"../kubernetes/event-delete.json", "../kubernetes/api-responses-delete.json", "../kubernetes/discovery.json",
				"cm0:delete/done ns0:delete/done", []string{"Finalized=True"}},
		}},
		{"kubernetes-delete", "../kubernetes/adapter-config.yaml", nil, []kubeStep{
			{"../kubernetes/event.json", "../kubernetes/api-responses.json", "", "cm0:create/done ns0:create/done", []string{"Finalized=False"}},
			{"../kubernetes/event-delete.json", "../kubernetes/api-responses-delete.json", "", "cm0:delete/done ns0:delete/done", []string{"Finalized=True"}},
		}},
	}
	for i, sh := range shapes {
		t.Run(fmt.Sprintf("%s/%d", sh.name, i), func(t *testing.T) {
			dir := filepath.Join("testdata", "hyperfleet-shapes", sh.name)
			files := []string{"-c", filepath.Join(dir, sh.adapterConfig), "-t", filepath.Join(dir, "task-config.yaml"),
				"--ref-root", "/etc/adapter=" + dir}
			validateShape(t, files, sh.warns)
			state := t.TempDir()
			for i, st := range sh.steps {
				args := append([]string{"dry-run"}, files...)
				args = append(args, "--event", filepath.Join(dir, st.event), "--now", "2026-11-30T10:00:00Z",
					"--output", "json", "--api-responses", filepath.Join(dir, st.responses),
					"--kube-state-out", filepath.Join(state, stateFile(i+1)))
				if st.discovery != "" {
					args = append(args, "--discovery", filepath.Join(dir, st.discovery))
				}
				if i > 0 {
					args = append(args, "--kube-state", filepath.Join(state, stateFile(i)))
				}
				code, out, errOut := runCLI(t, args...)
				if code != 0 {
					t.Fatalf("step %d: exit %d\n%s", i+1, code, errOut)
				}
				r := decodeReport(t, out)
				if got := outcomes(r); got != st.want {
					t.Errorf("step %d (%s): %s, want %s", i+1, st.responses, got, st.want)
				}
				if st.conditions == nil { // a stale event: no status report
					for _, c := range r.APICalls {
						if c.Method == "PUT" {
							t.Errorf("step %d: a status PUT for a stale event: %v", i+1, c.Body)
						}
					}
					continue
				}
				conds := statusConditions(t, r)
				for _, c := range st.conditions {
					if !strings.Contains(conds, c) {
						t.Errorf("step %d: status conditions %s, want %s", i+1, conds, c)
					}
				}
			}
		})
	}
}

// statusConditions renders the conditions of the report's last PUT as
// "Type=Status ...".
func statusConditions(t *testing.T, r report) string {
	t.Helper()
	for i := len(r.APICalls) - 1; i >= 0; i-- {
		c := r.APICalls[i]
		if c.Method != "PUT" {
			continue
		}
		body, _ := c.Body.(map[string]any)
		list, _ := body["conditions"].([]any)
		var out []string
		for _, x := range list {
			m, _ := x.(map[string]any)
			out = append(out, fmt.Sprintf("%v=%v", m["type"], m["status"]))
		}
		return strings.Join(out, " ")
	}
	t.Fatal("no status PUT in the report")
	return ""
}

// HyperFleet's own command line for its kubernetes dry-runs (serve
// --dry-run-*) runs the kubernetes resources against the in-memory API
// server seeded from its discovery file, and reports the API server calls:
// the ConfigMap deleted first, then the Namespace with its propagation.
func TestServeDryRunKubernetes(t *testing.T) {
	dir := filepath.Join("testdata", "hyperfleet-shapes")
	code, out, errOut := runCLI(t, "serve", "--dry-run-verbose",
		"-c", filepath.Join(dir, "kubernetes", "adapter-config.yaml"),
		"-t", filepath.Join(dir, "kubernetes-delete", "task-config.yaml"),
		"--dry-run-event", filepath.Join(dir, "kubernetes", "event-delete.json"),
		"--dry-run-api-responses", filepath.Join(dir, "kubernetes", "api-responses-delete.json"),
		"--dry-run-discovery", filepath.Join(dir, "kubernetes", "discovery.json"),
		"--dry-run-output", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var r struct {
		KubeCalls []struct{ Verb, Kind, Namespace, Name, Propagation string } `json:"kubeCalls"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not the JSON report: %v\n%s", err, out)
	}
	var got []string
	for _, c := range r.KubeCalls {
		got = append(got, strings.TrimSpace(c.Verb+" "+c.Kind+" "+objectPath(c.Namespace, c.Name)+" "+c.Propagation))
	}
	want := []string{
		"get ConfigMap m4/m4-settings", "get Namespace m4",
		"delete ConfigMap m4/m4-settings Background", "get ConfigMap m4/m4-settings",
		"delete Namespace m4 Foreground", "get Namespace m4",
	}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("kube calls\n got  %v\n want %v", got, want)
	}
}
