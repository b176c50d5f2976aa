package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const ex = "../../config/examples/"

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestValidateExamplesAndBrokenFixtures(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		code    int
		wantErr string
		wantOut string
	}{
		{"onprem", []string{"validate", "--config", ex + "onprem/adapter-config.yaml", "--task-config", ex + "onprem/task-config.yaml", "--broker-config", ex + "onprem/broker.yaml"}, 0, "", "valid: onprem-bundles"},
		{"gcp", []string{"validate", "--config", ex + "gcp/adapter-config.yaml", "--task-config", ex + "gcp/task-config.yaml", "--broker-config", ex + "gcp/broker.yaml"}, 0, "", "valid: gcp-bundles"},
		{"broken", []string{"validate", "--config", ex + "onprem/adapter-config.yaml", "--task-config", "../../config/testdata/broken/unknown-key.yaml"}, 2,
			`unknown-key.yaml:7: resources[0].discovry: unknown field "discovry"`, ""},
		{"missing flags", []string{"validate"}, 2, "--config and --task-config are required", ""},
		{"compat keys warn", []string{"validate", "--config", "../../config/testdata/adapter/compat-keys.yaml", "--task-config", ex + "onprem/task-config.yaml"}, 0,
			"warning: ../../config/testdata/adapter/compat-keys.yaml:14: clients.maestro.client_id: has no effect", "valid: compat"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.wantErr) || !strings.Contains(out, tt.wantOut) {
				t.Errorf("exit %d (want %d)\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
		})
	}
}

// The broker files HyperFleet writes (hyperfleet-adapter's chart for both
// brokers, its test data, Sentinel's chart) pass validate unchanged; keys
// without meaning here are printed as warnings.
func TestValidateHyperFleetBrokerFiles(t *testing.T) {
	const hf = "../../config/testdata/hyperfleet/"
	tests := []struct {
		file, wantErr string
	}{
		{"broker-rabbitmq-chart.yaml", ""},
		{"broker-rabbitmq-full.yaml", "warning: " + hf + "broker-rabbitmq-full.yaml:12: broker.rabbitmq.prefetch_size: is ignored"},
		{"broker-googlepubsub-chart.yaml", "warning: " + hf + "broker-googlepubsub-chart.yaml:13: broker.subscriber:"},
		{"broker-googlepubsub-full.yaml", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			code, out, errOut := runCLI(t, "validate", "--config", ex+"onprem/adapter-config.yaml",
				"--task-config", ex+"onprem/task-config.yaml", "--broker-config", hf+tt.file)
			if code != 0 || !strings.Contains(out, "valid: onprem-bundles") || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
			}
		})
	}
}

func TestConfigDumpRedacts(t *testing.T) {
	code, out, errOut := runCLI(t, "config", "dump", "--config", ex+"onprem/adapter-config.yaml",
		"--task-config", ex+"onprem/task-config.yaml", "--broker-config", ex+"onprem/broker.yaml", "--maestro-source-id", "from-flag")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "guest:guest") || !strings.Contains(out, "REDACTED") || !strings.Contains(out, "source_id: from-flag") {
		t.Errorf("dump:\n%s", out)
	}
}

type report struct {
	Event           map[string]string `json:"event"`
	ExecutionStatus string            `json:"executionStatus"`
	Skipped         bool              `json:"skipped"`
	Bundles         []struct {
		Name, Consumer, WorkName, Operation, State, Reason, Fingerprint, Error string
		PendingSeconds                                                         int64
	} `json:"bundles"`
	MaestroCalls []map[string]string `json:"maestroCalls"`
	APICalls     []struct {
		Method, Path string
		Body         any
	} `json:"apiCalls"`
}

func dryRun(t *testing.T, provider string, extra ...string) (int, report, string) {
	t.Helper()
	args := append([]string{"dry-run", "--config", ex + provider + "/adapter-config.yaml", "--task-config", ex + provider + "/task-config.yaml",
		"--event", ex + provider + "/dryrun/event.json", "--api-responses", ex + provider + "/dryrun/api-responses.json",
		"--now", "2026-11-30T10:00:00Z", "--output", "json"}, extra...)
	code, out, errOut := runCLI(t, args...)
	var r report
	if code == 0 {
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("output is not the JSON contract: %v\n%s", err, out)
		}
	}
	return code, r, errOut
}

// The dry-run contract on the examples: a chain of events through the state
// file creates, then changes nothing.
func TestDryRunChainsEvents(t *testing.T) {
	for _, provider := range []string{"onprem", "gcp"} {
		t.Run(provider, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "state.json")
			code, r, errOut := dryRun(t, provider, "--maestro-state-out", state)
			if code != 0 || r.ExecutionStatus != "success" || len(r.Bundles) != 2 {
				t.Fatalf("first event: exit %d %+v %s", code, r, errOut)
			}
			for _, b := range r.Bundles {
				if b.Operation != "create" || b.State != "done" || len(b.Fingerprint) != 64 {
					t.Errorf("first event: bundle %+v, want create/done with a fingerprint", b)
				}
			}
			if r.Event["id"] == "" || r.Event["type"] != "com.redhat.hyperfleet.cluster.reconcile" {
				t.Errorf("event = %v", r.Event)
			}
			if last := r.APICalls[len(r.APICalls)-1]; last.Method != "PUT" || last.Path != "/api/hyperfleet/v1/clusters/c1/statuses" {
				t.Errorf("last API call = %+v, want the status PUT", last)
			}
			code, r, errOut = dryRun(t, provider, "--maestro-state", state)
			if code != 0 {
				t.Fatalf("second event: exit %d %s", code, errOut)
			}
			if len(r.MaestroCalls) != 1 || r.MaestroCalls[0]["verb"] != "get_bundles" {
				t.Errorf("second identical event: Maestro calls %v, want one read of both bundles and no write", r.MaestroCalls)
			}
		})
	}
}

func TestDryRunExitCodes(t *testing.T) {
	code, _, errOut := dryRun(t, "onprem", "--event", "testdata/not-an-event.json")
	if code != 3 || !strings.Contains(errOut, "not-an-event.json") || !strings.Contains(errOut, "id") {
		t.Errorf("invalid event: exit %d, stderr %s", code, errOut)
	}
	code, _, errOut = runCLI(t, "dry-run", "--config", ex+"onprem/adapter-config.yaml", "--task-config", "../../config/testdata/broken/bad-cel.yaml",
		"--event", ex+"onprem/dryrun/event.json")
	if code != 2 || !strings.Contains(errOut, "bad-cel.yaml:5") {
		t.Errorf("invalid config: exit %d, stderr %s", code, errOut)
	}
	// An unregistered consumer is a processed event with a clear error: exit 0.
	code, r, errOut := dryRun(t, "onprem", "--maestro-state", "testdata/state-unregistered.json")
	if code != 0 || r.ExecutionStatus != "failed" {
		t.Fatalf("unregistered consumer: exit %d %+v %s", code, r, errOut)
	}
	if b := r.Bundles[0]; b.Reason != "ConsumerNotRegistered" || !strings.Contains(b.Error, "cluster1") {
		t.Errorf("bundle = %+v, want ConsumerNotRegistered naming cluster1", b)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, "version")
	if code != 0 || !strings.HasPrefix(out, "bundle-adapter ") {
		t.Errorf("version: %d %q", code, out)
	}
}

func TestMain(m *testing.M) {
	if os.Getenv(execCLIEnv) == "1" { // the test binary run as the CLI (execCLI)
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Unsetenv("MAESTRO_CONSUMER")
	os.Exit(m.Run())
}

// HyperFleet adapter's command line works as it is: -c/-t, config-dump,
// its flag names, and its config-path variables.
func TestHyperFleetCommandLine(t *testing.T) {
	onprem := []string{"-c", ex + "onprem/adapter-config.yaml", "-t", ex + "onprem/task-config.yaml"}
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		wantOut string
	}{
		{"config-dump with -c -t", nil, append([]string{"config-dump"}, onprem...), "source_id: onprem-bundles"},
		{"its API flag", nil, append([]string{"config-dump", "--hyperfleet-api-base-url", "http://api.example:9000"}, onprem...), "base_url: http://api.example:9000"},
		{"its TLS flag", nil, append([]string{"config-dump", "--maestro-ca-file", "/certs/ca.crt"}, onprem...), "ca_file: /certs/ca.crt"},
		{"its config-path variables", map[string]string{"HYPERFLEET_ADAPTER_CONFIG": ex + "onprem/adapter-config.yaml",
			"HYPERFLEET_TASK_CONFIG": ex + "onprem/task-config.yaml"}, []string{"validate"}, "valid: onprem-bundles"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			code, out, errOut := runCLI(t, tt.args...)
			if code != 0 || !strings.Contains(out, tt.wantOut) {
				t.Errorf("exit %d, want 0 and %q\nstdout: %s\nstderr: %s", code, tt.wantOut, out, errOut)
			}
		})
	}
}
