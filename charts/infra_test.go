package charts

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// hyperfleet-infra's three base adapters install from files in their
// shapes (testdata/hyperfleet-infra, see its README.md) with the helmfile's
// arguments: base values, the adapter's values, and the two --set-files
// (adapterConfig.yaml, adapterTaskConfig.yaml). Each lints (values schema
// included), renders, and the pod's mounted configuration is exactly the
// two files (none of the chart's default onprem files) and passes
// `bundle-adapter validate`. The kubernetes-transport adapters (1, 3, with
// rbac.resources: [configmaps]) get a ClusterRole with the transport's
// verbs on configmaps and the service-account token; the Maestro one (2)
// gets neither (nothing to grant).
func TestHyperFleetInfraAdapters(t *testing.T) {
	helm := helmOrSkip(t)
	dir := filepath.Join("testdata", "hyperfleet-infra")
	cases := []struct {
		adapter string
		rbac    bool
	}{{"adapter1", true}, {"adapter2", false}, {"adapter3", true}}
	for _, c := range cases {
		t.Run(c.adapter, func(t *testing.T) {
			cfgFile := filepath.Join(dir, c.adapter, "adapter-config.yaml")
			taskFile := filepath.Join(dir, c.adapter, "adapter-task-config.yaml")
			args := []string{
				"--values", filepath.Join(dir, "base-values.yaml"),
				"--values", filepath.Join(dir, c.adapter, "values.yaml"),
				"--set-file", "adapterConfig.yaml=" + cfgFile,
				"--set-file", "adapterTaskConfig.yaml=" + taskFile,
			}
			if out, err := run(helm, append([]string{"lint", "--strict", filepath.Join("..", ChartDir)}, args...)...); err != nil {
				t.Fatalf("helm lint: %v\n%s", err, out)
			}
			out, err := Template(helm, "..", c.adapter, "hyperfleet", Case{Name: c.adapter}, args...)
			if err != nil {
				t.Fatalf("helm template: %v", err)
			}
			objs, err := Split(out)
			if err != nil {
				t.Fatal(err)
			}
			checkInfraConfigMaps(t, objs, cfgFile, taskFile)
			checkInfraRBAC(t, objs, c.rbac)
			validateMounted(t, objs)
		})
	}
}

// checkInfraConfigMaps: the adapter config ConfigMap holds the adapter
// config file as given, the task config ConfigMap the task config file and
// nothing else.
func checkInfraConfigMaps(t *testing.T, objs []Object, cfgFile, taskFile string) {
	t.Helper()
	want := map[string]map[string]string{
		"adapter-config":      {"adapter-config.yaml": readFile(t, cfgFile)},
		"adapter-task-config": {"task-config.yaml": readFile(t, taskFile)},
	}
	for _, o := range objs {
		comp := o.Metadata.Labels["app.kubernetes.io/component"]
		w, ok := want[comp]
		if o.Kind != "ConfigMap" || !ok {
			continue
		}
		delete(want, comp)
		var keys []string
		for k := range o.Data {
			keys = append(keys, k)
		}
		for k, content := range w {
			if strings.TrimSpace(o.Data[k]) != strings.TrimSpace(content) {
				t.Errorf("ConfigMap %s: %s is not the --set-file's content:\n%s", o.Metadata.Name, k, o.Data[k])
			}
		}
		if len(keys) != len(w) {
			t.Errorf("ConfigMap %s: keys %v, want only %v (the chart's default files must not be added)", o.Metadata.Name, keys, slices.Collect(mapKeys(w)))
		}
	}
	for comp := range want {
		t.Errorf("no ConfigMap of component %s rendered", comp)
	}
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkInfraRBAC: with grants, one ClusterRole with exactly the transport's
// verbs on configmaps (core group), its binding, and the token mounted by
// the ServiceAccount and the pod; without, no RBAC object and no token.
func checkInfraRBAC(t *testing.T, objs []Object, grants bool) {
	t.Helper()
	var kinds []string
	for _, o := range objs {
		switch {
		case o.Kind == "Deployment" || o.Kind == "ServiceAccount":
			mounted := strings.Contains(string(o.Doc), "automountServiceAccountToken: true")
			if mounted != grants {
				t.Errorf("%s mounts the service-account token: %v, want %v", o.Kind, mounted, grants)
			}
		case strings.HasPrefix(o.APIVersion, "rbac.authorization.k8s.io/"):
			kinds = append(kinds, o.Kind)
			if o.Kind != "ClusterRole" {
				continue
			}
			var role struct {
				Rules []struct {
					APIGroups []string `yaml:"apiGroups"`
					Resources []string `yaml:"resources"`
					Verbs     []string `yaml:"verbs"`
				} `yaml:"rules"`
			}
			if err := yaml.Unmarshal(o.Doc, &role); err != nil {
				t.Fatal(err)
			}
			if len(role.Rules) != 1 || !slices.Equal(role.Rules[0].Resources, []string{"configmaps"}) ||
				!slices.Equal(role.Rules[0].APIGroups, []string{""}) || !slices.Equal(role.Rules[0].Verbs, transportVerbs) {
				t.Errorf("ClusterRole rules %+v, want the transport's verbs %v on configmaps only", role.Rules, transportVerbs)
			}
		}
	}
	slices.Sort(kinds)
	want := []string{"ClusterRole", "ClusterRoleBinding"}
	if !grants {
		want = nil
	}
	if !slices.Equal(kinds, want) {
		t.Errorf("RBAC objects %v, want %v", kinds, want)
	}
}
