package e2e

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/bundle-adapter/bundle-adapter/charts"
)

// chartPod is the adapter container of the chart's Deployment, rendered
// with the chart's defaults and the HyperFleet API token enabled: what the
// image test runs the container as.
type chartPod struct {
	Command, Args []string
	Env           map[string]string // plain values only
	Mounts        []chartMount
	// PodSecurity and Security are the pod's and the container's
	// securityContext, as rendered.
	PodSecurity, Security map[string]any
}

type chartMount struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
	SubPath   string `yaml:"subPath"`
	ReadOnly  bool   `yaml:"readOnly"`
}

// renderChartPod renders the chart with helm (hack/helm.sh builds it;
// hack/e2e.sh does so first). It skips when helm is not built, unless
// REQUIRE_IMAGE=1.
func renderChartPod(t *testing.T) chartPod {
	t.Helper()
	helm, err := charts.Helm("..")
	if err != nil {
		if os.Getenv("REQUIRE_IMAGE") == "1" {
			t.Fatalf("%v (hack/e2e.sh runs hack/helm.sh build)", err)
		}
		t.Skipf("the chart cannot be rendered: %v (hack/e2e.sh runs hack/helm.sh build)", err)
	}
	out, err := charts.Template(helm, "..", "image-e2e", "bundle-adapter", charts.Case{Name: "defaults"},
		"--set", "adapterConfig.hyperfleetApi.auth.enabled=true")
	if err != nil {
		t.Fatalf("helm template: %v", err)
	}
	objs, err := charts.Split(out)
	if err != nil {
		t.Fatal(err)
	}
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
							Name            string         `yaml:"name"`
							Command         []string       `yaml:"command"`
							Args            []string       `yaml:"args"`
							SecurityContext map[string]any `yaml:"securityContext"`
							VolumeMounts    []chartMount   `yaml:"volumeMounts"`
							Env             []struct {
								Name  string  `yaml:"name"`
								Value *string `yaml:"value"`
							} `yaml:"env"`
						} `yaml:"containers"`
					} `yaml:"spec"`
				} `yaml:"template"`
			} `yaml:"spec"`
		}
		if err := yaml.Unmarshal(o.Doc, &d); err != nil {
			t.Fatal(err)
		}
		spec := d.Spec.Template.Spec
		for _, c := range spec.Containers {
			if c.Name != "adapter" {
				continue
			}
			p := chartPod{Command: c.Command, Args: c.Args, Env: map[string]string{}, Mounts: c.VolumeMounts,
				PodSecurity: spec.SecurityContext, Security: c.SecurityContext}
			for _, e := range c.Env {
				if e.Value != nil {
					p.Env[e.Name] = *e.Value
				}
			}
			return p
		}
	}
	t.Fatal("the chart renders no Deployment with an adapter container")
	return chartPod{}
}

// securityFlags turns the pod's and the container's securityContext into
// `podman run` flags that give the container the same settings; the
// container's value wins for a field both set, as in Kubernetes. A field it
// does not know, or a value it cannot give, is an error: a new setting in
// the chart fails the image test until it is mapped here, so the container
// the test runs and the chart's pod cannot drift apart.
func securityFlags(pod, container map[string]any) ([]string, error) {
	merged := map[string]any{}
	for k, v := range pod {
		merged[k] = v
	}
	for k, v := range container {
		merged[k] = v
	}
	user, group := merged["runAsUser"], merged["runAsGroup"]
	if user == nil || group == nil {
		return nil, fmt.Errorf("runAsUser and runAsGroup must both be set (the container's --user), got %v and %v", user, group)
	}
	flags := []string{"--user", fmt.Sprintf("%v:%v", user, group)}
	var errs []string
	keys := make([]string, 0, len(merged))
	for k := range merged {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := merged[k]
		switch k {
		case "runAsUser", "runAsGroup":
		case "runAsNonRoot":
			if v == true && fmt.Sprint(user) == "0" {
				errs = append(errs, "runAsNonRoot with runAsUser 0")
			}
		case "fsGroup":
			flags = append(flags, "--group-add", fmt.Sprint(v))
		case "supplementalGroups":
			groups, _ := v.([]any)
			for _, g := range groups {
				flags = append(flags, "--group-add", fmt.Sprint(g))
			}
		case "allowPrivilegeEscalation":
			if v == false {
				flags = append(flags, "--security-opt", "no-new-privileges")
			}
		case "privileged":
			if v == true {
				flags = append(flags, "--privileged")
			}
		case "readOnlyRootFilesystem":
			// The chart's writable paths are its volumes (/tmp): no tmpfs of
			// podman's own.
			if v == true {
				flags = append(flags, "--read-only", "--read-only-tmpfs=false")
			}
		case "capabilities":
			caps, _ := v.(map[string]any)
			for ck := range caps {
				if ck != "drop" && ck != "add" {
					errs = append(errs, "capabilities."+ck)
				}
			}
			for _, ck := range []string{"drop", "add"} {
				list, _ := caps[ck].([]any)
				for _, c := range list {
					flags = append(flags, "--cap-"+ck, fmt.Sprint(c))
				}
			}
		case "seccompProfile":
			sp, _ := v.(map[string]any)
			switch sp["type"] {
			case "RuntimeDefault": // podman's default profile
			case "Unconfined":
				flags = append(flags, "--security-opt", "seccomp=unconfined")
			default:
				errs = append(errs, fmt.Sprintf("seccompProfile %v", sp))
			}
		default:
			errs = append(errs, k)
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("securityContext settings with no podman flag here: %s", strings.Join(errs, ", "))
	}
	return flags, nil
}

// The container the image test runs gets exactly the chart pod's security
// settings: non-root 65532, no capabilities, no privilege escalation, a
// read-only root filesystem, the runtime's default seccomp profile.
func TestImageSecurityIsTheChartPods(t *testing.T) {
	p := renderChartPod(t)
	got, err := securityFlags(p.PodSecurity, p.Security)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--user", "65532:65532", "--security-opt", "no-new-privileges", "--cap-drop", "ALL",
		"--group-add", "65532", "--read-only", "--read-only-tmpfs=false"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("podman flags from the chart's securityContext:\n got %q\nwant %q", got, want)
	}
}

// securityFlags refuses what it cannot give the container, so the test
// cannot quietly run a container laxer than the pod.
func TestSecurityFlagsRefuseUnmapped(t *testing.T) {
	base := map[string]any{"runAsUser": 65532, "runAsGroup": 65532}
	tests := []struct {
		name      string
		container map[string]any
		want      string
	}{
		{"unknown field", map[string]any{"procMount": "Unmasked"}, "procMount"},
		{"root with runAsNonRoot", map[string]any{"runAsUser": 0, "runAsNonRoot": true}, "runAsNonRoot"},
		{"localhost seccomp profile", map[string]any{"seccompProfile": map[string]any{"type": "Localhost"}}, "seccompProfile"},
		{"unknown capabilities key", map[string]any{"capabilities": map[string]any{"ambient": []any{"NET_RAW"}}}, "capabilities.ambient"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			flags, err := securityFlags(base, tt.container)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("securityFlags = %q, %v; want an error naming %s", flags, err, tt.want)
			}
		})
	}
	if _, err := securityFlags(map[string]any{"runAsUser": 1}, nil); err == nil {
		t.Error("no runAsGroup: want an error")
	}
}
