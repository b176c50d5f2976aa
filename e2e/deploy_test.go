package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/charts"
)

// deployNamespace is where the chart's objects are dry-run applied: Pod
// Security `restricted`, enforced and warned.
const deployNamespace = "bundle-adapter-chart"

// TestChartDeploys renders the Helm chart (charts/bundle-adapter) with the
// helm binary hack/helm.sh builds (hack/e2e.sh builds it first), with the
// chart's defaults and with every ci/*.yaml values file, and applies each
// rendering to the local stack's API server with
// `kubectl apply --server-side --dry-run=server --validate=strict`. Any
// error or warning fails the test: the namespace is labelled pod-security
// enforce=restricted and warn=restricted, so a pod template that breaks the
// restricted profile warns. The namespace itself is applied for real
// (namespaced objects cannot be dry-run into a namespace that does not
// exist) and left in place. Each rendering is also linted (helm lint
// --strict) and its mounted configuration validated by the adapter
// (`bundle-adapter validate` with the Deployment's environment).
func TestChartDeploys(t *testing.T) {
	st := requireStack(t)
	kubectl := os.Getenv("KUBECTL")
	if kubectl == "" {
		t.Fatal(`KUBECTL is not set: eval "$(hack/stack.sh env)"`)
	}
	helm, err := charts.Helm("..")
	if err != nil {
		t.Fatalf("%v (hack/e2e.sh runs hack/helm.sh build)", err)
	}
	cases, err := charts.Cases("..")
	if err != nil {
		t.Fatal(err)
	}

	run := func(t *testing.T, args ...string) {
		t.Helper()
		cmd := exec.Command(kubectl, args...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+st.kubeconfig)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err != nil || strings.Contains(stderr.String(), "Warning") {
			t.Errorf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
			return
		}
		t.Logf("kubectl %s:\n%s", strings.Join(args, " "), strings.TrimSpace(stdout.String()))
	}
	apply := []string{"apply", "--server-side", "--field-manager=bundle-adapter-e2e", "--validate=strict"}

	nsFile := filepath.Join(t.TempDir(), "namespace.yaml")
	ns := `apiVersion: v1
kind: Namespace
metadata:
  name: ` + deployNamespace + `
  labels:
    pod-security.kubernetes.io/enforce: restricted
    pod-security.kubernetes.io/warn: restricted
`
	if err := os.WriteFile(nsFile, []byte(ns), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, append(apply, "-f", nsFile)...)
	if t.Failed() {
		t.Fatalf("namespace %s could not be created", deployNamespace)
	}

	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if out, err := charts.Lint(helm, "..", c); err != nil {
				t.Errorf("helm lint: %v", err)
			} else {
				t.Logf("helm lint:\n%s", bytes.TrimSpace(out))
			}
			release := "e2e-" + c.Name
			out, err := charts.Template(helm, "..", release, deployNamespace, c)
			if err != nil {
				t.Fatalf("helm template: %v", err)
			}
			objs, err := charts.Split(out)
			if err != nil {
				t.Fatalf("rendered YAML: %v", err)
			}
			for _, o := range objs {
				if o.Metadata.Namespace != "" && o.Metadata.Namespace != deployNamespace {
					t.Errorf("%s %s renders into namespace %s, want %s", o.Kind, o.Metadata.Name, o.Metadata.Namespace, deployNamespace)
				}
			}
			f := filepath.Join(t.TempDir(), c.Name+".yaml")
			if err := os.WriteFile(f, out, 0o644); err != nil {
				t.Fatal(err)
			}
			run(t, append(apply, "--dry-run=server", "--namespace", deployNamespace, "-f", f)...)

			if vout, ok, err := charts.Validate(adapterBin, objs, t.TempDir()); err != nil {
				t.Error(err)
			} else if ok {
				t.Logf("bundle-adapter validate: %s", bytes.TrimSpace(vout))
			}
		})
	}
}
