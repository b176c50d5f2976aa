package adapter

import (
	"reflect"
	"testing"
)

// checkRendered fails exactly when decodeRendered fails, with its message,
// over trees with every kind of manifest value and with a wrong value
// before, in and after the manifests; it leaves the tree as it was.
func TestCheckRenderedIsDecodeRendered(t *testing.T) {
	manifest := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c", "namespace": "ns"}, "data": map[string]any{"k": "v"}, "n": int64(3)}
	meta := map[string]any{"name": "w", "namespace": "cluster1", "labels": map[string]any{"a": "b"},
		"annotations": map[string]any{"bundle-adapter.io/fingerprint": "fp"}}
	work := func(meta map[string]any, spec any) map[string]any {
		return map[string]any{"apiVersion": "work.open-cluster-management.io/v1", "kind": "ManifestWork",
			"metadata": meta, "spec": spec}
	}
	specOf := func(manifests any, more ...any) map[string]any {
		spec := map[string]any{"workload": map[string]any{"manifests": manifests}}
		for i := 0; i+1 < len(more); i += 2 {
			spec[more[i].(string)] = more[i+1]
		}
		return spec
	}
	trees := map[string]map[string]any{
		"valid": work(meta, specOf([]any{manifest, manifest},
			"deleteOption", map[string]any{"propagationPolicy": "Foreground"},
			"manifestConfigs", []any{map[string]any{"resourceIdentifier": map[string]any{"resource": "configmaps", "name": "c"},
				"feedbackRules": []any{map[string]any{"type": "JSONPaths", "jsonPaths": []any{map[string]any{"name": "s", "path": ".status"}}}}}})),
		"manifests of every JSON kind": work(meta, specOf([]any{nil, "s", int64(1), 1.5, true, []any{int64(1)}, map[string]any{}})),
		"manifests empty":              work(meta, specOf([]any{})),
		"manifests null":               work(meta, specOf(nil)),
		"manifests a string":           work(meta, specOf("not a list")),
		"manifests a map":              work(meta, specOf(map[string]any{"a": manifest})),
		"manifests a number":           work(meta, specOf(int64(3))),
		"no workload":                  work(meta, map[string]any{"deleteOption": map[string]any{"propagationPolicy": "Orphan"}}),
		"workload null":                work(meta, map[string]any{"workload": nil}),
		"no spec":                      work(meta, nil),
		"label not a string":           work(map[string]any{"name": "w", "labels": map[string]any{"a": int64(1)}}, specOf([]any{manifest})),
		"generation fractional":        work(map[string]any{"name": "w", "generation": 1.5}, specOf([]any{manifest})),
		"deleteOption a list":          work(meta, specOf([]any{manifest}, "deleteOption", []any{"x"})),
		"manifestConfigs a map":        work(meta, specOf([]any{manifest}, "manifestConfigs", map[string]any{"a": "b"})),
		"feedback rule type a number": work(meta, specOf([]any{manifest}, "manifestConfigs",
			[]any{map[string]any{"feedbackRules": []any{map[string]any{"type": int64(1)}}}})),
		"executor a string":      work(meta, specOf([]any{manifest}, "executor", "x")),
		"status a string":        map[string]any{"apiVersion": "work.open-cluster-management.io/v1", "kind": "ManifestWork", "metadata": meta, "spec": specOf([]any{manifest}), "status": "x"},
		"two errors, one first":  work(map[string]any{"name": int64(1)}, specOf("not a list", "deleteOption", []any{})),
		"unknown fields dropped": work(meta, specOf([]any{manifest}, "extra", true)),
	}
	for name, tree := range trees {
		before := deepCopyTree(tree)
		_, wantErr := decodeRendered(tree)
		gotErr := checkRendered(tree)
		if (gotErr != nil) != (wantErr != nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Errorf("%s: checkRendered %v, decodeRendered %v", name, gotErr, wantErr)
		}
		if !reflect.DeepEqual(tree, before) {
			t.Errorf("%s: the tree was modified", name)
		}
	}
}

func deepCopyTree(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopyTree(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopyTree(e)
		}
		return out
	}
	return v
}
