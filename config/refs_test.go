package config

import (
	"github.com/bundle-adapter/bundle-adapter/task"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const absRefManifest = "apiVersion: work.open-cluster-management.io/v1\nkind: ManifestWork\nmetadata: {name: \"{{ .clusterId }}-mw\"}\nspec: {workload: {manifests: []}}\n"

func absRefTask(ref string) string {
	return "params:\n  - {name: clusterId, source: event.id, required: true}\nresources:\n  - name: bundle\n" +
		"    transport: {client: maestro, maestro: {target_cluster: c1}}\n    manifest: {ref: " + ref + "}\n"
}

func writeRefFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// An absolute manifest ref works in the pod (the file is in the task
// config's own folder) and on a laptop (by base name beside the task config,
// or through --ref-root), and is never read from anywhere else.
func TestAbsoluteManifestRefs(t *testing.T) {
	tmp := t.TempDir()
	pod := filepath.Join(tmp, "etc", "adapter") // the chart's mount folder
	writeRefFile(t, filepath.Join(pod, "manifestwork.yaml"), absRefManifest)
	writeRefFile(t, filepath.Join(pod, "task-config.yaml"), absRefTask(filepath.Join(pod, "manifestwork.yaml")))

	laptop := filepath.Join(tmp, "charts", "maestro")
	writeRefFile(t, filepath.Join(laptop, "adapter-task-resource-manifestwork.yaml"), absRefManifest)
	writeRefFile(t, filepath.Join(laptop, "mapped-folder.yaml"), absRefTask("/etc/adapter/adapter-task-resource-manifestwork.yaml"))
	writeRefFile(t, filepath.Join(laptop, "mapped-file.yaml"), absRefTask("/etc/adapter/manifestwork.yaml"))
	writeRefFile(t, filepath.Join(laptop, "escape.yaml"), absRefTask("/etc/adapter/../secret/manifestwork.yaml"))
	writeRefFile(t, filepath.Join(laptop, "escape-root.yaml"), absRefTask("/etc/adapter/sub/../../secret.yaml"))
	writeRefFile(t, filepath.Join(tmp, "etc", "secret", "manifestwork.yaml"), absRefManifest)
	writeRefFile(t, filepath.Join(tmp, "outside.yaml"), absRefManifest)
	if err := os.Symlink(filepath.Join(tmp, "outside.yaml"), filepath.Join(laptop, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	writeRefFile(t, filepath.Join(laptop, "link-ref.yaml"), absRefTask("/etc/adapter/link.yaml"))

	folder := task.RefRoot{From: "/etc/adapter", To: laptop}
	file := task.RefRoot{From: "/etc/adapter/manifestwork.yaml", To: filepath.Join(laptop, "adapter-task-resource-manifestwork.yaml")}
	tests := []struct {
		name  string
		task  string
		roots []task.RefRoot
		want  string // "" loads
	}{
		{name: "pod: an absolute ref into the task config's own folder", task: filepath.Join(pod, "task-config.yaml")},
		{name: "laptop: by base name beside the task config", task: filepath.Join("testdata", "hyperfleet", "compat", "abs-ref", "task-config.yaml")},
		{name: "laptop: a folder mapped by --ref-root", task: filepath.Join(laptop, "mapped-folder.yaml"), roots: []task.RefRoot{folder}},
		{name: "laptop: a file mapped by --ref-root", task: filepath.Join(laptop, "mapped-file.yaml"), roots: []task.RefRoot{file}},
		{name: "no mapping, no such file beside: refused", task: filepath.Join(laptop, "mapped-file.yaml"),
			want: `absolute ref "/etc/adapter/manifestwork.yaml" is outside the task config's folder and manifestwork.yaml is not in it`},
		{name: "dot-dot out of the mapped folder: refused", task: filepath.Join(laptop, "escape.yaml"), roots: []task.RefRoot{{From: "/etc/adapter", To: filepath.Join(tmp, "etc", "adapter")}},
			want: `absolute ref "/etc/secret/manifestwork.yaml" is outside the task config's folder`},
		{name: "dot-dot out of the mapped folder, not found beside: refused", task: filepath.Join(laptop, "escape-root.yaml"), roots: []task.RefRoot{folder},
			want: `absolute ref "/etc/secret.yaml" is outside`},
		{name: "a link out of the mapped folder: refused", task: filepath.Join(laptop, "link-ref.yaml"), roots: []task.RefRoot{folder},
			want: `resolves (through a link) outside the config file's folder`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := LoadTaskConfigWith(tt.task, TaskOptions{RefRoots: tt.roots})
			if tt.want == "" {
				if err != nil {
					t.Fatalf("want the ref to load, got:\n%v", err)
				}
				if cfg.Resources[0].Manifest.Compiled == nil {
					t.Fatal("manifest not compiled")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("want error containing %q, got:\n%v", tt.want, err)
			}
		})
	}
}

func TestParseRefRoot(t *testing.T) {
	r, err := task.ParseRefRoot("/etc/adapter/=charts/x")
	if err != nil || r.From != "/etc/adapter" || !filepath.IsAbs(r.To) || !strings.HasSuffix(r.To, "charts/x") {
		t.Errorf("ParseRefRoot = %+v, %v", r, err)
	}
	for _, bad := range []string{"", "/etc/adapter", "etc/adapter=x", "=x", "/etc/adapter="} {
		if _, err := task.ParseRefRoot(bad); err == nil {
			t.Errorf("ParseRefRoot(%q) must fail", bad)
		}
	}
}
