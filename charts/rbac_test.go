package charts

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// transportVerbs are the verbs the kubernetes transport sends
// (kubeclient: Get, List, Create, server-side Apply = patch, Delete). No
// watch, no update: granting them would be more than it uses.
var transportVerbs = []string{"get", "list", "create", "patch", "delete"}

// shadowVerbs are what a shadow release (shadow: true) sends: it reads and
// never writes (package shadow).
var shadowVerbs = []string{"get", "list"}

// The RBAC template grants exactly the transport's verbs and says what
// needs it (issue 28 #16: it granted watch and update and said the adapter
// "needs no RBAC"). Read from the template itself: runs without helm.
func TestRBACTemplateVerbs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", ChartDir, "templates", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var src []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src = append(src, b...)
	}
	lines := regexp.MustCompile(`verbs: .*`).FindAllString(string(src), -1)
	if len(lines) == 0 {
		t.Fatal("no verbs in the chart's templates")
	}
	allowed := map[string]bool{
		`"` + strings.Join(transportVerbs, `", "`) + `"`: true,
		`"` + strings.Join(shadowVerbs, `", "`) + `"`:    true,
	}
	for _, line := range lines {
		lists := regexp.MustCompile(`\[([^\]]*)\]`).FindAllStringSubmatch(line, -1)
		if len(lists) == 0 {
			t.Errorf("%s: no verb list", line)
		}
		for _, l := range lists {
			if !allowed[l[1]] {
				t.Errorf("verbs [%s], want exactly the transport's %v or a shadow's %v", l[1], transportVerbs, shadowVerbs)
			}
		}
	}
	if strings.Contains(string(src), "needs no RBAC") {
		t.Error(`the templates still say the adapter "needs no RBAC": the kubernetes transport does`)
	}
}

// Rendered: rbac.create grants the transport's verbs on rbac.resources in
// a ClusterRole only when no namespaces are given; with rbac.namespaces a
// Role and RoleBinding in each, and nothing cluster-wide.
func TestRBACRendered(t *testing.T) {
	helm := helmOrSkip(t)
	cases := []struct {
		name        string
		set         []string
		kinds       []string // Kind/namespace of the RBAC objects rendered
		clusterWide bool
	}{
		{"off", nil, nil, false},
		{"cluster-wide", []string{"rbac.create=true", "rbac.resources={configmaps,jobs}"},
			[]string{"ClusterRole/", "ClusterRoleBinding/"}, true},
		{"namespaced", []string{"rbac.create=true", "rbac.resources={configmaps,jobs}", "rbac.namespaces={tenant-a,tenant-b}"},
			[]string{"Role/tenant-a", "RoleBinding/tenant-a", "Role/tenant-b", "RoleBinding/tenant-b"}, false},
		{"shadow", []string{"shadow=true", "rbac.create=true", "rbac.resources={configmaps,jobs}"},
			[]string{"ClusterRole/", "ClusterRoleBinding/"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var extra []string
			for _, s := range c.set {
				extra = append(extra, "--set", s)
			}
			out, err := Template(helm, "..", "r", "adapters", Case{Name: c.name}, extra...)
			if err != nil {
				t.Fatalf("helm template: %v\n%s", err, out)
			}
			objs, err := Split(out)
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, o := range objs {
				if o.Kind == "Deployment" || o.Kind == "ServiceAccount" {
					// The in-cluster config needs the token the grant is for.
					mounted := strings.Contains(string(o.Doc), "automountServiceAccountToken: true")
					if mounted != (len(c.kinds) > 0) {
						t.Errorf("%s mounts the service account token: %v, want %v (rbac.create)", o.Kind, mounted, len(c.kinds) > 0)
					}
				}
				if !strings.HasPrefix(o.APIVersion, "rbac.authorization.k8s.io/") {
					continue
				}
				kinds = append(kinds, o.Kind+"/"+o.Metadata.Namespace)
				if o.Kind != "Role" && o.Kind != "ClusterRole" {
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
				if len(role.Rules) != 2 {
					t.Errorf("%s: %d rules, want one per resource", o.Kind, len(role.Rules))
				}
				want := transportVerbs
				if c.name == "shadow" {
					want = shadowVerbs
				}
				for _, r := range role.Rules {
					if !slices.Equal(r.Verbs, want) {
						t.Errorf("%s %v: verbs %v, want %v", o.Kind, r.Resources, r.Verbs, want)
					}
				}
			}
			slices.Sort(kinds) // helm orders by kind
			want := slices.Sorted(slices.Values(c.kinds))
			if !slices.Equal(kinds, want) {
				t.Errorf("RBAC objects %v, want %v", kinds, want)
			}
		})
	}
}
