package bundles

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/task"
	"gopkg.in/yaml.v3"
)

func TestRenderTree(t *testing.T) {
	m := compileFixture(t, "bundle.yaml")
	if m.Tree == nil {
		t.Fatal("bundle.yaml should compile to a Tree")
	}
	work := renderFixture(t, "bundle.yaml", testParams())
	tests := []struct {
		steps []any
		want  any
	}{
		{[]any{"metadata", "name"}, "C1-abc-validation"},
		{[]any{"metadata", "annotations", "hyperfleet.io/generation"}, "7"},
		{[]any{"spec", "workload", "manifests", 0, "metadata", "name"}, "validate-c1-abc"},
		{[]any{"spec", "workload", "manifests", 2, "metadata", "annotations", "hyperfleet.io/rendered-at"}, "2025-03-04T05:06:07Z"},
		{[]any{"spec", "workload", "manifests", 2, "spec", "backoffLimit"}, 3},
		{[]any{"spec", "workload", "manifests", 2, "spec", "template", "spec", "containers", 0, "args", 3}, "us-east-1"},
		{[]any{"spec", "workload", "manifests", 2, "spec", "template", "spec", "containers", 0, "env", 2, "value"}, `{"nodes":3,"version":"4.17"}`},
		{[]any{"spec", "workload", "manifests", 3, "data", "script"}, "#!/bin/sh\necho \"validating C1-abc\"\nexit 0\n"},
		{[]any{"spec", "manifestConfigs", 0, "resourceIdentifier", "namespace"}, "validate-c1-abc"},
	}
	for _, tt := range tests {
		if got := at(t, work, tt.steps...); got != tt.want {
			t.Errorf("%v = %#v, want %#v", tt.steps, got, tt.want)
		}
	}
}

// Render never shares maps or slices with the compiled tree: mutating one
// render (as Stamp does) changes neither the template nor the next render.
func TestRenderReturnsFreshTree(t *testing.T) {
	m := compileFixture(t, "bundle.yaml")
	first, err := Render(m, testParams(), testNow)
	if err != nil {
		t.Fatal(err)
	}
	Stamp(first, "abc")
	at(t, first, "spec", "workload", "manifests", 1, "metadata").(map[string]any)["name"] = "mutated"
	first["spec"].(map[string]any)["workload"].(map[string]any)["manifests"].([]any)[0] = "mutated"
	at(t, first, "metadata", "labels").(map[string]any)["extra"] = "x"

	second, err := Render(m, testParams(), testNow)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := at(t, second, "metadata", "annotations").(map[string]any)[FingerprintAnnotation]; ok {
		t.Error("stamp leaked into the compiled tree")
	}
	if got := at(t, second, "spec", "workload", "manifests", 1, "metadata", "name"); got != "validator" {
		t.Errorf("mutation leaked: %v", got)
	}
	if _, ok := at(t, second, "spec", "workload", "manifests", 0).(map[string]any); !ok {
		t.Error("slice mutation leaked")
	}
	if _, ok := at(t, second, "metadata", "labels").(map[string]any)["extra"]; ok {
		t.Error("label mutation leaked")
	}
}

func TestRenderMissingParam(t *testing.T) {
	var raw any
	src := `
kind: ManifestWork
metadata: {name: fixed}
spec:
  workload:
    manifests:
      - kind: Namespace
        metadata: {name: "ns-{{ .clusterId }}"}
`
	if err := yaml.Unmarshal([]byte(src), &raw); err != nil {
		t.Fatal(err)
	}
	m, err := task.CompileManifest("resources[0].manifest", raw)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Render(m, map[string]any{"generation": 1}, testNow)
	if err == nil {
		t.Fatal("render with a missing param succeeded")
	}
	for _, want := range []string{`"clusterId"`, "resources[0].manifest.spec.workload.manifests[0].metadata.name"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %s", err, want)
		}
	}

	// Whole manifests name the file.
	_, err = Render(compileFixture(t, "range.yaml"), map[string]any{"clusterId": "c"}, testNow)
	if err == nil || !strings.Contains(err.Error(), "range.yaml") || !strings.Contains(err.Error(), `"namespaces"`) {
		t.Errorf("whole render error = %v", err)
	}
}

func TestRenderNowInjection(t *testing.T) {
	m := compileFixture(t, "bundle.yaml")
	path := []any{"spec", "workload", "manifests", 2, "metadata", "annotations", "hyperfleet.io/rendered-at"}
	for _, now := range []time.Time{
		time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC),
		time.Date(2030, 12, 31, 23, 59, 59, 0, time.FixedZone("", -5*3600)),
	} {
		work, err := Render(m, testParams(), now)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := at(t, work, path...), now.Format(time.RFC3339); got != want {
			t.Errorf("rendered-at = %v, want %v", got, want)
		}
	}
}

func TestRenderWhole(t *testing.T) {
	m := compileFixture(t, "range.yaml")
	if m.Whole == nil {
		t.Fatal("range.yaml should compile to Whole")
	}
	params := map[string]any{"clusterId": "c9", "namespaces": []any{"ns-a", "ns-b", "ns-c"}, "replicas": 2}
	work, err := Render(m, params, testNow)
	if err != nil {
		t.Fatal(err)
	}
	manifests := at(t, work, "spec", "workload", "manifests").([]any)
	if len(manifests) != 5 {
		t.Fatalf("got %d manifests, want 3 namespaces + 2", len(manifests))
	}
	for i, ns := range []string{"ns-a", "ns-b", "ns-c"} {
		if got := at(t, manifests[i], "metadata", "name"); got != ns {
			t.Errorf("manifest %d name = %v, want %s", i, got, ns)
		}
	}
	if got := at(t, work, "metadata", "name"); got != "c9-namespaces" {
		t.Errorf("name = %v", got)
	}
	if got := at(t, work, "metadata", "annotations", "rendered-at"); got != "2025-03-04" {
		t.Errorf("rendered-at = %v", got)
	}
	// Unquoted {{ .replicas }} becomes a number only in the Whole form.
	if got := at(t, manifests[4], "spec", "replicas"); got != 2 {
		t.Errorf("replicas = %#v, want int 2", got)
	}
	if got := at(t, manifests[3], "data", "count"); got != "3" {
		t.Errorf("count = %#v", got)
	}

	// Every render decodes afresh: no sharing between renders.
	again, err := Render(m, params, testNow)
	if err != nil {
		t.Fatal(err)
	}
	at(t, work, "metadata").(map[string]any)["name"] = "changed"
	if at(t, again, "metadata", "name") != "c9-namespaces" {
		t.Error("renders share maps")
	}
	if got, want := m.Kinds(), []string{"Namespace", "ConfigMap", "Deployment"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Kinds() = %v, want %v", got, want)
	}
}

func TestRenderWholeInvalidYAML(t *testing.T) {
	m, err := task.CompileManifestFile("bad.yaml", []byte("kind: ManifestWork\nmetadata:\n  name: {{ .name }}\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Render(m, map[string]any{"name": "a: b: c"}, testNow)
	if err == nil || !strings.Contains(err.Error(), "bad.yaml: rendered manifest is not valid YAML") {
		t.Fatalf("error = %v", err)
	}
	_, err = Render(m, map[string]any{"name": "x\n---\nkind: Other"}, testNow)
	if err == nil || !strings.Contains(err.Error(), "exactly one YAML document is allowed") {
		t.Fatalf("error = %v", err)
	}
}

func TestRenderErrors(t *testing.T) {
	if _, err := Render(nil, nil, testNow); err == nil {
		t.Error("nil manifest rendered")
	}
	if _, err := Render(&task.Manifest{Tree: []any{}}, nil, testNow); err == nil {
		t.Error("non-map tree rendered")
	}
	m, err := task.CompileManifestFile("list.yaml", []byte("# {{ .x }}\n- a\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Render(m, map[string]any{"x": 1}, testNow); err == nil || !strings.Contains(err.Error(), "not a mapping") {
		t.Errorf("whole list rendered: %v", err)
	}
}

func TestRenderConcurrent(t *testing.T) {
	m := compileFixture(t, "bundle.yaml")
	want := mustFingerprint(t, renderFixture(t, "bundle.yaml", testParams()))
	done := make(chan string, 8)
	for range 8 {
		go func() {
			var fp string
			for range 20 {
				work, err := Render(m, testParams(), testNow)
				if err != nil {
					done <- err.Error()
					return
				}
				fp, _ = Fingerprint(work)
			}
			done <- fp
		}()
	}
	for range 8 {
		if got := <-done; got != want {
			t.Errorf("concurrent render fingerprint = %s, want %s", got, want)
		}
	}
}

// Values rendered unquoted into a Whole manifest cannot smuggle a YAML alias
// bomb past the limits: the rendered text is decoded with the same bounded
// decoder as config files (configfile.DecodeYAML), so the render fails fast.
func TestRenderWholeBoundsAliases(t *testing.T) {
	// 8 levels of merge keys, each merging the level below 10 times.
	names := []any{"&a0 {k: v}"}
	for i := 1; i <= 8; i++ {
		alias := fmt.Sprintf("*a%d", i-1)
		names = append(names, fmt.Sprintf("&a%d {<<: [%s]}", i, strings.TrimSuffix(strings.Repeat(alias+", ", 10), ", ")))
	}
	params := map[string]any{"clusterId": "c9", "namespaces": names, "replicas": 2}
	_, err := Render(compileFixture(t, "range.yaml"), params, testNow)
	if err == nil || !strings.Contains(err.Error(), "range.yaml") || !strings.Contains(err.Error(), "alias") {
		t.Fatalf("render of an alias bomb: %v, want an alias error naming range.yaml", err)
	}
}
