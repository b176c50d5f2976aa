package bundles

import (
	"encoding/json"
	"flag"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// workOfSize returns a bundle of n ConfigMaps each holding a value of size
// bytes; the value has HTML characters, which encoding/json escapes.
func workOfSize(n, size int) map[string]any {
	manifests := make([]any, n)
	for i := range manifests {
		manifests[i] = map[string]any{
			"apiVersion": "v1",
			"kind":       "ConfigMap",
			"metadata":   map[string]any{"name": "cm-" + strconv.Itoa(i), "namespace": "default"},
			"data":       map[string]any{"payload": strings.Repeat("<x&y>", size/5), "ratio": 0.5, "count": i},
		}
	}
	return map[string]any{
		"apiVersion": "work.open-cluster-management.io/v1",
		"kind":       "ManifestWork",
		"metadata":   map[string]any{"name": "big", "labels": map[string]any{"app": "x"}},
		"spec":       map[string]any{"workload": map[string]any{"manifests": manifests}},
	}
}

func TestCheckSize(t *testing.T) {
	tests := []struct {
		name    string
		work    map[string]any
		wantErr bool
	}{
		{"small", workOfSize(3, 1000), false},
		{"just under", nil, false},
		{"just over", nil, true},
		{"large", workOfSize(100, 10_000), true},
	}
	// Build bundles one byte either side of the limit from the measured size.
	base := workOfSize(1, 0)
	baseLen := jsonLen(t, base)
	pad := func(extra int) map[string]any {
		w := workOfSize(1, 0)
		w["metadata"].(map[string]any)["labels"].(map[string]any)["pad"] = strings.Repeat("p", extra)
		return w
	}
	overhead := jsonLen(t, pad(0)) - baseLen
	tests[1].work = pad(MaxBundleBytes - baseLen - overhead)
	tests[2].work = pad(MaxBundleBytes - baseLen - overhead + 1)
	if n := jsonLen(t, tests[1].work); n != MaxBundleBytes {
		t.Fatalf("just-under bundle is %d bytes", n)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckSize("c1-validation", tt.work)
			if (err != nil) != tt.wantErr {
				t.Fatalf("CheckSize error = %v, want error %v", err, tt.wantErr)
			}
			if err == nil {
				return
			}
			size := strconv.Itoa(jsonLen(t, tt.work))
			for _, want := range []string{`"c1-validation"`, size, strconv.Itoa(MaxBundleBytes)} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %s", err, want)
				}
			}
		})
	}
}

// jsonLen is the size of what encoding/json sends.
func jsonLen(t *testing.T, v any) int {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

func TestCheckSizeUnencodable(t *testing.T) {
	err := CheckSize("b", map[string]any{"spec": func() {}})
	if err == nil || !strings.Contains(err.Error(), `bundle "b"`) {
		t.Fatalf("error = %v", err)
	}
}
