package task

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/tmpl"
	"gopkg.in/yaml.v3"
)

func manifestFixture(t *testing.T, name string) (string, []byte) {
	t.Helper()
	file := filepath.Join("testdata", "templates", name)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return file, data
}

// manifestAt walks a compiled tree by keys and indexes.
func manifestAt(t *testing.T, tree any, steps ...any) any {
	t.Helper()
	cur := tree
	for _, s := range steps {
		switch k := s.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				t.Fatalf("at %v: %T is not a map", s, cur)
			}
			cur = m[k]
		case int:
			l, ok := cur.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("at %v: %T is not a long enough list", s, cur)
			}
			cur = l[k]
		}
	}
	return cur
}

func TestCompileManifestFileTree(t *testing.T) {
	file, data := manifestFixture(t, "tree.yaml")
	m, err := CompileManifestFile(file, data)
	if err != nil {
		t.Fatal(err)
	}
	if m.Whole != nil || m.Tree == nil {
		t.Fatalf("want a Tree, got Whole=%v", m.Whole != nil)
	}
	if m.Ref != file {
		t.Fatalf("Ref = %q", m.Ref)
	}
	tests := []struct {
		steps []any
		tmpl  string // template source, or "" for a literal
		name  string // template name
		lit   any
	}{
		{steps: []any{"metadata", "name"}, tmpl: "{{ .clusterId }}-validation", name: file + ":metadata.name"},
		{steps: []any{"metadata", "labels", "hyperfleet.io/cluster-id"}, tmpl: "{{ .clusterId }}", name: file + `:metadata.labels["hyperfleet.io/cluster-id"]`},
		{steps: []any{"metadata", "labels", "app"}, lit: "validation"},
		{steps: []any{"spec", "workload", "manifests", 0, "metadata", "name"}, tmpl: "validate-{{ .clusterId | lower }}", name: file + ":spec.workload.manifests[0].metadata.name"},
		{steps: []any{"spec", "workload", "manifests", 1, "spec", "backoffLimit"}, lit: 3},
		{steps: []any{"spec", "workload", "manifests", 1, "metadata", "annotations", "created"}, lit: "2024-01-02"},
		{steps: []any{"spec", "workload", "manifests", 1, "spec", "template", "spec", "containers", 0, "args", 3}, tmpl: `{{ now | date "2006-01-02T15:04:05Z07:00" }}`},
		{steps: []any{"spec", "workload", "manifests", 1, "spec", "template", "spec", "containers", 0, "args", 0}, lit: "--cluster"},
	}
	for _, tt := range tests {
		got := manifestAt(t, m.Tree, tt.steps...)
		if tt.tmpl == "" {
			if got != tt.lit {
				t.Errorf("%v = %#v, want literal %#v", tt.steps, got, tt.lit)
			}
			continue
		}
		tp, ok := got.(*tmpl.Template)
		if !ok {
			t.Errorf("%v = %#v, want a *Template", tt.steps, got)
			continue
		}
		if tp.Source() != tt.tmpl {
			t.Errorf("%v source = %q, want %q", tt.steps, tp.Source(), tt.tmpl)
		}
		if tt.name != "" && tp.Name != tt.name {
			t.Errorf("%v name = %q, want %q", tt.steps, tp.Name, tt.name)
		}
	}
	if got, want := m.Kinds(), []string{"Namespace", "Job"}; !slices.Equal(got, want) {
		t.Errorf("Kinds() = %v, want %v (templated kind left out)", got, want)
	}
}

func TestCompileManifestFileWhole(t *testing.T) {
	tests := []struct {
		file  string
		kinds []string
	}{
		{"range.yaml", []string{"Namespace", "ConfigMap"}},
		{"comment.yaml", []string{"ConfigMap"}},
		{"templated-key.yaml", []string{"Secret"}},
		{"crd.yaml", []string{"CustomResourceDefinition", "Namespace"}},
		{"scan.yaml", []string{"Namespace", "CustomResourceDefinition"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			file, data := manifestFixture(t, tt.file)
			m, err := CompileManifestFile(file, data)
			if err != nil {
				t.Fatal(err)
			}
			if m.Whole == nil || m.Tree != nil {
				t.Fatalf("want Whole, got Tree %v", m.Tree)
			}
			if m.Whole.Source() != string(data) || m.Ref != file {
				t.Fatalf("Whole source or Ref not the file")
			}
			if got := m.Kinds(); !slices.Equal(got, tt.kinds) {
				t.Fatalf("Kinds() = %v, want %v", got, tt.kinds)
			}
		})
	}
}

func TestCompileManifestFileErrors(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"invalid.yaml", []string{"invalid.yaml", "yaml: line "}},
		{"multi-doc.yaml", []string{"multi-doc.yaml", "more than one YAML document"}},
		{"env.yaml", []string{"env.yaml", `function "env" not defined`}},
		{"list.yaml", []string{"list.yaml", "must be a mapping"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			file, data := manifestFixture(t, tt.file)
			_, err := CompileManifestFile(file, data)
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
	if _, err := CompileManifestFile("empty.yaml", nil); err == nil || !strings.Contains(err.Error(), "empty.yaml: empty manifest") {
		t.Errorf("empty file: %v", err)
	}
}

func manifestDecode(t *testing.T, src string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(src), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestCompileManifestInline(t *testing.T) {
	raw := manifestDecode(t, `
apiVersion: work.open-cluster-management.io/v1
kind: ManifestWork
metadata:
  name: "{{ .clusterId }}"
  labels: {1: one, true: yes}
spec:
  workload:
    manifests:
      - {apiVersion: v1, kind: Namespace, metadata: {name: "ns-{{ .clusterId }}"}}
      - {apiVersion: v1, kind: ConfigMap, data: {ratio: 1.5, when: 2024-05-06T07:08:09Z}}
`)
	m, err := CompileManifest("resources[0].manifest", raw)
	if err != nil {
		t.Fatal(err)
	}
	if m.Ref != "" || m.Whole != nil {
		t.Fatalf("inline manifest: Ref=%q Whole=%v", m.Ref, m.Whole)
	}
	tp, ok := manifestAt(t, m.Tree, "spec", "workload", "manifests", 0, "metadata", "name").(*tmpl.Template)
	if !ok || tp.Name != "resources[0].manifest.spec.workload.manifests[0].metadata.name" {
		t.Fatalf("template not compiled with its YAML path: %#v", tp)
	}
	if got, _ := manifestAt(t, m.Tree, "metadata", "labels").(map[string]any); !manifestEqualJSON(got, map[string]any{"1": "one", "true": "yes"}) {
		t.Errorf("non-string keys = %#v", got)
	}
	if got := manifestAt(t, m.Tree, "spec", "workload", "manifests", 1, "data", "when"); got != "2024-05-06T07:08:09Z" {
		t.Errorf("timestamp = %#v", got)
	}
	if got := m.Kinds(); !slices.Equal(got, []string{"Namespace", "ConfigMap"}) {
		t.Errorf("Kinds() = %v", got)
	}

	// The compiled tree is a copy: changing the input does not change it.
	raw.(map[string]any)["kind"] = "Changed"
	if m.Tree.(map[string]any)["kind"] != "ManifestWork" {
		t.Error("compiled tree shares maps with the input")
	}

	// A *yaml.Node is accepted too.
	var node yaml.Node
	if err := yaml.Unmarshal([]byte("kind: ManifestWork\nmetadata: {name: \"{{ .x }}\"}\n"), &node); err != nil {
		t.Fatal(err)
	}
	if m, err := CompileManifest("r", &node); err != nil {
		t.Fatal(err)
	} else if _, ok := manifestAt(t, m.Tree, "metadata", "name").(*tmpl.Template); !ok {
		t.Error("yaml.Node input not compiled")
	}
}

func manifestEqualJSON(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestCompileManifestInlineErrors(t *testing.T) {
	tests := []struct {
		name string
		raw  any
		want []string
	}{
		{"not a mapping", []any{"a"}, []string{"resources[1].manifest", "must be a mapping"}},
		{"templated key", map[string]any{"metadata": map[string]any{"labels": map[string]any{"{{ .k }}": "v"}}},
			[]string{`resources[1].manifest.metadata.labels["{{ .k }}"]`, "template in a mapping key"}},
		{"bad template", map[string]any{"spec": []any{map[string]any{"name": "{{ .x "}}},
			[]string{"resources[1].manifest.spec[0].name"}},
		{"unknown func", map[string]any{"metadata": map[string]any{"name": `{{ readFile "/etc/passwd" }}`}},
			[]string{"resources[1].manifest.metadata.name", `function "readFile" not defined`}},
		{"nan", manifestDecode(t, "spec: {x: .nan}"), []string{"resources[1].manifest.spec.x", "not a JSON number"}},
		{"struct", map[string]any{"spec": struct{}{}}, []string{"resources[1].manifest.spec", "unsupported value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CompileManifest("resources[1].manifest", tt.raw)
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

func TestManifestKeyPath(t *testing.T) {
	tests := []struct{ parent, key, want string }{
		{"", "spec", "spec"},
		{"a", "b_c-d", "a.b_c-d"},
		{"a", "hyperfleet.io/x", `a["hyperfleet.io/x"]`},
		{"a", "has space", `a["has space"]`},
		{"a", "1", `a["1"]`},
	}
	for _, tt := range tests {
		if got := manifestKeyPath(tt.parent, tt.key); got != tt.want {
			t.Errorf("manifestKeyPath(%q, %q) = %q, want %q", tt.parent, tt.key, got, tt.want)
		}
	}
}

// A rendered Whole manifest is normalized by the walk that compiles a
// Tree, except that its strings are output: "{{" in a value or a key stays.
func TestNormalizeRendered(t *testing.T) {
	cases := []struct {
		name    string
		yaml    string
		want    any
		wantErr string
	}{
		{name: "strings stay strings", yaml: "a: '{{ .x }}'\n'{{ k }}': b\n",
			want: map[string]any{"a": "{{ .x }}", "{{ k }}": "b"}},
		{name: "non-string keys become text", yaml: "1: a\ntrue: b\n1.5: c\n",
			want: map[string]any{"1": "a", "true": "b", "1.5": "c"}},
		{name: "timestamps become text", yaml: "d: 2024-01-02\nt: 2024-01-02T03:04:05Z\nl: [2024-01-02]\n",
			want: map[string]any{"d": "2024-01-02", "t": "2024-01-02T03:04:05Z", "l": []any{"2024-01-02"}}},
		{name: "NaN is an error at its path", yaml: "spec:\n  items: [1, .nan]\n",
			wantErr: "bad.yaml:spec.items[1]: NaN is not a JSON number"},
		{name: "infinity under a dotted key", yaml: "metadata:\n  labels: {a.b/c: .inf}\n",
			wantErr: `bad.yaml:metadata.labels["a.b/c"]: +Inf is not a JSON number`},
		{name: "two keys of one spelling", yaml: "1: a\n1.0: b\n",
			wantErr: `bad.yaml: duplicate key "1"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var raw any
			if err := yaml.Unmarshal([]byte(c.yaml), &raw); err != nil {
				t.Fatal(err)
			}
			got, err := NormalizeRendered("bad.yaml", raw)
			if c.wantErr != "" {
				if err == nil || err.Error() != c.wantErr {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %#v, want %#v", got, c.want)
			}
		})
	}
}
