package e2e

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const deployDir = "../hack/deploy"

// TestDeployManifestsApply applies every manifest of hack/deploy to the
// local API server with a server-side dry-run: each file on its own, then
// the kustomization. Any error or warning fails the test (the namespace is
// labelled pod-security warn=restricted, so a pod template that breaks the
// restricted profile warns). The namespace itself is applied for real,
// since namespaced objects cannot be dry-run into a namespace that does
// not exist; it is left in place. The generated ConfigMaps must match the
// onprem example (render.sh --check).
func TestDeployManifestsApply(t *testing.T) {
	st := requireStack(t)
	kubectl := os.Getenv("KUBECTL")
	if kubectl == "" {
		t.Fatal(`KUBECTL is not set: eval "$(hack/stack.sh env)"`)
	}
	files := deployManifests(t)
	ns := checkOneNamespace(t, files)

	run := func(args ...string) {
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
		t.Logf("kubectl %s:\n%s", strings.Join(args[1:], " "), strings.TrimSpace(stdout.String()))
	}
	apply := []string{"apply", "--server-side", "--field-manager=bundle-adapter-e2e", "--validate=strict"}

	run(append(apply, "-f", filepath.Join(deployDir, "namespace.yaml"))...)
	if t.Failed() {
		t.Fatalf("namespace %s could not be created", ns)
	}
	for _, f := range files {
		run(append(apply, "--dry-run=server", "-f", f)...)
	}
	run(append(apply, "--dry-run=server", "-k", deployDir)...)

	render := exec.Command(filepath.Join(deployDir, "render.sh"), "--check")
	if out, err := render.CombinedOutput(); err != nil {
		t.Errorf("hack/deploy/render.sh --check: %v\n%s", err, out)
	}
}

// deployManifests lists the manifest files of hack/deploy (every YAML file
// but the kustomization).
func deployManifests(t *testing.T) []string {
	t.Helper()
	all, err := filepath.Glob(filepath.Join(deployDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range all {
		if filepath.Base(f) != "kustomization.yaml" {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		t.Fatalf("no manifests in %s", deployDir)
	}
	return files
}

// checkOneNamespace returns the namespace of namespace.yaml and fails the
// test when a namespaced object of the manifests lives elsewhere or names
// no namespace (kubectl apply -f would put it in the caller's default).
func checkOneNamespace(t *testing.T, files []string) string {
	t.Helper()
	type object struct {
		Kind     string
		Metadata struct{ Name, Namespace string }
	}
	var ns string
	var namespaced []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var o object
			if err := dec.Decode(&o); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			switch o.Kind {
			case "":
			case "Namespace":
				ns = o.Metadata.Name
			default:
				namespaced = append(namespaced, filepath.Base(f)+": "+o.Kind+" "+o.Metadata.Name+" in "+o.Metadata.Namespace)
			}
		}
	}
	if ns == "" {
		t.Fatalf("no Namespace among %v", files)
	}
	for _, n := range namespaced {
		if !strings.HasSuffix(n, " in "+ns) {
			t.Errorf("%s, want namespace %s", n, ns)
		}
	}
	return ns
}
