package config

import (
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"path/filepath"
	"strings"
	"testing"
)

func compatFile(name string) string { return filepath.Join("testdata", "hyperfleet", "compat", name) }

// discovery.namespace is a template checked at load like any other; on the
// bundle's own discovery it means nothing and loads with a warning.
func TestDiscoveryNamespaceIsATemplate(t *testing.T) {
	_, err := LoadTaskConfig(compatFile("discovery-namespace.yaml"))
	assertErrors(t, err, []string{
		`discovery-namespace.yaml:18: resources[0].nested_discoveries[1].discovery.namespace: template uses .nope`,
	})
	if strings.Contains(err.Error(), "nested_discoveries[0]") {
		t.Errorf("a templated namespace naming a param must load:\n%v", err)
	}
}

// A single-file config from before HyperFleet adapter v0.1.0, passed as both
// files, gets one error saying what to do, not a list of unrelated "unknown
// field" and "is required" lines. (A Kubernetes-transport task config
// loads: TestKubernetesTransportShapesLoad.)
func TestLegacyShapesGetOneError(t *testing.T) {
	legacy := compatFile("legacy-single-file.yaml")
	adapterOK := filepath.Join("examples", "onprem", "adapter-config.yaml")
	taskOK := filepath.Join("examples", "onprem", "task-config.yaml")
	tests := []struct {
		name  string
		files Files
		want  string
	}{
		{"single file as both", Files{Adapter: legacy, Task: legacy},
			`legacy-single-file.yaml:10: this is a single-file adapter config from before HyperFleet adapter v0.1.0 (hyperfleetApi, kubernetes, params, resources at the top level): split it in two`},
		{"single file as the adapter config", Files{Adapter: legacy, Task: taskOK},
			`legacy-single-file.yaml:10: this is a single-file adapter config from before HyperFleet adapter v0.1.0`},
		{"single file as the task config", Files{Adapter: adapterOK, Task: legacy},
			`legacy-single-file.yaml:8: this is a single-file adapter config from before HyperFleet adapter v0.1.0 (adapter, hyperfleetApi, kubernetes beside the task keys)`},
		{"task config as the adapter config", Files{Adapter: compatFile("task-as-adapter-config.yaml"), Task: taskOK},
			`task-as-adapter-config.yaml:7: this is a task config (params, post), not an adapter config: pass it with --task-config (-t)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.files, nil)
			es, _ := err.(configfile.Errors)
			if len(es) != 1 || !strings.Contains(es[0].Error(), tt.want) {
				t.Errorf("want exactly one error containing %q, got %d:\n%v", tt.want, len(es), err)
			}
		})
	}
}

// auth.type: none is HyperFleet's spelling of no client authentication: the
// same as leaving it empty (plaintext needs insecure: true).
func TestMaestroAuthNone(t *testing.T) {
	cfg, err := LoadAdapterConfig(compatFile("maestro-auth-none.yaml"), nil)
	if err != nil {
		t.Fatalf("auth.type none with insecure: true must load:\n%v", err)
	}
	if cfg.Clients.Maestro.Keepalive.Time.D().Seconds() != 30 || len(cfg.Warnings) != 0 {
		t.Errorf("keepalive = %+v, warnings %v", cfg.Clients.Maestro.Keepalive, cfg.Warnings)
	}
	t.Setenv("HYPERFLEET_MAESTRO_INSECURE", "false")
	_, err = LoadAdapterConfig(compatFile("maestro-auth-none.yaml"), nil)
	assertErrors(t, err, []string{`maestro-auth-none.yaml:11: clients.maestro.auth.type: set auth.type: tls, or insecure: true`})
}

// lifecycle.delete.propagationPolicy means nothing for a Maestro bundle, in
// HyperFleet's adapter as here: it loads with a warning that says so.
func TestPropagationPolicyWarns(t *testing.T) {
	task, err := LoadTaskConfig("testdata/hyperfleet/task-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, w := range task.Warnings {
		if strings.Contains(w.Error(), "task-config.yaml:84: resources[0].lifecycle.delete.propagation_policy: has no effect on a Maestro bundle") {
			found = true
		}
	}
	if !found {
		t.Errorf("want a warning on lifecycle.delete.propagation_policy at line 84, got %v", task.Warnings)
	}
}
