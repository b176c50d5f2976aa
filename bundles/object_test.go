package bundles

import "testing"

// An object's fingerprint covers what the adapter applies and nothing the
// API server adds: status, server metadata, the fingerprint itself, and
// empty labels or annotations do not change it; any applied field does.
func TestObjectFingerprint(t *testing.T) {
	base := func() map[string]any {
		return map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "cm", "namespace": "ns", "labels": map[string]any{"a": "1"}},
			"data":     map[string]any{"k": "v"},
		}
	}
	want, err := ObjectFingerprint(base())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(o map[string]any)
		same   bool
	}{
		{"status added", func(o map[string]any) { o["status"] = map[string]any{"phase": "Active"} }, true},
		{"server metadata added", func(o map[string]any) {
			m := o["metadata"].(map[string]any)
			m["uid"], m["resourceVersion"], m["generation"] = "u", "7", int64(3)
			m["creationTimestamp"], m["managedFields"] = "2026-01-01T00:00:00Z", []any{map[string]any{"manager": "x"}}
		}, true},
		{"fingerprint stamped", func(o map[string]any) { Stamp(o, "abc") }, true},
		{"empty annotations", func(o map[string]any) { o["metadata"].(map[string]any)["annotations"] = map[string]any{} }, true},
		{"data changed", func(o map[string]any) { o["data"] = map[string]any{"k": "w"} }, false},
		{"label changed", func(o map[string]any) { o["metadata"].(map[string]any)["labels"] = map[string]any{"a": "2"} }, false},
		{"annotation added", func(o map[string]any) { o["metadata"].(map[string]any)["annotations"] = map[string]any{"x": "y"} }, false},
		{"namespace changed", func(o map[string]any) { o["metadata"].(map[string]any)["namespace"] = "other" }, false},
		{"finalizer added", func(o map[string]any) { o["metadata"].(map[string]any)["finalizers"] = []any{"f"} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base()
			tt.change(o)
			got, err := ObjectFingerprint(o)
			if err != nil {
				t.Fatal(err)
			}
			if (got == want) != tt.same {
				t.Errorf("fingerprint same = %v, want %v", got == want, tt.same)
			}
		})
	}
}
