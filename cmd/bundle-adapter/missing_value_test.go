package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// A value that is missing never renders. The adapter1 shape (our fixture of
// hyperfleet-infra's adapter1) with a cluster that has no name, or a null
// one: resource0 uses .clusterName in its data, a label and its discovery
// selector, so it fails with RenderFailed naming .clusterName and the
// template, and nothing is written for it; resource1 and resource2 say
// what to do without a name (default, with) and are created; the status
// says resource0 failed. With a name, all three are created.
func TestMissingValueFailsTheResourceAdapter1(t *testing.T) {
	t.Setenv("NAMESPACE", "hyperfleet")
	dir := filepath.Join("testdata", "hyperfleet-shapes", "adapter1")
	cases := []struct {
		responses, want string
		failed          bool
	}{
		{"api-responses.json", "resource0:create/done resource1:create/done resource2:create/done", false},
		{"api-responses-no-name.json", "resource0:/failed resource1:create/done resource2:create/done", true},
		{"api-responses-null-name.json", "resource0:/failed resource1:create/done resource2:create/done", true},
	}
	for _, c := range cases {
		t.Run(c.responses, func(t *testing.T) {
			code, out, errOut := runCLI(t, "dry-run", "-c", filepath.Join(dir, "adapter-config.yaml"),
				"-t", filepath.Join(dir, "task-config.yaml"), "--event", filepath.Join(dir, "event.json"),
				"--api-responses", filepath.Join(dir, c.responses), "--now", "2026-11-30T10:00:00Z", "--output", "json")
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			if strings.Contains(out, "<no value>") {
				t.Errorf("the report holds <no value>:\n%s", out)
			}
			r := decodeReport(t, out)
			if got := outcomes(r); got != c.want {
				t.Errorf("outcomes %s, want %s", got, c.want)
			}
			var calls struct {
				KubeCalls []struct{ Verb, Kind, Namespace, Name string } `json:"kubeCalls"`
			}
			if err := json.Unmarshal([]byte(out), &calls); err != nil {
				t.Fatal(err)
			}
			for _, k := range calls.KubeCalls {
				if c.failed && strings.HasSuffix(k.Name, "-adapter1-configmap") {
					t.Errorf("a call for the failed resource: %+v", k)
				}
			}
			if !c.failed {
				return
			}
			b := r.Bundles[0]
			for _, w := range []string{"{{ .clusterName }}", "has no value", "task-config.yaml"} {
				if !strings.Contains(b.Error, w) {
					t.Errorf("resource0 error %q does not name %q", b.Error, w)
				}
			}
			if b.Reason != "RenderFailed" {
				t.Errorf("resource0 reason %s, want RenderFailed", b.Reason)
			}
			if conds := statusConditions(t, r); !strings.Contains(conds, "Applied=False") {
				t.Errorf("status conditions %s, want Applied=False", conds)
			}
		})
	}
}

// The same on the Maestro transport: the maestro shape's ManifestWork uses
// .clusterName in a label and in a manifest's data; a cluster without a
// name fails the bundle (RenderFailed, naming .clusterName and the ref
// file) and no Maestro write is made.
func TestMissingValueFailsTheBundleMaestro(t *testing.T) {
	dir := filepath.Join("testdata", "hyperfleet-shapes", "maestro")
	code, out, errOut := runCLI(t, "dry-run", "-c", filepath.Join(dir, "adapter-config.yaml"),
		"-t", filepath.Join(dir, "task-config.yaml"), "--event", filepath.Join(dir, "event.json"),
		"--api-responses", filepath.Join(dir, "api-responses-no-name.json"), "--now", "2026-11-30T10:00:00Z", "--output", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if strings.Contains(out, "<no value>") {
		t.Errorf("the report holds <no value>:\n%s", out)
	}
	r := decodeReport(t, out)
	// The operation reported differs by transport (create on Maestro, none
	// on kubernetes: the lead's one-flow issue); the state and reason agree.
	if len(r.Bundles) != 1 || r.Bundles[0].State != "failed" {
		t.Fatalf("outcomes %s, want shapeWork failed", outcomes(r))
	}
	b := r.Bundles[0]
	for _, w := range []string{"{{ .clusterName }}", "has no value", "manifestwork.yaml"} {
		if !strings.Contains(b.Error, w) {
			t.Errorf("error %q does not name %q", b.Error, w)
		}
	}
	if b.Reason != "RenderFailed" {
		t.Errorf("reason %s, want RenderFailed", b.Reason)
	}
	for _, c := range r.MaestroCalls {
		if c["verb"] != "get" && c["verb"] != "getBundles" {
			t.Errorf("a Maestro write for a failed bundle: %v", c)
		}
	}
}
