package task

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A tree with several failing templates reports the first in key order,
// every time: the same input gives the same error (and status message),
// whatever Go's map order.
func TestExecuteTreeFirstErrorInKeyOrder(t *testing.T) {
	m, err := CompileManifestFile("m.yaml", []byte(`
metadata: {name: "{{ .id }}", labels: {z: "{{ .missingZ }}", b: "{{ .missingB }}"}}
spec: {a: "{{ .missingA }}", list: ["{{ .id }}", "{{ .missingL }}"]}
`))
	if err != nil {
		t.Fatal(err)
	}
	data := map[string]any{"id": "x"}
	for range 50 {
		_, err := ExecuteTree(context.Background(), m.Tree, data, time.Time{})
		if err == nil || !strings.Contains(err.Error(), `"missingB"`) {
			t.Fatalf("error %v, want the one of metadata.labels.b (missingB)", err)
		}
	}
	out, err := ExecuteTree(context.Background(), m.Tree, map[string]any{"id": "x", "missingZ": "z", "missingB": "b", "missingA": "a", "missingL": "l"}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(map[string]any)["spec"].(map[string]any)["list"].([]any)[1]; got != "l" {
		t.Errorf("spec.list[1] = %v, want l", got)
	}
}
