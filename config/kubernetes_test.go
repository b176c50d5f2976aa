package config

import (
	"github.com/bundle-adapter/bundle-adapter/celenv"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/task"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
	"path/filepath"
	"strings"
	"testing"
)

func kubeFile(name string) string { return filepath.Join("testdata", "kubernetes", name) }

// Task configs in HyperFleet's kubernetes shapes load unchanged: transport
// client kubernetes or no transport at all (HyperFleet's default), a
// Namespace by name and a Job by label selector from an absolute ref, and
// propagationPolicy meaningful (no warning) on a kubernetes resource.
func TestKubernetesTransportShapesLoad(t *testing.T) {
	tests := []struct {
		name      string
		files     Files
		kube      []bool // IsKubernetes per resource
		policies  []string
		wantNames []string // metadata.name templates' sources, per resource
	}{
		{"charts example shape, kubernetes-only adapter config",
			Files{Adapter: kubeFile("adapter-config.yaml"), Task: kubeFile("namespace-job.yaml")},
			[]bool{true, true}, []string{"Background", "Foreground"}, []string{"ws-{{ .clusterId }}", "probe"}},
		{"wrapped task config, one resource without transport",
			Files{Adapter: kubeFile("adapter-config.yaml"), Task: compatFile("kubernetes-transport.yaml")},
			[]bool{true, true}, []string{"", ""}, []string{"{{ .clusterId }}", "{{ .clusterId }}-config"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Load(tt.files, nil)
			if err != nil {
				t.Fatalf("must load:\n%v", err)
			}
			if w := cfg.Warnings(); len(w) != 0 {
				t.Errorf("want no warnings, got:\n%v", w)
			}
			if len(cfg.Task.Resources) != len(tt.kube) {
				t.Fatalf("%d resources, want %d", len(cfg.Task.Resources), len(tt.kube))
			}
			for i := range cfg.Task.Resources {
				r := &cfg.Task.Resources[i]
				if r.IsKubernetes() != tt.kube[i] {
					t.Errorf("resources[%d].IsKubernetes() = %v, want %v", i, r.IsKubernetes(), tt.kube[i])
				}
				if got := policyOf(r); got != tt.policies[i] {
					t.Errorf("resources[%d] propagation policy %q, want %q", i, got, tt.policies[i])
				}
				if r.WorkName() == nil || r.WorkName().Source() != tt.wantNames[i] {
					t.Errorf("resources[%d] name template = %v, want %q", i, r.WorkName(), tt.wantNames[i])
				}
			}
		})
	}
}

func policyOf(r *task.Resource) string {
	if r.Lifecycle == nil || r.Lifecycle.Delete == nil {
		return ""
	}
	return r.Lifecycle.Delete.PropagationPolicy
}

// What a kubernetes resource cannot run with is refused at load, naming
// file, line and field.
func TestKubernetesTransportErrors(t *testing.T) {
	_, err := LoadTaskConfig(kubeFile("broken.yaml"))
	assertErrors(t, err, []string{
		`broken.yaml:9: resources[0].manifest.metadata.name: is required on a kubernetes resource`,
		`broken.yaml:16: resources[1].discovery: set by_name or by_selectors, not both`,
		`broken.yaml:27: resources[2].lifecycle.recreate: the resource is a Namespace: recreating it deletes everything inside it; set allow_destructive_recreate: true`,
		`broken.yaml:36: resources[3].lifecycle.delete.propagation_policy: must be one of Foreground, Background, Orphan, not "Later"`,
		`broken.yaml:40: resources[4].manifest.kind: is required on a kubernetes resource`,
		`broken.yaml:44: resources[5].transport.client: must be maestro or kubernetes, not "grpc"`,
	})
	if strings.Contains(err.Error(), "has no effect") {
		t.Errorf("propagationPolicy means something on a kubernetes resource:\n%v", err)
	}
}

// allow_destructive_recreate accepts a recreate rule on a Namespace; a
// nested discovery on a kubernetes object finds nothing, as in HyperFleet,
// and says so with a warning.
func TestKubernetesDestructiveRecreateAllowed(t *testing.T) {
	cfg, err := LoadTaskConfig(kubeFile("recreate-allowed.yaml"))
	if err != nil {
		t.Fatalf("must load:\n%v", err)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0].Error(), "recreate-allowed.yaml:12: resources[0].nested_discoveries: finds nothing on a kubernetes resource") {
		t.Errorf("want one warning on nested_discoveries, got %v", cfg.Warnings)
	}
}

// A propagation policy on a Maestro bundle still loads with a warning: the
// ManifestWork's deleteOption governs there.
func TestPropagationPolicyWarnsOnMaestroOnly(t *testing.T) {
	for _, kube := range []bool{false, true} {
		l := configfile.NewErrorList("x.yaml")
		r := task.Resource{Name: "r", Discovery: &task.Discovery{ByName: tmpl.Text{Src: "n"}},
			Lifecycle: &task.Lifecycle{Delete: &task.LifecycleRule{PropagationPolicy: "Orphan", When: &task.When{Expression: &celenv.Expr{Src: "true"}}}}}
		r.Transport = task.Transport{Client: task.TransportMaestro, Maestro: &task.MaestroTransport{TargetCluster: tmpl.Text{Src: "c1"}}}
		if kube {
			r.Transport = task.Transport{Client: task.TransportKubernetes}
		}
		env, _ := celenv.NewEnv(nil)
		task.CompileLifecycle(l, env, &r, "resources[0].lifecycle")
		warned := len(l.Warns) == 1 && strings.Contains(l.Warns[0].Error(), "has no effect on a Maestro bundle")
		if warned == kube {
			t.Errorf("kubernetes=%v: warnings %v", kube, l.Warns)
		}
	}
}

// A kubernetes-only adapter config (no clients.maestro) is refused when a
// resource of the task config uses the maestro transport; clients.kubernetes
// keys load with their values.
func TestKubernetesAdapterConfig(t *testing.T) {
	cfg, err := LoadAdapterConfig(kubeFile("adapter-config.yaml"), nil)
	if err != nil {
		t.Fatalf("must load:\n%v", err)
	}
	k := cfg.Clients.Kubernetes
	if k == nil || k.KubeConfigPath != "/var/run/fixture/kubeconfig" || k.QPS != 25 || k.Burst != 50 || len(cfg.Warnings) != 0 {
		t.Errorf("clients.kubernetes = %+v, warnings %v", k, cfg.Warnings)
	}
	_, err = Load(Files{Adapter: kubeFile("adapter-config.yaml"), Task: filepath.Join("examples", "onprem", "task-config.yaml")}, nil)
	assertErrors(t, err, []string{`adapter-config.yaml: clients.maestro: is required: resources[0] of examples/onprem/task-config.yaml uses the maestro transport`})
}

// HyperFleet checks only the syntax of a param's expression at load: an
// optional param naming a variable that does not exist (its
// dryrun-kubernetes config has one) loads with a warning and takes its
// default at run time. A required param, or a syntax error, still fails.
func TestUndeclaredReferenceInOptionalParam(t *testing.T) {
	cfg, err := LoadTaskConfig(kubeFile("undeclared-optional.yaml"))
	if err != nil {
		t.Fatalf("must load:\n%v", err)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0].Error(), "undeclared-optional.yaml:7: params[1].source.expression: CEL: 1:1: undeclared reference to 'non_existent': the param can never be evaluated") {
		t.Errorf("want one warning naming the param, got %v", cfg.Warnings)
	}
	if cfg.Params[1].Source.Expression.Program == nil {
		t.Error("the expression has no program: every event would fail instead of defaulting")
	}
	_, err = LoadTaskConfig(kubeFile("undeclared-required.yaml"))
	assertErrors(t, err, []string{
		`undeclared-required.yaml:8:20: params[1].source.expression: CEL: 1:1: undeclared reference to 'non_existent'`,
		`undeclared-required.yaml:11:31: params[2].source.expression: CEL:`,
	})
}

// A resource without transport is a kubernetes one, except a ManifestWork
// (inline or by ref): a Maestro config that forgot its transport is
// refused, not applied to the cluster as an object.
func TestManifestWorkWithoutTransportIsRefused(t *testing.T) {
	_, err := LoadTaskConfig(kubeFile(filepath.Join("work-ref", "task.yaml")))
	assertErrors(t, err, []string{`task.yaml:4: resources[0].transport: is required: {client: maestro, maestro: {target_cluster: ...}}`})
}
