package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validate loads the kubeconfig as serve will (issue 28 #3): a missing,
// unreadable or unparsable kubeconfig, one that names a file that cannot
// be read, or a context it does not have fails validate (exit 2, naming
// clients.kubernetes.kube_config_path), instead of passing validate and
// failing serve.
func TestValidateLoadsTheKubeconfig(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage")
	os.WriteFile(garbage, []byte("{{{"), 0o600)
	missingCA := filepath.Join(dir, "missing-ca")
	os.WriteFile(missingCA, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: https://x:6443, certificate-authority: nope.crt}\n"+
		"users:\n- name: u\n  user: {token: t}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n"), 0o600)
	good, _ := filepath.Abs("../../kubeclient/testdata/two-contexts.kubeconfig")
	shape := filepath.Join("testdata", "hyperfleet-shapes", "kubernetes")
	tests := []struct {
		name, kubeconfig, context string
		code                      int
		want                      string
	}{
		{"valid", good, "", 0, "valid: shape-dryrun"},
		{"valid context", good, "second", 0, "valid: shape-dryrun"},
		{"unknown context", good, "third", 2, "third"},
		{"missing", filepath.Join(dir, "none"), "", 2, "no such file"},
		{"not yaml", garbage, "", 2, garbage},
		{"device", "/dev/zero", "", 2, "not a regular file"},
		{"CA missing", missingCA, "", 2, "certificate-authority " + filepath.Join(dir, "nope.crt")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := filepath.Join(t.TempDir(), "adapter.yaml")
			body := "adapter: {name: shape-dryrun, version: \"0.1.0\"}\nclients:\n  hyperfleet_api: {timeout: 10s}\n" +
				"  kubernetes: {kube_config_path: \"" + tt.kubeconfig + "\", context: \"" + tt.context + "\"}\n"
			os.WriteFile(cfg, []byte(body), 0o600)
			code, out, errOut := runCLI(t, "validate", "-c", cfg, "-t", filepath.Join(shape, "task-config.yaml"),
				"--ref-root", "/etc/adapter="+shape)
			if code != tt.code || !strings.Contains(out+errOut, tt.want) {
				t.Fatalf("exit %d (want %d, output with %q)\nstdout: %s\nstderr: %s", code, tt.code, tt.want, out, errOut)
			}
			if code != 0 && !strings.Contains(errOut, "clients.kubernetes.kube_config_path") {
				t.Errorf("error does not name the key: %s", errOut)
			}
		})
	}
}
