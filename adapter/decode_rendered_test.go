package adapter

import (
	"reflect"
	"testing"
)

// decodeRendered gives decodeWork's work and error (nil or not, same
// message) for the trees an event renders: valid, with fields the type
// lacks, and with a value of the wrong type.
func TestDecodeRenderedIsDecodeWork(t *testing.T) {
	manifest := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c", "namespace": "ns"}, "data": map[string]any{"k": "v"}, "n": int64(3)}
	work := func(spec map[string]any, meta map[string]any) map[string]any {
		return map[string]any{"apiVersion": "work.open-cluster-management.io/v1", "kind": "ManifestWork",
			"metadata": meta, "spec": spec}
	}
	meta := map[string]any{"name": "w", "namespace": "cluster1", "labels": map[string]any{"a": "b"},
		"annotations": map[string]any{"bundle-adapter.io/fingerprint": "fp"}}
	trees := map[string]map[string]any{
		"valid": work(map[string]any{"workload": map[string]any{"manifests": []any{manifest}},
			"deleteOption": map[string]any{"propagationPolicy": "Foreground"},
			"manifestConfigs": []any{map[string]any{"resourceIdentifier": map[string]any{"resource": "configmaps", "name": "c", "namespace": "ns"},
				"feedbackRules": []any{map[string]any{"type": "WellKnownStatus"}}}}}, meta),
		"unknown fields": work(map[string]any{"workload": map[string]any{"manifests": []any{manifest}, "extra": true},
			"deleteOption": map[string]any{"propagationPolicy": "Foreground", "gracePeriodSeconds": int64(30)}}, meta),
		"wrong type": work(map[string]any{"workload": map[string]any{"manifests": "not a list"}}, meta),
		"wrong label": work(map[string]any{"workload": map[string]any{"manifests": []any{manifest}}},
			map[string]any{"name": "w", "labels": map[string]any{"a": int64(1)}}),
		"no spec": work(nil, meta),
	}
	for name, tree := range trees {
		want, _, wantErr := decodeWork(tree)
		got, gotErr := decodeRendered(tree)
		if (gotErr != nil) != (wantErr != nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Errorf("%s: error %v, decodeWork %v", name, gotErr, wantErr)
			continue
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: work\n%+v\ndecodeWork\n%+v", name, got, want)
		}
	}
}
