package charts

import (
	"path/filepath"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/bundle-adapter/bundle-adapter/internal/secret"
	"github.com/bundle-adapter/bundle-adapter/tracing"
)

// The chart renders hyperfleet-adapter's monitoring.tracing values as its
// chart does, and the adapter reads that environment as the values mean.
func TestTracingValuesReachTheAdapter(t *testing.T) {
	helm := helmOrSkip(t)
	tests := []struct {
		values string // "" for the defaults
		want   tracing.Config
	}{
		{values: "", want: tracing.Config{ServiceName: "adapter"}},
		{values: "googlepubsub-values", want: tracing.Config{Enabled: true, ServiceName: "gcp-validator",
			Endpoint: secret.NewURL("http://otel-collector:4317"), Protocol: tracing.ProtocolGRPC, Sampler: "parentbased_traceidratio", SamplerArg: 0.1}},
	}
	for _, tt := range tests {
		t.Run("values "+tt.values, func(t *testing.T) {
			c := Case{Name: "defaults"}
			if tt.values != "" {
				c = Case{Name: tt.values, Values: filepath.Join("..", ChartDir, "ci", tt.values+".yaml")}
			}
			env := adapterEnv(t, helm, c)
			got, warns := tracing.FromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }, "adapter", "")
			if len(warns) > 0 {
				t.Errorf("warnings: %q", warns)
			}
			if got.Enabled != tt.want.Enabled || got.ServiceName != tt.want.ServiceName || got.Endpoint.Reveal() != tt.want.Endpoint.Reveal() ||
				got.Enabled && (got.Protocol != tt.want.Protocol || got.Sampler != tt.want.Sampler || got.SamplerArg != tt.want.SamplerArg) {
				t.Errorf("FromEnv(rendered env) = %+v, want %+v (env %v)", got, tt.want, env)
			}
			if tt.want.Enabled && env["OTEL_RESOURCE_ATTRIBUTES"] != "k8s.namespace.name=$(K8S_NAMESPACE)" {
				t.Errorf("OTEL_RESOURCE_ATTRIBUTES = %q", env["OTEL_RESOURCE_ATTRIBUTES"])
			}
		})
	}
}

// adapterEnv renders the chart and returns the adapter container's
// variables that have a value.
func adapterEnv(t *testing.T, helm string, c Case) map[string]string {
	t.Helper()
	out, err := Template(helm, "..", "ci", "bundle-adapter", c)
	if err != nil {
		t.Fatalf("helm template: %v", err)
	}
	objs, err := Split(out)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, o := range objs {
		if o.Kind != "Deployment" {
			continue
		}
		var d struct {
			Spec struct {
				Template struct {
					Spec struct {
						Containers []struct {
							Name string `yaml:"name"`
							Env  []struct{ Name, Value string }
						} `yaml:"containers"`
					} `yaml:"spec"`
				} `yaml:"template"`
			} `yaml:"spec"`
		}
		if err := yaml.Unmarshal(o.Doc, &d); err != nil {
			t.Fatal(err)
		}
		for _, ctr := range d.Spec.Template.Spec.Containers {
			for _, e := range ctr.Env {
				if ctr.Name == "adapter" && e.Value != "" {
					env[e.Name] = e.Value
				}
			}
		}
	}
	return env
}
