package bundles

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// goldenFingerprint is the fingerprint of testdata/bundle.yaml rendered with
// testParams and testNow. It changes only when canonicalization or the
// fingerprinted document changes: that would make every bundle in every
// deployment look changed (one update each) and must be a deliberate,
// release-noted decision. The value was cross-checked with an independent
// implementation (Python: json.dumps(doc, sort_keys=True,
// separators=(",", ":"), ensure_ascii=False) then SHA-256). -update rewrites
// testdata/bundle.canonical.json; the constant is edited by hand.
const goldenFingerprint = "c7601a02aa014abb3837e37a77b76a82b6e9e32c5b6e191caed9d586314cffe2"

func TestGoldenFingerprint(t *testing.T) {
	work := renderFixture(t, "bundle.yaml", testParams())
	canonical, err := Canonical(work)
	if err != nil {
		t.Fatal(err)
	}
	goldenFile := filepath.Join("testdata", "bundle.canonical.json")
	if *update {
		if err := os.WriteFile(goldenFile, append(canonical, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(canonical)+"\n" != string(want) {
		t.Errorf("canonical form of the rendered bundle changed:\ngot  %s\nwant %s", canonical, want)
	}
	fp := mustFingerprint(t, work)
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(fp) {
		t.Fatalf("fingerprint %q is not hex SHA-256", fp)
	}
	if fp != goldenFingerprint {
		t.Errorf("fingerprint = %s, golden %s", fp, goldenFingerprint)
	}
}

// Same meaning, different spelling: key order, flow vs block style,
// whitespace, 1 vs 1.0 vs 1e0.
func TestFingerprintStableAcrossSpelling(t *testing.T) {
	params := map[string]any{"clusterId": "c1"}
	a := renderFixture(t, "order-a.yaml", params)
	b := renderFixture(t, "order-b.yaml", params)
	fa, fb := mustFingerprint(t, a), mustFingerprint(t, b)
	if fa != fb {
		ca, _ := Canonical(a)
		cb, _ := Canonical(b)
		t.Fatalf("fingerprints differ:\n%s\n%s", ca, cb)
	}

	// The same tree decoded through JSON (float64 numbers) and through YAML
	// (ints) agrees too.
	raw, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var viaJSON map[string]any
	if err := json.Unmarshal(raw, &viaJSON); err != nil {
		t.Fatal(err)
	}
	if got := mustFingerprint(t, viaJSON); got != fa {
		t.Errorf("JSON round trip changed the fingerprint: %s vs %s", got, fa)
	}
}

// Go randomizes map iteration; building the same maps in other insertion
// orders, and fingerprinting many times, never changes the result.
func TestFingerprintStableUnderMapOrder(t *testing.T) {
	want := mustFingerprint(t, renderFixture(t, "bundle.yaml", testParams()))
	for i := range 50 {
		work := renderFixture(t, "bundle.yaml", testParams())
		work = reinsert(work, i%2 == 0).(map[string]any)
		if got := mustFingerprint(t, work); got != want {
			t.Fatalf("iteration %d: %s != %s", i, got, want)
		}
	}
}

// reinsert rebuilds every map, inserting keys in reverse-sorted or sorted order.
func reinsert(v any, reverse bool) any {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sortStrings(keys, reverse)
		out := make(map[string]any, len(x))
		for _, k := range keys {
			out[k] = reinsert(x[k], reverse)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = reinsert(x[i], reverse)
		}
		return out
	}
	return v
}

func sortStrings(s []string, reverse bool) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && (s[j] < s[j-1]) != reverse; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func baseWork(t *testing.T) map[string]any {
	t.Helper()
	var work map[string]any
	src := `
apiVersion: work.open-cluster-management.io/v1
kind: ManifestWork
metadata:
  name: c1-validation
  namespace: c1
  resourceVersion: "12"
  labels: {app: v}
  annotations: {hyperfleet.io/generation: "3"}
spec:
  deleteOption: {propagationPolicy: Foreground}
  manifestConfigs:
    - resourceIdentifier: {group: batch, resource: jobs, name: j, namespace: n}
      feedbackRules: [{type: WellKnownStatus}]
  executor: {subject: {type: ServiceAccount}}
  workload:
    manifests:
      - {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: n}, data: {k: v}}
status:
  conditions: [{type: Applied, status: "True"}]
`
	if err := yaml.Unmarshal([]byte(src), &work); err != nil {
		t.Fatal(err)
	}
	return work
}

func TestFingerprintSensitivity(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(w map[string]any)
		changes bool
	}{
		{"manifest value", func(w map[string]any) { setPath(w, "v2", "spec", "workload", "manifests", 0, "data", "k") }, true},
		{"manifest added", func(w map[string]any) {
			ws := w["spec"].(map[string]any)["workload"].(map[string]any)
			ws["manifests"] = append(ws["manifests"].([]any), map[string]any{"kind": "Secret"})
		}, true},
		{"manifest order", func(w map[string]any) {
			ws := w["spec"].(map[string]any)["workload"].(map[string]any)
			ws["manifests"] = append([]any{map[string]any{"kind": "Secret"}}, ws["manifests"].([]any)...)
		}, true},
		{"number type kept apart from string", func(w map[string]any) { setPath(w, 1, "spec", "workload", "manifests", 0, "data", "k") }, true},
		{"deleteOption", func(w map[string]any) { setPath(w, "Orphan", "spec", "deleteOption", "propagationPolicy") }, true},
		{"deleteOption removed", func(w map[string]any) { delete(w["spec"].(map[string]any), "deleteOption") }, true},
		{"manifestConfigs", func(w map[string]any) {
			setPath(w, "j2", "spec", "manifestConfigs", 0, "resourceIdentifier", "name")
		}, true},
		{"label", func(w map[string]any) { setPath(w, "w", "metadata", "labels", "app") }, true},
		{"label added", func(w map[string]any) { setPath(w, "x", "metadata", "labels", "new") }, true},
		{"annotation", func(w map[string]any) { setPath(w, "4", "metadata", "annotations", "hyperfleet.io/generation") }, true},
		{"fingerprint annotation", func(w map[string]any) { Stamp(w, "deadbeef") }, false},
		{"fingerprint annotation changed", func(w map[string]any) {
			Stamp(w, "one")
			Stamp(w, "two")
		}, false},
		{"status", func(w map[string]any) { setPath(w, "False", "status", "conditions", 0, "status") }, false},
		{"status removed", func(w map[string]any) { delete(w, "status") }, false},
		{"name, namespace, resourceVersion", func(w map[string]any) {
			md := w["metadata"].(map[string]any)
			md["name"], md["namespace"], md["resourceVersion"] = "other", "other", "13"
			md["deletionTimestamp"] = "2025-01-01T00:00:00Z"
		}, false},
		{"spec.executor (sent, so fingerprinted)", func(w map[string]any) { setPath(w, "User", "spec", "executor", "subject", "type") }, true},
		{"apiVersion and kind", func(w map[string]any) { w["apiVersion"], w["kind"] = "x", "y" }, false},
	}
	base := mustFingerprint(t, baseWork(t))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := baseWork(t)
			tt.mutate(w)
			got := mustFingerprint(t, w)
			if changed := got != base; changed != tt.changes {
				t.Fatalf("fingerprint changed = %v, want %v", changed, tt.changes)
			}
		})
	}
}

func setPath(root any, value any, steps ...any) {
	cur := root
	for i, s := range steps {
		last := i == len(steps)-1
		switch k := s.(type) {
		case string:
			m := cur.(map[string]any)
			if last {
				m[k] = value
				return
			}
			if m[k] == nil {
				m[k] = map[string]any{}
			}
			cur = m[k]
		case int:
			l := cur.([]any)
			if last {
				l[k] = value
				return
			}
			cur = l[k]
		}
	}
}

// Absent, null and empty labels, annotations, deleteOption, manifestConfigs
// and manifests all mean the same.
func TestFingerprintAbsentEqualsEmpty(t *testing.T) {
	fp := func(w map[string]any) string { return mustFingerprint(t, w) }
	empty := fp(map[string]any{})
	variants := []map[string]any{
		{"metadata": nil, "spec": nil},
		{"metadata": map[string]any{}},
		{"metadata": map[string]any{"labels": map[string]any{}, "annotations": map[string]string{}}},
		{"metadata": map[string]any{"labels": nil, "annotations": map[string]any{FingerprintAnnotation: "x"}}},
		{"spec": map[string]any{"deleteOption": map[string]any{}, "manifestConfigs": []any{}, "workload": map[string]any{"manifests": []any{}}}},
		{"spec": map[string]any{"workload": nil, "manifestConfigs": nil}},
	}
	for i, w := range variants {
		if got := fp(w); got != empty {
			t.Errorf("variant %d: %s != %s", i, got, empty)
		}
	}
	if fp(map[string]any{"metadata": map[string]any{"labels": map[string]any{"a": ""}}}) == empty {
		t.Error("a label with an empty value must count")
	}
}

func TestFingerprintDoesNotModifyWork(t *testing.T) {
	w := baseWork(t)
	Stamp(w, "abc")
	before, _ := Canonical(w)
	mustFingerprint(t, w)
	after, _ := Canonical(w)
	if string(before) != string(after) {
		t.Fatal("Fingerprint modified its input")
	}
	if w["metadata"].(map[string]any)["annotations"].(map[string]any)[FingerprintAnnotation] != "abc" {
		t.Fatal("fingerprint annotation removed from the work")
	}
}

func TestFingerprintErrors(t *testing.T) {
	tests := []struct {
		work map[string]any
		want string
	}{
		{map[string]any{"spec": "x"}, "spec must be an object"},
		{map[string]any{"metadata": []any{}}, "metadata must be an object"},
		{map[string]any{"spec": map[string]any{"workload": 1}}, "spec.workload must be an object"},
		{map[string]any{"metadata": map[string]any{"labels": map[string]any{"a": struct{}{}}}}, "unsupported type"},
	}
	for _, tt := range tests {
		_, err := Fingerprint(tt.work)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Fingerprint(%v) error = %v, want %q", tt.work, err, tt.want)
		}
	}
}

func TestStamp(t *testing.T) {
	tests := []struct {
		name string
		work map[string]any
	}{
		{"no metadata", map[string]any{}},
		{"nil metadata", map[string]any{"metadata": nil}},
		{"nil typed metadata", map[string]any{"metadata": map[string]any(nil)}},
		{"no annotations", map[string]any{"metadata": map[string]any{"name": "n"}}},
		{"nil typed annotations", map[string]any{"metadata": map[string]any{"annotations": map[string]any(nil)}}},
		{"string annotations", map[string]any{"metadata": map[string]any{"annotations": map[string]string{"a": "b"}}}},
		{"existing", map[string]any{"metadata": map[string]any{"annotations": map[string]any{"a": "b", FingerprintAnnotation: "old"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := mustFingerprint(t, tt.work)
			Stamp(tt.work, "fp1")
			var got any
			switch a := tt.work["metadata"].(map[string]any)["annotations"].(type) {
			case map[string]any:
				got = a[FingerprintAnnotation]
			case map[string]string:
				got = a[FingerprintAnnotation]
				if a["a"] != "b" {
					t.Error("other annotations lost")
				}
			}
			if got != "fp1" {
				t.Fatalf("annotation = %v", got)
			}
			if after := mustFingerprint(t, tt.work); after != before {
				t.Fatal("stamping changed the fingerprint")
			}
		})
	}
}
