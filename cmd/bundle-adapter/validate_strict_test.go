package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// validate --strict refuses (exit 2) a config validate only warns about
// (a param reading an undeclared name: the kubernetes shape), and still
// passes a config without warnings.
func TestValidateStrictExitsTwoOnWarnings(t *testing.T) {
	dir := filepath.Join("testdata", "hyperfleet-shapes")
	warned := []string{"-c", filepath.Join(dir, "kubernetes", "adapter-config.yaml"), "-t", filepath.Join(dir, "kubernetes", "task-config.yaml"),
		"--ref-root", "/etc/adapter=" + filepath.Join(dir, "kubernetes")}
	clean := []string{"-c", filepath.Join(dir, "kubernetes-chart", "adapter-config.yaml"), "-t", filepath.Join(dir, "kubernetes-chart", "task-config.yaml"),
		"--ref-root", "/etc/adapter=" + filepath.Join(dir, "kubernetes-chart")}
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"warning without --strict", append([]string{"validate"}, warned...), 0},
		{"warning with --strict", append([]string{"validate", "--strict"}, warned...), 2},
		{"clean with --strict", append([]string{"validate", "--strict"}, clean...), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, out, errOut)
			}
			if c.code == 2 && (!strings.Contains(errOut, "no_such_variable") || !strings.Contains(errOut, "--strict")) {
				t.Errorf("stderr does not name the warning and --strict:\n%s", errOut)
			}
		})
	}
}
