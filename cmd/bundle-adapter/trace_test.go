package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateTrace = flag.Bool("update-trace", false, "rewrite testdata/trace/*.json from what dry-run --trace prints now")

const (
	onprem     = ex + "onprem/"
	traceNow   = "2026-12-01T00:00:00Z"
	traceDir   = "testdata/trace/"
	secretTask = traceDir + "secret/"
)

// onpremDryRun is dry-run of the onprem example's dryrun/ event and API
// answers, with extra flags.
func onpremDryRun(extra ...string) []string {
	return append([]string{"dry-run", "--config", onprem + "adapter-config.yaml", "--task-config", onprem + "task-config.yaml",
		"--event", onprem + "dryrun/event.json", "--api-responses", onprem + "dryrun/api-responses.json", "--now", traceNow}, extra...)
}

// The trace of the onprem example shows every param with its value and
// source, the precondition's result, each bundle's discovery, rule,
// decision and rendered ManifestWork (as YAML in text), and the status
// body; without --trace none of it is printed. serve --dry-run-verbose is
// the same trace.
func TestTraceOnprem(t *testing.T) {
	unsetOnpremEnv(t)
	serve := []string{"serve", "--config", onprem + "adapter-config.yaml", "--task-config", onprem + "task-config.yaml",
		"--dry-run-event", onprem + "dryrun/event.json", "--dry-run-api-responses", onprem + "dryrun/api-responses.json"}
	everything := []string{
		"trace:",
		`clusterId      = "c1"  <- event.id`,
		`generation     = 1  <- event.generation`,
		`consumer       = "cluster1" (default)  <- env.MAESTRO_CONSUMER`,
		`validatorImage = "registry.access.redhat.com/ubi9/ubi-minimal:latest" (default)  <- env.VALIDATOR_IMAGE`,
		`cluster        = {"generation":1,"id":"c1","kind":"Cluster","name":"demo-cluster","spec":{"region":"onprem-1"},"status":{"conditions":[]}}  <- api_call GET /clusters/{{ .clusterId }}`,
		`clusterName    = "demo-cluster"  <- expression cluster.?name.orValue(clusterId)`,
		`is_deleting    = false  <- expression cluster.?deleted_time.hasValue()`,
		"    clusterKnown: met\n",
		"  generation: event 1, API 1 (cluster): current\n",
		"    clusterSetup (maestro, consumer cluster1, work c1-setup)\n      discovered: absent\n      rule lifecycle.delete.when = false\n      decision: create (row absent), write create, desired fingerprint ",
		"    validationJob (maestro, consumer cluster1, work c1-validation)\n      discovered: absent\n",
		"      rendered:\n        apiVersion: work.open-cluster-management.io/v1\n        kind: ManifestWork\n",
		"                  name: cluster-c1\n",
		"                          image: registry.access.redhat.com/ubi9/ubi-minimal:latest\n",
		"  payloads:\n    status:\n      adapter: onprem-bundles\n",
	}
	tests := []struct {
		name    string
		args    []string
		want    []string
		notWant []string
	}{
		{name: "dry-run --trace", args: onpremDryRun("--trace"), want: everything},
		{name: "serve --dry-run-verbose", args: append(serve, "--dry-run-verbose"), want: everything},
		{name: "dry-run without --trace", args: onpremDryRun(), notWant: []string{"trace:", "validatorImage", "kind: ManifestWork"}},
		{name: "test --trace", args: []string{"test", "--trace", onprem + "task-config_test.yaml"}, want: []string{
			`=== ` + onprem + `task-config_test.yaml: case "create", step 1 (create): event 6f1c2a9e-0b7d-4c1e-9a53-3f1f7f0d9e11: success`,
			"      rule lifecycle.recreate.when = true\n      decision: recreate (row recreate.when), write recreate",
			"      decision: recreate (row deleting), write none",
			"      decision: unchanged (row fingerprint-equal), write none",
			"      decision: delete (row delete.when), write delete",
			"kind: ManifestWork",
		}},
		{name: "test without --trace", args: []string{"test", onprem + "task-config_test.yaml"}, notWant: []string{"trace:", "==="}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s%s", code, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}
		})
	}
}

// unsetOnpremEnv empties the variables the onprem example reads: their
// params take their defaults (an empty value does), whatever the
// environment of the test holds.
func unsetOnpremEnv(t *testing.T) {
	t.Setenv("MAESTRO_CONSUMER", "")
	t.Setenv("VALIDATOR_IMAGE", "")
}

// The JSON trace of the onprem example is testdata/trace/onprem.json: its
// keys are a contract (docs/configuration.md, "Trace"), and the values
// show every param, precondition and rendered object.
func TestTraceJSONGolden(t *testing.T) {
	unsetOnpremEnv(t)
	code, out, errOut := runCLI(t, onpremDryRun("--trace", "--output", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	var report struct {
		Trace json.RawMessage `json:"trace"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := json.Indent(&got, report.Trace, "", "  "); err != nil {
		t.Fatal(err)
	}
	got.WriteByte('\n')
	path := filepath.Join(traceDir, "onprem.json")
	if *updateTrace {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("the trace differs from %s (go test -run TestTraceJSONGolden -update-trace rewrites it); got:\n%s", path, got.String())
	}
}

// A param that reads a secret (an env variable named like a token, a
// default_headers value of the adapter config, an expression or a path
// over one) shows REDACTED, and its value appears nowhere in the trace:
// not in the rendered bundle, not in the status payload, in text or JSON.
func TestTraceRedactsSecrets(t *testing.T) {
	t.Setenv("API_TOKEN", "S3CRET-env-token-9a1")
	base := []string{"dry-run", "--config", secretsDir + "adapter-config.yaml", "--task-config", secretTask + "task-config.yaml",
		"--event", secretTask + "event.json", "--now", traceNow, "--trace"}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{name: "text", args: base, want: []string{
			"apiToken   = REDACTED (secret)  <- env.API_TOKEN",
			"authHeader = REDACTED (secret)  <- config.clients.hyperfleet_api.default_headers.Authorization",
			"bearer     = REDACTED (secret)  <- expression",
			"tokenAgain = REDACTED (secret)  <- apiToken",
			`tenant     = "tenant-a" (default)  <- env.TENANT`,
			"token: REDACTED", "header: REDACTED", "note: token REDACTED used",
		}},
		{name: "json", args: append(base, "--output", "json"), want: []string{
			`"name": "apiToken",`, `"value": "REDACTED",`, `"redacted": true,`, `"token": "REDACTED"`, `"note": "token REDACTED used"`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s%s", code, out, errOut)
			}
			if strings.Contains(out+errOut, "S3CRET") {
				t.Errorf("a secret is printed:\n%s%s", out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// Each precondition that ran shows its result and the values its captures
// bound: met with the gcp example's answer, not met (with the skip
// reason's details, and no resource reached) when the cluster has no name.
func TestTracePreconditions(t *testing.T) {
	gcp := ex + "gcp/"
	noName := filepath.Join(t.TempDir(), "api-responses.json")
	if err := os.WriteFile(noName, []byte(`{"GET /api/hyperfleet/v1/clusters/c1": {"status": 200, "body": {"id": "c1"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, answers string
		want          []string
	}{
		{name: "met", answers: gcp + "dryrun/api-responses.json", want: []string{
			"    clusterStatus: met\n      captured clusterName = \"demo-gcp\"\n      captured region = \"europe-west1\"\n      captured is_deleting = false\n",
		}},
		{name: "not met", answers: noName, want: []string{
			"    clusterStatus: not met: clusterName exists  (actual: <nil>)\n      captured clusterName = null\n",
			"  resources: none\n",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GCP_MAESTRO_CONSUMER", "")
			code, out, errOut := runCLI(t, "dry-run", "--config", gcp+"adapter-config.yaml", "--task-config", gcp+"task-config.yaml",
				"--event", gcp+"dryrun/event.json", "--api-responses", tt.answers, "--now", traceNow, "--trace")
			if code != 0 {
				t.Fatalf("exit %d: %s%s", code, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
