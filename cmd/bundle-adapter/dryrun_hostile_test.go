package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dry-run against the in-memory API server with hostile events and
// discovery files (issue 28 #2, #13, #15): an id that would address every
// namespace or no name fails the resources it names (RenderFailed) with no
// call outside a namespace name; a discovery object in namespace "*" is
// refused as the real server would; a generation at int64's edges is
// reported exactly.
func TestDryRunHostileKube(t *testing.T) {
	dir := filepath.Join("testdata", "hyperfleet-shapes", "kubernetes")
	event := func(t *testing.T, id string, gen string) string {
		p := filepath.Join(t.TempDir(), "event.json")
		idJSON, _ := json.Marshal(id)
		body := `{"specversion":"1.0","id":"e","type":"t","source":"s","data":{"id":` + string(idJSON) +
			`,"kind":"Cluster","generation":` + gen + `}}`
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A task of the shape without its precondition, so every id reaches
	// the resources.
	scoped := filepath.Join(t.TempDir(), "task.yaml")
	os.WriteFile(scoped, []byte(`params:
  - {name: clusterId, source: event.id, type: string, required: true}
  - {name: generation, source: event.generation, type: int, required: true}
resources:
  - name: ns0
    transport: {client: kubernetes}
    manifest: {apiVersion: v1, kind: Namespace, metadata: {name: "{{ .clusterId }}"}}
    discovery: {by_name: "{{ .clusterId }}"}
  - name: cm0
    transport: {client: kubernetes}
    manifest: {apiVersion: v1, kind: ConfigMap, metadata: {name: "{{ .clusterId }}-settings", namespace: "{{ .clusterId }}", labels: {app: s}}}
    discovery:
      namespace: "{{ .clusterId }}"
      by_selectors: {label_selector: {app: s}}
post:
  payloads:
    - name: status
      build: {observed_generation: {expression: generation}}
  post_actions:
    - name: report
      api_call: {method: PUT, url: "/statuses", body: "{{ .status }}"}
`), 0o600)
	run := func(t *testing.T, ev string, extra ...string) (int, dryRunReport, string, string) {
		args := []string{"dry-run", "-c", filepath.Join(dir, "adapter-config.yaml"), "-t", scoped,
			"--event", ev, "--now", "2026-11-30T10:00:00Z", "--output", "json"}
		code, out, errOut := runCLI(t, append(args, extra...)...)
		var r dryRunReport
		if strings.TrimSpace(out) != "" {
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("report: %v\n%s\n%s", err, out, errOut)
			}
		}
		return code, r, out, errOut
	}
	for _, id := range []string{"*", " ", "a/b", "..", "A", strings.Repeat("a", 64), "x,app!=y", "m4\n"} {
		t.Run("id "+id, func(t *testing.T) {
			_, r, _, errOut := run(t, event(t, id, "2"))
			if len(r.Bundles) == 0 {
				t.Fatalf("no outcomes: %s", errOut)
			}
			for _, b := range r.Bundles {
				if b.State != "failed" || b.Reason != "RenderFailed" {
					t.Errorf("%s: %s/%s %s %s, want failed RenderFailed", b.Name, b.Operation, b.State, b.Reason, b.Error)
				}
			}
			for _, c := range r.KubeCalls {
				t.Errorf("kube call %s %s %s/%s made for id %q", c.Verb, c.Kind, c.Namespace, c.Name, id)
			}
		})
	}
	t.Run("discovery object in namespace *", func(t *testing.T) {
		disc := filepath.Join(t.TempDir(), "discovery.json")
		os.WriteFile(disc, []byte(`{"x":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"m4-settings","namespace":"*"}}}`), 0o600)
		code, _, _, errOut := run(t, event(t, "m4", "2"), "--discovery", disc)
		if code == 0 || !strings.Contains(errOut, `"*"`) {
			t.Errorf("exit %d, stderr %s: want the discovery file refused naming the namespace", code, errOut)
		}
	})
	for _, gen := range []string{"9007199254740993", "9223372036854775807"} {
		t.Run("generation "+gen, func(t *testing.T) {
			code, _, out, errOut := run(t, event(t, "m4", gen))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.Contains(out, `"observed_generation": `+gen) && !strings.Contains(out, `"observed_generation":`+gen) {
				t.Errorf("report does not carry observed_generation %s exactly:\n%s", gen, out)
			}
		})
	}
}
