package charts

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"gopkg.in/yaml.v3"
)

// helmOrSkip returns the cached helm binary, or skips (fails when
// REQUIRE_HELM=1) when hack/helm.sh build has not run.
func helmOrSkip(t *testing.T) string {
	t.Helper()
	helm, err := Helm("..")
	if err != nil {
		if os.Getenv("REQUIRE_HELM") == "1" {
			t.Fatal(err)
		}
		t.Skipf("%v (REQUIRE_HELM=1 makes this a failure)", err)
	}
	return helm
}

var (
	adapterOnce sync.Once
	adapterBin  string
	adapterErr  error
)

// adapter builds the adapter binary once per test run.
func adapter(t *testing.T) string {
	t.Helper()
	adapterOnce.Do(func() {
		dir, err := os.MkdirTemp("", "bundle-adapter-charts")
		if err != nil {
			adapterErr = err
			return
		}
		adapterBin = filepath.Join(dir, "bundle-adapter")
		out, err := exec.Command("go", "build", "-o", adapterBin, "../cmd/bundle-adapter").CombinedOutput()
		if err != nil {
			adapterErr = err
			adapterBin = string(out)
		}
	})
	if adapterErr != nil {
		t.Fatalf("building the adapter: %v\n%s", adapterErr, adapterBin)
	}
	return adapterBin
}

// TestChart lints and renders the chart with its defaults and with each
// ci/*.yaml values file, then checks what was rendered: the Pod Security
// `restricted` settings of every container, and the configuration the pod
// would mount (ConfigMaps placed where the Deployment mounts them, paths
// from its command line and environment) validated by the adapter's own
// `validate` command with the Deployment's environment. The server-side dry
// run of the same objects is e2e/deploy_test.go's.
func TestChart(t *testing.T) {
	helm := helmOrSkip(t)
	cases, err := Cases("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if out, err := Lint(helm, "..", c); err != nil {
				t.Fatalf("helm lint: %v", err)
			} else {
				t.Logf("helm lint:\n%s", out)
			}
			// With the monitoring CRDs announced, so the ServiceMonitor and
			// the PrometheusRule render where the values ask for them.
			out, err := Template(helm, "..", "ci", "bundle-adapter", c,
				"--api-versions", "monitoring.coreos.com/v1/ServiceMonitor",
				"--api-versions", "monitoring.coreos.com/v1/PrometheusRule")
			if err != nil {
				t.Fatalf("helm template: %v", err)
			}
			objs, err := Split(out)
			if err != nil {
				t.Fatalf("rendered YAML: %v", err)
			}
			var kinds []string
			for _, o := range objs {
				kinds = append(kinds, o.Kind+"/"+o.Metadata.Name)
				if o.Kind == "PrometheusRule" {
					checkPrometheusRule(t, o)
				}
			}
			t.Logf("rendered: %s", strings.Join(kinds, " "))
			checkRestricted(t, objs)
			validateMounted(t, objs)
		})
	}
}

// checkRestricted fails when a container of the Deployment lacks a setting
// Pod Security `restricted` requires (the API server warns too; this says so
// without one).
func checkRestricted(t *testing.T, objs []Object) {
	t.Helper()
	for _, o := range objs {
		if o.Kind != "Deployment" {
			continue
		}
		var d struct {
			Spec struct {
				Template struct {
					Spec struct {
						SecurityContext map[string]any `yaml:"securityContext"`
						Containers      []struct {
							Name            string `yaml:"name"`
							SecurityContext struct {
								AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
								ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
								RunAsNonRoot             *bool `yaml:"runAsNonRoot"`
								Capabilities             struct {
									Drop []string `yaml:"drop"`
								} `yaml:"capabilities"`
								SeccompProfile struct {
									Type string `yaml:"type"`
								} `yaml:"seccompProfile"`
							} `yaml:"securityContext"`
						} `yaml:"containers"`
					} `yaml:"spec"`
				} `yaml:"template"`
			} `yaml:"spec"`
		}
		if err := yaml.Unmarshal(o.Doc, &d); err != nil {
			t.Fatal(err)
		}
		pod := d.Spec.Template.Spec
		if pod.SecurityContext["runAsNonRoot"] != true {
			t.Errorf("Deployment %s: pod securityContext.runAsNonRoot is not true", o.Metadata.Name)
		}
		for _, c := range pod.Containers {
			sc := c.SecurityContext
			switch {
			case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
				t.Errorf("container %s: allowPrivilegeEscalation must be false", c.Name)
			case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
				t.Errorf("container %s: readOnlyRootFilesystem must be true", c.Name)
			case len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL":
				t.Errorf("container %s: capabilities must drop ALL", c.Name)
			case sc.SeccompProfile.Type != "RuntimeDefault":
				t.Errorf("container %s: seccompProfile must be RuntimeDefault", c.Name)
			}
		}
	}
}

// checkPrometheusRule checks that the PrometheusRule's spec is a rule file
// Prometheus' parser accepts (TestAlertRules checks the defaults' further).
func checkPrometheusRule(t *testing.T, o Object) {
	t.Helper()
	var pr struct {
		Spec yaml.Node `yaml:"spec"`
	}
	if err := yaml.Unmarshal(o.Doc, &pr); err != nil {
		t.Fatal(err)
	}
	b, err := yaml.Marshal(&pr.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, errs := rulefmt.Parse(b, false, model.UTF8Validation); len(errs) > 0 {
		t.Errorf("PrometheusRule %s: %v", o.Metadata.Name, errs)
	}
}

// validateMounted runs `bundle-adapter validate` on the files the rendered
// Deployment mounts, with its environment.
func validateMounted(t *testing.T, objs []Object) {
	t.Helper()
	out, ok, err := Validate(adapter(t), objs, t.TempDir())
	switch {
	case err != nil:
		t.Error(err)
	case !ok:
		t.Log("no adapter-config ConfigMap rendered (made elsewhere): nothing to validate")
	default:
		t.Logf("bundle-adapter validate: %s", bytes.TrimSpace(out))
	}
}

// TestExamplesMatchConfig checks that the chart's copies of the examples
// (a chart can only package files under its own folder) are the files of
// config/examples.
func TestExamplesMatchConfig(t *testing.T) {
	root := filepath.Join("bundle-adapter", "examples")
	n := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		got, _ := os.ReadFile(p)
		want, err := os.ReadFile(filepath.Join("..", "config", "examples", rel))
		if err != nil {
			t.Errorf("%s: no config/examples/%s to match", p, rel)
			return nil
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from config/examples/%s: copy it again (cp config/examples/%s %s)", p, rel, rel, p)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no example files in the chart")
	}
}
